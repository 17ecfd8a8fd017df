package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"time"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/tune"
)

// Registry names the files of a registry folder (local or gs://). It reads
// and writes through io/storage; writers hold its lease (Lock).
type Registry struct {
	// Root is the folder or gs:// prefix.
	Root string
}

// Promoted is R/promoted.json.
func (r Registry) Promoted() string { return storage.Join(r.Root, "promoted.json") }

// History is R/history.jsonl.
func (r Registry) History() string { return storage.Join(r.Root, "history.jsonl") }

// LeaseFile is R/lease.
func (r Registry) LeaseFile() string { return storage.Join(r.Root, tune.LeaseName) }

// Report is R/report.html.
func (r Registry) Report() string { return storage.Join(r.Root, tune.ReportName) }

// Run is the run folder of night id, R/runs/ID.
func (r Registry) Run(id string) tune.Layout {
	return tune.Layout{Root: storage.Join(r.Root, "runs", id)}
}

// Gate is R/runs/ID/gate.json: the night's decision, written before the
// promotion so that a night killed between the two promotes on its next
// call without deciding again.
func (r Registry) Gate(id string) string { return storage.Join(r.Run(id).Root, "gate.json") }

// Lock takes the registry's lease (a *tune.BusyError, matching
// tune.ErrBusy, if another process holds it). The caller releases it.
func (r Registry) Lock(ctx context.Context, o tune.LeaseOptions) (*tune.Lease, error) {
	return tune.AcquireLease(ctx, r.LeaseFile(), o)
}

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// CheckRunID refuses a run id that is not a plain name: letters, digits,
// '.', '_' and '-', starting with a letter or digit, at most 100 bytes.
func CheckRunID(id string) error {
	if !runIDPattern.MatchString(id) {
		return fmt.Errorf("registry: run id %q: use letters, digits, '.', '_' and '-' (starting with a letter or digit, at most 100)", id)
	}
	return nil
}

// DefaultRunID is the run id of a night started at t: its UTC date-time,
// e.g. 20261124T030000Z.
func DefaultRunID(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// Pointer is the content of promoted.json: which run's weights are in use.
type Pointer struct {
	// Run is the night whose weights these are.
	Run string `json:"run"`
	// Weights is the path of the weights file (the run's
	// best/weights.json).
	Weights string `json:"weights"`
	// DevBLEU is their dev BLEU when they were promoted.
	DevBLEU float64 `json:"dev_bleu"`
	// Since is when they were promoted.
	Since time.Time `json:"since"`
}

// same reports whether p and q are the same pointer (times compared as
// instants: one may have been through JSON).
func (p Pointer) same(q Pointer) bool {
	return p.Run == q.Run && p.Weights == q.Weights && p.DevBLEU == q.DevBLEU && p.Since.Equal(q.Since)
}

// ReadPointer returns promoted.json and its version (for a conditional
// replacement); nil and version 0 if nothing was ever promoted.
func (r Registry) ReadPointer(ctx context.Context) (*Pointer, int64, error) {
	data, v, err := storage.ReadVersion(ctx, r.Promoted())
	if err != nil {
		return nil, 0, fmt.Errorf("registry: %w", err)
	}
	if v == 0 {
		return nil, 0, nil
	}
	var p Pointer
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, 0, fmt.Errorf("registry: %s: %w", r.Promoted(), err)
	}
	if p.Run == "" || p.Weights == "" {
		return nil, 0, fmt.Errorf("registry: %s: no run or weights", r.Promoted())
	}
	return &p, v, nil
}

// ErrChanged is returned, wrapped, when promoted.json or history.jsonl
// changed since it was read: another writer got in, which the lease should
// have prevented.
var ErrChanged = errors.New("registry: changed by another process")

// replacePointer writes p as promoted.json if it is still at version v (0:
// absent), in one atomic step: locally a rename, on gs:// a write with
// ifGenerationMatch.
func (r Registry) replacePointer(ctx context.Context, p Pointer, v int64) error {
	data, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("registry: %w", err)
	}
	if _, err := storage.WriteIfVersion(ctx, r.Promoted(), append(data, '\n'), v); err != nil {
		if errors.Is(err, storage.ErrPrecondition) {
			return fmt.Errorf("%w: %s: %v", ErrChanged, r.Promoted(), err)
		}
		return fmt.Errorf("registry: promoting: %w", err)
	}
	return nil
}

// Decisions of a history line.
const (
	Promoted = "promoted" // the candidate passed the gate and is in use
	Kept     = "kept"     // the candidate did not pass: the promoted weights stay
	Failed   = "failed"   // the night failed before deciding; nothing changed
	Rollback = "rollback" // an operator put an earlier run's weights back
)

// Entry is one line of history.jsonl.
type Entry struct {
	Run      string `json:"run"`
	Decision string `json:"decision"`
	// CandidateBLEU and PromotedBLEU are the dev BLEU of the night's
	// weights and of the weights in use before it; PValue the paired
	// bootstrap's p-value of "the candidate is better"; CI the 95%
	// interval of the gain (candidate - promoted). Absent on a night that
	// failed before its gate.
	CandidateBLEU *float64    `json:"candidate_bleu,omitempty"`
	PromotedBLEU  *float64    `json:"promoted_bleu,omitempty"`
	PValue        *float64    `json:"p_value,omitempty"`
	CI            *[2]float64 `json:"ci,omitempty"`
	// PromotedRun is the run whose weights were in use before ("" for the
	// model's own weights).
	PromotedRun string `json:"promoted_run,omitempty"`
	// Inputs are the night's input files with their sha256.
	Inputs []tune.InputFile `json:"inputs,omitempty"`
	// Error says why a night failed; Note what a rollback replaced.
	Error string    `json:"error,omitempty"`
	Note  string    `json:"note,omitempty"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// ReadHistory returns the lines of history.jsonl (none if it does not
// exist yet) and its version.
func (r Registry) ReadHistory(ctx context.Context) ([]Entry, int64, error) {
	data, v, err := storage.ReadVersion(ctx, r.History())
	if err != nil {
		return nil, 0, fmt.Errorf("registry: %w", err)
	}
	var out []Entry
	for n, line := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, 0, fmt.Errorf("registry: %s:%d: %w", r.History(), n+1, err)
		}
		if e.Run == "" || e.Decision == "" {
			return nil, 0, fmt.Errorf("registry: %s:%d: no run or decision", r.History(), n+1)
		}
		out = append(out, e)
	}
	return out, v, nil
}

// appendHistory adds e as the last line of history.jsonl, rewriting the
// file in one atomic, version-conditional write.
func (r Registry) appendHistory(ctx context.Context, e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("registry: %w", err)
	}
	data, v, err := storage.ReadVersion(ctx, r.History())
	if err != nil {
		return fmt.Errorf("registry: %w", err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	data = append(append(data, line...), '\n')
	if _, err := storage.WriteIfVersion(ctx, r.History(), data, v); err != nil {
		if errors.Is(err, storage.ErrPrecondition) {
			return fmt.Errorf("%w: %s: %v", ErrChanged, r.History(), err)
		}
		return fmt.Errorf("registry: %w", err)
	}
	return nil
}

// finished returns the history line that finished night id (promoted or
// kept), if any.
func finished(h []Entry, id string) (Entry, bool) {
	for _, e := range h {
		if e.Run == id && (e.Decision == Promoted || e.Decision == Kept) {
			return e, true
		}
	}
	return Entry{}, false
}

// notExist reports whether err says a file is missing.
func notExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
