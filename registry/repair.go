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

// rebuiltPointer is the pointer the history hist says is promoted: the
// run of its last promoted or rollback line, with the weights its gate
// decided on; nil if no line promoted a run.
func (r Registry) rebuiltPointer(ctx context.Context, hist []Entry) (*Pointer, error) {
	for i := len(hist) - 1; i >= 0; i-- {
		e := hist[i]
		if e.Decision != Promoted && e.Decision != Rollback {
			continue
		}
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
