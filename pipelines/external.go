package pipelines

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/mtune/mtune/decoder/external"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/tune"
)

// ExternalDecoderName is the name the external decoder is registered
// under (transforms.RegisterDecoder): a Moses-compatible decoder run as a
// subprocess on the workers (decoder/external). Its configuration string
// is the JSON of an ExternalConfig.
const ExternalDecoderName = "external"

// ExternalConfig is the external decoder's configuration.
type ExternalConfig struct {
	// Command is the decoder's program and its arguments
	// (external.Split of Options.DecoderCommand).
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
		return ExternalConfig{}, fmt.Errorf("pipelines: external decoder configuration %q: %w", s, err)
	}
	if len(c.Command) == 0 || c.Ini == "" {
		return ExternalConfig{}, fmt.Errorf("pipelines: external decoder configuration %q names no command or no moses.ini", s)
	}
	return c, nil
}

// openExternal returns the external decoder of the configuration string
// config (ParseExternalConfig): it checks that the program is found on
// this worker and reads the moses.ini's dense features.
func openExternal(ctx context.Context, config string) (tune.Decoder, error) {
	c, err := ParseExternalConfig(config)
	if err != nil {
		return nil, err
	}
	if storage.IsGCS(c.Ini) {
		return nil, fmt.Errorf("pipelines: the external decoder reads its moses.ini itself: %s must be a local path", c.Ini)
	}
	d, err := external.New(ctx, external.Config{Command: c.Command, Ini: c.Ini, Env: c.Env})
	if err != nil {
		return nil, fmt.Errorf("pipelines: %w", err)
	}
	return d, nil
}

// checkExternal checks the options of the external decoder
// (o.DecoderCommand): the command splits into words, its program is found
// on this machine, the moses.ini is a local file, and no option sets
// what only the in-process decoder has. It keeps the words in
// o.decoderArgs.
func (o *Options) checkExternal() error {
	if o.Decoder != ExternalDecoderName {
		if o.DecoderCommand != "" {
			return fmt.Errorf("pipelines: a decoder command runs the %q decoder, not %q", ExternalDecoderName, o.Decoder)
		}
		return nil
	}
	for _, x := range []struct {
		set        bool
		flag, what string
	}{
		{len(o.Sparse) > 0, "--sparse", "sparse templates"},
		{o.SearchAlgorithm != "", "--search-algorithm", "the search algorithm"},
		{o.FilterModel, "--filter-model", "model filtering"},
	} {
		if x.set {
			return fmt.Errorf("pipelines: %s: an external decoder takes %s on its own command line (--decoder %q)", x.flag, x.what, o.DecoderCommand)
		}
	}
	words, err := external.Split(o.DecoderCommand)
	if err != nil {
		return fmt.Errorf("pipelines: --decoder: %w", err)
	}
	if _, err := exec.LookPath(words[0]); err != nil {
		return fmt.Errorf("pipelines: --decoder %q: %w", o.DecoderCommand, err)
	}
	if o.Config != "" && storage.IsGCS(o.Config) {
		return fmt.Errorf("pipelines: --decoder: the external decoder reads the moses.ini itself: %s must be a local path", o.Config)
	}
	o.decoderArgs = words
	return nil
}

// externalInputs records in o.iniEnv the variables the moses.ini uses, as
// this machine's environment gives them, for the external decoder's
// environment on the workers, and returns the model files the moses.ini
// names (external.ModelPaths, external.ModelPath.Files), each as an input
// to checksum with its role ("model LM0"). The moses.ini is the decoder's
// to read: this reads only its paths and variables.
func (o *Options) externalInputs(ctx context.Context) ([][2]string, error) {
	data, err := storage.ReadFile(ctx, o.Config)
	if err != nil {
		return nil, fmt.Errorf("pipelines: %w", err)
	}
	for _, name := range external.IniVariables(data) {
		if v, ok := os.LookupEnv(name); ok {
			if o.iniEnv == nil {
				o.iniEnv = map[string]string{}
			}
			o.iniEnv[name] = v
		}
	}
	paths, err := external.ModelPaths(data, o.Config, nil)
	if err != nil {
		return nil, fmt.Errorf("pipelines: --decoder: %w", err)
	}
	var in [][2]string
	for _, p := range paths {
		files, err := p.Files(filepath.Dir(o.Config))
		if err != nil {
			return nil, fmt.Errorf("pipelines: --decoder: %s: %w", o.Config, err)
		}
		for _, f := range files {
			in = append(in, [2]string{"model " + p.Feature, f})
		}
	}
	return in, nil
}
