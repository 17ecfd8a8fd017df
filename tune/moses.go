package tune

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/decoder/lm"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/rundir"
)

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
	// Filter makes each shard and decoding batch load the model filtered
	// to its sentences (decoder.LoadFiltered, cached on the worker's
	// disk) instead of the whole model once per worker.
	Filter bool `json:"filter,omitempty"`
	// Search is the search algorithm, as decoder.ParseAlgorithm reads it
	// ("cube", "normal", "1", …); "" means the moses.ini's [search-algorithm].
	Search string `json:"search,omitempty"`
}

// String encodes c as the decoder's configuration string: the bare path
// without templates or variables (so that earlier configurations still
// read) unless the path starts with '{', JSON otherwise.
func (c MosesConfig) String() string {
	if len(c.Sparse) == 0 && len(c.Env) == 0 && !c.Filter && c.Search == "" && !strings.HasPrefix(c.Ini, "{") {
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
	if err := rundir.UnmarshalStrict([]byte(s), &c); err != nil {
		return MosesConfig{}, fmt.Errorf("tune: decoder configuration %q: %w", s, err)
	}
	if c.Ini == "" {
		return MosesConfig{}, fmt.Errorf("tune: decoder configuration %q names no moses.ini", s)
	}
	return c, nil
}

// OpenMoses loads the model of the configuration string config
// (ParseMosesConfig): the factory of MosesDecoderName, which
// transforms.OpenDecoder calls once per worker process and configuration.
// With c.Filter it loads nothing yet and returns a FilteringDecoder, whose
// For reports what the filter kept to logf (nil: nowhere).
func OpenMoses(ctx context.Context, config string, logf Logf) (Decoder, error) {
	c, err := ParseMosesConfig(config)
	if err != nil {
		return nil, err
	}
	t, err := decoder.ParseTemplates(c.Sparse...)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	opts := decoder.LoadOptions{Sparse: t, Getenv: func(name string) (string, bool) {
		if v, ok := c.Env[name]; ok {
			return v, true
		}
		return os.LookupEnv(name)
	}}
	if c.Search != "" {
		if opts.Search.Algorithm, err = decoder.ParseAlgorithm(c.Search); err != nil {
			return nil, fmt.Errorf("tune: %w", err)
		}
	}
	if c.Filter {
		opts.LoadLM = sharedLM
		return &filteringMoses{ini: c.Ini, opts: opts, index: feature.NewIndex(), logf: logf}, nil
	}
	m, err := decoder.Load(ctx, c.Ini, opts)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	return &Moses{m: m}, nil
}

// filteringMoses is the FilteringDecoder of a MosesConfig with Filter:
// For loads the model filtered to the sentences it is given.
type filteringMoses struct {
	ini   string
	opts  decoder.LoadOptions
	index *feature.Index
	logf  func(ctx context.Context, format string, args ...any) // nil: no log
}

var _ FilteringDecoder = (*filteringMoses)(nil)

// Features returns an index of no feature: the features are those of the
// decoders For returns.
func (d *filteringMoses) Features() *feature.Index { return d.index }

// NBest fails: decoding takes the decoder For returns.
func (d *filteringMoses) NBest(ctx context.Context, sentID int, src string, w feature.Weights, n int) ([]decoder.Hypothesis, error) {
	return nil, fmt.Errorf("tune: sentence %d: a filtered model decodes only with the decoder its For returns", sentID)
}

// For loads the model filtered to sources (decoder.LoadFiltered, with the
// filtered tables cached in the user's cache folder) and logs what the
// filter kept.
func (d *filteringMoses) For(ctx context.Context, sources []string) (Decoder, error) {
	m, st, err := decoder.LoadFiltered(ctx, d.ini, sources, d.opts, decoder.FilterCache{})
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	if d.logf != nil {
		d.logf(ctx, "mtune: model filtered to %d sentences: %s", len(sources), st)
	}
	return &Moses{m: m}, nil
}

// lms holds the language models this process loaded for filtered models,
// by path: every filtered model of a system shares its LM.
var lms = struct {
	sync.Mutex
	m map[string]*lmOnce
}{m: map[string]*lmOnce{}}

type lmOnce struct {
	once  sync.Once
	model *lm.Model
	err   error
}

// sharedLM loads the language model at path once per process (a failed
// load is retried by the next call).
func sharedLM(ctx context.Context, path string) (*lm.Model, error) {
	lms.Lock()
	e := lms.m[path]
	if e == nil {
		e = &lmOnce{}
		lms.m[path] = e
	}
	lms.Unlock()
	e.once.Do(func() { e.model, e.err = lm.Load(ctx, path, nil) })
	if e.err != nil {
		lms.Lock()
		if lms.m[path] == e {
			delete(lms.m, path)
		}
		lms.Unlock()
		return nil, e.err
	}
	return e.model, nil
}

// Moses is a Decoder backed by package decoder. It is safe for
// concurrent use.
type Moses struct {
	m *decoder.Model
}

var _ Decoder = (*Moses)(nil)

// NewMoses wraps a loaded model.
func NewMoses(m *decoder.Model) *Moses { return &Moses{m: m} }

// Features returns the model's feature index.
func (d *Moses) Features() *feature.Index { return d.m.Index() }

// NBest decodes src with the weights w (over Features) into up to n
// distinct translations, best first. No more decodings run at once in the
// process than it has cores (coreSlots): a call waits for one.
func (d *Moses) NBest(ctx context.Context, sentID int, src string, w feature.Weights, n int) ([]decoder.Hypothesis, error) {
	if n < 1 {
		n = 1
	}
	if err := cores.acquire(ctx); err != nil {
		return nil, fmt.Errorf("tune: sentence %d: %w", sentID, err)
	}
	defer cores.release()
	res, err := decoder.Decode(ctx, d.m, src, decoder.DecodeOptions{NBest: n, Weights: w})
	if err != nil {
		return nil, fmt.Errorf("tune: sentence %d: %w", sentID, err)
	}
	return res.NBest, nil
}

func init() {
	RegisterDecoder(MosesDecoderName, "mtune's own phrase-based decoder, in process (package decoder)", OpenMoses)
}
