package pipelines

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/mtune/mtune/internal/option"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/run"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// Options configure a tuning run (Run): the problem and the settings of
// the run (package run), and the method, ipm, stale or batch, with its
// decoder and runner. Fields whose zero value is not valid say so.
type Options struct {
	// Problem is what the run tunes: the moses.ini (Config, required),
	// the tuning set (Src, Refs; required), an optional dev set (DevSrc,
	// DevRefs) whose score chooses best/weights, the metric (a --metric
	// spec; "" means BLEU: every hypothesis is scored with it, the learner
	// optimises it, line-search mixing and the best epoch maximise it, its
	// negation for TER) and the weights to start from (Init; "" means the
	// moses.ini's).
	run.Problem
	// Settings are where and how the run is kept: Out (required), Resume
	// or Overwrite, Dir (Out opened and held by the caller), Epochs (0
	// means 5), Seed, Replicas (ipm and stale mode: independent runs each
	// epoch's one launch holds), CommandLine, Progress (a line per epoch,
	// and while an epoch's launch runs a line every ProgressEvery).
	run.Settings
	// Mode is tune.IPM (the zero value), tune.Batch (decode, pool the
	// n-best lists of every epoch, run the batch optimizer Algo on the
	// pool; Shards and Mix are ignored; a dev set chooses the best epoch)
	// or tune.Stale (IPM with Green et al.'s stale gradients inside each
	// shard: Stale).
	Mode tune.Mode
	// Stale holds stale mode's options (their zero values the defaults);
	// other modes ignore them.
	Stale tune.StaleOptions
	// Mix merges an epoch's shards (transforms.ParseMixer); nil means
	// transforms.AverageMixer (mtune tune's default is
	// transforms.LineSearchMixer).
	Mix transforms.Mixer
	// ShardOptions are ipm and stale mode's options of the shards
	// (Shards, MixWeights, EvalTune, DecodeThreads).
	ShardOptions
	// BatchOptions are batch mode's (KeepScale).
	BatchOptions
	// Algo names a learner of learner/algo; "" means the default online
	// learner in ipm and stale mode (which need an online one), the
	// default batch one in batch mode (tune.DefaultLearner).
	Algo string
	// AlgoConfig holds the learner's settings (its MiniBatch is the
	// mini-batch size; zero fields: the learner's defaults).
	AlgoConfig tune.AlgoConfig
	// NBest is the size of the n-best lists; 0 means 100.
	NBest int
	// Sparse names the decoder's sparse feature templates to switch on
	// (decoder.ParseTemplates: pt, al, lo, tu, cb, lb or all); none means
	// the dense features only.
	Sparse []string
	// Decoder is the registered decoder name; "" means
	// tune.MosesDecoderName (the real decoder, configured by Config), or
	// tune.ExternalDecoderName when DecoderCommand is set.
	Decoder string
	// DecoderCommand is the command line of a Moses-compatible decoder
	// that the workers run as a subprocess, one run a mini-batch or a
	// worker's share of a decoding (DecodeBatches) (decoder/external: the
	// sentences on its standard input, -f Config, -n-best-list,
	// -weight-overwrite, -weight-file, -threads added); "" means the
	// in-process decoder. Its program must
	// be found on PATH (or be a path) on the launching machine and on the
	// workers. Sparse, SearchAlgorithm and FilterModel are refused with it:
	// they go on the command line.
	DecoderCommand string
	// DecodeBatches is the number of batches each decoding of the tuning
	// or dev set with the external decoder is dealt into (batch mode's
	// decoding, every 1-best decoding), each batch one run of the decoder
	// on a worker's cores (tune.DecoderSetup.BatchSize): one a worker, as
	// mert-moses.pl runs Moses once an iteration. 0 means RunnerWorkers().
	// The in-process decoder ignores it; results depend on neither.
	DecodeBatches int
	// FeatureCommands add features to the decoded n-best lists, batch
	// mode only (tune.FeatureCommand): each epoch's lists of the tuning
	// set get them by pool part before they are pooled, and the
	// optimizer tunes their weights (starting from Init's, else 0) with
	// the decoder's, which never takes them; a dev set is decoded into
	// n-best lists of size NBest that get them too and is scored by their
	// 1-bests re-ranked with every weight.
	FeatureCommands []tune.FeatureCommand
	// Execute runs one epoch's pipeline and returns its result, whose
	// Beam metrics (transforms.MetricsNamespace) go to the epoch's
	// Metrics; nil means beamx.RunWithMetrics (the runner of the --runner
	// flag, prism by default). A nil result records no metrics.
	Execute func(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error)
	// SearchAlgorithm overrides the moses.ini's [search-algorithm] for
	// every decoding of the run (and the retraining gate's): "normal" (or
	// "stack", "0"), Moses' stack search, or "cube" (or "1"), cube pruning;
	// "" keeps the moses.ini's (Moses' stack search when it sets none).
	// Only the real decoder takes it.
	SearchAlgorithm string
	// FilterModel makes each shard, and each batch of the 1-best
	// decodings, load the model filtered to its sentences' source phrases
	// (decoder.LoadFiltered, as Moses' filter-model-given-input.pl; the
	// filtered tables are cached in the worker's user cache folder), so a
	// worker never holds the whole phrase and reordering tables. The
	// translations, and so the weights, are those of the whole model. Only
	// the real decoder filters.
	FilterModel bool
	// SkipModelCheck skips the launch in which a worker loads the model
	// before the first epoch (init/model.json): for a dry run, which runs
	// no job.
	SkipModelCheck bool
	// ProgressEvery is how often a launch's progress line is printed to
	// Progress while it runs, with the sentences decoded so far in this
	// process (tune.WatchDecoding); 0 means tune.DecodeProgressEvery, 10 s.
	ProgressEvery time.Duration
	// progress is the progress folder of the launch being built
	// (startLaunch): its decodings' DecodeOptions.Progress.
	progress string

	// dec is the decoder's options, checked (defaults), with the
	// variables the moses.ini uses once inputs has read it.
	dec tune.DecoderSetup
	// dense names the starting weights' features (Run): the dense groups
	// of every epoch's weights trio.
	dense []string
	// metric is Metric parsed (defaults).
	metric tune.Metric
}

// ShardOptions are ipm and stale mode's options of an epoch's shards,
// each declared once (internal/option): the flag, the refusal in batch
// mode, the manifest's record and --resume's check come from its tags.
type ShardOptions struct {
	// Shards is the number of shards; 0 means 2.
	Shards int `option:"shards" modes:"ipm,stale" min:"1" default:"2" help:"ipm and stale mode: shards of the tuning set, each learnt by its own worker"`
	// MixWeights weighs each shard in the average (and so in the line
	// search's direction): by its updates (tune.ByUpdates, the zero
	// value) or alike (tune.Uniform).
	MixWeights tune.MixWeights `option:"mix-weights" modes:"ipm,stale" help:"ipm and stale mode: how the shards' average (and the line search's direction) weighs each shard: updates (by its number of updates) or uniform"`
	// DecodeThreads is the number of sentences of a mini-batch a shard
	// (or a stale gradient goroutine) decodes at once; 0 means the
	// worker's cores, which the built-in decoder shares among the shards a
	// worker runs at once. Results do not depend on it (but for stale
	// mode's timing with more than one thread), so no manifest records it.
	DecodeThreads int `option:"decode-threads" modes:"ipm,stale" min:"1" manifest:"-" help:"ipm and stale mode: sentences of a mini-batch a shard decodes at once (default: the worker's cores, shared by the shards it runs at once)"`
	// EvalTune decodes the tuning set once more each epoch (1-best, with
	// the mixed weights) for its tune BLEU, as a dev set is decoded.
	// Without it the tune BLEU is the progressive BLEU of the epoch's own
	// decoding (Metrics.TuneDecoded), and an epoch decodes each tuning
	// sentence once. The weights do not depend on it; the best epoch does
	// only without a dev set.
	EvalTune bool `option:"eval-tune" modes:"ipm,stale" help:"ipm and stale mode: decode the tuning set once more each epoch, with the mixed weights, for its tune BLEU (default: the tune BLEU is the BLEU of the epoch's own decoding, \"decoded\", and each tuning sentence is decoded once an epoch); without a dev set the tune BLEU picks best/weights"`
}

// BatchOptions are batch mode's options, declared as ShardOptions are.
type BatchOptions struct {
	// KeepScale keeps the optimizer's weights as they are; by default
	// they are scaled to an L1 norm of 1 (as Moses' mert does), since the
	// decoder's pruning depends on their scale.
	KeepScale bool `option:"keep-scale" modes:"batch" help:"batch mode: keep the optimizer's weights as they are instead of scaling them to an L1 norm of 1 (Moses' mert convention; the decoder's pruning depends on the scale)"`
}

func init() {
	option.Declare(ShardOptions{})
	option.Declare(BatchOptions{})
}

// Methods returns the options of o's modes that are declared once
// (internal/option), pointers into o: what a command registers as flags
// and checks against the mode.
func (o *Options) Methods() []any { return []any{&o.Stale, &o.ShardOptions, &o.BatchOptions} }

// decodeOptions returns the decoding and scoring options of the run's
// decodings of n-best lists of size nbest: the run's metric, the launch's
// progress folder.
func (o *Options) decodeOptions(nbest int) tune.DecodeOptions {
	return tune.DecodeOptions{NBest: nbest, Metric: o.Metric, Progress: o.progress, Added: o.added()}
}

// added returns the run's added features (FeatureCommands).
func (o *Options) added() tune.FeatureCommands {
	return tune.FeatureCommands{Commands: o.FeatureCommands, Dense: o.dense, Set: "tune", Source: o.Src}
}

func (o *Options) manifestFlags() rundir.ManifestFlags {
	f := tune.LearnerManifest(o.Algo, o.AlgoConfig)
	f.Mode, f.Epochs, f.NBest, f.Sparse = o.Mode.String(), o.Epochs, o.NBest, strings.Join(o.Sparse, ",")
	used := *o // the options of o's mode; the others zero, as unused
	for _, p := range used.Methods() {
		option.ForMode(p, o.Mode.String())
	}
	f.Method = option.Record(used.Methods()...)
	if o.Mix != nil {
		f.Mix = o.Mix.Name()
	}
	if o.replicas() > 1 {
		f.Replicas = o.Replicas
	}
	f.Search, f.Decoder = o.SearchAlgorithm, o.DecoderCommand
	f.SetMetricSpec(o.Metric)
	for _, c := range o.FeatureCommands {
		f.FeatureCommands = append(f.FeatureCommands, c.String())
	}
	return f
}

// Result is what Run returns (run.Result).
type Result = run.Result

// decoding fills in and checks what o's decodings need: the decoder's
// setup and the metric their hypotheses are scored with.
func (o *Options) decoding() error {
	o.dec = tune.DecoderSetup{Name: o.Decoder, Command: o.DecoderCommand, Ini: o.Config, Sparse: o.Sparse, Search: o.SearchAlgorithm, Filter: o.FilterModel}
	if err := o.dec.Check(); err != nil {
		return err
	}
	o.Decoder, o.Sparse, o.SearchAlgorithm = o.dec.Name, o.dec.Sparse, o.dec.Search
	// The workers and the manifest get the spec in its canonical form, so
	// that "TER:case=false" and "ter" are one run's metric.
	m, spec, err := o.decodeOptions(0).ParseMetricSpec()
	if err != nil {
		return fmt.Errorf("pipelines: --metric: %w", err)
	}
	o.metric, o.Metric = m, spec
	return nil
}

func (o *Options) defaults() error {
	switch {
	case o.Mode == tune.Batch:
		o.Mix = nil // batch mode mixes nothing
	case o.Mix == nil:
		o.Mix = transforms.AverageMixer{}
	}
	if o.Algo == "" {
		o.Algo = tune.DefaultLearner(o.Mode)
	}
	o.NBest = cmp.Or(o.NBest, 100)
	if err := o.decoding(); err != nil {
		return err
	}
	for _, p := range o.Methods() {
		if err := option.Check(p, o.Mode.String(), nil); err != nil {
			return fmt.Errorf("pipelines: %w", err)
		}
	}
	if o.Mode == tune.Stale {
		option.Defaults(&o.Stale)
	}
	if o.Mode != tune.Batch {
		option.Defaults(&o.ShardOptions)
	}
	if o.DecodeBatches == 0 {
		o.DecodeBatches = RunnerWorkers()
	}
	if err := o.Settings.Validate(); err != nil {
		return err
	}
	switch {
	case o.Replicas > 1 && o.Mode == tune.Batch:
		return fmt.Errorf("pipelines: --replicas applies to --mode ipm and stale, not batch")
	case o.DecodeBatches < 0:
		return fmt.Errorf("pipelines: invalid --decode-batches %d", o.DecodeBatches)
	case len(o.FeatureCommands) > 0 && o.Mode != tune.Batch:
		return errors.New("pipelines: " + tune.FeatureInBatchOnly)
	case o.Mode < tune.IPM || o.Mode > tune.Batch || o.MixWeights < tune.ByUpdates || o.MixWeights > tune.Uniform:
		return fmt.Errorf("pipelines: invalid mode %v or mix weights %v", o.Mode, o.MixWeights)
	case o.NBest < 1 || o.AlgoConfig.MiniBatch < 0:
		return fmt.Errorf("pipelines: n-best size %d and mini-batch %d must be positive", o.NBest, o.AlgoConfig.MiniBatch)
	case o.Config == "" || o.Src == "" || len(o.Refs) == 0:
		return errors.New("pipelines: the moses.ini, the tuning source and its references are required")
	case (o.DevSrc == "") != (len(o.DevRefs) == 0):
		return errors.New("pipelines: give both the dev source and its references, or neither")
	}
	if err := o.added().Check(); err != nil {
		return err
	}
	o.AlgoConfig.SetMetric(o.metric)
	if err := tune.CheckLearner(o.Mode, o.Algo, o.AlgoConfig); err != nil {
		return err
	}
	return nil
}

// layout names the paths of the output folder o.Out.
func (o *Options) layout() rundir.Layout { return rundir.Layout{Root: o.Out} }

// replicas returns the number of replicas, at least 1.
func (o *Options) replicas() int { return max(1, o.Replicas) }

// replicaLayout names the paths of replica r's epochs in o.Out
// (rundir.Layout.Replica: o.Out itself for a run of one).
func (o *Options) replicaLayout(r int) rundir.Layout { return o.layout().Replica(r, o.replicas()) }

// Validate fills in o's defaults and checks every option, before anything
// is read or written.
func (o *Options) Validate() error { return o.defaults() }

// ReadRangeLines is the number of lines of a range of the tuning and dev
// sets that a worker reads on its own (transforms.ReadSentences).
const ReadRangeLines = 256

// inputs checksums every input of the run: the moses.ini and the model
// files it names (tune.DecoderSetup.Inputs), the tuning and dev sets
// (whose checksums their scans computed), the starting weights. dev may be
// nil. It records the environment variables the moses.ini uses in o.dec,
// for the workers.
func (o *Options) inputs(ctx context.Context, tuneSet, dev *corpus.Index) ([]rundir.InputFile, error) {
	in, err := o.dec.Inputs(ctx)
	if err != nil {
		return nil, err
	}
	var out []rundir.InputFile
	for _, x := range in {
		f, err := rundir.Checksum(ctx, x[0], x[1])
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	out = append(out, scanned(tuneSet, "src", "ref")...)
	if dev != nil {
		out = append(out, scanned(dev, "dev-src", "dev-ref")...)
	}
	for _, c := range o.FeatureCommands {
		if p := c.Program(); p != "" {
			f, err := rundir.Checksum(ctx, "feature-command "+c.Name, p)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
	}
	if o.Init != "" {
		f, err := rundir.Checksum(ctx, "init", o.Init)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// tunesDemo reports whether the run in l tunes the demo system it built
// in l's demo-model/.
func (o *Options) tunesDemo(l rundir.Layout) bool {
	demo := l.DemoModel()
	return storage.IsGCS(demo) && strings.HasPrefix(o.Config, demo+"/") || !storage.IsGCS(demo) && sameFolder(o.Config, demo)
}

// outsideDemo returns the inputs but for the demo system's files when the
// run tunes the demo it built in l (those are the run's own): what must
// not lie where the run writes (rundir.RunDir.CheckInputs).
func (o *Options) outsideDemo(l rundir.Layout, inputs []rundir.InputFile) []rundir.InputFile {
	if !o.tunesDemo(l) {
		return inputs
	}
	out := []rundir.InputFile{} // not nil: run.Prepared.Outside
	for _, in := range inputs {
		if !sameFolder(in.Path, l.DemoModel()) && !(storage.IsGCS(in.Path) && strings.HasPrefix(in.Path, l.DemoModel()+"/")) {
			out = append(out, in)
		}
	}
	return out
}

// sameFolder reports whether the local file p lies under the folder dir,
// both compared cleaned (storage.Clean: absolute, links followed).
func sameFolder(p, dir string) bool {
	ap, err1 := storage.Clean(p)
	ad, err2 := storage.Clean(dir)
	return err1 == nil && err2 == nil && strings.HasPrefix(ap, ad+string(filepath.Separator))
}

// scanned returns the manifest's inputs of a scanned set: the source as
// role src, each reference as role ref.
func scanned(ix *corpus.Index, src, ref string) []rundir.InputFile {
	out := []rundir.InputFile{{Role: src, Path: ix.Source, SHA256: ix.SHA256[0]}}
	for k, p := range ix.RefPaths {
		out = append(out, rundir.InputFile{Role: ref, Path: p, SHA256: ix.SHA256[k+1]})
	}
	return out
}

// Run tunes the weights of o.Config: run.Run with o's problem and
// settings, by o's method (ipm, stale or batch). In ipm mode (see the
// package documentation for batch mode) each epoch is one Beam pipeline
// launch (o.Execute) that deals the tuning set out to o.Shards shards, runs
// each shard's online learner with the decoder in the loop, mixes the
// shards' weights (average or line search over the epoch's n-best lists),
// decodes the dev set (and with o.EvalTune the tuning set) once more with
// the mixed weights for their score, and writes the epoch's weights and
// learner states; run.Run writes the output folder of DESIGN.md §6 around
// them. Before any epoch starts the driver streams the inputs once to
// check and checksum them (holding neither the sets nor the model), and a
// worker loads the model (init/model.json).
//
// With o.Replicas > 1 every epoch's launch holds o.Replicas independent
// runs (replicaEpoch), replica r's files in replicas/RRR/ and the best
// replica's best epoch in best/ (tune.Driver, rundir.BestReplica).
func Run(ctx context.Context, o Options) (Result, error) {
	return run.Run(ctx, o.Problem, o.Settings, o.Method())
}

// Method returns o's method (run.Method): what run.Run, or a night of
// retraining (registry.Night), runs o's problem with. Its Validate takes
// the problem and settings it is given.
func (o Options) Method() run.Method { return &method{o: &o} }

// method is the run.Method of ipm, stale and batch mode: the inputs of
// a decoding run (Prepare) and one Beam launch an epoch (Epocher).
type method struct {
	o         *Options
	tune, dev *corpus.Index // the sets, scanned by Prepare (dev nil without one)
}

func (m *method) Validate(p *run.Problem, s *run.Settings) error {
	m.o.Problem, m.o.Settings = *p, *s
	if err := m.o.defaults(); err != nil {
		return err
	}
	*p, *s = m.o.Problem, m.o.Settings
	return nil
}

func (m *method) Metric() tune.Metric { return m.o.metric }

func (m *method) Manifest() rundir.ManifestFlags { return m.o.manifestFlags() }

// Prepare streams the sets once, to check and count them (the pipelines
// read them on workers, transforms.ReadSentences, from the reference
// files found now), checksums every input and reads the starting weights.
func (m *method) Prepare(ctx context.Context, dir *rundir.RunDir) (run.Prepared, error) {
	o := m.o
	var err error
	if m.tune, err = tune.ScanSet(ctx, o.Src, o.Refs, ReadRangeLines); err != nil {
		return run.Prepared{}, err
	}
	if o.DevSrc != "" {
		if m.dev, err = tune.ScanSet(ctx, o.DevSrc, o.DevRefs, ReadRangeLines); err != nil {
			return run.Prepared{}, err
		}
		o.DevRefs = m.dev.RefPaths
	}
	o.Refs = m.tune.RefPaths
	var in run.Prepared
	if in.Inputs, err = o.inputs(ctx, m.tune, m.dev); err != nil {
		return run.Prepared{}, err
	}
	in.Outside = o.outsideDemo(dir.Layout, in.Inputs)
	if o.tunesDemo(dir.Layout) {
		in.Keep = []string{dir.DemoModel()}
	}
	return in, nil
}

// Start reads the starting weights (Init's, else the moses.ini's), with
// the added features' (FeatureCommands) grown in.
func (m *method) Start(ctx context.Context) (*weights.ByName, error) {
	o := m.o
	init, err := weights.ReadByName(ctx, cmp.Or(o.Init, o.Config))
	if err != nil {
		return nil, err
	}
	if len(o.FeatureCommands) > 0 {
		init = o.added().StartWeights(init)
	}
	o.dense = init.Names
	return &init, nil
}

// CheckModel has a worker load the model now, the run's own checks done
// (it writes init/model.json, which must not be left by a run that fails
// on something else): a model that does not load stops the run before any
// epoch, and the driver never holds it. A dry run (SkipModelCheck) runs no
// job.
func (m *method) CheckModel(ctx context.Context, path string) error {
	if m.o.SkipModelCheck {
		return nil
	}
	return checkModel(ctx, m.o, path)
}

func (m *method) Epocher(ctx context.Context, dir *rundir.RunDir, start tune.Weights) (run.Epocher, error) {
	if m.o.Mode == tune.Batch {
		return run.Epocher{Epocher: &batchEpoch{o: m.o, ranges: m.tune, dev: m.dev, start: start.File}}, nil
	}
	return run.Epocher{Epocher: &ipmEpoch{o: m.o, tune: m.tune, dev: m.dev, start: start.File}}, nil
}

// ipmEpoch is the tune.Epocher (and tune.ReplicasEpocher) of --mode ipm
// and stale: one launch of the epoch's pipeline (runEpoch).
type ipmEpoch struct {
	o         *Options
	tune, dev *corpus.Index // dev is nil without a dev set
	start     string        // the run's starting weights (init/weights.json)
}

func (e *ipmEpoch) Epoch(ctx context.Context, n int, prev tune.Weights) (rundir.Metrics, tune.Weights, error) {
	ms, next, err := e.EpochReplicas(ctx, n, []tune.Weights{prev})
	if err != nil {
		return rundir.Metrics{}, tune.Weights{}, err
	}
	return ms[0], next[0], nil
}

func (e *ipmEpoch) EpochReplicas(ctx context.Context, n int, prev []tune.Weights) ([]rundir.Metrics, []tune.Weights, error) {
	return runEpoch(ctx, e.o, n, e.tune, e.dev, e.start, prev)
}

// runEpoch launches epoch n's pipeline, which holds every replica's epoch
// (replicaEpoch; the tuning and dev sets are read once for all of them),
// and reads back what each wrote (tune.ReadEpoch: the weights trio its
// last step wrote, the shards' summaries, the BLEU statistics). Replica r
// learns from prev[r]. It returns the replicas' metrics and new weights,
// replica 0's first.
func runEpoch(ctx context.Context, o *Options, n int, tuneSet, dev *corpus.Index, startPath string, prev []tune.Weights) ([]rundir.Metrics, []tune.Weights, error) {
	t0 := time.Now()
	o.startLaunch(n, "progress")
	p, s := beam.NewPipelineWithRoot()
	sents := transforms.ReadSentences(s, tuneSet.Ranges())
	var devSents beam.PCollection
	if dev != nil {
		devSents = transforms.ReadSentences(s.Scope("dev"), dev.Ranges())
	}
	for r := range o.replicas() {
		o.replicaEpoch(replicaScope(s, r, o.replicas()), r, n, tuneSet, dev, sents, devSents, prev[r].File)
	}
	total := tuneSet.Lines
	if o.EvalTune {
		total *= 2
	}
	if dev != nil {
		total += dev.Lines
	}
	total *= o.replicas()
	if n == 1 && dev != nil {
		total += o.startDev(s, devSents, dev, startPath)
	}
	counters, dists, err := executeWatched(ctx, o, p, fmt.Sprintf("epoch %d/%d", n, o.Epochs), total)
	if err != nil {
		return nil, nil, &PipelineError{Epoch: n, Err: err}
	}
	if n == 1 && dev != nil {
		o.printStartDev(ctx)
	}
	for r := range o.replicas() {
		if err := storage.RemoveFiles(ctx, o.replicaLayout(r).Epoch(n).Lists()); err != nil {
			return nil, nil, err
		}
	}

	var out []rundir.Metrics
	var next []tune.Weights
	for r := range o.replicas() {
		dir := o.replicaLayout(r).Epoch(n)
		m, ww, err := tune.ReadEpoch(ctx, dir, tune.EpochOutputs{Shards: o.Shards, EvalTune: o.EvalTune, Dev: dev != nil, Stale: o.Mode == tune.Stale, Metric: o.metric})
		if err != nil {
			return nil, nil, err
		}
		next = append(next, tune.Weights{ByName: ww, File: dir.JSON()})
		m.Replica = r
		if r == 0 {
			m.Counters, m.Distributions = counters, dists
		}
		m.Seconds = time.Since(t0).Seconds()
		out = append(out, m)
	}
	return out, next, nil
}

// replicaEpoch adds to s replica r's epoch n: sents (the tuning set,
// tuneSet) dealt out to the shards with the replica's seed
// (tune.ReplicaSeed), each shard's learning from prevPath (the replica's
// previous weights, read when the pipeline runs) and its state of the
// previous epoch, the mixing, the 1-best decodings of devSents (dev,
// nil without a dev set) and, with o.EvalTune, sents; every file in the
// replica's folder of epoch n (replicaLayout).
func (o *Options) replicaEpoch(s beam.Scope, r, n int, tuneSet, dev *corpus.Index, sents, devSents beam.PCollection, prevPath string) {
	dir := o.replicaLayout(r).Epoch(n)
	stateDir := dir.State()
	var statePaths []string
	if n > 1 {
		prevDir := o.replicaLayout(r).Epoch(n - 1)
		for k := 0; k < o.Shards; k++ {
			statePaths = append(statePaths, prevDir.ShardState(k))
		}
	}
	work := dir.Work()
	tunePath, devPath := dir.TuneStats(), dir.DevStats()

	w := transforms.ReadWeights(s, prevPath)
	states := transforms.ReadShardStates(s, statePaths)
	lo := tune.LearnOptions{
		Algo: o.Algo, Config: o.AlgoConfig, Decode: o.decodeOptions(o.NBest), Seed: tune.ReplicaSeed(o.Seed, r), Epoch: n - 1}
	lo.Decode.Threads = o.DecodeThreads
	// A mixer that reads no list averages, which takes the shards'
	// non-zero weights by name; line search's index follows the names of
	// the average in order (tune.KeepShardState).
	learn := &transforms.LearnFn{Decoder: o.Decoder, DecoderConfig: o.dec.Config(), Shards: o.Shards, Options: lo, DropLists: !o.Mix.UsesLists(), StateDir: stateDir,
		NonZeroWeights: !o.Mix.UsesLists()}
	if o.Mode == tune.Stale {
		learn.Stale, learn.ReportDir = &o.Stale, work
	}
	results, lists := transforms.Learn(s, learn, sents, w, states)
	mixed, report := o.Mix.Mix(s, transforms.MixInput{Results: results, Lists: lists, Prev: w, Weights: o.MixWeights, Metric: o.Metric, ListDir: dir.Lists()})
	transforms.WriteMixReport(s, report, dir.MixReport())
	transforms.WriteTrio(s, mixed, dir.Dir, o.dense)
	// The 1-best decodings of the mixed weights: the dev set's, and the
	// tuning set's only if asked for (without it the tune BLEU is the
	// shards' own decoding's, and the epoch decodes each tuning sentence
	// once).
	if o.EvalTune {
		o.oneBest(s, "tune", sents, tuneSet.Lines, mixed, tunePath)
	}
	if dev != nil {
		o.oneBest(s, "dev", devSents, dev.Lines, mixed, devPath)
	}
}

// startDev adds to s, the first epoch's pipeline, the 1-best decoding of
// devSents (the dev set dev) with the run's starting weights (startPath,
// every replica's), its BLEU statistics written to init/dev-stats.json:
// the report's epoch 0, in the launch the run makes anyway. It returns
// the sentences it decodes.
func (o *Options) startDev(s beam.Scope, devSents beam.PCollection, dev *corpus.Index, startPath string) int {
	s = s.Scope("dev0")
	o.oneBest(s, "dev0", devSents, dev.Lines, transforms.ReadWeights(s, startPath), o.layout().InitDevStats())
	return dev.Lines
}

// printStartDev prints the starting weights' dev BLEU (startDev) to
// o.Progress.
func (o *Options) printStartDev(ctx context.Context) {
	if o.Progress == nil {
		return
	}
	if b, err := rundir.ReadScore(ctx, o.layout().InitDevStats(), o.metric); err == nil {
		fmt.Fprintf(o.Progress, "epoch 0: dev %s %6.2f (the starting weights)\n", o.metric.Name(), b)
	}
}

// oneBest adds to s the 1-best decoding of sents (count sentences) under
// the singleton weights w, reported as the Beam metrics of name, and the
// writing of its summed BLEU statistics to path. The decoding and the
// re-ranking take w's non-zero weights only (transforms.NonZero: the same
// translations and statistics), which its batches copy. With
// FeatureCommands the decoding is of n-best lists of size NBest, which the
// commands score and w re-ranks.
func (o *Options) oneBest(s beam.Scope, name string, sents beam.PCollection, count int, w beam.PCollection, path string) {
	w = transforms.NonZero(s, w)
	fn := o.decodeFn(name, count, 1)
	if len(o.FeatureCommands) > 0 {
		// The system's choice is the n-best list re-ranked with the
		// added features' weights too.
		fn = o.decodeFn(name, count, o.NBest)
		fn.Options.ScoreAdded, fn.Options.Added.Set, fn.Options.Added.Source = true, "dev", o.DevSrc
	}
	transforms.WriteStats(s, transforms.OneBest(s, transforms.Decode(s, fn, sents, w), w), path)
}

// decodeFn returns the DecodeFn of the decoding of count sentences into
// n-best lists of size nbest, reported as the Beam metrics of name ("" for
// "decode"): with the external decoder, one batch (one run of the decoder)
// for each of o.DecodeBatches workers (tune.DecoderSetup.BatchSize).
//
// Why batches keyed by worker count, and not one process a DoFn instance
// fed the whole decoding, or a group a worker: a DoFn's outputs leave with
// its bundle (ProcessElement, FinishBundle) and bundles are the runner's
// choice (prism makes one of a small collection, Dataflow splits and
// retries them), so a process kept across elements serves at most a
// bundle, and it takes its weights when it starts anyway; and a worker's
// identity is known only after the shuffle that places the groups. Keys
// are what a pipeline controls: the CoGroupByKey in transforms.Decode
// places the DecodeBatches keys, and Dataflow's shuffle spreads them over
// the job's workers by key range, evenly but not necessarily one a worker;
// a worker given two keys runs the decoder twice (a decoding never runs
// it more than DecodeBatches times), and a job of fewer workers than keys
// runs some batches one after another. A retried bundle starts it again.
func (o *Options) decodeFn(name string, count, nbest int) *transforms.DecodeFn {
	return &transforms.DecodeFn{Decoder: o.Decoder, DecoderConfig: o.dec.Config(), Options: o.decodeOptions(nbest),
		Sentences: count, BatchSize: o.dec.BatchSize(count, o.DecodeBatches), Name: name}
}

// checkModel runs a pipeline in which a worker loads the model
// (transforms.CheckModel) and writes what it found to path, and logs it to
// o.Progress.
func checkModel(ctx context.Context, o *Options, path string) error {
	p, s := beam.NewPipelineWithRoot()
	transforms.CheckModel(s, &transforms.CheckModelFn{Decoder: o.Decoder, DecoderConfig: o.dec.Config(), Path: path})
	if _, _, err := execute(ctx, o, p); err != nil {
		return &PipelineError{Err: err}
	}
	var mc tune.ModelCheck
	if err := rundir.ReadJSON(ctx, path, &mc); err != nil {
		return err
	}
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "model: loaded on %s in %.1f s, %d features\n", mc.Host, mc.LoadSeconds, mc.Features)
	}
	return nil
}

// startLaunch readies the progress folder of a launch of epoch n,
// epochs/NNN/work/name, for the decodings of the pipeline built next and
// executeWatched.
func (o *Options) startLaunch(n int, name string) {
	o.progress = storage.Join(o.layout().Epoch(n).Work(), name)
}

// executeWatched is execute with the progress of the launch label, which
// decodes total sentences, printed to o.Progress every o.ProgressEvery
// while it runs (tune.WatchDecoding, from the launch's progress folder
// too: startLaunch).
func executeWatched(ctx context.Context, o *Options, p *beam.Pipeline, label string, total int) (map[string]int64, map[string]rundir.Distribution, error) {
	stop := tune.WatchDecoding(ctx, o.Progress, label, total, o.ProgressEvery, o.progress)
	defer stop()
	return execute(ctx, o, p)
}

// execute launches p with o.Execute (beamx.RunWithMetrics if nil) and
// returns the Beam metrics of its result (transforms.ReadMetrics).
func execute(ctx context.Context, o *Options, p *beam.Pipeline) (map[string]int64, map[string]rundir.Distribution, error) {
	exec := o.Execute
	if exec == nil {
		exec = beamx.RunWithMetrics
	}
	res, err := exec(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	counters, dists := transforms.ReadMetrics(res)
	return counters, dists, nil
}
