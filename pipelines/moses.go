package pipelines

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// DecoderName is the name the real decoder is registered under
// (transforms.RegisterDecoder). Its configuration string is the path of a
// moses.ini (local or gs://) or, with sparse templates on, the JSON of a
// MosesConfig (MosesConfig.String).
const DecoderName = "moses"

// MosesConfig is the real decoder's configuration.
type MosesConfig struct {
	// Ini is the moses.ini (local or gs://).
	Ini string `json:"ini"`
	// Sparse names the sparse feature templates switched on
	// (decoder.ParseTemplates).
	Sparse []string `json:"sparse,omitempty"`
	// Env holds the variables of ${NAME} in the moses.ini as the launching
	// machine's environment gives them: a worker expands the moses.ini
	// with these first, so that a job runs on workers whose environment
	// lacks them (Dataflow's, prism's PROCESS workers).
	Env map[string]string `json:"env,omitempty"`
}

// String encodes c as the decoder's configuration string: the bare path
// without templates or variables (so that earlier configurations still
// read), JSON otherwise.
func (c MosesConfig) String() string {
	if len(c.Sparse) == 0 && len(c.Env) == 0 {
		return c.Ini
	}
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // strings only: cannot fail
	}
	return string(b)
}

// ParseMosesConfig decodes a configuration string of MosesConfig.String.
func ParseMosesConfig(s string) (MosesConfig, error) {
	if !strings.HasPrefix(s, "{") {
		return MosesConfig{Ini: s}, nil
	}
	var c MosesConfig
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return MosesConfig{}, fmt.Errorf("pipelines: decoder configuration %q: %w", s, err)
	}
	if c.Ini == "" {
		return MosesConfig{}, fmt.Errorf("pipelines: decoder configuration %q names no moses.ini", s)
	}
	return c, nil
}

func (o *Options) decoderConfig() string {
	if o.Decoder != DecoderName {
		return o.Config
	}
	return MosesConfig{Ini: o.Config, Sparse: o.Sparse, Env: o.iniEnv}.String()
}

func init() {
	transforms.RegisterDecoder(DecoderName, openMoses)
}

// openMoses loads the model of the configuration string config
// (ParseMosesConfig). transforms.OpenDecoder
// calls it once per worker process and configuration.
func openMoses(ctx context.Context, config string) (tune.Decoder, error) {
	c, err := ParseMosesConfig(config)
	if err != nil {
		return nil, err
	}
	t, err := decoder.ParseTemplates(c.Sparse...)
	if err != nil {
		return nil, fmt.Errorf("pipelines: %w", err)
	}
	getenv := func(name string) (string, bool) {
		if v, ok := c.Env[name]; ok {
			return v, true
		}
		return os.LookupEnv(name)
	}
	m, err := decoder.Load(ctx, c.Ini, decoder.LoadOptions{Sparse: t, Getenv: getenv})
	if err != nil {
		return nil, fmt.Errorf("pipelines: %w", err)
	}
	return &Moses{m: m}, nil
}

// Moses is a tune.Decoder backed by package decoder. It is safe for
// concurrent use.
type Moses struct {
	m *decoder.Model
}

var _ tune.Decoder = (*Moses)(nil)

// NewMoses wraps a loaded model.
func NewMoses(m *decoder.Model) *Moses { return &Moses{m: m} }

// Features returns the model's feature index.
func (d *Moses) Features() *feature.Index { return d.m.Index() }

// NBest decodes src with the weights w (over Features) into up to n
// distinct translations, best first.
func (d *Moses) NBest(ctx context.Context, sentID int, src string, w feature.Weights, n int) ([]decoder.Hypothesis, error) {
	if n < 1 {
		n = 1
	}
	res, err := decoder.Decode(ctx, d.m, src, decoder.DecodeOptions{NBest: n, Weights: w})
	if err != nil {
		return nil, fmt.Errorf("pipelines: sentence %d: %w", sentID, err)
	}
	return res.NBest, nil
}
