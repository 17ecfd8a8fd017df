package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/pool/poolfile"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/tune"
)

// tuneNbestFlags registers the flags of "mtune tune-nbest" and returns the
// command.
func tuneNbestFlags(fs *flag.FlagSet) runFunc {
	var in nbestFlags
	in.add(fs, "n-best lists (several files are several decoding iterations, pooled per sentence)",
		"references of the tuning set (file, folder or prefix; repeat for several)")
	algoName := fs.String("algo", tune.DefaultLearner(tune.Batch), "learner: "+strings.Join(algo.Names(), ", "))
	var cfg algo.Config
	cfg.RegisterLearnerFlags(fs)
	fs.IntVar(&cfg.Restarts, "restarts", 0, "MERT's random restarts (default 20)")
	fs.IntVar(&cfg.Passes, "passes", 0, "kb-MIRA's passes over the pool (default 60); the SVM's most alternations (default 10)")
	cfg.RegisterBatchSearchFlags(fs)
	seed := fs.Uint64("seed", 1, "random seed")
	fs.IntVar(&cfg.Threads, "threads", 0, "goroutines (default: all cores)")
	epochs := fs.Int("epochs", 10, "epochs of an online learner over the pool (the weights of the epoch with the best BLEU, or --metric's score, are kept)")
	initPath := fs.String("init", "", "initial weights (any format --weights of rerank takes); default: every dense feature 1/N")
	out := fs.String("out", "", "output folder (local or gs://), a run folder as tune writes: best/weights (and weights.sparse, weights.json) the tuned weights, epochs/NNN/ each epoch's, metrics.jsonl, report.html, manifest.json; empty, new, or an earlier tune-nbest's with --overwrite")
	overwrite := fs.Bool("overwrite", false, "replace the run an earlier tune-nbest wrote in --out (only its files)")
	cache := fs.String("pool-cache", "", "local file of the scored pool, read instead of the n-best lists when the inputs and settings are those it was written from, else (re)written (as Moses reuses features.dat)")
	return func(ctx context.Context, a *app, args []string) error {
		if len(in.nbests) == 0 || len(in.refs)+len(in.scores) == 0 || *out == "" {
			return usagef("--nbest, -r (--scores with --metric external) and --out are required")
		}
		info, ok := algo.Lookup(*algoName)
		if !ok {
			return usagef("--algo %q: choose from %s", *algoName, strings.Join(algo.Names(), ", "))
		}
		if *epochs < 1 {
			return usagef("--epochs %d: must be at least 1", *epochs)
		}
		cfg.Seed = *seed
		if err := positiveFlags(fs, "minibatch", "restarts", "passes", "threads", "rate", "noise-unlabeled"); err != nil {
			return err
		}
		m, err := in.parseMetric()
		if err != nil {
			return err
		}
		cfg.SetMetric(m)
		if err := cfg.Validate(info.Name); err != nil {
			return usagef("%v", err)
		}
		if *cache != "" {
			if err := poolfile.CheckCache(*cache, slices.Concat(in.nbests, in.refs, in.scores, []string{*initPath})...); err != nil {
				return usagef("%v", err)
			}
		}
		dir, err := rundir.OpenOutput(ctx, *out, rundir.OutputOptions{Command: "tune-nbest",
			CommandLine: commandLine("tune-nbest"), Overwrite: *overwrite})
		if err != nil {
			return err
		}
		dir.Manifest.Options = tune.LearnerManifest(info.Name, cfg)
		dir.Manifest.Options.SetMetricSpec(in.spec)
		dir.Manifest.Options.Mode, dir.Manifest.Options.Epochs = "pool (tune-nbest)", 1
		if info.Online {
			dir.Manifest.Options.Epochs = *epochs
		}
		inputs := slices.Concat(rundir.Inputs("nbest", in.nbests), rundir.Inputs("ref", in.refs), rundir.Inputs("scores", in.scores))
		for _, f := range in.feats {
			inputs = append(inputs, rundir.Inputs("feature "+f.Name, f.Paths)...)
		}
		inputs = append(inputs, rundir.Inputs("init", []string{*initPath})...)
		err = runTuneNbest(ctx, a, tuneNbestOptions{
			info: info, cfg: cfg, nbests: in.nbests, scoring: &in.scoringFlags,
			init: *initPath, out: *out, epochs: *epochs, cache: *cache,
			start: func() error { return dir.Start(ctx, *seed, inputs...) },
		})
		return dir.Close(ctx, err)
	}
}

type tuneNbestOptions struct {
	info    algo.Info
	cfg     algo.Config
	nbests  []string
	scoring *scoringFlags
	init    string
	out     string
	epochs  int
	cache   string
	// start readies the output folder once the inputs are read.
	start func() error
}

// runTuneNbest tunes on the n-best lists o names through tune.Driver, the
// one epoch loop: a tune.PoolEpocher runs the learner over the pool, an
// online learner's --epochs times (its best epoch kept, the starting
// weights counting as epoch 0), a batch optimizer's once.
func runTuneNbest(ctx context.Context, a *app, o tuneNbestOptions) error {
	start := time.Now()
	sc, err := o.scoring.scorer(ctx)
	if err != nil {
		return err
	}
	opts := o.scoring.options(o.cfg.Threads)
	opts.Cache, opts.CacheInputs = o.cache, append(slices.Clone(o.scoring.refs), o.scoring.scores...)
	t, err := poolfile.LoadTuning(ctx, o.nbests, o.init, sc, opts)
	if err != nil {
		return err
	} else if t.Cache != "" {
		fmt.Fprintf(a.stderr, "tune-nbest: pool cache: %s\n", t.Cache)
	}
	m := sc.Metric()
	lists, idx, set, w := t.Lists, t.Index, t.Set, t.Weights
	fmt.Fprintf(a.stderr, "tune-nbest: %d sentences, %d hypotheses, %d features; start: %s\n",
		len(lists), pool.Size(lists), idx.Len(), scoreLine(m, pool.OneBest(lists, w), sc.Refs(), false))

	l, err := algo.New(o.info.Name, w, o.cfg)
	if err != nil {
		return usagef("%v", err)
	}
	if err := o.start(); err != nil {
		return err
	}
	dir := rundir.Layout{Root: o.out}
	set.Weights = w
	e, startW, base, err := tune.NewPoolEpocher(ctx, dir, lists, m, set, l)
	if err != nil {
		return err
	}
	d := tune.Driver{Dir: dir, Epochs: 1, Start: startW, Recorders: []tune.Recorder{tune.NewReport(dir, m)}}
	if o.info.Online {
		d.Epochs, d.Baseline = o.epochs, base
		d.Recorders = append(d.Recorders, tune.NewPrinter(a.stderr))
	}
	if _, err := d.Run(ctx, e, nil); err != nil {
		return err
	}
	best, err := weights.Read(ctx, dir.Best().JSON(), idx)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "tune-nbest: %s: %d non-zero weights, %.2f s; wrote %s\n",
		o.info.Name, best.Weights.NonZero(), time.Since(start).Seconds(), dir.Best().Moses())
	fmt.Fprintln(a.stdout, scoreLine(m, pool.OneBest(lists, best.Weights), sc.Refs(), false))
	return nil
}
