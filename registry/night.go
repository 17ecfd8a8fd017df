package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/run"
	"github.com/mtune/mtune/rundir"
)

// Night is one call of nightly retraining: tune, gate, promote.
type Night struct {
	Registry Registry
	// RunID names the night's run folder R/runs/ID.
	RunID string
	// Problem, Settings and Method are the night's tuning run (run.Run,
	// as `mtune tune` runs it): the night runs it in its folder R/runs/ID
	// (Settings' Out, Dir and Resume are the night's: it may hold epochs of
	// a killed call), starting from the promoted weights (Problem's Init:
	// the night's), and gates the run's best weights, best/weights.json.
	Problem  run.Problem
	Settings run.Settings
	Method   run.Method
	// Score decodes the dev set with the weights file at path ("" for the
	// model's own weights) and returns each sentence's statistics under the
	// gate's metric (Gate.Metric; BLEU's when nil).
	Score func(ctx context.Context, weights string) ([]metric.Stats, error)
	// Gate says when the candidate is promoted.
	Gate GateOptions
	// Lease configures the registry's lease; its Owner defaults to
	// "mtune retrain".
	Lease rundir.LeaseOptions
	// Log receives a line per step; nil means none.
	Log io.Writer
}

// Outcome is what a night did.
type Outcome struct {
	// Entry is the night's history line (the earlier one when Done).
	Entry Entry
	// Done says the night had already finished: nothing was done.
	Done bool
}

// Run plays the night (DESIGN.md §9): take the registry's lease (a
// *rundir.BusyError matching rundir.ErrBusy if another process holds it),
// warm-start from the promoted weights (the model's own on the first
// night), tune into R/runs/ID (resuming what a killed call left there),
// decide by the gate on the dev set, write the decision to the run folder,
// promote by replacing promoted.json in one conditional write, append the
// history line and redraw the report.
//
// Before its own work it completes the history (completeHistory): a call
// killed after replacing promoted.json but before appending its line left
// the pointer naming a run the history does not show in use, and the
// missing line is rebuilt from that run's gate.json.
//
// A night already in the history as promoted or kept does nothing. A
// failure (bad input, a failed write) appends a "failed" line and leaves
// promoted.json as it was; a stop (ctx cancelled, the lease lost) before
// the night decided writes nothing, and the next call with the same id
// resumes the night. A night stopped by ctx after it decided (and
// promoted) still appends its line, under the lease it holds until it
// returns.
func (n Night) Run(ctx context.Context) (Outcome, error) {
	if err := CheckRunID(n.RunID); err != nil {
		return Outcome{}, err
	}
	if err := n.Gate.Validate(); err != nil {
		return Outcome{}, err
	}
	if n.Method == nil || n.Score == nil {
		return Outcome{}, errors.New("registry: a night needs its run's Method and its Score function")
	}
	if n.Lease.Owner == "" {
		n.Lease.Owner = "mtune retrain"
	}
	if n.Registry.Log == nil {
		n.Registry.Log = n.Log
	}
	lease, err := n.Registry.Lock(ctx, n.Lease)
	if err != nil {
		return Outcome{}, err
	}
	defer lease.Release(context.WithoutCancel(ctx))
	ctx = lease.Hold(ctx)
	// The registry's record first (created by the first night): every
	// file the night writes at R's top is then under it.
	if err := n.Registry.WriteRecord(ctx); err != nil {
		return Outcome{}, err
	}
	n.Registry.removeTemps()
	if _, err := n.Registry.completeHistory(ctx, "night "+n.RunID, n.RunID); err != nil {
		return Outcome{}, err
	}

	hist, _, err := n.Registry.ReadHistory(ctx)
	if err != nil {
		return Outcome{}, err
	}
	if e, ok := finished(hist, n.RunID); ok {
		n.logf("night %s finished already (%s at %s): nothing to do", n.RunID, e.Decision, e.End.Format(time.RFC3339))
		return Outcome{Entry: e, Done: true}, nil
	}
	start := time.Now().UTC()
	e, err := n.play(ctx)
	if e.Start.IsZero() {
		e.Start = start
	}
	e.Run, e.End = n.RunID, time.Now().UTC()
	if err != nil {
		if ctx.Err() != nil {
			// Stopped, not failed: the next call resumes the night.
			return Outcome{}, fmt.Errorf("%w (stopped: %v)", err, context.Cause(ctx))
		}
		if errors.Is(err, rundir.ErrBusy) {
			// Its run folder is held by another process: busy, not failed.
			return Outcome{}, err
		}
		e.Decision, e.Error = Failed, err.Error()
	} else if ctx.Err() != nil && !errors.Is(context.Cause(ctx), rundir.ErrLeaseLost) {
		// Stopped (SIGTERM) after deciding: the lease is still held until
		// Release, and the decision, maybe a promotion, is the night's.
		ctx = context.WithoutCancel(ctx)
	}
	if herr := n.Registry.appendHistory(ctx, e); herr != nil {
		return Outcome{Entry: e}, errors.Join(err, herr)
	}
	if rerr := WriteReport(ctx, n.Registry); rerr != nil {
		n.logf("could not redraw %s: %v", n.Registry.Report(), rerr)
	}
	if rerr := n.Registry.WriteRecord(ctx); rerr != nil {
		n.logf("could not record the night's files in %s: %v", n.Registry.Root, rerr)
	}
	return Outcome{Entry: e}, err
}

// play tunes, decides and promotes; it returns the history line to append
// (its Decision set on success).
func (n Night) play(ctx context.Context) (Entry, error) {
	r := n.Registry
	var e Entry
	dir, err := rundir.Open(ctx, r.Run(n.RunID).Root, rundir.OpenOptions{Resume: true, Lease: n.Lease})
	if err != nil {
		return e, err
	}
	defer dir.Close(context.WithoutCancel(ctx))
	ctx = dir.Hold(ctx) // renewed for as long as the night runs

	d, err := n.decision(ctx, dir)
	if err != nil {
		return e, err
	}
	var man rundir.Manifest
	if err := rundir.ReadJSON(ctx, dir.Manifest(), &man); err != nil {
		return e, err
	}
	e = nightEntry(d, man)
	e.Decision = Kept
	if d.Promote {
		if err := n.promote(ctx, d); err != nil {
			return e, err
		}
		e.Decision = Promoted
	}
	n.logf("night %s: %s", n.RunID, e.Summary())
	return e, nil
}

// nightEntry is the history line of a night that decision d ended, its
// run folder's manifest man: its gate's scores and settings, its inputs
// and start (the decision and the run's id, end, note left to the caller).
func nightEntry(d Decision, man rundir.Manifest) Entry {
	g := d.GateSettings
	return Entry{Metric: d.Metric, CandidateScore: f64(d.CandidateScore), PromotedScore: f64(d.PromotedScore), Gain: f64(d.Gain),
		PValue: f64(d.PValue), CI: &d.CI, PromotedRun: d.PromotedRun, Gate: &g, Inputs: man.Inputs, Start: man.Start}
}

// decision returns the night's gate decision: the one a killed call wrote
// to the run folder, or a new one after tuning. A decision taken against
// weights that are no longer promoted (another night promoted, or an
// operator rolled back, after it), or by another metric than this call's
// gate, is taken again against those in use; one that promoted this
// night's weights already stands.
func (n Night) decision(ctx context.Context, dir *rundir.RunDir) (Decision, error) {
	r := n.Registry
	ptr, _, err := r.ReadPointer(ctx)
	if err != nil {
		return Decision{}, err
	}
	d, ok, err := r.readGate(ctx, n.RunID)
	if err != nil {
		return d, err
	}
	if ok {
		switch {
		case runOf(ptr) == n.RunID || (runOf(ptr) == d.PromotedRun && sameMetric(d.Metric, n.Gate.MetricName())):
			n.logf("night %s: decided already (promote: %v): going on from there", n.RunID, d.Promote)
			return d, nil
		case runOf(ptr) == d.PromotedRun:
			n.logf("night %s: its gate compared by %s, this call's by %s: deciding again", n.RunID, d.Metric, n.Gate.MetricName())
		default:
			n.logf("night %s: its gate compared with %s, but %s is promoted now: deciding again", n.RunID, describeRun(d.PromotedRun), describeRun(runOf(ptr)))
		}
		return n.gate(ctx, d.Weights, ptr)
	}
	init, err := n.startWeights(ctx, dir, ptr)
	if err != nil {
		return d, err
	}
	n.logf("night %s: tuning into %s, starting from %s", n.RunID, dir.Root, describeWeights(init))
	if err := n.tune(ctx, dir, init); err != nil {
		return d, err
	}
	cand := dir.Best().JSON()
	if ok, err := storage.Exists(ctx, cand); err != nil || !ok {
		return d, fmt.Errorf("registry: the run left no best weights (%s): %v", cand, err)
	}
	return n.gate(ctx, cand, ptr)
}

// tune runs the night's tuning run into its folder dir from the weights
// file init ("" for the model's own).
func (n Night) tune(ctx context.Context, dir *rundir.RunDir, init string) error {
	p, s := n.Problem, n.Settings
	p.Init = init
	s.Out, s.Dir, s.Resume, s.Overwrite = dir.Root, dir, true, false
	_, err := run.Run(ctx, p, s, n.Method)
	return err
}

// startFile is R/runs/ID/start.json.
type startFile struct {
	// Init is the weights file the night tunes from (relative to the
	// registry's root if inside it; "" for the model's own weights).
	Init string `json:"init"`
}

// startWeights returns the weights the night tunes from: those it started
// from if it was killed (start.json, or the run manifest of a night
// killed by an earlier version), else the promoted ones, which it records
// in start.json.
func (n Night) startWeights(ctx context.Context, dir *rundir.RunDir, ptr *Pointer) (string, error) {
	r := n.Registry
	var st startFile
	if err := rundir.ReadJSON(ctx, r.Start(n.RunID), &st); err == nil {
		init, err := r.Resolve(st.Init)
		if err != nil {
			return "", fmt.Errorf("registry: %s: %w", r.Start(n.RunID), err)
		}
		return init, nil
	} else if !notExist(err) {
		return "", err
	}
	init := ""
	if ptr != nil {
		init = ptr.Weights
	}
	var man rundir.Manifest
	if err := rundir.ReadJSON(ctx, dir.Manifest(), &man); err == nil {
		if man.Status != rundir.StatusStarting { // else no run started: its manifest is the folder's record alone
			init = man.Init
		}
	} else if !notExist(err) {
		return "", err
	}
	if err := rundir.WriteJSON(ctx, r.Start(n.RunID), startFile{Init: r.Rel(init)}); err != nil {
		return "", err
	}
	return init, nil
}

// gate decodes the dev set with the candidate cand and with the weights
// in use (ptr), scores both under the gate's metric (whatever metric
// promoted the weights in use: they are scored again), decides, and
// writes the decision to gate.json.
func (n Night) gate(ctx context.Context, cand string, ptr *Pointer) (Decision, error) {
	base, name := "", n.Gate.MetricName()
	if ptr != nil {
		base = ptr.Weights
	}
	n.logf("night %s: gate: decoding the dev set with the candidate and with %s, scoring both by %s", n.RunID, describeWeights(base), name)
	if ptr != nil && !sameMetric(ptr.Metric, name) {
		n.logf("night %s: the weights in use were promoted by %s (%s %.2f); they are compared by %s now", n.RunID, ptr.Metric, ptr.Metric, ptr.DevScore, name)
	}
	candStats, err := n.Score(ctx, cand)
	if err != nil {
		return Decision{}, err
	}
	baseStats, err := n.Score(ctx, base)
	if err != nil {
		return Decision{}, err
	}
	d, err := n.Gate.Decide(ctx, baseStats, candStats)
	if err != nil {
		return d, err
	}
	d.Weights, d.PromotedRun = cand, runOf(ptr)
	return d, n.Registry.writeGate(ctx, n.RunID, d)
}

// readGate reads night id's gate.json, if it has one, its weights path
// resolved.
func (r Registry) readGate(ctx context.Context, id string) (Decision, bool, error) {
	var d Decision
	if err := rundir.ReadJSON(ctx, r.Gate(id), &d); notExist(err) {
		return d, false, nil
	} else if err != nil {
		return d, false, err
	}
	w, err := r.Resolve(d.Weights)
	if err != nil {
		return d, false, fmt.Errorf("registry: %s: %w", r.Gate(id), err)
	}
	d.Weights = w
	return d, true, nil
}

// writeGate writes d as night id's gate.json, its weights path relative
// to the root.
func (r Registry) writeGate(ctx context.Context, id string, d Decision) error {
	d.Weights = r.Rel(d.Weights)
	return rundir.WriteJSON(ctx, r.Gate(id), d)
}

// promote points promoted.json at the candidate of decision d, unless it
// points there already (a call killed after promoting).
func (n Night) promote(ctx context.Context, d Decision) error {
	r := n.Registry
	ptr, v, err := r.ReadPointer(ctx)
	if err != nil {
		return err
	}
	if ptr != nil && ptr.Run == n.RunID && ptr.Weights == d.Weights {
		return nil
	}
	if cur := runOf(ptr); cur != d.PromotedRun {
		return fmt.Errorf("%w: %s points at run %q, the gate compared with %q", ErrChanged, r.Promoted(), cur, d.PromotedRun)
	}
	next := Pointer{Run: n.RunID, Weights: d.Weights, Metric: d.Metric, DevScore: d.CandidateScore, Since: time.Now().UTC()}
	werr := r.replacePointer(ctx, next, v)
	if werr == nil {
		return nil
	}
	// An answer lost after the write was done looks like a failure (and a
	// retried conditional write like a conflict): read what is there.
	if now, _, err := r.ReadPointer(context.WithoutCancel(ctx)); err == nil && now != nil && now.same(next) {
		return nil
	}
	return werr
}

func runOf(p *Pointer) string {
	if p == nil {
		return ""
	}
	return p.Run
}

func describeWeights(path string) string {
	if path == "" {
		return "the model's own weights"
	}
	return path
}

func (n Night) logf(format string, args ...any) {
	if n.Log != nil {
		fmt.Fprintf(n.Log, "retrain: "+format+"\n", args...)
	}
}
