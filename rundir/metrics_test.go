package rundir

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
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
		{"tune BLEU", []Metrics{{Epoch: 1, TuneScore: 20}, {Epoch: 2, TuneScore: 25}, {Epoch: 3, TuneScore: 24}}, 2},
		{"dev BLEU over tune BLEU", []Metrics{{Epoch: 1, TuneScore: 30, DevScore: dev(20)}, {Epoch: 2, TuneScore: 25, DevScore: dev(21)}}, 2},
		{"tie: the earlier", []Metrics{{Epoch: 1, TuneScore: 20}, {Epoch: 2, TuneScore: 22}, {Epoch: 3, TuneScore: 22}}, 2},
		{"NaN never wins", []Metrics{{Epoch: 1, TuneScore: math.NaN()}, {Epoch: 2, TuneScore: 0}}, 2},
		{"resumed from epoch 4", []Metrics{{Epoch: 4, TuneScore: 1}, {Epoch: 5, TuneScore: 0.5}}, 4},
		{"TER: lower is better", []Metrics{{Epoch: 1, TuneScore: 64.5, Metric: "TER", LowerIsBetter: true}, {Epoch: 2, TuneScore: 63.9, Metric: "TER", LowerIsBetter: true}, {Epoch: 3, TuneScore: 64.1, Metric: "TER", LowerIsBetter: true}}, 2},
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

// TestMetricsNames (issue 34): a line names its figures as scores of the
// metric it names, BLEU included; a line an earlier version wrote
// (tune_bleu, dev_bleu, progressive_bleu, no metric for BLEU) reads as the
// same figures, and a line with both spellings of a figure is refused.
func TestMetricsNames(t *testing.T) {
	dev := 89.6
	m := Metrics{Epoch: 1, TuneScore: 88.26, DevScore: &dev, ProgressiveScore: 61.74, NonZero: 15}
	m.SetMetric(nil)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"tune_score":88.26`, `"dev_score":89.6`, `"progressive_score":61.74`, `"metric":"BLEU"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s: no %s", b, want)
		}
	}
	if strings.Contains(string(b), "_bleu") {
		t.Errorf("%s names a figure BLEU's", b)
	}
	tests := []struct {
		name, line string
		want       Metrics
		err        string
	}{
		{"this version's", string(b), m, ""},
		{"an earlier BLEU run's", `{"epoch":1,"tune_bleu":88.26,"dev_bleu":89.6,"progressive_bleu":61.74,"nonzero":15,"updates":0,"sentences":0,"seconds":0}`, m, ""},
		{"an earlier chrF run's", `{"epoch":2,"tune_bleu":50,"progressive_bleu":40,"metric":"chrF2","nonzero":1}`,
			Metrics{Epoch: 2, TuneScore: 50, ProgressiveScore: 40, Metric: "chrF2", NonZero: 1}, ""},
		{"an earlier TER run's, dev null", `{"epoch":3,"tune_bleu":50,"dev_bleu":null,"metric":"TER","lower_is_better":true}`,
			Metrics{Epoch: 3, TuneScore: 50, Metric: "TER", LowerIsBetter: true}, ""},
		{"both tune spellings", `{"epoch":1,"tune_bleu":1,"tune_score":2}`, Metrics{}, "both tune_bleu and tune_score"},
		{"both dev spellings", `{"epoch":1,"dev_bleu":1,"dev_score":2}`, Metrics{}, "both dev_bleu and dev_score"},
		{"a dev_bleu not a number", `{"epoch":1,"dev_bleu":"x"}`, Metrics{}, "dev_bleu"},
		{"a tune_score not a number", `{"epoch":1,"tune_score":"x"}`, Metrics{}, "tune_score"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got Metrics
			err := json.Unmarshal([]byte(tc.line), &got)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%s: %v, want an error naming %q", tc.line, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s read as %+v, want %+v", tc.line, got, tc.want)
			}
		})
	}
}
