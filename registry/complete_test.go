package registry

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/testsupport/storagetest"
)

// dropLastLine removes the last line of r's history: the state a call
// killed after replacing promoted.json, before appending its line, leaves.
func dropLastLine(t *testing.T, r Registry) {
	t.Helper()
	data := bytes.TrimSuffix(readBytes(t, r.History()), []byte("\n"))
	put(t, r.History(), string(data[:bytes.LastIndexByte(data, '\n')+1]))
}

// TestHistoryCompleted: a night (or a rollback) killed after promoted.json
// but before its history line leaves the pointer naming a run the history
// does not show in use. The next call under the lease, a night with
// another id or a rollback, appends the missing line first, marked as
// recovered, from the run's gate.json and manifest (a rollback's from
// promoted.json), then its own; a night called again with the killed one's
// id writes its own line, as it always did.
func TestHistoryCompleted(t *testing.T) {
	type line struct{ run, decision, against string }
	tests := []struct {
		name string
		// kill plays the calls before the kill point, the last of which
		// loses its history line; then runs the next call.
		kill, next func(t *testing.T, w *world, r Registry)
		want       []line
		recovered  int // the index of the recovered line, -1 if none
	}{
		{"night, then a night with another id",
			func(t *testing.T, w *world, r Registry) { w.run(t, r, "n0"); w.quality = 0.8; w.run(t, r, "A") },
			func(t *testing.T, w *world, r Registry) { w.run(t, r, "B") },
			[]line{{"n0", Promoted, ""}, {"A", Promoted, "n0"}, {"B", Kept, "A"}}, 1},
		{"night, then a rollback",
			func(t *testing.T, w *world, r Registry) { w.run(t, r, "n0"); w.quality = 0.8; w.run(t, r, "A") },
			func(t *testing.T, w *world, r Registry) {
				if _, err := r.Rollback(context.Background(), "", rundir.LeaseOptions{}); err != nil {
					t.Fatal(err)
				}
			},
			[]line{{"n0", Promoted, ""}, {"A", Promoted, "n0"}, {"n0", Rollback, "A"}}, 1},
		{"rollback, then a night",
			func(t *testing.T, w *world, r Registry) {
				w.run(t, r, "n0")
				w.quality = 0.8
				w.run(t, r, "A")
				if _, err := r.Rollback(context.Background(), "n0", rundir.LeaseOptions{}); err != nil {
					t.Fatal(err)
				}
			},
			func(t *testing.T, w *world, r Registry) { w.run(t, r, "B") },
			[]line{{"n0", Promoted, ""}, {"A", Promoted, "n0"}, {"n0", Rollback, "A"}, {"B", Promoted, "n0"}}, 2},
		{"night, then the same night again",
			func(t *testing.T, w *world, r Registry) { w.run(t, r, "n0"); w.quality = 0.8; w.run(t, r, "A") },
			func(t *testing.T, w *world, r Registry) { w.run(t, r, "A") },
			[]line{{"n0", Promoted, ""}, {"A", Promoted, "n0"}}, -1},
	}
	for _, tc := range tests {
		for name, r := range registries(t) {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				r.Root += "/" + strings.ReplaceAll(tc.name, " ", "-")
				w := &world{t: t, quality: 0.5, model: 0.2}
				tc.kill(t, w, r)
				dropLastLine(t, r)
				ptr := storagetest.Read(t, r.ReadPointer)
				gate, _, err := r.readGate(context.Background(), ptr.Run)
				if err != nil {
					t.Fatal(err)
				}
				tc.next(t, w, r)

				h := storagetest.Read(t, r.ReadHistory)
				if len(h) != len(tc.want) {
					t.Fatalf("history %+v, want %d lines %v", h, len(tc.want), tc.want)
				}
				for i, want := range tc.want {
					e := h[i]
					if e.Run != want.run || e.Decision != want.decision || e.PromotedRun != want.against {
						t.Errorf("line %d: run %s, %s against %q; want %s, %s against %q", i+1, e.Run, e.Decision, e.PromotedRun, want.run, want.decision, want.against)
					}
					if got := strings.HasPrefix(e.Note, "recovered by "); got != (i == tc.recovered) {
						t.Errorf("line %d: note %q; recovered: %v, want %v", i+1, e.Note, got, i == tc.recovered)
					}
				}
				if tc.recovered < 0 {
					return
				}
				e := h[tc.recovered]
				if e.CandidateScore == nil || *e.CandidateScore != gate.CandidateScore || !e.End.Equal(ptr.Since) {
					t.Errorf("recovered line %+v: want the candidate score %v of %s and the end %v of promoted.json", e, gate.CandidateScore, r.Gate(ptr.Run), ptr.Since)
				}
				if e.Decision == Promoted && (e.Gate == nil || e.PValue == nil || *e.PValue != gate.PValue || len(e.Inputs) != 2 || e.Start.IsZero() || !e.Start.Before(e.End)) {
					t.Errorf("recovered night's line %+v: want the gate's settings and p-value, the manifest's inputs and start", e)
				}
			})
		}
	}
}

// run plays night id, which must not fail.
func (w *world) run(t *testing.T, r Registry, id string) Outcome {
	t.Helper()
	out, err := w.night(r, id).Run(context.Background())
	if err != nil {
		t.Fatalf("night %s: %v", id, err)
	}
	return out
}

// cancelOn is a night's log that cancels the night's context when a line
// holding text is logged.
type cancelOn struct {
	text   string
	cancel context.CancelFunc
}

func (c cancelOn) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(c.text)) {
		c.cancel()
	}
	return len(p), nil
}

// TestNightStoppedAfterPromoting: a night whose context is cancelled (a
// SIGTERM) after it promoted, before its history line, still appends the
// line under the lease it holds, and succeeds: promoted.json and the
// history agree without waiting for the next call.
func TestNightStoppedAfterPromoting(t *testing.T) {
	for name, r := range registries(t) {
		t.Run(name, func(t *testing.T) {
			w := &world{t: t, quality: 0.5, model: 0.2}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			n := w.night(r, "n1")
			n.Log = cancelOn{"night n1: promoted", cancel}
			out, err := n.Run(ctx)
			if ctx.Err() == nil {
				t.Fatal("the night never logged its promotion")
			}
			if err != nil || out.Entry.Decision != Promoted {
				t.Fatalf("night stopped after promoting: %+v, %v; want promoted", out.Entry, err)
			}
			if h := storagetest.Read(t, r.ReadHistory); len(h) != 1 || h[0].Run != "n1" || h[0].Decision != Promoted {
				t.Fatalf("history %+v, want n1's promoted line", h)
			}
			if ok, _ := storage.Exists(context.Background(), r.LeaseFile()); ok {
				t.Error("the lease was not released")
			}
		})
	}
}
