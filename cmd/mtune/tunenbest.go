package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/pool/poolfile"
	"github.com/mtune/mtune/run"
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
		inputs := slices.Concat(rundir.Inputs("nbest", in.nbests), rundir.Inputs("ref", in.refs), rundir.Inputs("scores", in.scores))
		for _, f := range in.feats {
			inputs = append(inputs, rundir.Inputs("feature "+f.Name, f.Paths)...)
		}
		inputs = append(inputs, rundir.Inputs("init", []string{*initPath})...)
		pm := &run.Pool{Learner: info, Config: cfg, MetricSpec: in.spec, Inputs: inputs, Log: a.stderr}
		var sc *pool.Scorer
		pm.Load = func(ctx context.Context) (poolfile.Tuning, error) {
			var err error
			if sc, err = in.scorer(ctx); err != nil {
				return poolfile.Tuning{}, err
			}
			pm.Scoring = sc.Metric()
			opts := in.options(cfg.Threads)
			opts.Cache, opts.CacheInputs = *cache, append(slices.Clone(in.refs), in.scores...)
			return poolfile.LoadTuning(ctx, in.nbests, *initPath, sc, opts)
		}
		s := run.Settings{Command: "tune-nbest", Out: *out, Overwrite: *overwrite, Epochs: *epochs, Seed: *seed,
			CommandLine: commandLine("tune-nbest")}
		if info.Online {
			s.Progress = a.stderr
		}
		start := time.Now()
		res, err := run.Run(ctx, run.Problem{Metric: in.spec, Init: *initPath}, s, pm)
		if errors.Is(err, rundir.ErrNotEmpty) {
			return fmt.Errorf("%s holds the output of an earlier run: give --overwrite to replace it, or another --out", *out)
		}
		if err != nil {
			return err
		}
		t := pm.Pooled()
		best, err := weights.Read(ctx, res.BestWeights, t.Index)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "tune-nbest: %s: %d non-zero weights, %.2f s; wrote %s\n",
			info.Name, best.Weights.NonZero(), time.Since(start).Seconds(), rundir.Layout{Root: *out}.Best().Moses())
		fmt.Fprintln(a.stdout, scoreLine(pm.Metric(), pool.OneBest(t.Lists, best.Weights), sc.Refs(), false))
		return nil
	}
}
