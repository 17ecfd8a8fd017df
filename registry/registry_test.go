package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/testsupport/storagetest"
)

// moveTree copies every file under from to the same place under to, then
// removes from: `cp -a R1 R2; rm -rf R1`.
func moveTree(t *testing.T, from, to string) {
	t.Helper()
	ctx := context.Background()
	files, err := storage.Walk(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, _, err := storage.ReadVersion(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if err := storage.WriteFile(ctx, storage.Join(to, strings.TrimPrefix(f, from)), data); err != nil {
			t.Fatal(err)
		}
		if err := storage.Remove(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if !storage.IsGCS(from) {
		if err := os.RemoveAll(from); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRegistryMoved: a registry copied elsewhere, the original removed,
// goes on: a night killed in the original resumes in the copy from the
// copy's weights, the next night warm-starts from them, rollback works.
// promoted.json and gate.json name the weights relative to the root.
func TestRegistryMoved(t *testing.T) {
	for name, r := range registries(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			r1, r2 := Registry{Root: storage.Join(r.Root, "R1")}, Registry{Root: storage.Join(r.Root, "R2")}
			w := &world{t: t, quality: 0.5, model: 0.2}
			if _, err := w.night(r1, "n1").Run(ctx); err != nil {
				t.Fatal(err)
			}
			w.quality = 0.8
			kctx, kill := context.WithCancel(ctx)
			w.stopAfter = kill
			w.night(r1, "n2").Run(kctx)
			w.stopAfter = nil
			for _, f := range []string{r1.Promoted(), r1.Gate("n1"), r1.Start("n2")} {
				if b := readBytes(t, f); !bytes.Contains(b, []byte(`"runs/n1/best/weights.json"`)) {
					t.Errorf("%s does not name the weights relative to the root: %s", f, b)
				}
			}

			moveTree(t, r1.Root, r2.Root)
			epochs := w.epochs
			out, err := w.night(r2, "n2").Run(ctx)
			if err != nil {
				t.Fatalf("the killed night, resumed in the moved registry: %v", err)
			}
			if w.epochs != epochs+1 || w.tuned[len(w.tuned)-1] != r2.Run("n1").Best().JSON() {
				t.Errorf("resumed after %d epochs from %q, want 1 from %s", w.epochs-epochs, w.tuned[len(w.tuned)-1], r2.Run("n1").Best().JSON())
			}
			if p := storagetest.Read(t, r2.ReadPointer); out.Entry.Decision != Promoted || p.Weights != r2.Run("n2").Best().JSON() {
				t.Fatalf("night n2: %+v, pointer %+v", out.Entry, p)
			}
			if _, err := w.night(r2, "n3").Run(ctx); err != nil {
				t.Fatal(err)
			}
			if got := w.tuned[len(w.tuned)-1]; got != r2.Run("n2").Best().JSON() {
				t.Errorf("night n3 started from %q, want %s", got, r2.Run("n2").Best().JSON())
			}
			if _, err := r2.Rollback(ctx, "n1", rundir.LeaseOptions{}); err != nil {
				t.Fatalf("rollback in the moved registry: %v", err)
			}
			if p := storagetest.Read(t, r2.ReadPointer); p.Weights != r2.Run("n1").Best().JSON() {
				t.Errorf("pointer after the rollback: %+v", p)
			}
		})
	}
}

// TestRegistryOldPaths: promoted.json and gate.json of an earlier version
// name the weights by full path; inside the root they are read as the
// relative paths they are now written as, and a night goes on from them.
// A weights file outside the registry keeps its full path.
func TestRegistryOldPaths(t *testing.T) {
	for name, r := range registries(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			w := &world{t: t, quality: 0.5, model: 0.2}
			if _, err := w.night(r, "n1").Run(ctx); err != nil {
				t.Fatal(err)
			}
			full := r.Run("n1").Best().JSON()
			for _, f := range []string{r.Promoted(), r.Gate("n1")} {
				b := bytes.ReplaceAll(readBytes(t, f), []byte(`"runs/n1/best/weights.json"`), []byte(`"`+full+`"`))
				if err := storage.WriteFile(ctx, f, b); err != nil {
					t.Fatal(err)
				}
			}
			if p := storagetest.Read(t, r.ReadPointer); p.Weights != full {
				t.Fatalf("old pointer read as %+v, want weights %s", p, full)
			}
			w.quality = 0.8
			if _, err := w.night(r, "n2").Run(ctx); err != nil {
				t.Fatal(err)
			}
			if w.tuned[1] != full {
				t.Errorf("night n2 started from %q, want %s", w.tuned[1], full)
			}
			if b := readBytes(t, r.Promoted()); !bytes.Contains(b, []byte(`"runs/n2/best/weights.json"`)) {
				t.Errorf("promoted.json after n2: %s, want a relative path", b)
			}
			if _, err := r.Rollback(ctx, "n1", rundir.LeaseOptions{}); err != nil {
				t.Fatalf("rollback to a night with an old gate.json: %v", err)
			}
			if b := readBytes(t, r.Promoted()); !bytes.Contains(b, []byte(`"runs/n1/best/weights.json"`)) {
				t.Errorf("promoted.json after the rollback: %s, want a relative path", b)
			}
		})
	}
	r := Registry{Root: "/srv/reg"}
	for p, want := range map[string]string{
		"/srv/reg/runs/a/best/weights.json": "runs/a/best/weights.json",
		"/srv/other/weights.json":           "/srv/other/weights.json",
		"/srv/reg":                          "/srv/reg",
		"gs://b/reg/runs/a/w.json":          "gs://b/reg/runs/a/w.json",
		"runs/a/w.json":                     "runs/a/w.json",
	} {
		if got := r.Rel(p); got != want {
			t.Errorf("Rel(%q) = %q, want %q", p, got, want)
		}
	}
	g := Registry{Root: "gs://b/reg"}
	for p, want := range map[string]string{"gs://b/reg/runs/a/w.json": "runs/a/w.json", "gs://b/regx/w.json": "gs://b/regx/w.json", "/srv/w.json": "/srv/w.json"} {
		if got := g.Rel(p); got != want {
			t.Errorf("Rel(%q) = %q, want %q", p, got, want)
		}
	}
	if _, err := r.Resolve("../x/w.json"); err == nil {
		t.Error("a path climbing out of the registry resolved")
	}
}

// TestNightGateAgain: a night killed between its gate and its promotion,
// called again after another night promoted, decides again against the
// weights in use now instead of failing on every retry.
func TestNightGateAgain(t *testing.T) {
	tests := []struct {
		name     string
		quality  float64 // the killed night's
		decision string
	}{
		{"worse than the new weights", 0.6, Kept},
		{"better than the new weights", 0.9, Promoted},
	}
	for _, tc := range tests {
		for name, r := range registries(t) {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				r.Root = storage.Join(r.Root, strings.Fields(tc.name)[0])
				ctx := context.Background()
				w := &world{t: t, quality: 0.5, model: 0.2}
				if _, err := w.night(r, "a").Run(ctx); err != nil {
					t.Fatal(err)
				}
				// Night b gates against a and promotes; make it as if it
				// was killed after writing gate.json: promoted.json and
				// the history as they were before its promotion.
				ptr, hist := readBytes(t, r.Promoted()), readBytes(t, r.History())
				w.quality = tc.quality
				if out, err := w.night(r, "b").Run(ctx); err != nil || out.Entry.Decision != Promoted {
					t.Fatalf("night b: %+v, %v", out.Entry, err)
				}
				for f, b := range map[string][]byte{r.Promoted(): ptr, r.History(): hist} {
					if err := storage.WriteFile(ctx, f, b); err != nil {
						t.Fatal(err)
					}
				}
				w.quality = 0.75
				if out, err := w.night(r, "c").Run(ctx); err != nil || out.Entry.Decision != Promoted {
					t.Fatalf("night c: %+v, %v", out.Entry, err)
				}
				out, err := w.night(r, "b").Run(ctx)
				if err != nil {
					t.Fatalf("night b again: %v", err)
				}
				if out.Entry.Decision != tc.decision || out.Entry.PromotedRun != "c" {
					t.Errorf("night b again: %s against %q, want %s against c", out.Entry.Decision, out.Entry.PromotedRun, tc.decision)
				}
				wantRun := map[string]string{Kept: "c", Promoted: "b"}[tc.decision]
				if p := storagetest.Read(t, r.ReadPointer); p.Run != wantRun {
					t.Errorf("promoted %s, want %s", p.Run, wantRun)
				}
				for _, e := range storagetest.Read(t, r.ReadHistory) {
					if e.Decision == Failed {
						t.Errorf("a failed line: %+v", e)
					}
				}
			})
		}
	}
}

// TestRegistryRepair: a torn last history line is dropped with a warning
// and replaced by the next line; a bad line before the last, or a
// promoted.json that does not parse, stops the night with a message naming
// the file and `mtune registry repair`, which mends them (keeping copies)
// so that the next night runs.
func TestRegistryRepair(t *testing.T) {
	tests := []struct {
		name    string
		damage  func(t *testing.T, r Registry)
		wantErr string // the night's error before the repair ("" if it runs)
		dropped int    // history lines the repair drops
		pointer string // the run promoted after the repair ("" for none)
	}{
		{name: "torn last history line", damage: func(t *testing.T, r Registry) {
			appendRaw(t, r.History(), `{"run":"x","decis`)
		}, pointer: "n1"},
		{name: "bad history line before the last", damage: func(t *testing.T, r Registry) {
			appendRaw(t, r.History(), "garbage\n"+string(readBytes(t, r.History())))
		}, wantErr: "history.jsonl:2: ", dropped: 1, pointer: "n1"},
		{name: "garbage promoted.json", damage: func(t *testing.T, r Registry) {
			put(t, r.Promoted(), "\x00\x00garbage")
		}, wantErr: "promoted.json: invalid character", pointer: "n1"},
		{name: "garbage promoted.json, nothing promoted", damage: func(t *testing.T, r Registry) {
			put(t, r.Promoted(), `{"run":"n1"}`)
			h := readBytes(t, r.History())
			put(t, r.History(), strings.Replace(string(h), `"decision":"promoted"`, `"decision":"kept"`, 1))
		}, wantErr: "promoted.json: no run or weights", pointer: ""},
	}
	for _, tc := range tests {
		for name, r := range registries(t) {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				r.Root = storage.Join(r.Root, strings.ReplaceAll(tc.name, " ", "-"))
				ctx := context.Background()
				w := &world{t: t, quality: 0.5, model: 0.2}
				if _, err := w.night(r, "n1").Run(ctx); err != nil {
					t.Fatal(err)
				}
				tc.damage(t, r)
				var log bytes.Buffer
				n := w.night(r, "n2")
				n.Log = &log
				_, err := n.Run(ctx)
				if tc.wantErr == "" {
					if err != nil {
						t.Fatalf("night after the damage: %v", err)
					}
					if !strings.Contains(log.String(), "dropping the torn last line") {
						t.Errorf("no warning of the torn line in the log:\n%s", log.String())
					}
					h := storagetest.Read(t, r.ReadHistory)
					if len(h) != 2 || h[1].Run != "n2" || !bytes.HasSuffix(readBytes(t, r.History()), []byte("}\n")) {
						t.Errorf("history after the night: %+v", h)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "mtune registry repair --registry "+r.Root) {
					t.Fatalf("night: %v, want an error with %q and the repair command", err, tc.wantErr)
				}
				rep, err := r.Repair(ctx, rundir.LeaseOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if len(rep.DroppedLines) != tc.dropped || (tc.dropped > 0) != (rep.HistoryCopy != "") {
					t.Errorf("repair: %+v, want %d lines dropped", rep, tc.dropped)
				}
				if got := runOf(storagetest.Read(t, r.ReadPointer)); got != tc.pointer || runOf(rep.Pointer) != tc.pointer {
					t.Errorf("promoted %q after the repair (%+v), want %q", got, rep, tc.pointer)
				}
				if rep.PointerError != "" && len(readBytes(t, rep.PointerCopy)) == 0 {
					t.Errorf("the broken promoted.json was not kept in %s", rep.PointerCopy)
				}
				if out, err := w.night(r, "n2").Run(ctx); err != nil {
					t.Fatalf("night after the repair: %v", err)
				} else if tc.pointer != "" && out.Entry.PromotedRun != tc.pointer {
					t.Errorf("night after the repair compared with %q, want %q", out.Entry.PromotedRun, tc.pointer)
				}
			})
		}
	}
}

func put(t *testing.T, p, data string) {
	t.Helper()
	if err := storage.WriteFile(context.Background(), p, []byte(data)); err != nil {
		t.Fatal(err)
	}
}

func appendRaw(t *testing.T, p, data string) {
	t.Helper()
	put(t, p, string(readBytes(t, p))+data)
}

// TestNightRecordsGate: a night's history line records the gate's
// settings.
func TestNightRecordsGate(t *testing.T) {
	r := Registry{Root: filepath.Join(t.TempDir(), "reg")}
	w := &world{t: t, quality: 0.5, model: 0.2}
	n := w.night(r, "n1")
	n.Gate = GateOptions{MinGain: 0.25, MaxP: 0.1, Samples: 300, Seed: 9}
	out, err := n.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := GateSettings{Metric: "BLEU", MinGain: 0.25, MaxP: 0.1, Samples: 300, Seed: 9}
	h := storagetest.Read(t, r.ReadHistory)
	if out.Entry.Gate == nil || *out.Entry.Gate != want || h[0].Gate == nil || *h[0].Gate != want {
		b, _ := json.Marshal(h)
		t.Errorf("history %s, want the gate %+v", b, want)
	}
}

// TestNightRemovesTemps: temporary files that killed writes left in the
// registry's root (of promoted.json, history.jsonl, report.html and the
// lease) are gone after a night.
func TestNightRemovesTemps(t *testing.T) {
	root := filepath.Join(t.TempDir(), "reg")
	r := Registry{Root: root}
	if err := os.MkdirAll(root, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".promoted.json", ".history.jsonl", ".report.html", ".lease"} {
		if err := os.WriteFile(filepath.Join(root, f+".mtune-tmp-killed"), []byte("x"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	w := &world{t: t, quality: 0.5, model: 0.2}
	if _, err := w.night(r, "n1").Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".mtune-tmp-") {
			t.Errorf("%s left in the root", e.Name())
		}
	}
}
