package pool

import (
	"math"
	"slices"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/metric"
)

// TestNewHyps: packed hypotheses give back the features and statistics
// they were made of, share the ids of equal id lists only, and keep
// copies (changing the inputs afterwards changes nothing).
func TestNewHyps(t *testing.T) {
	dense := func(x ...float64) feature.Vector { return feature.FromDense(x) }
	sparse := func(ids []feature.ID, x ...float64) feature.Vector { return feature.Vector{IDs: ids, Vals: x} }
	bleu := metric.NewBLEUStats(2, []float64{3, 1}, []float64{4, 3}, 5)
	chrf := metric.StatsOf(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18)
	tests := []struct {
		name  string
		fs    []feature.Vector
		ss    []metric.Stats
		share []bool // hypothesis k shares the ids of k-1
	}{
		{"dense", []feature.Vector{dense(1, 2, 3), dense(4, 5, 6), dense(7, 8, 9)}, []metric.Stats{bleu, chrf, bleu}, []bool{false, true, true}},
		{"sparse", []feature.Vector{sparse([]feature.ID{0, 2}, 1, 2), sparse([]feature.ID{1}, 3), sparse([]feature.ID{1}, 4), sparse([]feature.ID{0, 2}, 5, 6)},
			[]metric.Stats{bleu, bleu, bleu, bleu}, []bool{false, false, true, false}},
		{"empty vectors and statistics", []feature.Vector{{}, dense(1), {}}, []metric.Stats{{}, bleu, {}}, []bool{false, false, false}},
		{"none", nil, nil, nil},
	}
	for _, tc := range tests {
		fs := make([]feature.Vector, len(tc.fs))
		for k, f := range tc.fs {
			fs[k] = f.Clone()
		}
		hyps := NewHyps(fs, tc.ss)
		for k := range fs { // the hypotheses hold copies
			for j := range fs[k].Vals {
				fs[k].Vals[j], fs[k].IDs[j] = -1, 99
			}
		}
		if len(hyps) != len(tc.fs) {
			t.Fatalf("%s: %d hypotheses, want %d", tc.name, len(hyps), len(tc.fs))
		}
		for k, h := range hyps {
			if !h.Features.Equal(tc.fs[k]) {
				t.Errorf("%s: hypothesis %d features %v, want %v", tc.name, k, h.Features, tc.fs[k])
			}
			if h.Stats() != tc.ss[k] {
				t.Errorf("%s: hypothesis %d statistics %v, want %v", tc.name, k, h.Stats(), tc.ss[k])
			}
			if !slices.Equal(h.StatsValues(), tc.ss[k].Values()) {
				t.Errorf("%s: hypothesis %d StatsValues %v, want %v", tc.name, k, h.StatsValues(), tc.ss[k].Values())
			}
			shared := k > 0 && len(h.Features.IDs) > 0 && len(hyps[k-1].Features.IDs) > 0 && &h.Features.IDs[0] == &hyps[k-1].Features.IDs[0]
			if shared != tc.share[k] {
				t.Errorf("%s: hypothesis %d shares the previous ids: %v, want %v", tc.name, k, shared, tc.share[k])
			}
			if cap(h.Features.Vals) != len(h.Features.Vals) || cap(h.StatsValues()) != len(h.StatsValues()) {
				t.Errorf("%s: hypothesis %d: a slab part has room past its end (an append would write into the next)", tc.name, k)
			}
		}
	}
}

// TestNewHyp: a hypothesis made alone keeps a copy of its statistics.
func TestNewHyp(t *testing.T) {
	st := metric.NewBLEUStats(1, []float64{1}, []float64{2}, 3)
	h := NewHyp(feature.FromDense([]float64{1}), st)
	st.V[0] = 9
	if got := h.Stats(); got == st || got.N != 3 || got.V[0] != 1 {
		t.Errorf("Stats = %v after changing the input", got)
	}
	if (Hyp{}).Stats() != (metric.Stats{}) {
		t.Error("the zero Hyp's statistics are not the zero Stats")
	}
}

// TestValidateStats: ValidateStats agrees with Stats().Validate().
func TestValidateStats(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   metric.Stats
	}{
		{"valid", metric.StatsOf(1, 2, 3)},
		{"none", metric.Stats{}},
		{"NaN", metric.StatsOf(1, math.NaN(), 3)},
		{"infinite", metric.StatsOf(math.Inf(-1))},
	} {
		h := NewHyp(feature.Vector{}, tc.st)
		got, want := h.ValidateStats(), tc.st.Validate()
		if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
			t.Errorf("%s: ValidateStats %v, Validate %v", tc.name, got, want)
		}
	}
}

// TestSubStats: SubStatsFrom is Stats.Sub of Stats(), bit for bit, the
// zero Stats taking the hypothesis' length.
func TestSubStats(t *testing.T) {
	h := NewHyp(feature.Vector{}, metric.StatsOf(0.1, 0.2, 3))
	for _, start := range []metric.Stats{{}, metric.StatsOf(1e16, 0.3, -2)} {
		want, got := start, start
		want.Sub(h.Stats())
		h.SubStatsFrom(&got)
		if got != want {
			t.Errorf("SubStatsFrom(%v) = %v, want %v", start, got, want)
		}
	}
}

// TestStatsSlab: a list NewHyps packed gives its statistics as one slab,
// row k hypothesis k's (also for a part of the list); hypotheses made one
// by one, reordered, or of different widths give none.
func TestStatsSlab(t *testing.T) {
	a := metric.NewBLEUStats(1, []float64{1}, []float64{2}, 3)
	b := metric.NewBLEUStats(1, []float64{4}, []float64{5}, 6)
	c := metric.NewBLEUStats(1, []float64{7}, []float64{8}, 9)
	f := feature.FromDense([]float64{1})
	fs := []feature.Vector{f, f, f}
	packed := NewHyps(fs, []metric.Stats{a, b, c})
	mixed := NewHyps(fs, []metric.Stats{a, metric.StatsOf(1, 2), c})
	tests := []struct {
		name  string
		hyps  []Hyp
		want  []float64 // nil: no slab
		width int
	}{
		{"packed", packed, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, 3},
		{"packed, from the second", packed[1:], []float64{4, 5, 6, 7, 8, 9}, 3},
		{"packed, the first two", packed[:2], []float64{1, 2, 3, 4, 5, 6}, 3},
		{"one by one", []Hyp{NewHyp(f, a), NewHyp(f, b)}, nil, 0},
		{"reordered", []Hyp{packed[1], packed[0], packed[2]}, nil, 0},
		{"a gap", []Hyp{packed[0], packed[2]}, nil, 0},
		{"widths differ", mixed, nil, 0},
		{"no statistics", NewHyps(fs[:2], []metric.Stats{{}, {}}), nil, 0},
		{"empty", nil, nil, 0},
	}
	for _, tc := range tests {
		slab, width, ok := List{Hyps: tc.hyps}.StatsSlab()
		if ok != (tc.want != nil) || !slices.Equal(slab, tc.want) || width != tc.width {
			t.Errorf("%s: StatsSlab = %v, %d, %v; want %v, %d", tc.name, slab, width, ok, tc.want, tc.width)
		}
	}
}
