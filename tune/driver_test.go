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

	"github.com/mtune/mtune/io/storage"
)

// fakeEpocher is a mode whose epoch n writes a trio naming n and returns
// the given dev BLEU.
type fakeEpocher struct {
	dir  Layout
	dev  []float64 // by epoch, 1-based
	fail int       // the epoch that fails, 0 for none
	ran  []int
}

func (f *fakeEpocher) Epoch(ctx context.Context, n int) (Metrics, error) {
	f.ran = append(f.ran, n)
	if n == f.fail {
		return Metrics{}, errors.New("epoch failed")
	}
	ep := f.dir.Epoch(n)
	for _, p := range []string{ep.Moses(), ep.Sparse(), ep.JSON()} {
		if err := storage.WriteFile(ctx, p, []byte(fmt.Sprintf("epoch %d\n", n))); err != nil {
			return Metrics{}, err
		}
	}
	d := f.dev[n-1]
	return Metrics{Epoch: n, TuneBLEU: 10 * float64(n), DevBLEU: &d, Updates: 3}, nil
}

// TestDriver: the loop writes metrics.jsonl, complete markers, best/ of the
// best dev epoch (the earlier on ties) and a progress line an epoch, and a
// resumed run continues after the complete epochs.
func TestDriver(t *testing.T) {
	ctx := context.Background()
	dir := Layout{Root: t.TempDir()}
	if err := WriteJSON(ctx, dir.Manifest(), Manifest{Status: "running"}); err != nil {
		t.Fatal(err)
	}
	e := &fakeEpocher{dir: dir, dev: []float64{20, 25, 25, 22}, fail: 3}
	var progress bytes.Buffer
	d := Driver{Dir: dir, Epochs: 4, Progress: &progress}
	ms, err := d.Run(ctx, e, nil)
	if err == nil || len(ms) != 2 {
		t.Fatalf("run with a failing epoch 3: %d epochs, error %v", len(ms), err)
	}
	done, err := CompleteEpochs(ctx, dir)
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
	if got, err := ReadMetrics(ctx, dir.Metrics()); err != nil || len(got) != 4 {
		t.Fatalf("metrics.jsonl: %d epochs, %v", len(got), err)
	}
	best, err := os.ReadFile(dir.Best().JSON())
	if err != nil || string(best) != "epoch 2\n" {
		t.Errorf("best/weights.json %q (%v): want epoch 2's (25 ties 25: the earlier)", best, err)
	}
	var be Metrics
	if err := ReadJSON(ctx, dir.Best().Epoch(), &be); err != nil || be.Epoch != 2 {
		t.Errorf("best/epoch.json: epoch %d, %v", be.Epoch, err)
	}
	if n := strings.Count(progress.String(), "\nepoch ") + 1; n != 4 || !strings.Contains(progress.String(), "epoch 4/4: tune BLEU  40.00 dev BLEU  22.00") {
		t.Errorf("progress:\n%s", progress.String())
	}
	if _, err := os.Stat(filepath.Join(dir.Root, ReportName)); err != nil {
		t.Errorf("no report: %v", err)
	}
	// Finish records the end in the manifest.
	if err := Finish(ctx, dir, Manifest{Status: "running"}, nil); err != nil {
		t.Fatal(err)
	}
	var man Manifest
	if err := ReadJSON(ctx, dir.Manifest(), &man); err != nil || man.Status != "done" || man.End == nil {
		t.Errorf("manifest after Finish: %+v, %v", man, err)
	}
}

// metricsEpocher returns the given metrics as epoch 1's.
type metricsEpocher struct {
	dir Layout
	m   Metrics
}

func (f metricsEpocher) Epoch(ctx context.Context, n int) (Metrics, error) {
	for _, p := range []string{f.dir.Epoch(n).Moses(), f.dir.Epoch(n).Sparse(), f.dir.Epoch(n).JSON()} {
		if err := storage.WriteFile(ctx, p, []byte("w 1\n")); err != nil {
			return Metrics{}, err
		}
	}
	m := f.m
	m.Epoch = n
	return m, nil
}

// TestProgressLine: "decoded" marks the progressive BLEU, given as the tune
// BLEU when it is that (no --eval-tune) and after the tune and dev BLEU
// otherwise; the pipeline's Beam metrics reach metrics.jsonl.
func TestProgressLine(t *testing.T) {
	ctx := context.Background()
	dev := 89.6
	tests := []struct {
		name string
		m    Metrics
		want string
	}{
		{"--eval-tune", Metrics{TuneBLEU: 88.26, DevBLEU: &dev, ProgressiveBLEU: 61.74, Updates: 16, NonZero: 15},
			"epoch 1/1: tune BLEU  88.26 dev BLEU  89.60 (decoded  61.74), 16 updates, 15 non-zeros,"},
		{"as decoded", Metrics{TuneBLEU: 61.74, TuneDecoded: true, DevBLEU: &dev, ProgressiveBLEU: 61.74, Updates: 16, NonZero: 15},
			"epoch 1/1: tune BLEU (decoded)  61.74 dev BLEU  89.60, 16 updates, 15 non-zeros,"},
		{"as decoded, no dev set", Metrics{TuneBLEU: 61.74, TuneDecoded: true, ProgressiveBLEU: 61.74, Updates: 16, NonZero: 15,
			Counters:      map[string]int64{"learn_sentences": 300},
			Distributions: map[string]Distribution{"learn_shard_ms": {Count: 2, Sum: 30, Min: 10, Max: 20}}},
			"epoch 1/1: tune BLEU (decoded)  61.74, 16 updates, 15 non-zeros,"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := Layout{Root: t.TempDir()}
			if err := WriteJSON(ctx, dir.Manifest(), Manifest{Status: "running"}); err != nil {
				t.Fatal(err)
			}
			var progress bytes.Buffer
			if _, err := (Driver{Dir: dir, Epochs: 1, Progress: &progress}).Run(ctx, metricsEpocher{dir, tc.m}, nil); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(progress.String(), tc.want) {
				t.Errorf("progress %q, want it to start %q", progress.String(), tc.want)
			}
			ms, err := ReadMetrics(ctx, dir.Metrics())
			if err != nil || len(ms) != 1 {
				t.Fatalf("metrics.jsonl: %v, %v", ms, err)
			}
			if got := ms[0]; got.TuneDecoded != tc.m.TuneDecoded || fmt.Sprint(got.Counters, got.Distributions) != fmt.Sprint(tc.m.Counters, tc.m.Distributions) {
				t.Errorf("metrics.jsonl holds %+v, want %+v", got, tc.m)
			}
		})
	}
}

func TestUnmarshalStrict(t *testing.T) {
	type value struct {
		A int    `json:"a"`
		B string `json:"b"`
	}
	for _, tc := range []struct {
		in   string
		want value
		err  string // in the error; "" for none
	}{
		{`{"a":1,"b":"x"}`, value{1, "x"}, ""},
		{" {\"a\":2}\n\t", value{A: 2}, ""},
		{`{"a":1,"c":2}`, value{}, `unknown field "c"`},
		{`{"a":1} {"a":2}`, value{}, "text after the JSON value"},
		{`{"a":1} x`, value{}, "text after the JSON value"},
		{`{"a":1`, value{}, "unexpected EOF"},
		{``, value{}, "unexpected EOF"},
		{`{"a":"1"}`, value{}, "cannot unmarshal string"},
	} {
		var v value
		err := UnmarshalStrict([]byte(tc.in), &v)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || v != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, v, err, tc.want)
		}
	}
}
