package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/decoder/build"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pipelines"
	"github.com/mtune/mtune/registry"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/tune"
)

// Retrain's exit statuses of its own: busy, another process holds the
// registry (EX_TEMPFAIL of sysexits.h, "try again later"); stopped by
// SIGTERM or SIGINT, the night resumable (128 + SIGTERM's 15, as a shell
// reports a process that signal ended).
const exitBusy, exitStopped = 75, 143

// retrainFlags registers the flags of "mtune retrain", one night of
// nightly retraining (DESIGN.md §9, package registry): tune's data,
// learner, pipeline and Beam flags, and the registry's and the gate's.
func retrainFlags(fs *flag.FlagSet) runFunc {
	t := &tuneArgs{}
	o := &t.o
	registerTuneFlags(fs, t)
	root := fs.String("registry", "", "the registry: a folder or gs://bucket/prefix (required)")
	runID := fs.String("run-id", "", "the night's id, its folder R/runs/ID (default: the UTC date-time, or in a Cloud Run job its execution's name, $CLOUD_RUN_EXECUTION); a killed night, or one stopped by SIGTERM or SIGINT (exit status 143, no history line), resumes when called again with its id, a finished one does nothing")
	var gate registry.GateOptions
	fs.Float64Var(&gate.MinGain, "min-gain", 0, "promote only if the candidate's dev score under --metric beats the promoted weights' by at least this many points (TER: is that much lower)")
	fs.Float64Var(&gate.MaxP, "max-p", 0.05, "promote only if paired bootstrap resampling gives a p-value below this")
	fs.IntVar(&gate.Samples, "bootstrap", 1000, "bootstrap resamples of the dev set (seeded by --seed)")
	return func(ctx context.Context, a *app, args []string) (err error) {
		defer func() {
			if err != nil && ctx.Err() != nil && !errors.Is(err, rundir.ErrBusy) { // main's ctx: a signal
				err = exitError{code: exitStopped, err: fmt.Errorf("%w; nothing recorded: call again with its --run-id to resume the night", err)}
			}
		}()
		if *root == "" {
			return usagef("--registry is required")
		}
		if err := positiveFlags(fs, "bootstrap", "max-p"); err != nil {
			return err
		}
		id := *runID
		if id == "" {
			id = registry.DefaultRunID(os.Getenv, time.Now())
		}
		if err := registry.CheckRunID(id); err != nil {
			return usagef("--run-id: %v", err)
		}
		m, err := tune.DecodeOptions{Metric: o.Metric}.ParseMetric() // the gate's, as pipelines.DevScorer's scorer parses it
		if err != nil {
			return usagef("--metric: %v", err)
		}
		gate.Seed, gate.Metric = o.Seed, m
		if err := gate.Validate(); err != nil {
			return usagef("%v", err)
		}
		reg, err := registry.Open(*root)
		if err != nil {
			return err
		}
		if err := reg.CheckRoot(ctx); err != nil {
			return err
		}
		reg.Log = a.stderr
		o.Out = reg.Root // the demo's model goes to R/demo-model
		demo, err := t.prepare(fs, a, "retrain")
		if err != nil {
			return err
		}
		if demo && o.DevSrc == "" {
			_, files := build.DemoIn(rundir.Layout{Root: o.Out}.DemoModel())
			o.DevSrc, o.DevRefs = files.TestSrc, []string{files.TestRef}
		}
		if o.DevSrc == "" || len(o.DevRefs) == 0 {
			return usagef("retrain needs a dev set, --dev-src and --dev-ref: the gate compares the candidate with the promoted weights on it")
		}
		devOpts := *o
		o.Resume = true
		if err := o.Validate(); err != nil {
			return usagef("%v", err)
		}
		beam.Init()
		if demo {
			o.Build = buildDemo(a, o.Out)
		}
		o.Command, o.RunLog = "tune", true
		n := registry.Night{Registry: reg, RunID: id, Gate: gate, Log: a.stderr,
			Problem: o.Problem, Settings: o.Settings, Method: o.Method(), Score: devScorer(devOpts)}
		out, err := n.Run(ctx)
		if errors.Is(err, rundir.ErrBusy) {
			return exitError{code: exitBusy, err: fmt.Errorf("registry busy: %w", err)}
		}
		if err != nil {
			return err
		}
		e := out.Entry
		if out.Done {
			fmt.Fprintf(a.stdout, "night %s finished already: %s at %s\n", e.Run, e.Decision, e.End.Format(time.RFC3339))
			return nil
		}
		fmt.Fprintf(a.stdout, "night %s: %s; history: %s\n", e.Run, e.Summary(), reg.History())
		// The night's complete weights (dense and sparse), as tune names
		// best/weights.json, and the registry's report.
		fmt.Fprintf(a.stdout, "report:  %s\nweights: %s (the night's candidate, dense and sparse)\n",
			reg.Report(), reg.Run(e.Run).Best().JSON())
		return nil
	}
}

// devScorer returns the gate's scoring function for the dev set of o,
// loading the decoder on first use (after the night has built the demo's
// model, if it had to).
func devScorer(o pipelines.Options) func(context.Context, string) ([]metric.Stats, error) {
	var once sync.Once
	var score func(context.Context, string) ([]metric.Stats, error)
	var err error
	return func(ctx context.Context, path string) ([]metric.Stats, error) {
		once.Do(func() { score, err = pipelines.DevScorer(ctx, o) })
		if err != nil {
			return nil, err
		}
		return score(ctx, path)
	}
}

// retrainFlagGroups orders retrain's help: tune's groups, with the
// registry's in place of the output folder's.
var retrainFlagGroups = []flagGroup{
	tuneFlagGroups[0], tuneFlagGroups[1], tuneFlagGroups[2],
	{"registry", []string{"registry", "run-id", "min-gain", "max-p", "bootstrap"}},
}
