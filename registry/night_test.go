package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/run"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/testsupport/gcstest"
	"github.com/mtune/mtune/testsupport/storagetest"
	"github.com/mtune/mtune/tune"
)

// registries returns a fresh local registry folder and a fresh gs://
// prefix on an in-process GCS emulator, by name.
func registries(t *testing.T) map[string]Registry {
	t.Helper()
	out := map[string]Registry{}
	for name, dir := range storagetest.Folders(t, "reg") {
		out[name] = Registry{Root: dir}
	}
	return out
}

// world is a fake system: a tuning run (a run.Method, run by run.Run as
// a real night's is) writes weights whose "quality" says how good their
// translations of the dev set are.
type world struct {
	t       *testing.T
	quality float64 // the quality tonight's tuning reaches
	model   float64 // the quality of the model's own weights
	fail    error   // the run's Prepare returns it (bad input)
	// stopAfter, if set, is called after the run's first epoch; the run
	// then returns the context's error if it was cancelled.
	stopAfter func()
	// before, if set, is called by the run's Prepare, in the night's
	// run folder.
	before func(ctx context.Context, dir *rundir.RunDir) error
	tuned  []string // the init of every run
	epochs int      // epochs run
}

// quality returns the quality of the weights file path (the model's own
// for "").
func (w *world) qualityOf(ctx context.Context, path string) (float64, error) {
	if path == "" {
		return w.model, nil
	}
	ww, err := weights.ReadByName(ctx, path)
	if err != nil {
		return 0, err
	}
	return ww.Map()["quality"], nil
}

// method returns the world's run.Method: two epochs, the second's weights
// of tonight's quality, an input of fixed content and the starting
// weights, checksummed, as a real run's manifest lists them.
func (w *world) method() run.Method { return &worldRun{w: w} }

type worldRun struct {
	w    *world
	init string
}

func (m *worldRun) Validate(p *run.Problem, s *run.Settings) error {
	m.init, s.Epochs = p.Init, 2
	s.Recorders = append(s.Recorders, stopper{m.w})
	return nil
}

// stopper calls the world's stopAfter once epoch 1 is complete.
type stopper struct{ w *world }

func (stopper) Init(context.Context, int, []rundir.Metrics) error { return nil }

func (st stopper) Record(ctx context.Context, _, got []rundir.Metrics) error {
	if got[0].Epoch == 1 && st.w.stopAfter != nil {
		st.w.stopAfter()
		return ctx.Err()
	}
	return nil
}

func (m *worldRun) Metric() metric.Metric { return metric.DefaultBLEU() }

func (m *worldRun) Manifest() rundir.ManifestFlags { return rundir.ManifestFlags{Mode: "world"} }

func (m *worldRun) Prepare(ctx context.Context, dir *rundir.RunDir) (run.Prepared, error) {
	m.w.tuned = append(m.w.tuned, m.init)
	if m.w.before != nil {
		if err := m.w.before(ctx, dir); err != nil {
			return run.Prepared{}, err
		}
	}
	if m.w.fail != nil {
		return run.Prepared{}, m.w.fail
	}
	in := []rundir.InputFile{{Role: "src", Path: "tune.src", SHA256: "00ff"}}
	if m.init != "" {
		f, err := rundir.Checksum(ctx, "init", m.init)
		if err != nil {
			return run.Prepared{}, err
		}
		in = append(in, f)
	}
	return run.Prepared{Inputs: in}, nil
}

func (m *worldRun) Start(ctx context.Context) (*weights.ByName, error) {
	q, err := m.w.qualityOf(ctx, m.init)
	if err != nil {
		return nil, err
	}
	return &weights.ByName{Names: []string{"quality"}, Vals: []float64{q}}, nil
}

func (m *worldRun) Epocher(ctx context.Context, dir *rundir.RunDir, start tune.Weights) (run.Epocher, error) {
	return run.Epocher{Epocher: worldEpocher{m.w, dir.Layout}}, nil
}

type worldEpocher struct {
	w   *world
	dir rundir.Layout
}

// Epoch writes epoch n's weights: halfway to tonight's quality after the
// first, tonight's after the second.
func (e worldEpocher) Epoch(ctx context.Context, n int, prev tune.Weights) (rundir.Metrics, tune.Weights, error) {
	q := e.w.quality
	if n == 1 {
		q = (prev.Map()["quality"] + q) / 2
	}
	ww := weights.ByName{Names: []string{"quality"}, Vals: []float64{q}}
	ep := e.dir.Epoch(n)
	if err := weights.WriteTrioOf(ctx, ep.Dir, ww, nil); err != nil {
		return rundir.Metrics{}, tune.Weights{}, err
	}
	e.w.epochs++
	return rundir.Metrics{Epoch: n, TuneScore: 100 * q}, tune.Weights{ByName: ww, File: ep.JSON()}, nil
}

// scoreFn scores the dev set: 80 sentences whose matches grow with the
// weights' quality, with sentence-level noise that does not depend on it.
func (w *world) scoreFn(ctx context.Context, path string) ([]metric.Stats, error) {
	q, err := w.qualityOf(ctx, path)
	if err != nil {
		return nil, err
	}
	return devStats(q), nil
}

func devStats(q float64) []metric.Stats {
	rng := rand.New(rand.NewPCG(7, 7))
	out := make([]metric.Stats, 80)
	for i := range out {
		n := float64(15 + rng.IntN(10))
		s := metric.NewBLEUStats(4, nil, nil, n)
		p := q + 0.2*(rng.Float64()-0.5)
		for k := range 4 {
			s.V[2*k+1] = n - float64(k)
			s.V[2*k] = min(metric.BLEUStats(s).Total(k), max(0, float64(int(metric.BLEUStats(s).Total(k)*p*pow(0.8, k)+0.5))))
		}
		out[i] = s
	}
	return out
}

func pow(x float64, k int) float64 {
	y := 1.0
	for range k {
		y *= x
	}
	return y
}

func (w *world) night(r Registry, id string) Night {
	return Night{Registry: r, RunID: id, Method: w.method(), Score: w.scoreFn, Gate: GateOptions{Seed: 1}}
}

func readBytes(t *testing.T, p string) []byte {
	t.Helper()
	b, err := storage.ReadFile(context.Background(), p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return b
}

// TestNights plays nights in sequence on a local folder and on gs://: a
// first night promotes, a night on the same data keeps, a night killed
// after its first epoch finishes once when called again, a finished night
// does nothing, bad input fails without touching promoted.json, rollback.
func TestNights(t *testing.T) {
	for name, r := range registries(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			w := &world{t: t, quality: 0.5, model: 0.2}

			// Night 1: the model's own weights are the baseline.
			out, err := w.night(r, "n1").Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if out.Entry.Decision != Promoted || *out.Entry.PValue >= 0.05 || *out.Entry.CandidateScore <= *out.Entry.PromotedScore {
				t.Fatalf("night 1: %+v, want promoted over the model's weights", out.Entry)
			}
			if w.tuned[0] != "" {
				t.Errorf("night 1 started from %q, want the model's own weights", w.tuned[0])
			}
			p := storagetest.Read(t, r.ReadPointer)
			if p == nil || p.Run != "n1" || p.Weights != r.Run("n1").Best().JSON() {
				t.Fatalf("promoted.json after night 1: %+v", p)
			}
			if p.DevScore != *out.Entry.CandidateScore {
				t.Errorf("promoted dev score %v, the gate's %v", p.DevScore, *out.Entry.CandidateScore)
			}
			if len(out.Entry.Inputs) != 1 || out.Entry.Inputs[0].SHA256 != "00ff" {
				t.Errorf("night 1 inputs %+v, want the run manifest's", out.Entry.Inputs)
			}

			// Night 2, same data: warm start from night 1, no gain: kept.
			before := readBytes(t, r.Promoted())
			out, err = w.night(r, "n2").Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if w.tuned[1] != r.Run("n1").Best().JSON() {
				t.Errorf("night 2 started from %q, want night 1's weights", w.tuned[1])
			}
			if out.Entry.Decision != Kept || *out.Entry.PValue != 1 || *out.Entry.CandidateScore != *out.Entry.PromotedScore || out.Entry.PromotedRun != "n1" {
				t.Fatalf("night 2: %+v, want kept with p = 1 against n1", out.Entry)
			}
			if !bytes.Equal(readBytes(t, r.Promoted()), before) {
				t.Error("a kept night changed promoted.json")
			}

			// Night 3 is killed after its first epoch, then called again.
			w.quality = 0.8
			kctx, kill := context.WithCancel(ctx)
			w.stopAfter = kill
			if _, err := w.night(r, "n3").Run(kctx); err == nil || !strings.Contains(err.Error(), "stopped") {
				t.Fatalf("killed night: %v, want stopped", err)
			}
			if h := storagetest.Read(t, r.ReadHistory); len(h) != 2 {
				t.Fatalf("a killed night wrote history: %+v", h)
			}
			w.stopAfter = nil
			epochs := w.epochs
			out, err = w.night(r, "n3").Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if w.epochs != epochs+1 {
				t.Errorf("the resumed night ran %d epochs, want 1 (epoch 1 was complete)", w.epochs-epochs)
			}
			if out.Entry.Decision != Promoted || storagetest.Read(t, r.ReadPointer).Run != "n3" {
				t.Fatalf("night 3: %+v, pointer %+v", out.Entry, storagetest.Read(t, r.ReadPointer))
			}

			// A finished night called again does nothing.
			calls := len(w.tuned)
			out, err = w.night(r, "n3").Run(ctx)
			if err != nil || !out.Done || len(w.tuned) != calls {
				t.Fatalf("finished night again: %+v, %v (tuned %d times)", out, err, len(w.tuned)-calls)
			}
			if h := storagetest.Read(t, r.ReadHistory); len(h) != 3 {
				t.Fatalf("history after a repeated night: %d lines, want 3", len(h))
			}

			// Bad input: failed, promoted.json byte-identical.
			before = readBytes(t, r.Promoted())
			w.fail = errors.New("corpus: dev.ref has 199 lines, dev.src 200")
			_, err = w.night(r, "n4").Run(ctx)
			if err == nil {
				t.Fatal("a night with bad input succeeded")
			}
			w.fail = nil
			h := storagetest.Read(t, r.ReadHistory)
			if last := h[len(h)-1]; last.Run != "n4" || last.Decision != Failed || !strings.Contains(last.Error, "199 lines") {
				t.Errorf("failed night's line: %+v", last)
			}
			if !bytes.Equal(readBytes(t, r.Promoted()), before) {
				t.Error("a failed night changed promoted.json")
			}

			// Rollback: to the night promoted before n3, then to n3 by id.
			e, err := r.Rollback(ctx, "", rundir.LeaseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if e.Run != "n1" || storagetest.Read(t, r.ReadPointer).Run != "n1" || e.PromotedRun != "n3" {
				t.Fatalf("rollback: %+v, pointer %+v", e, storagetest.Read(t, r.ReadPointer))
			}
			if _, err := r.Rollback(ctx, "n4", rundir.LeaseOptions{}); err == nil {
				t.Error("rollback to a failed night succeeded")
			}
			if _, err := r.Rollback(ctx, "n3", rundir.LeaseOptions{}); err != nil || storagetest.Read(t, r.ReadPointer).Run != "n3" {
				t.Fatalf("rollback to n3: %v", err)
			}
			h = storagetest.Read(t, r.ReadHistory)
			if len(h) != 6 || h[4].Decision != Rollback || h[5].Decision != Rollback {
				t.Errorf("history after two rollbacks: %+v", h)
			}
			// The next night starts from the rolled-back weights.
			if _, err := w.night(r, "n5").Run(ctx); err != nil {
				t.Fatal(err)
			}
			if got := w.tuned[len(w.tuned)-1]; got != r.Run("n3").Best().JSON() {
				t.Errorf("night after rollback started from %q", got)
			}
		})
	}
}

// TestNightBusy: two nights at once, exactly one runs, the other is
// refused at once with rundir.ErrBusy.
func TestNightBusy(t *testing.T) {
	for name, r := range registries(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			w := &world{t: t, quality: 0.5, model: 0.2}
			started, release := make(chan struct{}), make(chan struct{})
			first := w.night(r, "a")
			w.before = func(ctx context.Context, dir *rundir.RunDir) error {
				close(started)
				<-release
				return nil
			}
			done := make(chan error, 1)
			go func() { _, err := first.Run(ctx); done <- err }()
			<-started
			t0 := time.Now()
			_, err := w.night(r, "b").Run(ctx)
			if !errors.Is(err, rundir.ErrBusy) {
				t.Fatalf("second night: %v, want busy", err)
			}
			if d := time.Since(t0); d > 10*time.Second {
				t.Errorf("the busy night took %v to give up", d)
			}
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if h := storagetest.Read(t, r.ReadHistory); len(h) != 1 || h[0].Run != "a" {
				t.Fatalf("history: %+v, want night a only", h)
			}
			// A run folder held by another process (a `tune --out` into
			// it) makes the night busy too, not failed.
			held, err := rundir.Open(ctx, r.Run("c").Root, rundir.OpenOptions{Lease: rundir.LeaseOptions{Owner: "mtune tune"}})
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close(ctx)
			if _, err := w.night(r, "c").Run(ctx); !errors.Is(err, rundir.ErrBusy) {
				t.Fatalf("night into a held run folder: %v, want busy", err)
			}
			if h := storagetest.Read(t, r.ReadHistory); len(h) != 1 {
				t.Fatalf("a busy night wrote history: %+v", h)
			}
		})
	}
}

// TestNightStaleLease: a lease left by a killed holder (its process is
// gone, on this machine) or not renewed for its TTL (by the store's time,
// whatever expiry it claims) is taken over, and the night it held resumes.
func TestNightStaleLease(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no `true` to make a dead pid:", err)
	}
	ctx := context.Background()
	// What a lease of this machine records, from a lease taken here.
	mine, err := rundir.AcquireLease(ctx, filepath.Join(t.TempDir(), "lease"), rundir.LeaseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	here := mine.Info()
	mine.Release(ctx)
	tests := []struct {
		name   string
		holder rundir.LeaseInfo
		later  time.Duration // the night's clock runs this far ahead of the store's
	}{
		{"killed holder on this machine", func() rundir.LeaseInfo {
			h := here
			h.PID, h.Token = dead.Process.Pid, "x"
			return h
		}(), 0},
		{"holder elsewhere claiming 2099, not renewed for its TTL", rundir.LeaseInfo{Owner: "mtune retrain", Host: "elsewhere", PID: 1,
			Token: "x", TTLSeconds: 60, Since: time.Now().UTC(), Expiry: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)}, 2 * time.Minute},
	}
	for _, tc := range tests {
		for name, r := range registries(t) {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				r.Root = storage.Join(r.Root, strings.Fields(tc.name)[0])
				w := &world{t: t, quality: 0.5, model: 0.2}
				// The killed holder had finished epoch 1 of night k.
				kctx, kill := context.WithCancel(ctx)
				w.stopAfter = kill
				w.night(r, "k").Run(kctx)
				w.stopAfter = nil
				b, _ := json.Marshal(tc.holder)
				if err := storage.WriteFile(ctx, r.LeaseFile(), b); err != nil {
					t.Fatal(err)
				}
				epochs := w.epochs
				n := w.night(r, "k")
				n.Lease.Now = func() time.Time { return time.Now().Add(tc.later) }
				out, err := n.Run(ctx)
				if err != nil {
					t.Fatalf("night after a killed holder: %v", err)
				}
				if out.Entry.Decision != Promoted || w.epochs != epochs+1 {
					t.Errorf("resumed night: %+v after %d epochs, want promoted after 1", out.Entry, w.epochs-epochs)
				}
			})
		}
	}
}

// TestPromotionFault: the emulator fails the promotion write once, then
// the night is called again. promoted.json is the old pointer or the new
// one after each call, never anything else, and the night ends promoted
// with one promoted line.
func TestPromotionFault(t *testing.T) {
	for name, fault := range map[string]gcstest.Fault{"rejected": gcstest.Reject, "answer lost": gcstest.LoseAnswer} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			armed := false
			c := gcstest.FaultyFake(t, func(r *http.Request, body []byte) gcstest.Fault {
				if armed && bytes.Contains(body, []byte(`"name":"fault/promoted.json"`)) { // the pointer's upload, not the manifest that lists it
					armed = false
					return fault
				}
				return gcstest.Pass
			}, "reg")
			storagetest.UseGCS(t, c)
			r := Registry{Root: "gs://reg/fault"}
			w := &world{t: t, quality: 0.5, model: 0.2}
			if _, err := w.night(r, "n1").Run(ctx); err != nil {
				t.Fatal(err)
			}
			old := readBytes(t, r.Promoted())
			w.quality = 0.8
			armed = true
			_, err := w.night(r, "n2").Run(ctx)
			if armed {
				t.Fatal("the promotion write was never made")
			}
			check := func(when string) {
				p := storagetest.Read(t, r.ReadPointer)
				if !bytes.Equal(readBytes(t, r.Promoted()), old) && (p == nil || p.Run != "n2" || p.Weights != r.Run("n2").Best().JSON()) {
					t.Fatalf("%s: promoted.json is neither the old pointer nor the new one: %+v", when, p)
				}
			}
			check("after the fault")
			if fault == gcstest.Reject && err == nil {
				t.Error("a rejected promotion did not fail the night")
			}
			if fault == gcstest.LoseAnswer && err != nil {
				// The write was done: the night reads back its own pointer.
				t.Errorf("a promotion whose answer was lost failed the night: %v", err)
			}
			t.Logf("night with the fault: %v", err)
			if _, err := w.night(r, "n2").Run(ctx); err != nil {
				t.Fatal(err)
			}
			check("after the second call")
			if p := storagetest.Read(t, r.ReadPointer); p.Run != "n2" {
				t.Fatalf("pointer after the second call: %+v", p)
			}
			promoted := 0
			for _, e := range storagetest.Read(t, r.ReadHistory) {
				if e.Run == "n2" && e.Decision == Promoted {
					promoted++
				}
			}
			if promoted != 1 {
				t.Errorf("%d promoted lines for n2, want 1: %+v", promoted, storagetest.Read(t, r.ReadHistory))
			}
		})
	}
}

func TestGateOptionsValidate(t *testing.T) {
	for _, g := range []GateOptions{{MaxP: 2}, {MaxP: -1}, {Samples: -3}, {Samples: metric.MaxPairedSamples + 1}, {MinGain: math.NaN()}} {
		if err := g.Validate(); err == nil {
			t.Errorf("%+v: no error", g)
		}
	}
	if err := (GateOptions{}).Validate(); err != nil {
		t.Error(err)
	}
}

func TestCheckRunID(t *testing.T) {
	for id, ok := range map[string]bool{"20261124T030000Z": true, "night-1.a_b": true, "": false, "..": false, "a/b": false, "-x": false, " a": false} {
		if err := CheckRunID(id); (err == nil) != ok {
			t.Errorf("CheckRunID(%q) = %v", id, err)
		}
	}
}

// TestNightHoldsRunFolder: a night renews its run folder's lease for as
// long as it tunes, so no other process can take the folder over midway.
func TestNightHoldsRunFolder(t *testing.T) {
	r := Registry{Root: filepath.Join(t.TempDir(), "reg")}
	ctx := context.Background()
	w := &world{t: t, quality: 0.5, model: 0.2}
	n := w.night(r, "long")
	n.Lease = rundir.LeaseOptions{TTL: 300 * time.Millisecond}
	w.before = func(ctx context.Context, dir *rundir.RunDir) error {
		time.Sleep(time.Second) // three lifetimes of the lease
		if l, err := rundir.AcquireLease(ctx, dir.LeaseFile(), rundir.LeaseOptions{Owner: "intruder"}); err == nil {
			l.Release(ctx)
			return errors.New("another process took the run folder over while the night tuned")
		} else if !errors.Is(err, rundir.ErrBusy) {
			return err
		}
		return nil
	}
	if _, err := n.Run(ctx); err != nil {
		t.Fatal(err)
	}
}
