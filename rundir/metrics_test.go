package rundir

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/metric"
)

// TestBestEpoch: dev BLEU ranks the epochs, tune BLEU without a dev set;
// the earlier epoch wins ties.
func TestBestEpoch(t *testing.T) {
	dev := func(x float64) *float64 { return &x }
	cases := []struct {
		name string
		ms   []Metrics
		want int
	}{
		{"none", nil, 0},
		{"tune BLEU", []Metrics{{Epoch: 1, TuneBLEU: 20}, {Epoch: 2, TuneBLEU: 25}, {Epoch: 3, TuneBLEU: 24}}, 2},
		{"dev BLEU over tune BLEU", []Metrics{{Epoch: 1, TuneBLEU: 30, DevBLEU: dev(20)}, {Epoch: 2, TuneBLEU: 25, DevBLEU: dev(21)}}, 2},
		{"tie: the earlier", []Metrics{{Epoch: 1, TuneBLEU: 20}, {Epoch: 2, TuneBLEU: 22}, {Epoch: 3, TuneBLEU: 22}}, 2},
		{"NaN never wins", []Metrics{{Epoch: 1, TuneBLEU: math.NaN()}, {Epoch: 2, TuneBLEU: 0}}, 2},
		{"resumed from epoch 4", []Metrics{{Epoch: 4, TuneBLEU: 1}, {Epoch: 5, TuneBLEU: 0.5}}, 4},
		{"TER: lower is better", []Metrics{{Epoch: 1, TuneBLEU: 64.5, Metric: "TER", LowerIsBetter: true}, {Epoch: 2, TuneBLEU: 63.9, Metric: "TER", LowerIsBetter: true}, {Epoch: 3, TuneBLEU: 64.1, Metric: "TER", LowerIsBetter: true}}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := BestEpoch(c.ms); got != c.want {
				t.Errorf("BestEpoch = %d, want %d", got, c.want)
			}
		})
	}
}

// TestBest: tune-nbest offers its starting weights as epoch 0; a later
// epoch must beat it strictly.
func TestBest(t *testing.T) {
	var b Best
	steps := []struct {
		epoch  int
		score  float64
		better bool
	}{{0, 0.2, true}, {1, 0.1, false}, {2, 0.2, false}, {3, 0.3, true}, {4, math.NaN(), false}, {5, 0.31, true}}
	for _, s := range steps {
		if got := b.Add(s.epoch, s.score); got != s.better {
			t.Errorf("Add(%d, %v) = %v, want %v", s.epoch, s.score, got, s.better)
		}
	}
	if b.Epoch != 5 || b.Score != 0.31 {
		t.Errorf("best %d (%v), want 5 (0.31)", b.Epoch, b.Score)
	}
	var neg Best
	if !neg.Add(1, -5) || neg.Epoch != 1 {
		t.Errorf("a negative first score is not the best of one: %+v", neg)
	}
}

// TestReadScore: a stats file is scored under the run's metric (BLEU when
// nil), empty statistics score 0, and statistics the metric could not
// have (more BLEU matches than n-grams, chrF's where BLEU's are due) are
// an error naming the file.
func TestReadScore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name string, st metric.Stats) string {
		p := filepath.Join(dir, name)
		if err := WriteJSON(ctx, p, st); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bleu := metric.NewBLEUStats(4, []float64{6, 4, 2, 1}, []float64{8, 7, 6, 5}, 9)
	chrf := metric.NewChrF(false)
	hyp, ref := "the cat sat", "the cat sat down"
	seg, err := chrf.Segment([]string{ref})
	if err != nil {
		t.Fatal(err)
	}
	cst := seg.Stats(hyp)
	for _, tc := range []struct {
		name string
		st   metric.Stats
		m    metric.Metric
		want float64
		err  bool
	}{
		{"bleu", bleu, nil, 100 * metric.BLEUStats(bleu).BLEU(), false},
		{"empty", metric.Stats{}, nil, 0, false},
		{"chrf", cst, chrf, chrf.Score(cst), false},
		{"bad bleu", metric.NewBLEUStats(4, []float64{9}, []float64{8, 7, 6, 5}, 9), nil, 0, true},
		{"chrf as bleu", cst, nil, 0, true},
	} {
		p := write(tc.name+".json", tc.st)
		got, err := ReadScore(ctx, p, tc.m)
		if (err != nil) != tc.err || err != nil && !strings.Contains(err.Error(), p) || got != tc.want {
			t.Errorf("%s: %v, %v; want %v (error %v, naming the file)", tc.name, got, err, tc.want, tc.err)
		}
	}
}
