package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/rundir"
)

// Repaired says what Repair mended.
type Repaired struct {
	// DroppedLines are the numbers of the history lines that did not
	// parse and were dropped; HistoryCopy holds the history as it was
	// ("" if nothing was dropped).
	DroppedLines []int
	HistoryCopy  string
	// PointerError is why promoted.json was rebuilt ("" if it parsed);
	// PointerCopy holds it as it was.
	PointerError string
	PointerCopy  string
	// Pointer is promoted.json after the repair (nil: nothing promoted).
	Pointer *Pointer
}

// Repair mends a registry whose files do not parse (a disk cut short, a
// hand edit), holding its lease: it drops the history lines that do not
// parse, and rebuilds a promoted.json that does not parse from the
// history, pointing at the run of its last promoted or rollback line (or
// removing it if there is none: the model's own weights). What it replaces
// is kept beside it, as history.jsonl.broken and promoted.json.broken. A
// registry with nothing to mend is left as it is.
func (r Registry) Repair(ctx context.Context, lo rundir.LeaseOptions) (Repaired, error) {
	var out Repaired
	if lo.Owner == "" {
		lo.Owner = "mtune registry repair"
	}
	lease, err := r.Lock(ctx, lo)
	if err != nil {
		return out, err
	}
	defer lease.Release(context.WithoutCancel(ctx))
	ctx = lease.Hold(ctx)
	r.removeTemps()

	data, v, err := storage.ReadVersion(ctx, r.History())
	if err != nil {
		return out, fmt.Errorf("registry: %w", err)
	}
	var kept [][]byte
	var hist []Entry
	for n, line := range bytes.SplitAfter(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, err := parseEntry(line)
		if err != nil {
			out.DroppedLines = append(out.DroppedLines, n+1)
			continue
		}
		hist = append(hist, e)
		kept = append(kept, append(bytes.TrimRight(line, "\r\n"), '\n'))
	}
	if len(out.DroppedLines) > 0 {
		out.HistoryCopy = r.History() + ".broken"
		if err := storage.WriteFile(ctx, out.HistoryCopy, data); err != nil {
			return out, fmt.Errorf("registry: keeping the broken history: %w", err)
		}
		if _, err := storage.WriteIfVersion(ctx, r.History(), bytes.Join(kept, nil), v); err != nil {
			return out, fmt.Errorf("registry: repairing %s: %w", r.History(), err)
		}
	}

	ptr, _, perr := r.ReadPointer(ctx)
	if perr == nil {
		out.Pointer = ptr
		return out, r.redraw(ctx)
	}
	raw, pv, err := storage.ReadVersion(ctx, r.Promoted())
	if err != nil {
		return out, fmt.Errorf("registry: %w", err)
	}
	out.PointerError = perr.Error()
	out.PointerCopy = r.Promoted() + ".broken"
	if err := storage.WriteFile(ctx, out.PointerCopy, raw); err != nil {
		return out, fmt.Errorf("registry: keeping the broken %s: %w", r.Promoted(), err)
	}
	if out.Pointer, err = r.rebuiltPointer(ctx, hist); err != nil {
		return out, err
	}
	if out.Pointer == nil {
		err = storage.RemoveIfVersion(ctx, r.Promoted(), pv)
	} else {
		err = r.replacePointer(ctx, *out.Pointer, pv)
	}
	if err != nil {
		return out, fmt.Errorf("registry: repairing %s: %w", r.Promoted(), err)
	}
	return out, r.redraw(ctx)
}

// lastPromotion is the index in hist of its last promoted or rollback
// line, the one that says which run is in use; -1 if there is none.
func lastPromotion(hist []Entry) int {
	for i := len(hist) - 1; i >= 0; i-- {
		if hist[i].Decision == Promoted || hist[i].Decision == Rollback {
			return i
		}
	}
	return -1
}

// completeHistory appends the line of history.jsonl that a call killed
// between replacing promoted.json and appending its line left out (a
// night, or a rollback, promotes first and records after): when
// promoted.json names a run other than the history's in use (the run of
// its last promoted or rollback line, lastPromotion), it appends the
// line of the run promoted.json names, its Note starting "recovered by
// BY". For a run without a finished night in the history that is the
// night's promoted line, rebuilt from its gate.json (which must have
// promoted those weights) and its manifest, ending when promoted.json
// says it was promoted; for a finished one a rollback line. A pointer at
// own (the run of the night calling, which completes its own line) or
// one it cannot explain (no gate.json promoting its weights: a hand
// edit) is left as it is, the latter with a warning. The caller holds the
// lease. It returns the line appended, nil if none.
func (r Registry) completeHistory(ctx context.Context, by, own string) (*Entry, error) {
	ptr, _, err := r.ReadPointer(ctx)
	if err != nil || ptr == nil || ptr.Run == own {
		return nil, err
	}
	hist, _, err := r.ReadHistory(ctx)
	if err != nil {
		return nil, err
	}
	cur := ""
	if i := lastPromotion(hist); i >= 0 {
		cur = hist[i].Run
	}
	if cur == ptr.Run {
		return nil, nil
	}
	note := "recovered by " + by + ": promoted.json named this run, history.jsonl had no line for it (a call killed after promoting)"
	var e Entry
	if night, ok := finished(hist, ptr.Run); ok {
		e = Entry{Run: ptr.Run, Decision: Rollback, Metric: ptr.Metric, CandidateScore: f64(ptr.DevScore), PromotedRun: cur, Inputs: night.Inputs,
			Note: fmt.Sprintf("%s; rolled back from %s", note, describeRun(cur)), Start: ptr.Since, End: ptr.Since}
	} else {
		d, ok, err := r.readGate(ctx, ptr.Run)
		if err != nil {
			return nil, err
		}
		if !ok || !d.Promote || d.Weights != ptr.Weights {
			r.warnf("%s names run %s, which %s does not show promoted, and %s did not promote %s: no history line recovered (mtune registry rollback --to ID points it at a finished night)",
				r.Promoted(), ptr.Run, r.History(), r.Gate(ptr.Run), ptr.Weights)
			return nil, nil
		}
		var man rundir.Manifest
		if err := rundir.ReadJSON(ctx, r.Run(ptr.Run).Manifest(), &man); err != nil && !notExist(err) {
			return nil, err
		}
		e = nightEntry(d, man)
		e.Run, e.Decision, e.Note, e.End = ptr.Run, Promoted, note, ptr.Since
		if e.Start.IsZero() {
			e.Start = ptr.Since
		}
	}
	if err := r.appendHistory(ctx, e); err != nil {
		return nil, err
	}
	r.warnf("%s had no line for run %s, which %s names: appended its %s line", r.History(), ptr.Run, r.Promoted(), e.Decision)
	return &e, nil
}

// rebuiltPointer is the pointer the history hist says is promoted: the
// run of its last promoted or rollback line, with the weights its gate
// decided on; nil if no line promoted a run.
func (r Registry) rebuiltPointer(ctx context.Context, hist []Entry) (*Pointer, error) {
	if i := lastPromotion(hist); i >= 0 {
		e := hist[i]
		d, ok, err := r.readGate(ctx, e.Run)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("registry: rebuilding %s: run %s, promoted by line %d of %s, has no %s: roll back to another run (mtune registry rollback --to ID)",
				r.Promoted(), e.Run, i+1, r.History(), r.Gate(e.Run))
		}
		name, score := d.Metric, d.CandidateScore
		if e.CandidateScore != nil && e.Metric != "" {
			name, score = e.Metric, *e.CandidateScore
		}
		return &Pointer{Run: e.Run, Weights: d.Weights, Metric: name, DevScore: score, Since: e.End}, nil
	}
	return nil, nil
}

// redraw redraws the report after a change.
func (r Registry) redraw(ctx context.Context) error {
	if err := WriteReport(ctx, r); err != nil {
		return errors.Join(errors.New("registry: repaired, but the report could not be redrawn"), err)
	}
	return nil
}
