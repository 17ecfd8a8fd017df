package tune

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/mtune/mtune/rundir"

	"github.com/mtune/mtune/decoder/external"
	"github.com/mtune/mtune/io/storage"
)

// ExternalConfig is the external decoder's configuration.
type ExternalConfig struct {
	// Command is the decoder's program and its arguments
	// (external.Split of DecoderSetup.Command).
	Command []string `json:"command"`
	// Ini is the moses.ini given to the decoder with -f.
	Ini string `json:"ini"`
	// Env holds the variables of ${NAME} in the moses.ini as the launching
	// machine's environment gives them; the decoder gets them in its
	// environment.
	Env map[string]string `json:"env,omitempty"`
}

// String encodes c as the decoder's configuration string.
func (c ExternalConfig) String() string {
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // strings only: cannot fail
	}
	return string(b)
}

// ParseExternalConfig decodes a configuration string of
// ExternalConfig.String.
func ParseExternalConfig(s string) (ExternalConfig, error) {
	var c ExternalConfig
	if err := rundir.UnmarshalStrict([]byte(s), &c); err != nil {
		return ExternalConfig{}, fmt.Errorf("tune: external decoder configuration %q: %w", s, err)
	}
	if len(c.Command) == 0 || c.Ini == "" {
		return ExternalConfig{}, fmt.Errorf("tune: external decoder configuration %q names no command or no moses.ini", s)
	}
	return c, nil
}

// OpenExternal returns the external decoder of the configuration string
// config (ParseExternalConfig), the factory of ExternalDecoderName: it
// checks that the program is found on this worker and reads the moses.ini's
// dense features.
func OpenExternal(ctx context.Context, config string) (Decoder, error) {
	c, err := ParseExternalConfig(config)
	if err != nil {
		return nil, err
	}
	if storage.IsGCS(c.Ini) {
		return nil, fmt.Errorf("tune: the external decoder reads its moses.ini itself: %s must be a local path", c.Ini)
	}
	d, err := external.New(ctx, external.Config{Command: c.Command, Ini: c.Ini, Env: c.Env})
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	return d, nil
}

func init() {
	RegisterDecoder(ExternalDecoderName, "a Moses-compatible decoder command run as a subprocess (decoder/external)",
		func(ctx context.Context, config string, _ Logf) (Decoder, error) { return OpenExternal(ctx, config) })
}
