package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mtune/mtune/feature"
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
	algoName := fs.String("algo", algo.DefaultBatch, "learner: "+strings.Join(algo.Names(), ", "))
	var cfg algo.Config
	learnerFlags(fs, &cfg)
	fs.IntVar(&cfg.Restarts, "restarts", 0, "MERT's random restarts (default 20)")
	fs.IntVar(&cfg.Passes, "passes", 0, "kb-MIRA's passes over the pool (default 60); the SVM's most alternations (default 10)")
	batchSearchFlags(fs, &cfg)
	seed := fs.Uint64("seed", 1, "random seed")
	fs.IntVar(&cfg.Threads, "threads", 0, "goroutines (default: all cores)")
	epochs := fs.Int("epochs", 10, "epochs of an online learner over the pool (the weights of the epoch with the best BLEU are kept)")
	initPath := fs.String("init", "", "initial weights (any format --weights of rerank takes); default: every dense feature 1/N")
	out := fs.String("out", "", "output folder (local or gs://), a run folder as tune writes: best/weights (and weights.sparse, weights.json) the tuned weights, epochs/NNN/ each epoch's, metrics.jsonl, report.html, manifest.json; empty, new, or an earlier tune-nbest's with --overwrite")
	overwrite := fs.Bool("overwrite", false, "replace the run an earlier tune-nbest wrote in --out (only its files)")
	return func(ctx context.Context, a *app, args []string) error {
		if len(in.nbests) == 0 || len(in.refs) == 0 || *out == "" {
			return usagef("--nbest, -r and --out are required")
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
		cfg.Metric = m
		if err := cfg.Validate(info.Name); err != nil {
			return usagef("%v", err)
		}
		dir, err := openOutput(ctx, "tune-nbest", *out, *overwrite, ownsTrio)
		if err != nil {
			return err
		}
		dir.man.Options = tune.LearnerManifest(info.Name, cfg)
		dir.man.Options.Mode, dir.man.Options.Epochs = "pool (tune-nbest)", 1
		if info.Online {
			dir.man.Options.Epochs = *epochs
		}
		var inputs []rundir.InputFile
		for _, p := range in.nbests {
			inputs = append(inputs, rundir.InputFile{Role: "nbest", Path: p})
		}
		for _, p := range in.refs {
			inputs = append(inputs, rundir.InputFile{Role: "ref", Path: p})
		}
		if *initPath != "" {
			inputs = append(inputs, rundir.InputFile{Role: "init", Path: *initPath})
		}
		err = runTuneNbest(ctx, a, tuneNbestOptions{
			info: info, cfg: cfg, nbests: in.nbests, scoring: &in.scoringFlags,
			init: *initPath, out: *out, epochs: *epochs,
			start: func() error { return dir.start(ctx, *overwrite, *seed, inputs...) },
		})
		return dir.close(ctx, err)
	}
}

// floatPtr returns a flag.Func handler that stores a parsed float in a new
// *float64, so that "not given" stays distinguishable from 0.
func floatPtr(dst **float64) func(string) error {
	return func(s string) error {
		var x float64
		if _, err := fmt.Sscan(s, &x); err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return fmt.Errorf("want a non-negative number, got %q", s)
		}
		*dst = &x
		return nil
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
	// start readies the output folder once the inputs are read.
	start func() error
}

// ownsTrio reports whether rel, relative to tune-nbest's --out, is one of
// the files it writes there: a run folder's (rundir.Layout.Owns), or the
// weights trio an earlier mtune wrote at its top (before tune-nbest ran
// through tune.Driver), which --overwrite replaces.
func ownsTrio(rel string) bool {
	switch rel {
	case weights.TrioMoses, weights.TrioSparse, weights.TrioJSON:
		return true
	}
	return rundir.Layout{}.Owns(rel)
}

// runTuneNbest tunes on the n-best lists o names through tune.Driver, the
// one epoch loop: a tune.PoolEpocher runs the learner over the pool, an
// online learner's --epochs times (its best epoch kept, the starting
// weights counting as epoch 0), a batch optimizer's once.
func runTuneNbest(ctx context.Context, a *app, o tuneNbestOptions) error {
	start := time.Now()
	idx := feature.NewIndex()
	var set *weights.Set
	if o.init != "" {
		var err error
		if set, err = weights.ReadWithSparse(ctx, o.init, "", idx); err != nil {
			return err
		}
	}
	sc, err := o.scoring.scorer(ctx)
	if err != nil {
		return err
	}
	lists, groups, err := poolfile.Load(ctx, o.nbests, idx, sc, poolfile.Options{Threads: o.cfg.Threads})
	if err != nil {
		return err
	}
	if len(lists) == 0 {
		return fmt.Errorf("the n-best lists %v hold no hypotheses", o.nbests)
	}
	set, w, err := poolfile.StartWeights(ctx, o.nbests, idx, sc.Len(), lists, groups, set, o.init)
	if err != nil {
		return err
	}
	m := sc.Metric()
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
	d := tune.Driver{Dir: dir, Epochs: 1, Start: startW, Recorders: []tune.Recorder{tune.NewReport(dir)}}
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

// learnerFlags registers on fs the flags of the online learners' settings
// that tune-nbest and tune share (--loss, --l1, --l2, --noise,
// --noise-type, --noise-unlabeled, --rate, --minibatch), with the learners
// and defaults their help names taken from algo's descriptions.
func learnerFlags(fs *flag.FlagSet, cfg *algo.Config) {
	var losses, rates, batches []string
	for _, in := range algo.All() {
		if len(in.Losses) > 0 {
			losses = append(losses, fmt.Sprintf("%s (%s)", strings.Join(in.Losses, " or "), in.Name))
		}
		if in.Rate > 0 {
			rates = append(rates, fmt.Sprintf("%s %g", in.Name, in.Rate))
		}
		if in.MiniBatch > 0 {
			batches = append(batches, fmt.Sprintf("%s %d", in.Name, in.MiniBatch))
		}
	}
	fs.StringVar(&cfg.Loss, "loss", "", "loss of an online learner, the default first: "+strings.Join(losses, ", "))
	fs.Func("l1", "L1 strength of "+algo.Readers("l1")+"'s FOBOS step (default 0.1; 0 = off)", floatPtr(&cfg.L1))
	fs.Func("l2", "L2 strength of "+algo.Readers("l2")+" (Watanabe's λ for oro; 0 = off, not for svm)", floatPtr(&cfg.L2))
	fs.Float64Var(&cfg.Noise, "noise", 0, "feature-noising level for the logistic loss of "+algo.Readers("noise")+" (Wang et al. 2013): the dropout rate δ, or σ with --noise-type gaussian; 0 = off")
	fs.StringVar(&cfg.NoiseType, "noise-type", "", "the noise of --noise: dropout (the default) or gaussian (additive N(0, σ²) on every feature of a pair's difference vector)")
	fs.IntVar(&cfg.NoiseUnlabeled, "noise-unlabeled", 0, "random pairs a list, their order unknown, that enter only the noising regulariser (Wang et al.'s eq. 11); needs --noise")
	fs.Float64Var(&cfg.Rate, "rate", 0, "learning rate of "+algo.Readers("rate")+" (default: the learner's own: "+strings.Join(rates, ", ")+")")
	fs.IntVar(&cfg.MiniBatch, "minibatch", 0, "sentences per online update (default: the learner's own: "+strings.Join(batches, ", ")+")")
}

// batchSearchFlags registers the flags of MERT's search and of kb-MIRA
// that tune-nbest and tune share: --random-directions, --restart-range,
// --mira-c and --mira-decay. A typed-in value out of range is refused as
// the flag is parsed (exit 2, before any work); a flag the chosen learner
// does not use is refused by algo.Config.Validate.
func batchSearchFlags(fs *flag.FlagSet, cfg *algo.Config) {
	fs.Func("random-directions", "MERT: random directions searched in every pass besides the coordinate ones (Moses' mert --nrandom; default 0)", func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fmt.Errorf("want a positive count, got %q", s)
		}
		cfg.RandomDirections = n
		return nil
	})
	fs.Func("restart-range", "MERT: MIN,MAX bounding every coordinate of the random start points and directions (the min and max of Moses' init.opt; default 0,1)", func(s string) error {
		r, err := parseRange(s)
		if err != nil {
			return err
		}
		cfg.RestartRange = &r
		return nil
	})
	fs.Func("mira-c", "kb-MIRA's step-size cap C (kbmira --cparam; default 0.01)", func(s string) error {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("want a positive number, got %q", s)
		}
		cfg.MIRAC = x
		return nil
	})
	fs.Func("mira-decay", "kb-MIRA's BLEU pseudo-corpus decay γ in (0, 1] (kbmira --decay; default 0.999)", func(s string) error {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !(x > 0 && x <= 1) {
			return fmt.Errorf("want a number in (0, 1], got %q", s)
		}
		cfg.MIRADecay = x
		return nil
	})
}

// parseRange parses "MIN,MAX": two finite numbers, MIN < MAX.
func parseRange(s string) ([2]float64, error) {
	lo, hi, ok := strings.Cut(s, ",")
	if !ok {
		return [2]float64{}, fmt.Errorf("want MIN,MAX, got %q", s)
	}
	a, err1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
	switch {
	case err1 != nil || err2 != nil || math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0):
		return [2]float64{}, fmt.Errorf("want two finite numbers MIN,MAX, got %q", s)
	case !(a < b):
		return [2]float64{}, fmt.Errorf("MIN %v must be less than MAX %v", a, b)
	}
	return [2]float64{a, b}, nil
}
