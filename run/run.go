// Package run is a tuning run as one value, without Beam (DESIGN.md §13),
// split as gonum's optimize splits a minimisation: a Problem (what is
// tuned: the model, the tuning and dev sets, the metric), Settings (where
// and how the run is kept: the folder, resume or overwrite, epochs, seed,
// replicas, recorders) and a Method (how its epochs are made: ipm, stale
// and batch in package pipelines, one Beam launch an epoch; Pool, the
// n-best lists of tune-nbest, here). Run does once, for every command
// (tune, tune-nbest, a night of retrain), what a run shares: open the
// folder under its lease, check and checksum the inputs, the manifest and
// its --resume check, the model check, the starting weights, the Driver
// over the Method's Epocher, the record of how the run ended.
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/tune"
)

// Problem is what a run tunes.
type Problem struct {
	// Config is the moses.ini of the system to tune (local or gs://),
	// required by the decoding methods (pipelines'); Pool's model is its
	// n-best lists, decoded once.
	Config string
	// Src and Refs are the tuning set; DevSrc and DevRefs an optional
	// held-out set whose score chooses best/weights.
	Src, DevSrc   string
	Refs, DevRefs []string
	// Metric is what the run tunes toward and reports, a --metric spec
	// (metric.Parse: "bleu", "chrf", "ter:case=true", weighted sums); ""
	// means BLEU. The Method parses it once, where it validates.
	Metric string
	// Init is a weights file to start from; "" means the model's own (a
	// moses.ini's weights; Pool's: every dense feature 1/N).
	Init string
	// Build, when set, makes the model before Run reads its inputs, under
	// the folder's lease: mtune's demo system, built on first use into
	// OUT/demo-model (a registry's R/demo-model).
	Build func(ctx context.Context) error
}

// Settings say where and how a run is kept.
type Settings struct {
	// Command is the mtune command that writes the folder ("tune",
	// "tune-nbest"; rundir.OpenOptions.Command); "" is "tune".
	Command string
	// Out is the output folder (local or gs://); required.
	Out string
	// Resume continues from the last complete epoch in Out.
	Resume bool
	// Overwrite empties Out first (only the files a run of Command
	// wrote, once the inputs are checked). Without Resume or Overwrite an
	// Out that holds files is refused (rundir.ErrNotEmpty).
	Overwrite bool
	// Dir is Out already opened (rundir.Open) and held by the caller;
	// nil means Run opens Out itself, holds its lease and releases it.
	Dir *rundir.RunDir
	// Epochs is the last epoch to run; 0 means 5.
	Epochs int
	// Seed seeds the run; epoch k's seeds derive from Seed and k.
	Seed uint64
	// Replicas is the number of independent runs of the tuning (the
	// methods that take them, tune.ReplicasEpocher; Clark et al. 2011):
	// replica r is the run seeded with tune.ReplicaSeed(Seed, r), its
	// files in rundir.Layout.Replica. 0 means 1, the run without replicas.
	Replicas int
	// CommandLine is recorded in the manifest.
	CommandLine []string
	// Progress receives a line per epoch (tune.Printer); nil means none.
	Progress io.Writer
	// RunLog keeps the run's log in OUT/run.log: while Run runs, the
	// process's slog default is a rundir.RunLog whose warnings go to
	// Progress too (a runner's dozen lines per launch go to the file
	// only), and an error with a Detail (pipelines.PipelineError) leaves
	// its whole report there.
	RunLog bool
	// Recorders are called after the run's own (the report, the
	// checkpoint of the folder's record, the progress lines), before the
	// first epoch and after each (tune.Recorder).
	Recorders []tune.Recorder
}

// Validate fills in the settings' defaults and checks them, before any
// work.
func (s *Settings) Validate() error {
	if s.Epochs == 0 {
		s.Epochs = 5
	}
	switch {
	case s.Out == "":
		return errors.New("run: an output folder is required")
	case s.Resume && s.Overwrite:
		return errors.New("run: --resume continues the run in the output folder, --overwrite removes it: give one")
	case s.Epochs < 1:
		return fmt.Errorf("run: epochs %d must be positive", s.Epochs)
	case s.Replicas < 0:
		return fmt.Errorf("run: invalid --replicas %d (at least 1)", s.Replicas)
	}
	return nil
}

// replicas returns the number of replicas, at least 1.
func (s *Settings) replicas() int { return max(1, s.Replicas) }

// Method makes a run's epochs. Run calls Validate first, before any
// work; then, with the folder open and held, Prepare, and once the
// manifest is written, Epocher.
type Method interface {
	// Validate fills in the method's defaults and checks its options
	// against the problem and the settings (which it may complete),
	// before anything is read or written.
	Validate(p *Problem, s *Settings) error
	// Metric is the problem's metric as Validate parsed it.
	Metric() metric.Metric
	// Manifest is the manifest's record of the method's options.
	Manifest() rundir.ManifestFlags
	// Prepare reads the problem's inputs once, to check them (streaming
	// the sets, holding neither them nor the model), in the open folder
	// dir.
	Prepare(ctx context.Context, dir *rundir.RunDir) (Prepared, error)
	// Start reads the run's starting weights, once the inputs are known
	// to lie outside the folder (the weights file may be one), which Run
	// writes to the folder's init/weights.json for a new run; nil means
	// the Epocher writes its own.
	Start(ctx context.Context) (*weights.ByName, error)
	// Epocher returns the Epocher of the run in dir, starting from start
	// (Start's weights in dir's init/; zero without them).
	Epocher(ctx context.Context, dir *rundir.RunDir, start tune.Weights) (Epocher, error)
}

// ModelChecker is a Method that checks, once the run's own checks are
// done and before any epoch, that its model loads where the epochs run
// (a worker writing init/model.json at path): a model that does not load
// stops the run before it starts.
type ModelChecker interface {
	CheckModel(ctx context.Context, path string) error
}

// Prepared is what a Method's Prepare found.
type Prepared struct {
	// Inputs are the manifest's inputs, checksummed where a --resume
	// compares them.
	Inputs []rundir.InputFile
	// Outside are the inputs that must not lie where the run writes
	// (rundir.RunDir.CheckInputs); nil means Inputs, an empty slice none.
	Outside []rundir.InputFile
	// Keep names files --overwrite keeps besides the inputs and the model
	// check (the demo system the run tunes).
	Keep []string
}

// Epocher is what a Method's Epocher returns: the tune.Epocher (a
// tune.ReplicasEpocher with replicas), and the starting weights and their
// metrics when the method made them itself.
type Epocher struct {
	tune.Epocher
	// Start, when its File is set, replaces the starting weights Run
	// wrote (Pool writes its own init/ trio).
	Start tune.Weights
	// Baseline are the metrics of the starting weights, ranked with the
	// epochs' (tune.Driver.Baseline); nil means none.
	Baseline *rundir.Metrics
}

// Result is what Run returns.
type Result struct {
	// Epochs holds every epoch's metrics, resumed ones included (with
	// replicas, every replica's, epoch by epoch: metrics.jsonl's lines).
	Epochs []rundir.Metrics
	// Best is the epoch of best/ (0: the starting weights, with a
	// Baseline); BestWeights the path of its complete weights,
	// best/weights.json (dense and sparse; best/weights holds the dense
	// ones only, best/weights.sparse the sparse ones).
	Best        int
	BestWeights string
	// BestReplica is the replica of best/weights (0 for a run of one).
	BestReplica int
	// Resumed is the number of epochs a resumed run found complete (of
	// each replica) and did not run again; 0 for a new run.
	Resumed int
}

// detailed is an error that holds a longer report than its message (a
// runner's), which the run's log keeps.
type detailed interface{ Detail() string }

// Run runs the tuning run of problem p with settings s by method m:
//
//  1. m.Validate, and s's own checks: bad options are refused before
//     anything is read or written;
//  2. the folder s.Out opened under its lease (unless s.Dir is), and the
//     problem's model built (p.Build);
//  3. m.Prepare: the inputs read once and checksummed; none may lie where
//     the run writes; then m.Start, the starting weights;
//  4. with s.Resume, the complete epochs kept, and the manifest of the
//     interrupted run compared with this one (rundir.SameRun): other
//     options or inputs are refused;
//  5. the model check (ModelChecker), then with s.Overwrite the earlier
//     run removed (but for the inputs);
//  6. the starting weights and the manifest written;
//  7. tune.Driver over m's Epocher, with the report, the folder's record
//     and the progress lines as its recorders, then s.Recorders;
//  8. how the run ended recorded (rundir.Finish), every file it wrote in
//     the folder's record.
//
// Since an epoch reads only the previous epoch's files and seeds derive
// from s.Seed, the replica and the epoch number, a resumed run's result
// equals an uninterrupted run's.
func Run(ctx context.Context, p Problem, s Settings, m Method) (Result, error) {
	if err := m.Validate(&p, &s); err != nil {
		return Result{}, err
	}
	if err := s.Validate(); err != nil {
		return Result{}, err
	}
	dir := s.Dir
	if dir == nil {
		cmd := s.Command
		if cmd == "" {
			cmd = "tune"
		}
		var err error
		dir, err = rundir.Open(ctx, s.Out, rundir.OpenOptions{Resume: s.Resume, Overwrite: s.Overwrite, Command: cmd,
			Lease: rundir.LeaseOptions{Owner: "mtune " + cmd}})
		if err != nil {
			return Result{}, err
		}
		defer dir.Close(context.WithoutCancel(ctx))
		ctx = dir.Hold(ctx)
	}
	if !s.RunLog {
		return run(ctx, p, s, m, dir)
	}
	prev := slog.Default()
	log := rundir.NewRunLog(s.Progress)
	slog.SetDefault(slog.New(log))
	res, err := run(ctx, p, s, m, dir)
	slog.SetDefault(prev)
	var d detailed
	if errors.As(err, &d) {
		log.Detail(d.Detail())
	}
	if werr := log.Save(context.WithoutCancel(ctx), dir.Log()); werr != nil {
		slog.Warn("run: could not write the run's log", "err", werr)
	} else if d != nil {
		err = fmt.Errorf("%w (the runner's full report: %s)", err, dir.Log())
	}
	return res, err
}

// run is Run in the open folder dir, from step 2's build on.
func run(ctx context.Context, p Problem, s Settings, m Method, dir *rundir.RunDir) (Result, error) {
	if p.Build != nil {
		if err := p.Build(ctx); err != nil {
			return Result{}, err
		}
	}
	in, err := m.Prepare(ctx, dir)
	if err != nil {
		return Result{}, err
	}
	man := rundir.Manifest{CommandLine: s.CommandLine, Version: rundir.Version(), Seed: s.Seed, Init: p.Init,
		Start: time.Now().UTC(), Status: "running", Options: m.Manifest(), Inputs: in.Inputs}
	if s.replicas() > 1 {
		for r := range s.replicas() {
			man.ReplicaSeeds = append(man.ReplicaSeeds, tune.ReplicaSeed(s.Seed, r))
		}
	}
	outside := in.Outside
	if outside == nil {
		outside = in.Inputs
	}
	if err := dir.CheckInputs(outside...); err != nil {
		return Result{}, err
	}
	init, err := m.Start(ctx)
	if err != nil {
		return Result{}, err
	}
	var res Result
	if s.Resume {
		if res.Epochs, man.Start, err = resumed(ctx, dir, s, man); err != nil {
			return Result{}, err
		}
	}
	if c, ok := m.(ModelChecker); ok {
		if err := c.CheckModel(ctx, dir.ModelCheck()); err != nil {
			return Result{}, err
		}
	}
	if s.Overwrite {
		// The inputs are good: now the earlier run goes, but for the
		// inputs and what the method keeps.
		keep := append([]string{dir.ModelCheck()}, in.Keep...)
		for _, f := range in.Inputs {
			keep = append(keep, f.Path)
		}
		if err := dir.Clear(ctx, keep...); err != nil {
			return Result{}, err
		}
	}
	var start tune.Weights
	if init != nil {
		start = tune.Weights{ByName: *init, File: dir.Init()}
		if len(res.Epochs) == 0 {
			if err := weights.WriteByName(ctx, start.File, *init); err != nil {
				return Result{}, err
			}
		}
	}
	if err := dir.WriteManifest(ctx, man); err != nil {
		return Result{}, err
	}
	report := tune.NewReport(dir.Layout, m.Metric())
	e, err := m.Epocher(ctx, dir, start)
	if err == nil {
		if e.Start.File != "" {
			start = e.Start
		}
		res.Resumed = len(res.Epochs) / s.replicas()
		d := tune.Driver{Dir: dir.Layout, Epochs: s.Epochs, Replicas: s.replicas(), Start: start, Baseline: e.Baseline,
			Recorders: append([]tune.Recorder{report, dir.Checkpoints(), tune.NewPrinter(s.Progress)}, s.Recorders...)}
		res.Epochs, err = d.Run(ctx, e.Epocher, res.Epochs)
	}
	if err == nil {
		res.BestReplica, res.Best = rundir.BestReplica(res.Epochs)
		if e.Baseline != nil {
			res.Best = rundir.BestEpoch(append([]rundir.Metrics{*e.Baseline}, res.Epochs...))
		}
		res.BestWeights = dir.Best().JSON()
	}
	return res, rundir.Finish(ctx, dir, report, man, err)
}

// resumed returns the complete epochs of the run in dir (every
// replica's) and its start time, once the manifest it recorded agrees
// with man, this run's: a run that records other options or inputs is
// refused. A folder that holds no epoch yet resumes as a new run, unless
// it records another number of replicas (whose epochs it would look for in
// other folders).
func resumed(ctx context.Context, dir *rundir.RunDir, s Settings, man rundir.Manifest) ([]rundir.Metrics, time.Time, error) {
	done, err := rundir.CompleteReplicas(ctx, dir.Layout, s.replicas())
	if err != nil {
		return nil, time.Time{}, err
	}
	var prev rundir.Manifest
	perr := rundir.ReadJSON(ctx, dir.Manifest(), &prev)
	started := perr == nil && prev.Status != rundir.StatusStarting // else the folder's record alone: no run started
	otherReplicas := started && max(1, prev.Options.Replicas) != s.replicas()
	if len(done) == 0 && !otherReplicas {
		return nil, man.Start, nil
	}
	if perr != nil {
		return nil, time.Time{}, perr
	}
	if err := rundir.SameRun(s.Out, prev, man); err != nil {
		return nil, time.Time{}, err
	}
	return done, prev.Start, nil
}
