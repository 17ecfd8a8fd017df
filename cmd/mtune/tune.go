package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/mtune/mtune/decoder/build"
	"github.com/mtune/mtune/internal/cliflag"
	"github.com/mtune/mtune/internal/option"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pipelines"
	"github.com/mtune/mtune/pool/poolfile"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// errDryRun stops a dry run after its first launch.
var errDryRun = errors.New("dry run")

// tuneFlags registers the flags of "mtune tune", the tuning pipeline on
// Apache Beam, and returns the command. Beam's own flags (--runner,
// --project, --region, --temp_location, …, registered on flag.CommandLine
// by the Beam packages) are accepted too: the command's flag set shares
// their values, and beam.Init runs once they are parsed.
func tuneFlags(fs *flag.FlagSet) runFunc {
	t := &tuneArgs{}
	o := &t.o
	registerTuneFlags(fs, t)
	fs.StringVar(&o.Out, "out", "mtune-out", "output folder (local or gs://); one run at a time (a lease file guards it)")
	fs.BoolVar(&o.Resume, "resume", false, "continue the run in --out from its last complete epoch (same options and inputs)")
	fs.BoolVar(&o.Overwrite, "overwrite", false, "remove the earlier run in --out first (an --out holding files is refused without --resume or --overwrite)")
	fs.StringVar(&o.Init, "init", "", "weights to start from (default: the moses.ini's)")
	fs.IntVar(&o.Replicas, "replicas", 1, "ipm and stale mode: independent runs of the tuning with different seeds (replica 0 has --seed), all in each epoch's one launch; the report gives each replica's curve and the mean ± sd of their dev BLEU (Clark et al. 2011), best/ the best replica's best epoch; files in OUT/replicas/R/")
	return func(ctx context.Context, a *app, args []string) error {
		start := time.Now()
		demo, err := t.prepare(fs, a, "tune")
		if err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return usagef("%v", err)
		}
		beam.Init()
		if demo {
			o.Build = buildDemo(a, o.Out)
		}
		if f := flag.Lookup("dry_run"); f != nil && f.Value.String() == "true" {
			// A dry run builds and prints the first epoch's job (Beam
			// logs it at Info level) and runs nothing, so there is no
			// epoch output to go on with; nor is there a worker to
			// check the model.
			o.SkipModelCheck = true
			o.Execute = func(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error) {
				if err := beamx.Run(ctx, p); err != nil {
					return nil, err
				}
				return nil, errDryRun
			}
			if _, err := pipelines.Run(ctx, *o); !errors.Is(err, errDryRun) {
				return err
			}
			fmt.Fprintln(a.stderr, "tune: dry run: the first epoch's job was built and printed above; nothing ran")
			return nil
		}
		o.RunLog = true
		res, err := pipelines.Run(ctx, *o)
		if err != nil {
			return err
		}
		ran, files := pipelines.Summary(res, *o, time.Since(start))
		fmt.Fprintf(a.stderr, "tune: %s\n", ran)
		fmt.Fprintln(a.stdout, strings.Join(files, "\n"))
		return nil
	}
}

// tuneArgs are the flags tune and retrain share: the run's options and the
// references as given.
type tuneArgs struct {
	o             pipelines.Options
	refs, devRefs cliflag.List
}

// registerTuneFlags registers the data, learner and pipeline flags of tune
// and retrain on fs (not the output ones, nor --init), and Beam's.
func registerTuneFlags(fs *flag.FlagSet, t *tuneArgs) {
	fs.StringVar(&t.o.Config, "config", "", "moses.ini of the system to tune (local or gs://); none: the embedded demo, built into OUT/demo-model")
	fs.StringVar(&t.o.Src, "src", "", "source side of the tuning set, one sentence a line")
	fs.Var(&t.refs, "ref", "references of the tuning set (file, folder or prefix; repeat for several)")
	fs.Var(&t.refs, "r", "the same as --ref")
	fs.StringVar(&t.o.DevSrc, "dev-src", "", "source of a held-out dev set whose BLEU picks best/weights (default: tune BLEU picks; see --eval-tune)")
	fs.Var(&t.devRefs, "dev-ref", "references of the dev set")
	fs.TextVar(&t.o.Mode, "mode", tune.IPM, "ipm (per-shard online learning with the decoder in the loop, then mixing) batch (decode, pool the n-best lists of every epoch, run --algo on the pool; with a dev set, each epoch's new weights are scored on it, as Moses' --return-best-dev) or stale (ipm with Green et al.'s stale gradients: --threads goroutines per shard decode and compute gradients, one applier applies them as they finish)")
	for _, p := range t.o.Methods() {
		option.Defaults(p)
		option.Register(fs, p)
	}
	fs.StringVar(&t.o.SearchAlgorithm, "search-algorithm", "", "decoder search for every decoding of the run, overriding the moses.ini's [search-algorithm]: normal (or 0: Moses' stack search) or cube (or 1: cube pruning; on Moses' 8k model the same tuned test BLEU in 58% of the tuning time, RESULTS.md); default: the moses.ini's (Moses' stack search when it sets none)")
	fs.StringVar(&t.o.DecoderCommand, "decoder", "", "run this Moses-compatible decoder command as a subprocess on the workers instead of mtune's own decoder, one run a mini-batch (ipm, stale) or a worker's share of a decoding of the tuning or dev set (--decode-batches) (sentences on its stdin; -f CONFIG, -threads N, -n-best-list FILE N distinct, -weight-overwrite '…' and -weight-file FILE added, as Moses takes them), e.g. \"/opt/moses/bin/moses -v 0\" or \"mtune decode\"; its program must be on PATH or a path")
	fs.IntVar(&t.o.DecodeBatches, "decode-batches", 0, "with --decoder: the runs of the decoder each decoding of the tuning or dev set (batch mode's, every dev decoding) is dealt into, one a worker, each given its share of the sentences and the worker's cores (default: Beam's --num_workers, else --max_num_workers, else 1); results do not depend on it")
	fs.BoolVar(&t.o.FilterModel, "filter-model", false, "each shard and decoding batch loads the model filtered to its sentences' source phrases (as Moses' filter-model-given-input.pl; cached in the worker's user cache folder, mtune/filtered) instead of each worker the whole phrase and reordering tables; the translations are the same")
	t.o.Mix = transforms.LineSearchMixer{}
	fs.Var(mixFlag{&t.o.Mix}, "mix", "ipm and stale mode: how the shards' weights are merged each epoch: linesearch (an exact line search on the epoch's n-best lists along the shards' average; the better tuner on Moses' 8k model, RESULTS.md) or average; one of "+transforms.Mixers.Help())
	fs.StringVar(&t.o.Algo, "algo", "", "learner: in ipm and stale mode an online one ("+strings.Join(algo.OnlineNames(), ", ")+"; default "+tune.DefaultLearner(tune.IPM)+"), in batch mode any (default "+tune.DefaultLearner(tune.Batch)+")")
	t.o.AlgoConfig.RegisterLearnerFlags(fs)
	fs.Func("restarts", "batch mode, mert: random restarts (default 20)", func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fmt.Errorf("want a positive count, got %q", s)
		}
		t.o.AlgoConfig.Restarts = n
		return nil
	})
	t.o.AlgoConfig.RegisterBatchSearchFlags(fs)
	fs.IntVar(&t.o.Epochs, "epochs", 5, "epochs (one pipeline launch each)")
	fs.IntVar(&t.o.NBest, "nbest", 100, "size of the n-best lists")
	fs.StringVar(&t.o.Metric, "metric", "bleu", "what the run tunes toward, chooses the best epoch by and reports, NAME[:KEY=VALUE…]: "+strings.Join(metric.MetricNames(), ", ")+" but external (options such as ter:case=true and bleu:tokenize=13a in docs/commands.md), or a weighted sum NAME:W,NAME:W (bleu:0.5,ter:0.5)")
	fs.Uint64Var(&t.o.Seed, "seed", 1, "random seed (epoch k's seeds derive from it and k)")
	fs.Func("sparse", "sparse feature templates to switch on, comma-separated or repeated: pt (phrase pairs), al (alignments), lo (reordering classes), tu (target unaligned), cb (count bins), lb (length bins), or all", func(s string) error {
		t.o.Sparse = append(t.o.Sparse, s)
		return nil
	})
	fs.Func("feature", "", func(string) error { return errors.New(poolfile.FeatureInTune) }) // refused, so not in the help
	fs.Func("feature-command", "batch mode: add the feature NAME, computed by the command CMD (NAME=CMD, repeatable): it reads each epoch's n-best lists of a pool part (Moses format) on stdin and writes one score a line; its weight is tuned with the decoder's, a dev set is scored on its n-best lists re-ranked with it (docs/rerank.md)", func(s string) error {
		c, err := tune.ParseFeatureCommand(s)
		t.o.FeatureCommands = append(t.o.FeatureCommands, c)
		return err
	})
	// Beam's flags, sharing their values with flag.CommandLine.
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if fs.Lookup(f.Name) == nil && isBeamFlag(f) {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
}

// prepare completes t.o from the parsed flags of command cmd: references,
// command line, mode defaults, the demo's paths when no --config is given
// (then it returns true).
func (t *tuneArgs) prepare(fs *flag.FlagSet, a *app, cmd string) (demo bool, err error) {
	o := &t.o
	o.Refs, o.DevRefs = t.refs, t.devRefs
	o.CommandLine = commandLine(cmd)
	o.Progress = a.stderr
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := checkTuneFlags(fs, set, o.Mode, o); err != nil {
		return false, err
	}
	if cmd == "retrain" && set["feature-command"] {
		return false, usagef("--feature-command: retrain's gate scores the dev set's 1-bests of the decoder, which knows no added feature")
	}
	if set["decoder"] && o.DecoderCommand == "" {
		return false, usagef("--decoder: an empty command (leave the flag out for mtune's own decoder)")
	}
	if set["decode-batches"] && !set["decoder"] {
		return false, usagef("--decode-batches: the in-process decoder loads its model once per worker and decodes in batches of %d sentences; the flag deals an external decoder's (--decoder) runs", transforms.DefaultDecodeBatchSize)
	}
	if o.Mode == tune.Batch {
		o.Mix = nil // batch mode mixes nothing (--mix is refused there)
	}
	if o.Config != "" {
		if o.Src == "" || len(o.Refs) == 0 {
			return false, usagef("--config needs --src and --ref")
		}
		return false, nil
	}
	if o.Src != "" || len(o.Refs) > 0 {
		return false, usagef("--src and --ref need --config")
	}
	demoPaths(o)
	return true, nil
}

// tuneFlagGroups orders the tune command's own flags for its help, by
// what they are about; the rest are Beam's.
var tuneFlagGroups = []flagGroup{
	{"data", []string{"config", "src", "ref", "r", "dev-src", "dev-ref", "init", "sparse", "feature-command"}},
	{"learner", slices.Concat([]string{"metric", "algo", "loss", "rate", "l1", "l2", "noise", "noise-type", "noise-unlabeled", "minibatch", "restarts", "random-directions", "restart-range", "mira-c", "mira-decay"},
		option.Names(pipelines.BatchOptions{}), []string{"seed"})},
	{"pipeline", slices.Concat([]string{"mode", "mix", "epochs", "nbest"}, option.Names(pipelines.ShardOptions{}), option.Names(tune.StaleOptions{}),
		[]string{"search-algorithm", "filter-model", "decoder", "decode-batches", "replicas", "runner"})},
	{"output", []string{"out", "resume", "overwrite"}},
}

// modeFlags names the flags only some modes use (besides the declared
// options of internal/option, whose modes their declarations give).
var modeFlags = map[string][]tune.Mode{
	"mix":      {tune.IPM, tune.Stale},
	"replicas": {tune.IPM, tune.Stale},
}

// mixFlag is the flag.Value of --mix: a registered mixer
// (transforms.ParseMixer).
type mixFlag struct{ m *transforms.Mixer }

func (f mixFlag) String() string {
	if f.m == nil || *f.m == nil {
		return ""
	}
	return (*f.m).Name()
}

func (f mixFlag) Set(s string) (err error) {
	*f.m, err = transforms.ParseMixer(s)
	return err
}

// checkTuneFlags refuses typed-in values that mean nothing: a zero or
// negative count, a flag the mode does not use, --resume with --overwrite.
func checkTuneFlags(fs *flag.FlagSet, set map[string]bool, mode tune.Mode, o *pipelines.Options) error {
	for _, p := range o.Methods() {
		if err := option.Check(p, mode.String(), func(name string) bool { return set[name] }); err != nil {
			return usagef("%v", err)
		}
		option.ForMode(p, mode.String()) // the defaults of the options the mode does not use
	}
	if err := positiveFlags(fs, "epochs", "nbest", "minibatch", "decode-batches", "rate", "noise-unlabeled", "replicas"); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(modeFlags)) {
		if set[name] && !slices.Contains(modeFlags[name], mode) {
			return usagef("--%s applies to --mode %s, not %s", name, joinModes(modeFlags[name]), mode)
		}
	}
	if set["resume"] && set["overwrite"] {
		return usagef("--resume continues the run in --out and --overwrite removes it: give one")
	}
	return nil
}

// joinModes returns the modes' names joined by "and".
func joinModes(ms []tune.Mode) string {
	var names []string
	for _, m := range ms {
		names = append(names, m.String())
	}
	return strings.Join(names, " and ")
}

// demoPaths points o at the embedded demo system in OUT/demo-model (built
// there by buildDemo); the demo's test set is the dev set.
func demoPaths(o *pipelines.Options) {
	config, files := build.DemoIn(rundir.Layout{Root: o.Out}.DemoModel())
	o.Config, o.Src, o.Refs = config, files.TuneSrc, []string{files.TuneRef}
	if o.DevSrc == "" {
		o.DevSrc, o.DevRefs = files.TestSrc, []string{files.TestRef}
	}
}

// buildDemo builds the demo system into OUT/demo-model unless its
// moses.ini is already there.
func buildDemo(a *app, out string) func(context.Context) error {
	return func(ctx context.Context) error {
		dir, t0 := rundir.Layout{Root: out}.DemoModel(), time.Now()
		if built, err := build.BuildDemoIn(ctx, dir); !built || err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "tune: built the demo system in %s (%.1f s)\n", dir, time.Since(t0).Seconds())
		return nil
	}
}
