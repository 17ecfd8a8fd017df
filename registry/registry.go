package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/rundir"
)

// Registry names the files of a registry folder (local or gs://). It reads
// and writes through io/storage; writers hold its lease (Lock).
type Registry struct {
	// Root is the folder or gs:// prefix.
	Root string
	// Log receives warnings (a torn last history line dropped); nil means
	// none.
	Log io.Writer
}

// Open names the registry at root by its one spelling (storage.Clean): a
// local one by its absolute path, so that the paths it hands the night
// (the weights, resolved from the registry's relative ones) hold from any
// folder (cron and systemd start in another). It reads nothing (CheckRoot
// does).
func Open(root string) (Registry, error) {
	clean, err := storage.Clean(root)
	if err != nil {
		return Registry{}, fmt.Errorf("registry %s: %w", root, err)
	}
	return Registry{Root: clean}, nil
}

// Promoted is R/promoted.json.
func (r Registry) Promoted() string { return storage.Join(r.Root, "promoted.json") }

// History is R/history.jsonl.
func (r Registry) History() string { return storage.Join(r.Root, "history.jsonl") }

// LeaseFile is R/lease.
func (r Registry) LeaseFile() string { return storage.Join(r.Root, rundir.LeaseName) }

// Report is R/report.html.
func (r Registry) Report() string { return storage.Join(r.Root, rundir.ReportName) }

// Run is the run folder of night id, R/runs/ID.
func (r Registry) Run(id string) rundir.Layout {
	return rundir.Layout{Root: storage.Join(r.Root, "runs", id)}
}

// Gate is R/runs/ID/gate.json: the night's decision, written before the
// promotion so that a night killed between the two promotes on its next
// call without deciding again.
func (r Registry) Gate(id string) string { return storage.Join(r.Run(id).Root, "gate.json") }

// Start is R/runs/ID/start.json: the weights a night started from,
// written before it tunes, so that a killed night resumes from them even
// if another night promoted others meanwhile.
func (r Registry) Start(id string) string { return storage.Join(r.Run(id).Root, "start.json") }

// Lock takes the registry's lease (a *rundir.BusyError, matching
// rundir.ErrBusy, if another process holds it), for a registry (or an
// empty folder) only: CheckRoot, before and under the lease. A night then
// records the registry (WriteRecord). The caller releases it.
func (r Registry) Lock(ctx context.Context, o rundir.LeaseOptions) (*rundir.Lease, error) {
	if err := r.CheckRoot(ctx); err != nil {
		return nil, err
	}
	l, err := rundir.AcquireLease(ctx, r.LeaseFile(), o)
	if err != nil {
		return nil, err
	}
	// Checked again under the lease: another process may have written
	// the folder meanwhile.
	if err := r.CheckRoot(ctx); err != nil {
		l.Release(context.WithoutCancel(ctx))
		return nil, err
	}
	return l, nil
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

// DefaultRunID is the run id of a night given none, started at now: in a
// Cloud Run job the execution's name ($CLOUD_RUN_EXECUTION, looked up
// with getenv), which every retried attempt of the task shares (so a
// retry resumes the night, as a fixed id does elsewhere), else the UTC
// date-time of now, e.g. 20261124T030000Z.
func DefaultRunID(getenv func(string) string, now time.Time) string {
	if e := getenv("CLOUD_RUN_EXECUTION"); e != "" && CheckRunID(e) == nil {
		return e
	}
	return now.UTC().Format("20060102T150405Z")
}

// Pointer is the content of promoted.json: which run's weights are in use
// (format.go).
type Pointer struct {
	// Run is the night whose weights these are.
	Run string `json:"run"`
	// Weights is the path of the weights file (the run's
	// best/weights.json). In promoted.json a file inside the registry is
	// named relative to its root (runs/ID/best/weights.json), so that a
	// registry copied or moved elsewhere keeps working; in memory it is
	// the full path (Registry.Resolve).
	Weights string `json:"weights"`
	// Metric names the metric of the gate that promoted them ("BLEU",
	// "chrF2", "TER"), DevScore their dev score under it then; weights
	// promoted on BLEU have it as dev_bleu too, as earlier versions wrote.
	Metric   string  `json:"metric"`
	DevScore float64 `json:"dev_score"`
	// Since is when they were promoted.
	Since time.Time `json:"since"`
}

// same reports whether p and q are the same pointer (times compared as
// instants: one may have been through JSON).
func (p Pointer) same(q Pointer) bool {
	return p.Run == q.Run && p.Weights == q.Weights && sameMetric(p.Metric, q.Metric) && p.DevScore == q.DevScore && p.Since.Equal(q.Since)
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
		return nil, 0, fmt.Errorf("registry: %s: %w; %s", r.Promoted(), err, r.repairHint())
	}
	if p.Run == "" || p.Weights == "" {
		return nil, 0, fmt.Errorf("registry: %s: no run or weights; %s", r.Promoted(), r.repairHint())
	}
	if p.Weights, err = r.Resolve(p.Weights); err != nil {
		return nil, 0, fmt.Errorf("registry: %s: %w; %s", r.Promoted(), err, r.repairHint())
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
	p.Weights = r.Rel(p.Weights)
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

// Entry is one line of history.jsonl (format.go).
type Entry struct {
	Run      string `json:"run"`
	Decision string `json:"decision"`
	// Metric names the metric of the scores: the gate's on a night, the
	// gate's of the run put back on a rollback ("BLEU", "chrF2", "TER");
	// absent on a night that failed before its gate.
	Metric string `json:"metric,omitempty"`
	// CandidateScore and PromotedScore are the dev scores, in the metric's
	// points, of the night's weights and of the weights in use before it,
	// both decoded by the night's gate (a rollback has the candidate
	// score the run's gate measured); a BLEU night's line holds them as
	// candidate_bleu and promoted_bleu too. PValue is the paired
	// bootstrap's p-value of "the candidate is not better"; CI the 95%
	// interval of the gain. Absent on a night that failed before its gate.
	CandidateScore *float64 `json:"candidate_score,omitempty"`
	PromotedScore  *float64 `json:"promoted_score,omitempty"`
	// Gain is the candidate's gain over the weights in use, oriented so
	// that positive is better (for TER promoted − candidate); lines of
	// earlier versions, all of BLEU nights, have none and are read with
	// candidate − promoted.
	Gain   *float64    `json:"gain,omitempty"`
	PValue *float64    `json:"p_value,omitempty"`
	CI     *[2]float64 `json:"ci,omitempty"`
	// PromotedRun is the run whose weights were in use before ("" for the
	// model's own weights).
	PromotedRun string `json:"promoted_run,omitempty"`
	// Gate is the gate's settings that night (absent on a failed night
	// and a rollback, and in lines written before it was recorded).
	Gate *GateSettings `json:"gate,omitempty"`
	// Inputs are the night's input files with their sha256.
	Inputs []rundir.InputFile `json:"inputs,omitempty"`
	// Error says why a night failed; Note what a rollback replaced.
	Error string    `json:"error,omitempty"`
	Note  string    `json:"note,omitempty"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// ReadHistory returns the lines of history.jsonl (none if it does not
// exist yet) and its version. A last line that does not parse (a copy or a
// disk cut short) is dropped with a warning to r.Log, as a log's torn tail
// would be, and the next append replaces it; a bad line before the last is
// an error naming the file and line.
func (r Registry) ReadHistory(ctx context.Context) ([]Entry, int64, error) {
	data, v, err := storage.ReadVersion(ctx, r.History())
	if err != nil {
		return nil, 0, fmt.Errorf("registry: %w", err)
	}
	h, _, err := r.parseHistory(data)
	if err != nil {
		return nil, 0, err
	}
	return h, v, nil
}

// parseHistory parses history.jsonl's content; keep is the length of the
// part to keep: all of it, or all but a torn last line.
func (r Registry) parseHistory(data []byte) (out []Entry, keep int, err error) {
	lines := bytes.SplitAfter(data, []byte{'\n'})
	last := len(lines) - 1
	for last >= 0 && len(bytes.TrimSpace(lines[last])) == 0 {
		last--
	}
	for n, line := range lines[:last+1] {
		if len(bytes.TrimSpace(line)) == 0 {
			keep += len(line)
			continue
		}
		e, perr := parseEntry(line)
		if perr != nil && n == last {
			r.warnf("%s:%d: dropping the torn last line (%v): %.60q", r.History(), n+1, perr, line)
			return out, keep, nil
		}
		if perr != nil {
			return nil, 0, fmt.Errorf("registry: %s:%d: %w; %s", r.History(), n+1, perr, r.repairHint())
		}
		out = append(out, e)
		keep += len(line)
	}
	return out, len(data), nil
}

func parseEntry(line []byte) (Entry, error) {
	var e Entry
	if err := json.Unmarshal(line, &e); err != nil {
		return e, err
	}
	if e.Run == "" || e.Decision == "" {
		return e, errors.New("no run or decision")
	}
	return e, nil
}

// appendHistory adds e as the last line of history.jsonl (in place of a
// torn last line), rewriting the file in one atomic, version-conditional
// write.
func (r Registry) appendHistory(ctx context.Context, e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("registry: %w", err)
	}
	data, v, err := storage.ReadVersion(ctx, r.History())
	if err != nil {
		return fmt.Errorf("registry: %w", err)
	}
	_, keep, err := r.parseHistory(data)
	if err != nil {
		return err
	}
	data = data[:keep]
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

// repairHint says how to mend a registry file that does not parse.
func (r Registry) repairHint() string {
	return "`mtune registry repair --registry " + r.Root + "` drops the bad history lines and rebuilds promoted.json from the history, keeping copies of both"
}

func (r Registry) warnf(format string, args ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, "registry: warning: "+format+"\n", args...)
	}
}

// Rel names the path p relative to the registry's root if p is inside it
// (runs/ID/best/weights.json), with '/' between its elements; any other
// path is returned as it is. Registry files record paths so, so that a
// registry copied or moved elsewhere keeps working.
func (r Registry) Rel(p string) string {
	if p == "" || storage.IsGCS(p) != storage.IsGCS(r.Root) {
		return p
	}
	if storage.IsGCS(p) {
		root := strings.TrimSuffix(storage.Join(r.Root), "/") + "/"
		if rel, ok := strings.CutPrefix(storage.Join(p), root); ok && rel != "" {
			return rel
		}
		return p
	}
	if !filepath.IsAbs(p) || !filepath.IsAbs(r.Root) {
		return p
	}
	rel, err := filepath.Rel(r.Root, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.ToSlash(rel)
}

// Resolve returns the full path that p, as a registry file records it,
// names: a relative p is joined to the root (it may not climb out of it);
// a gs:// or absolute path is p itself.
func (r Registry) Resolve(p string) (string, error) {
	if p == "" || storage.IsGCS(p) || filepath.IsAbs(p) {
		return p, nil
	}
	if !filepath.IsLocal(filepath.FromSlash(p)) {
		return "", fmt.Errorf("path %q climbs out of the registry", p)
	}
	return storage.Join(r.Root, p), nil
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

// removeTemps removes the temporary files that writes of the registry's
// own files, killed midway, left in its root (the caller holds the lease).
func (r Registry) removeTemps() {
	for _, p := range []string{r.Promoted(), r.History(), r.Report()} {
		if n, err := storage.RemoveTempsOf(p); err != nil {
			r.warnf("%v", err)
		} else if n > 0 {
			r.warnf("removed %d temporary file(s) of %s left by a killed write", n, p)
		}
	}
}
