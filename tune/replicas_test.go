package tune

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/rundir"
)

func TestReplicaSeed(t *testing.T) {
	for _, seed := range []uint64{0, 1, 7, math.MaxUint64} {
		if got := ReplicaSeed(seed, 0); got != seed {
			t.Errorf("replica 0 of seed %d has seed %d", seed, got)
		}
		seen := map[uint64]string{seed: "the run's seed"}
		for e := range 10 {
			seen[EpochSeed(seed, e)] = fmt.Sprintf("epoch %d's shard seed", e)
		}
		for r := 1; r < 50; r++ {
			s := ReplicaSeed(seed, r)
			if what, dup := seen[s]; dup {
				t.Errorf("seed %d: replica %d's seed %d is %s", seed, r, s, what)
			}
			seen[s] = fmt.Sprintf("replica %d's", r)
		}
	}
	// Pinned: a run's replicas must keep their seeds across versions, or
	// --resume would continue them with others.
	if got := ReplicaSeed(7, 1); got != 0xa79a8aeaeb7d622f {
		t.Errorf("ReplicaSeed(7, 1) = %#x", got)
	}
}

type fakeReplicas struct {
	dir  rundir.Layout
	dev  [][]float64
	fail int // the epoch that fails after writing replica 0's marker, 0 for none
	ran  []int
}

func (f *fakeReplicas) Epoch(ctx context.Context, n int, prev Weights) (rundir.Metrics, Weights, error) {
	return rundir.Metrics{}, Weights{}, errors.New("fakeReplicas runs every replica")
}

func (f *fakeReplicas) EpochReplicas(ctx context.Context, n int, prev []Weights) ([]rundir.Metrics, []Weights, error) {
	f.ran = append(f.ran, n)
	var out []rundir.Metrics
	var next []Weights
	for r := range f.dev {
		if err := checkPrev(prev[r], r, n); err != nil {
			return nil, nil, err
		}
		w, err := fakeTrio(ctx, f.dir.Replica(r, len(f.dev)).Epoch(n), r, n)
		if err != nil {
			return nil, nil, err
		}
		next = append(next, w)
		d := f.dev[r][n-1]
		out = append(out, rundir.Metrics{Epoch: n, Replica: r, TuneScore: float64(10*n + r), DevScore: &d, Updates: 3, Seconds: 2})
	}
	if n == f.fail {
		// A run killed while the driver wrote the markers: replica 0's
		// is there, the others' are not.
		if err := rundir.WriteJSON(ctx, f.dir.Replica(0, len(f.dev)).Epoch(n).Complete(), out[0]); err != nil {
			return nil, nil, err
		}
		return nil, nil, errors.New("epoch failed")
	}
	return out, next, nil
}

func TestDriverReplicas(t *testing.T) {
	ctx := context.Background()
	dir := rundir.Layout{Root: t.TempDir()}
	if err := rundir.WriteJSON(ctx, dir.Manifest(), rundir.Manifest{Status: "running", Options: rundir.ManifestFlags{Replicas: 3}}); err != nil {
		t.Fatal(err)
	}
	e := &fakeReplicas{dir: dir, dev: [][]float64{{20, 21, 23}, {22, 26, 24}, {19, 20, 26}}, fail: 3}
	var progress bytes.Buffer
	d := Driver{Dir: dir, Epochs: 3, Replicas: 3, Start: fakeStart, Recorders: []Recorder{NewReport(dir, nil), NewPrinter(&progress)}}
	ms, err := d.Run(ctx, e, nil)
	if err == nil || len(ms) != 6 {
		t.Fatalf("run with a failing epoch 3: %d lines, error %v", len(ms), err)
	}
	done, err := rundir.CompleteReplicas(ctx, dir, 3)
	if err != nil || len(done) != 6 {
		t.Fatalf("complete epochs %v, %v; want 2 epochs of 3 replicas", done, err)
	}
	e.fail = 0
	if ms, err = d.Run(ctx, e, done); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(e.ran) != "[1 2 3 3]" {
		t.Errorf("epochs run %v, want [1 2 3 3]", e.ran)
	}
	got, err := rundir.ReadReplicaMetrics(ctx, dir.Metrics(), 3)
	if err != nil || len(got) != 9 {
		t.Fatalf("metrics.jsonl: %d lines, %v", len(got), err)
	}
	for i, m := range got {
		if m.Epoch != i/3+1 || m.Replica != i%3 {
			t.Errorf("line %d: epoch %d replica %d", i+1, m.Epoch, m.Replica)
		}
	}
	// Replica 1's 26 in epoch 2 ties replica 2's 26 in epoch 3: the
	// earlier epoch.
	if r, n := trioOf(t, dir.Best().JSON()); r != 1 || n != 2 {
		t.Errorf("best/weights.json: replica %d's epoch %d, want replica 1's epoch 2", r, n)
	}
	var be rundir.Metrics
	if err := rundir.ReadJSON(ctx, dir.Best().Epoch(), &be); err != nil || be.Epoch != 2 || be.Replica != 1 {
		t.Errorf("best/epoch.json: replica %d epoch %d, %v", be.Replica, be.Epoch, err)
	}
	for r, want := range []int{3, 2, 3} {
		if gr, n := trioOf(t, dir.Replica(r, 3).Best().JSON()); gr != r || n != want {
			t.Errorf("replica %d's best/weights.json: replica %d's epoch %d, want epoch %d", r, gr, n, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir.Root, "epochs")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a run of replicas has epochs/ outside replicas/: %v", err)
	}
	t.Logf("progress:\n%s", progress.String())
	if !strings.Contains(progress.String(), "epoch 3/3 replica 2: tune BLEU  32.00 dev BLEU  26.00 (decoded   0.00), 3 updates") ||
		!strings.Contains(progress.String(), "epoch 2/3: dev BLEU 22.33 ± 3.21 over 3 replicas, 2.0 s, ETA 2 s") {
		t.Errorf("progress lines lack a replica's or the mean's")
	}
	// A plain Epocher cannot run replicas.
	if _, err := (Driver{Dir: dir, Epochs: 1, Replicas: 2}).Run(ctx, &fakeEpocher{dir: dir, dev: []float64{1}}, nil); err == nil {
		t.Error("an Epocher ran 2 replicas")
	}
}
