package tune

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/rundir"
)

// fakeEpocher is a mode whose epoch n writes a trio naming n and returns
// the given dev BLEU.
type fakeEpocher struct {
	dir  rundir.Layout
	dev  []float64 // by epoch, 1-based
	fail int       // the epoch that fails, 0 for none
	ran  []int
}

func (f *fakeEpocher) Epoch(ctx context.Context, n int, prev Weights) (rundir.Metrics, Weights, error) {
	f.ran = append(f.ran, n)
	if err := checkPrev(prev, 0, n); err != nil {
		return rundir.Metrics{}, Weights{}, err
	}
	if n == f.fail {
		return rundir.Metrics{}, Weights{}, errors.New("epoch failed")
	}
	next, err := fakeTrio(ctx, f.dir.Epoch(n), 0, n)
	d := f.dev[n-1]
	return rundir.Metrics{Epoch: n, TuneScore: 10 * float64(n), DevScore: &d, Updates: 3}, next, err
}

// fakeTrio writes the trio of epoch folder ep, its weights naming replica
// r and epoch n, and returns them.
func fakeTrio(ctx context.Context, ep rundir.EpochLayout, r, n int) (Weights, error) {
	ww := weights.ByName{Names: []string{"d_0", "r", "n"}, Vals: []float64{1, float64(r), float64(n)}}
	return Weights{ByName: ww, File: ep.JSON()}, weights.WriteTrioOf(ctx, ep.Dir, ww, []string{"d_0"})
}

// fakeStart are the starting weights of the fake epochers' runs.
var fakeStart = Weights{ByName: weights.ByName{Names: []string{"d_0", "r", "n"}, Vals: []float64{1, 0, 0}}, File: "init/weights.json"}

// trioOf returns the replica and epoch the fake weights in file p name.
func trioOf(t *testing.T, p string) (r, n int) {
	t.Helper()
	ww, err := weights.ReadByName(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	m := ww.Map()
	return int(m["r"]), int(m["n"])
}

// checkPrev checks that epoch n of replica r starts from the weights the
// Driver must pass: the run's start for epoch 1, else epoch n−1's, read
// back from its trio on a resumed run.
func checkPrev(prev Weights, r, n int) error {
	m := prev.Map()
	wantR, wantN, wantFile := r, n-1, ""
	if n == 1 {
		wantR, wantFile = 0, fakeStart.File
	}
	if int(m["r"]) != wantR || int(m["n"]) != wantN || (wantFile != "" && prev.File != wantFile) || (n > 1 && !strings.HasSuffix(prev.File, "weights.json")) {
		return fmt.Errorf("epoch %d of replica %d starts from %v (%s), want replica %d's epoch %d", n, r, m, prev.File, wantR, wantN)
	}
	return nil
}

// TestDriver: the loop writes metrics.jsonl, complete markers, best/ of the
// best dev epoch (the earlier on ties) and a progress line an epoch, and a
// resumed run continues after the complete epochs.
func TestDriver(t *testing.T) {
	ctx := context.Background()
	rd, err := rundir.Open(context.Background(), t.TempDir(), rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close(context.Background())
	dir := rd.Layout
	if err := rd.WriteManifest(ctx, rundir.Manifest{Status: "running"}); err != nil {
		t.Fatal(err)
	}
	e := &fakeEpocher{dir: dir, dev: []float64{20, 25, 25, 22}, fail: 3}
	var progress bytes.Buffer
	d := Driver{Dir: dir, Epochs: 4, Start: fakeStart, Recorders: []Recorder{NewReport(dir, nil), NewPrinter(&progress)}}
	ms, err := d.Run(ctx, e, nil)
	if err == nil || len(ms) != 2 {
		t.Fatalf("run with a failing epoch 3: %d epochs, error %v", len(ms), err)
	}
	done, err := rundir.CompleteEpochs(ctx, dir)
	if err != nil || len(done) != 2 {
		t.Fatalf("complete epochs %v, %v; want 2", done, err)
	}
	e.fail = 0
	ms, err = d.Run(ctx, e, done)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(e.ran) != "[1 2 3 3 4]" {
		t.Errorf("epochs run %v, want [1 2 3 3 4]", e.ran)
	}
	if got, err := rundir.ReadMetrics(ctx, dir.Metrics()); err != nil || len(got) != 4 {
		t.Fatalf("metrics.jsonl: %d epochs, %v", len(got), err)
	}
	if _, n := trioOf(t, dir.Best().JSON()); n != 2 {
		t.Errorf("best/weights.json: epoch %d's, want epoch 2's (25 ties 25: the earlier)", n)
	}
	var be rundir.Metrics
	if err := rundir.ReadJSON(ctx, dir.Best().Epoch(), &be); err != nil || be.Epoch != 2 {
		t.Errorf("best/epoch.json: epoch %d, %v", be.Epoch, err)
	}
	if n := strings.Count(progress.String(), "\nepoch ") + 1; n != 4 || !strings.Contains(progress.String(), "epoch 4/4: tune BLEU  40.00 dev BLEU  22.00") {
		t.Errorf("progress:\n%s", progress.String())
	}
	if _, err := os.Stat(filepath.Join(dir.Root, rundir.ReportName)); err != nil {
		t.Errorf("no report: %v", err)
	}
	// Finish records the end in the manifest.
	if err := rundir.Finish(ctx, rd, NewReport(dir, nil), rundir.Manifest{Status: "running"}, nil); err != nil {
		t.Fatal(err)
	}
	var man rundir.Manifest
	if err := rundir.ReadJSON(ctx, dir.Manifest(), &man); err != nil || man.Status != "done" || man.End == nil {
		t.Errorf("manifest after Finish: %+v, %v", man, err)
	}
}

// metricsEpocher returns the given metrics as epoch 1's.
type metricsEpocher struct {
	dir rundir.Layout
	m   rundir.Metrics
}

func (f metricsEpocher) Epoch(ctx context.Context, n int, prev Weights) (rundir.Metrics, Weights, error) {
	next, err := fakeTrio(ctx, f.dir.Epoch(n), 0, n)
	m := f.m
	m.Epoch = n
	return m, next, err
}

// TestProgressLine: "decoded" marks the progressive BLEU, given as the tune
// BLEU when it is that (no --eval-tune) and after the tune and dev BLEU
// otherwise; the pipeline's Beam metrics reach metrics.jsonl.
func TestProgressLine(t *testing.T) {
	ctx := context.Background()
	dev := 89.6
	tests := []struct {
		name string
		m    rundir.Metrics
		want string
	}{
		{"--eval-tune", rundir.Metrics{TuneScore: 88.26, DevScore: &dev, ProgressiveScore: 61.74, Updates: 16, NonZero: 15},
			"epoch 1/1: tune BLEU  88.26 dev BLEU  89.60 (decoded  61.74), 16 updates, 15 non-zeros,"},
		{"as decoded", rundir.Metrics{TuneScore: 61.74, TuneDecoded: true, DevScore: &dev, ProgressiveScore: 61.74, Updates: 16, NonZero: 15},
			"epoch 1/1: tune BLEU (decoded)  61.74 dev BLEU  89.60, 16 updates, 15 non-zeros,"},
		{"as decoded, no dev set", rundir.Metrics{TuneScore: 61.74, TuneDecoded: true, ProgressiveScore: 61.74, Updates: 16, NonZero: 15,
			Counters:      map[string]int64{"learn_sentences": 300},
			Distributions: map[string]rundir.Distribution{"learn_shard_ms": {Count: 2, Sum: 30, Min: 10, Max: 20}}},
			"epoch 1/1: tune BLEU (decoded)  61.74, 16 updates, 15 non-zeros,"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := rundir.Layout{Root: t.TempDir()}
			if err := rundir.WriteJSON(ctx, dir.Manifest(), rundir.Manifest{Status: "running"}); err != nil {
				t.Fatal(err)
			}
			var progress bytes.Buffer
			if _, err := (Driver{Dir: dir, Epochs: 1, Recorders: []Recorder{NewReport(dir, nil), NewPrinter(&progress)}}).Run(ctx, metricsEpocher{dir, tc.m}, nil); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(progress.String(), tc.want) {
				t.Errorf("progress %q, want it to start %q", progress.String(), tc.want)
			}
			ms, err := rundir.ReadMetrics(ctx, dir.Metrics())
			if err != nil || len(ms) != 1 {
				t.Fatalf("metrics.jsonl: %v, %v", ms, err)
			}
			if got := ms[0]; got.TuneDecoded != tc.m.TuneDecoded || fmt.Sprint(got.Counters, got.Distributions) != fmt.Sprint(tc.m.Counters, tc.m.Distributions) {
				t.Errorf("metrics.jsonl holds %+v, want %+v", got, tc.m)
			}
		})
	}
}
