package tune

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/decoder/external"
	"github.com/mtune/mtune/decoder/model"
	"github.com/mtune/mtune/internal/spec"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/storage"
)

// The names the real decoders register themselves under (RegisterDecoder:
// OpenMoses in moses.go, OpenExternal in external.go).
const (
	// MosesDecoderName is the in-process decoder (package decoder). Its
	// configuration string is the path of a moses.ini (local or gs://)
	// or, with sparse templates, variables, filtering or a search
	// algorithm, the JSON of a MosesConfig (MosesConfig.String).
	MosesDecoderName = "moses"
	// ExternalDecoderName is a Moses-compatible decoder run as a
	// subprocess on the workers (decoder/external). Its configuration
	// string is the JSON of an ExternalConfig.
	ExternalDecoderName = "external"
)

// DecoderSetup is a run's choice of decoder as the launching machine checks
// it (Check), finds its inputs (Inputs) and hands it to the workers (Config,
// the configuration string of the registered decoder Name).
type DecoderSetup struct {
	// Name is the registered decoder; "" means MosesDecoderName, or
	// ExternalDecoderName when Command is set.
	Name string
	// Command is the command line of the external decoder
	// (external.Split); "" means the in-process decoder. Its program must
	// be found on PATH (or be a path) here and on the workers.
	Command string
	// Ini is the moses.ini (local or gs://; local for the external
	// decoder, which reads it itself).
	Ini string
	// Sparse names the sparse feature templates to switch on
	// (decoder.ParseTemplates; Check leaves their canonical names); none
	// means the dense features only.
	Sparse []string
	// Search overrides the moses.ini's search algorithm
	// (decoder.ParseAlgorithm; Check leaves its canonical name); "" keeps
	// the moses.ini's.
	Search string
	// Filter loads the model filtered to the sentences decoded
	// (MosesConfig.Filter); false loads it whole.
	Filter bool
	// Env holds the variables the moses.ini uses, as this machine's
	// environment gives them (Inputs records them); nil means none.
	Env map[string]string

	// args is Command split into words (Check).
	args []string
}

// Check fills in Name and checks the choice: Sparse, Search and Filter
// only with the in-process decoder, which knows their values; with the
// external one, a command that splits into words and whose program is
// found on this machine, and a local moses.ini.
func (d *DecoderSetup) Check() error {
	if d.Command != "" && d.Name == "" {
		d.Name = ExternalDecoderName
	}
	if d.Name == "" {
		d.Name = MosesDecoderName
	}
	if err := d.checkExternal(); err != nil {
		return err
	}
	switch {
	case len(d.Sparse) > 0 && d.Name != MosesDecoderName:
		return fmt.Errorf("tune: sparse templates need the %q decoder, not %q", MosesDecoderName, d.Name)
	case d.Search != "" && d.Name != MosesDecoderName:
		return fmt.Errorf("tune: --search-algorithm sets the %q decoder's search, not %q's", MosesDecoderName, d.Name)
	case d.Filter && d.Name != MosesDecoderName:
		return fmt.Errorf("tune: --filter-model filters the %q decoder's model, not %q's", MosesDecoderName, d.Name)
	}
	if len(d.Sparse) > 0 {
		t, err := decoder.ParseTemplates(d.Sparse...)
		if err != nil {
			return fmt.Errorf("tune: %w", err)
		}
		d.Sparse = t.Names()
	}
	if d.Search != "" {
		a, err := decoder.ParseAlgorithm(d.Search)
		if err != nil {
			return fmt.Errorf("tune: --search-algorithm: %w", err)
		}
		d.Search = a.String()
	}
	return nil
}

// checkExternal checks the options of the external decoder (Command):
// the command splits into words, its program is found on this machine,
// the moses.ini is a local file, and no option sets what only the
// in-process decoder has. It keeps the words in d.args.
func (d *DecoderSetup) checkExternal() error {
	if d.Name != ExternalDecoderName {
		if d.Command != "" {
			return fmt.Errorf("tune: a decoder command runs the %q decoder, not %q", ExternalDecoderName, d.Name)
		}
		return nil
	}
	for _, x := range []struct {
		set        bool
		flag, what string
	}{
		{len(d.Sparse) > 0, "--sparse", "sparse templates"},
		{d.Search != "", "--search-algorithm", "the search algorithm"},
		{d.Filter, "--filter-model", "model filtering"},
	} {
		if x.set {
			return fmt.Errorf("tune: %s: an external decoder takes %s on its own command line (--decoder %q)", x.flag, x.what, d.Command)
		}
	}
	words, err := external.Split(d.Command)
	if err != nil {
		return fmt.Errorf("tune: --decoder: %w", err)
	}
	if _, err := exec.LookPath(words[0]); err != nil {
		return fmt.Errorf("tune: --decoder %q: %w", d.Command, err)
	}
	if d.Ini != "" && storage.IsGCS(d.Ini) {
		return fmt.Errorf("tune: --decoder: the external decoder reads the moses.ini itself: %s must be a local path", d.Ini)
	}
	d.args = words
	return nil
}

// Config returns the configuration string of the checked choice (Check)
// for the registered decoder Name: an ExternalConfig's, a MosesConfig's, or
// Ini for any other decoder.
func (d *DecoderSetup) Config() string {
	switch d.Name {
	case ExternalDecoderName:
		return ExternalConfig{Command: d.args, Ini: d.Ini, Env: d.Env}.String()
	case MosesDecoderName:
		return MosesConfig{Ini: d.Ini, Sparse: d.Sparse, Env: d.Env, Filter: d.Filter, Search: d.Search}.String()
	}
	return d.Ini
}

// BatchSize returns the sentences a batch of a decoding of sentences
// sentences dealt over workers workers (transforms.DecodeFn.BatchSize, one
// NBestBatch call a batch). The external decoder loads its model at every
// run, so each worker runs it once for all its sentences, as mert-moses.pl
// runs Moses once an iteration: ⌈sentences/workers⌉, which makes at most
// workers batches (workers < 1 counts as 1). The in-process decoder loads
// its model once per worker process whatever the batches, and smaller
// batches (0: transforms.DefaultDecodeBatchSize) spread over a runner's
// workers and threads as the data grows, and keep a filtered model
// (Filter) small: it gets 0. The translations depend on neither.
func (d *DecoderSetup) BatchSize(sentences, workers int) int {
	if d.Name != ExternalDecoderName {
		return 0
	}
	workers = max(1, workers)
	return max(1, (sentences+workers-1)/workers)
}

// Inputs returns the files the decoder reads, each with its role for the
// manifest: the moses.ini ("config") and, for the real decoders, the model
// files it names ("model LM0", "model weight-file"). It records in d.Env
// the variables the moses.ini uses, as this machine's environment gives
// them, for the workers. For the external decoder the moses.ini is the
// decoder's to read: this reads only its paths and variables
// (external.ModelPaths, external.ModelPath.Files).
func (d *DecoderSetup) Inputs(ctx context.Context) ([][2]string, error) {
	in := [][2]string{{"config", d.Ini}}
	getenv := func(name string) (string, bool) {
		v, ok := os.LookupEnv(name)
		if ok {
			if d.Env == nil {
				d.Env = map[string]string{}
			}
			d.Env[name] = v
		}
		return v, ok
	}
	switch d.Name {
	case ExternalDecoderName:
		data, err := storage.ReadFile(ctx, d.Ini)
		if err != nil {
			return nil, fmt.Errorf("tune: %w", err)
		}
		for _, name := range external.IniVariables(data) {
			getenv(name)
		}
		paths, err := external.ModelPaths(data, d.Ini, nil)
		if err != nil {
			return nil, fmt.Errorf("tune: --decoder: %w", err)
		}
		for _, p := range paths {
			files, err := p.Files(filepath.Dir(d.Ini))
			if err != nil {
				return nil, fmt.Errorf("tune: --decoder: %s: %w", d.Ini, err)
			}
			for _, f := range files {
				in = append(in, [2]string{"model " + p.Feature, f})
			}
		}
	case MosesDecoderName:
		c, err := model.LoadConfig(ctx, d.Ini, model.ConfigOptions{Logger: slog.New(slog.DiscardHandler), Getenv: getenv})
		if err != nil {
			return nil, fmt.Errorf("tune: %w", err)
		}
		for _, f := range c.Features {
			if p := f.Path(); p != "" {
				in = append(in, [2]string{"model " + f.Name, p})
			}
		}
		if c.WeightFile != "" {
			in = append(in, [2]string{"model weight-file", c.WeightFile})
		}
	}
	return in, nil
}

// ScanSet checks a source and its references as a stream (corpus.Scan: no
// blank source line, none longer than the decoder takes) and returns their
// index, with ranges of rangeLines lines: the driver holds their size,
// checksums and range offsets, never the sentences.
func ScanSet(ctx context.Context, src string, refs []string, rangeLines int) (*corpus.Index, error) {
	ix, err := corpus.Scan(ctx, src, refs, rangeLines, decoder.MaxSentenceLength)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	return ix, nil
}

// Logf logs a message where the process logs: Beam's log on a worker
// (transforms passes log.Infof), slog elsewhere.
type Logf func(ctx context.Context, format string, args ...any)

// DecoderFactory loads a decoder from a configuration string whose meaning
// is the factory's (a MosesConfig for the real decoder, an n-best file for
// decodertest's pool); logf is where it may log what it loaded.
type DecoderFactory func(ctx context.Context, config string, logf Logf) (Decoder, error)

// Decoders holds the decoders by name (the idiom of every named choice:
// internal/spec), each registered by its own file with RegisterDecoder.
var Decoders = &spec.Registry[DecoderFactory]{Kind: "decoder"}

// RegisterDecoder makes the decoder factory f available under name to
// OpenDecoder (and so to the DoFns' Decoder field). Call it from an init
// function of a package that both the launching program and the workers
// link in. It panics if name is malformed or already registered, or if f
// is nil.
func RegisterDecoder(name, summary string, f DecoderFactory) {
	if f == nil {
		panic("tune: RegisterDecoder " + name + " with a nil factory")
	}
	spec.Register(Decoders, name, summary, struct{}{}, func(struct{}) (DecoderFactory, error) { return f, nil })
}

// ErrUnknownDecoder: a decoder name no package registered.
var ErrUnknownDecoder = errors.New("tune: unknown decoder")

// CheckDecoder reports whether name is a registered decoder.
func CheckDecoder(name string) error {
	if !slices.Contains(Decoders.Names(), name) {
		return fmt.Errorf("%w %q (registered: %s)", ErrUnknownDecoder, name, strings.Join(Decoders.Names(), ", "))
	}
	return nil
}

var (
	openMu sync.Mutex
	opened = map[[2]string]Decoder{}
)

// OpenDecoder returns the decoder the factory registered as name loads
// from config. A decoder loads once per process: later calls with the
// same name and config return the same Decoder (a failed load is tried
// again by the next call).
func OpenDecoder(ctx context.Context, name, config string, logf Logf) (Decoder, error) {
	openMu.Lock()
	defer openMu.Unlock()
	k := [2]string{name, config}
	if d, ok := opened[k]; ok {
		return d, nil
	}
	if err := CheckDecoder(name); err != nil {
		return nil, err
	}
	f, _, err := Decoders.Parse(name)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	d, err := f(ctx, config, logf)
	if err != nil {
		return nil, fmt.Errorf("tune: loading decoder %s(%q): %w", name, config, err)
	}
	if d == nil || d.Features() == nil {
		return nil, fmt.Errorf("tune: decoder %s(%q) has no feature index", name, config)
	}
	opened[k] = d
	return d, nil
}
