package registry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/rundir"
)

// Rollback points promoted.json at the weights of the finished night to
// (promoted or kept), or, when to is "", at those of the night promoted
// before the one in use, and records it in the history as a "rollback"
// line. It holds the registry's lease meanwhile (a *rundir.BusyError if a
// night is running), first completes the history (completeHistory: the
// line of a call killed after promoting) and replaces the pointer in one
// conditional write.
func (r Registry) Rollback(ctx context.Context, to string, lo rundir.LeaseOptions) (Entry, error) {
	if lo.Owner == "" {
		lo.Owner = "mtune registry rollback"
	}
	lease, err := r.Lock(ctx, lo)
	if err != nil {
		return Entry{}, err
	}
	defer lease.Release(context.WithoutCancel(ctx))
	ctx = lease.Hold(ctx)
	start := time.Now().UTC()
	if _, err := r.completeHistory(ctx, "rollback", ""); err != nil {
		return Entry{}, err
	}

	ptr, v, err := r.ReadPointer(ctx)
	if err != nil {
		return Entry{}, err
	}
	hist, _, err := r.ReadHistory(ctx)
	if err != nil {
		return Entry{}, err
	}
	if to == "" {
		if to, err = previous(hist, runOf(ptr)); err != nil {
			return Entry{}, err
		}
	} else if err := CheckRunID(to); err != nil {
		return Entry{}, err
	}
	night, ok := finished(hist, to)
	if !ok {
		return Entry{}, fmt.Errorf("registry: run %q has not finished a night in %s: nothing to roll back to", to, r.History())
	}
	if ptr != nil && ptr.Run == to {
		return Entry{}, fmt.Errorf("registry: run %q is promoted already", to)
	}
	d, ok, err := r.readGate(ctx, to)
	if err != nil {
		return Entry{}, err
	}
	if !ok {
		return Entry{}, fmt.Errorf("registry: run %q has no gate decision (%s): nothing to roll back to", to, r.Gate(to))
	}
	if ok, err := storage.Exists(ctx, d.Weights); err != nil || !ok {
		return Entry{}, fmt.Errorf("registry: the weights of run %q (%s) are gone: %v", to, d.Weights, err)
	}
	next := Pointer{Run: to, Weights: d.Weights, Metric: d.Metric, DevScore: d.CandidateScore, Since: time.Now().UTC()}
	if err := r.replacePointer(ctx, next, v); err != nil {
		return Entry{}, err
	}
	e := Entry{Run: to, Decision: Rollback, Metric: d.Metric, CandidateScore: f64(d.CandidateScore), PromotedRun: runOf(ptr), Inputs: night.Inputs,
		Note: fmt.Sprintf("rolled back from %s", describeRun(runOf(ptr))), Start: start, End: time.Now().UTC()}
	if err := r.appendHistory(ctx, e); err != nil {
		return e, err
	}
	if err := WriteReport(ctx, r); err != nil {
		return e, err
	}
	return e, nil
}

// previous returns the run promoted (by its night, not by a rollback)
// last before the current run cur was promoted.
func previous(hist []Entry, cur string) (string, error) {
	if cur == "" {
		return "", errors.New("registry: nothing is promoted: nothing to roll back")
	}
	at := -1
	for i, e := range hist {
		if e.Run == cur && e.Decision == Promoted {
			at = i
		}
	}
	if at < 0 {
		at = len(hist)
	}
	for i := at - 1; i >= 0; i-- {
		if e := hist[i]; e.Decision == Promoted && e.Run != cur {
			return e.Run, nil
		}
	}
	return "", fmt.Errorf("registry: no night was promoted before %s: give the run to roll back to", cur)
}

func describeRun(run string) string {
	if run == "" {
		return "the model's own weights"
	}
	return "run " + run
}
