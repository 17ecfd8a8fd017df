package tune

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/mix"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/europarl100"
	"github.com/mtune/mtune/testsupport/randpool"
)

type namedShard struct {
	names   []string
	vals    []float64
	updates int
}

// TestAverageSums: means worked out by hand (exact in binary), whatever
// the split of the shards between two merged sums.
func TestAverageSums(t *testing.T) {
	abc, cab := []string{"a", "b", "c"}, []string{"c", "a", "b"}
	tests := []struct {
		name     string
		shards   []namedShard
		weighted bool
		want     map[string]float64
	}{
		{"one shard", []namedShard{{[]string{"a", "b"}, []float64{1, -2}, 3}}, false,
			map[string]float64{"a": 1, "b": -2}},
		// (1+3)/2 = 2, (2+0)/2 = 1, (3−1)/2 = 1; names in another order.
		{"uniform", []namedShard{{abc, []float64{1, 2, 3}, 1}, {cab, []float64{-1, 3, 0}, 3}}, false,
			map[string]float64{"a": 2, "b": 1, "c": 1}},
		// (1·1 + 3·3)/4 = 2.5, (1·2 + 3·0)/4 = 0.5, (1·3 − 3·1)/4 = 0.
		{"weighted", []namedShard{{abc, []float64{1, 2, 3}, 1}, {cab, []float64{-1, 3, 0}, 3}}, true,
			map[string]float64{"a": 2.5, "b": 0.5, "c": 0}},
		// A feature a shard lacks counts as zero there: (4+0+2)/3 = 2.
		{"missing names", []namedShard{{[]string{"a", "s"}, []float64{4, 3}, 2}, {[]string{"a"}, []float64{0}, 2},
			{[]string{"s", "a", "t"}, []float64{0, 2, -6}, 4}}, false,
			map[string]float64{"a": 2, "s": 1, "t": -2}},
		{"no updates at all: uniform", []namedShard{{[]string{"a"}, []float64{8}, 0}, {[]string{"a"}, []float64{2}, 0}}, true,
			map[string]float64{"a": 5}},
	}
	for _, tc := range tests {
		for split := 0; split <= len(tc.shards); split++ {
			var a, b AverageSums
			for i, s := range tc.shards {
				dst := &a
				if i >= split {
					dst = &b
				}
				if err := dst.Add(i, s.names, s.vals, s.updates); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.Merge(a); err != nil {
				t.Fatal(err)
			}
			names, vals, err := b.Mean(tc.weighted)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for i, n := range names {
				got[n] = vals[i]
			}
			if len(got) != len(names) || !maps.Equal(got, tc.want) {
				t.Errorf("%s (split %d): %v, want %v", tc.name, split, got, tc.want)
			}
		}
	}
}

func TestAverageSumsErrors(t *testing.T) {
	var a AverageSums
	if _, _, err := a.Mean(false); err == nil {
		t.Error("averaging nothing: no error")
	}
	tests := []struct {
		name string
		s    namedShard
	}{
		{"negative updates", namedShard{[]string{"a"}, []float64{1}, -1}},
		{"more names than values", namedShard{[]string{"a", "b"}, []float64{1}, 1}},
		{"NaN", namedShard{[]string{"a"}, []float64{math.NaN()}, 1}},
	}
	for _, tc := range tests {
		if err := a.Add(0, tc.s.names, tc.s.vals, tc.s.updates); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if err := a.Add(-1, []string{"a"}, []float64{1}, 1); err == nil {
		t.Error("negative shard: no error")
	}
	if err := a.Merge(AverageSums{Shards: []ShardWeights{{Weights: weights.ByName{Names: []string{"a"}}}}}); err == nil {
		t.Error("malformed sums: no error")
	}
	if err := a.Add(3, []string{"a"}, []float64{1}, 1); err != nil {
		t.Fatal(err)
	}
	if err := a.Add(3, []string{"a"}, []float64{1}, 1); err == nil {
		t.Error("a shard added twice: no error")
	}
}

// TestAverageSumsOrder: the mean is the same bits, and its names the same
// order, whatever the order in which shards are added and sums merged (a
// CombineFn's, which no runner fixes). The weights make float sums depend
// on their order: (1e16 + 1) − 1e16 = 0 but (1e16 − 1e16) + 1 = 1.
func TestAverageSumsOrder(t *testing.T) {
	shards := []namedShard{
		{[]string{"a", "b"}, []float64{1e16, 3}, 2},
		{[]string{"b", "c", "a"}, []float64{0.1, 5, 1}, 1},
		{[]string{"a", "d"}, []float64{-1e16, 0.7}, 3},
		{[]string{"d", "a", "b"}, []float64{1e-3, 1, 0.2}, 1},
	}
	// Shard k's expected order of the sums: 0, 1, 2, 3.
	want := map[bool][]float64{}
	for _, weighted := range []bool{false, true} {
		var sums mix.Sums
		idx := feature.NewIndex()
		for _, s := range shards {
			var w feature.Weights
			for i, n := range s.names {
				w.Set(idx.ID(n), s.vals[i])
			}
			sums.Add(w, s.updates)
		}
		want[weighted] = sums.Mean(weighted)
	}
	wantNames := []string{"a", "b", "c", "d"}
	r := rand.New(rand.NewPCG(5, 6))
	differs := false
	for range 50 {
		perm := r.Perm(len(shards))
		split := r.IntN(len(shards) + 1)
		var a, b AverageSums
		for i, k := range perm {
			dst := &a
			if i >= split {
				dst = &b
			}
			s := shards[k]
			if err := dst.Add(k, s.names, s.vals, s.updates); err != nil {
				t.Fatal(err)
			}
		}
		if r.IntN(2) == 0 {
			a, b = b, a
		}
		if err := a.Merge(b); err != nil {
			t.Fatal(err)
		}
		for _, weighted := range []bool{false, true} {
			names, vals, err := a.Mean(weighted)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(names, wantNames) || !slices.Equal(vals, want[weighted]) {
				t.Errorf("shards added in order %v (split %d), weighted %v: %v %v, want %v %v", perm, split, weighted, names, vals, wantNames, want[weighted])
			}
			// The case is one where order matters: the sums of
			// the other order differ.
			var sums mix.Sums
			for _, k := range perm {
				w := make(feature.Weights, len(wantNames))
				for i, n := range shards[k].names {
					w[slices.Index(wantNames, n)] = shards[k].vals[i]
				}
				sums.Add(w, shards[k].updates)
			}
			differs = differs || !slices.Equal(sums.Mean(weighted), want[weighted])
		}
	}
	if !differs {
		t.Fatal("no order of the shards changes their float sums: the test checks nothing")
	}
}

// TestLineSearch: the lists' shares merged in any order choose what
// mix.LineSearch chooses over the same lists.
func TestLineSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for c := range 40 {
		dims := 1 + r.IntN(4)
		lists := randpool.Lists(r, 1+r.IntN(20), 0, 9, dims)
		prev, avg := make(feature.Weights, dims), make(feature.Weights, dims)
		for j := range prev {
			prev[j], avg[j] = r.NormFloat64(), float64(r.IntN(5)-2)
		}
		w, alpha, stats, wantErr := mix.LineSearch(prev, avg, lists)
		var all mix.Lines
		dir := mix.Direction(prev, avg)
		for _, k := range r.Perm(len(lists)) {
			share, err := LineSearchList(lists[k], prev, avg, dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := all.Merge(share); err != nil {
				t.Fatal(err)
			}
		}
		got, err := LineSearch(all, "")
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("case %d: error %v, mix.LineSearch %v", c, err, wantErr)
		}
		if err != nil {
			continue
		}
		if got.Alpha != alpha || got.Stats != stats || got.BLEU != metric.BLEUStats(stats).BLEU() {
			t.Errorf("case %d: α %v with %v, mix.LineSearch α %v with %v", c, got.Alpha, got.Stats, alpha, stats)
		}
		if !slices.Equal(mix.Interpolate(prev, avg, got.Alpha), w) {
			t.Errorf("case %d: weights differ from mix.LineSearch's", c)
		}
	}
}

// TestLineSearchMetric: line-search mixing toward a metric other than
// BLEU is an exact line search for it. On europarl100's lists scored
// with TER (lower is better) and with chrF, from init.weights toward a
// perturbed "average", the α chosen re-ranks the lists to a corpus score
// no grid point of [−4, 4] beats, its statistics are the re-ranked
// lists', and its Score is the metric's.
func TestLineSearchMetric(t *testing.T) {
	for _, spec := range []string{"ter", "chrf"} {
		m, err := metric.Parse(spec, metric.Options{})
		if err != nil {
			t.Fatal(err)
		}
		lists, prev, idx := europarl100.SharedMetric(t, m)
		prev = slices.Grow(prev, idx.Len()-len(prev))[:idx.Len()]
		r := rand.New(rand.NewPCG(5, 6))
		avg := prev.Clone()
		for j := range avg {
			avg[j] += 0.1 * r.NormFloat64()
		}
		dir := mix.Direction(prev, avg)
		var all mix.Lines
		for _, l := range lists {
			share, err := LineSearchList(l, prev, avg, dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := all.Merge(share); err != nil {
				t.Fatal(err)
			}
		}
		got, err := LineSearch(all, spec)
		if err != nil {
			t.Fatal(err)
		}
		gain := func(alpha float64) (float64, metric.Stats) {
			st := pool.OneBest(lists, mix.Interpolate(prev, avg, alpha))
			return metric.Gain(m, st), st
		}
		at, st := gain(got.Alpha)
		if st != got.Stats || got.Score != m.Score(st) || got.Metric != m.Name() || got.BLEU != 0 {
			t.Errorf("%s: α %v: the result's statistics %v and score %v, the re-ranked lists' %v and %v", spec, got.Alpha, got.Stats, got.Score, st, m.Score(st))
		}
		bleuAlpha, _ := LineSearch(all, "")
		t.Logf("%s: α %.4f, %s %.2f (at α 0: %.2f, at 1: %.2f); toward BLEU: α %.4f", spec, got.Alpha, m.Name(), got.Score,
			m.Score(pool.OneBest(lists, prev)), m.Score(pool.OneBest(lists, avg)), bleuAlpha.Alpha)
		for k := -400; k <= 400; k++ {
			if g, _ := gain(float64(k) / 100); g > at+1e-9 {
				t.Fatalf("%s: α %v gives %v, better than the search's α %v (%v)", spec, float64(k)/100, g, got.Alpha, at)
			}
		}
	}
}

// TestAverageSumsNonZero: the mean of the shards' non-zero weights only
// (KeepShardState with nonZero, what averaging's shards emit) is the mean
// of their whole weights, bit for bit, feature by feature, uniform and
// weighted; only the order of the names may differ.
func TestAverageSumsNonZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	names := make([]string, 200)
	for i := range names {
		names[i] = "f" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	var full, nz AverageSums
	for shard := range 3 {
		ww := weights.ByName{}
		for _, i := range rng.Perm(len(names))[:150] {
			x := 0.0
			if rng.IntN(3) > 0 {
				x = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(30)-15))
			}
			ww.Names, ww.Vals = append(ww.Names, names[i]), append(ww.Vals, x)
		}
		if err := full.Add(shard, ww.Names, ww.Vals, shard+2); err != nil {
			t.Fatal(err)
		}
		sparse := ww.NonZero()
		if len(sparse.Names) == len(ww.Names) {
			t.Fatal("no zero weight: the test needs some")
		}
		if err := nz.Add(shard, sparse.Names, sparse.Vals, shard+2); err != nil {
			t.Fatal(err)
		}
	}
	for _, weighted := range []bool{false, true} {
		n1, v1, err1 := full.Mean(weighted)
		n2, v2, err2 := nz.Mean(weighted)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		a := (weights.ByName{Names: n1, Vals: v1}).NonZero().Map()
		b := (weights.ByName{Names: n2, Vals: v2}).NonZero().Map()
		if !maps.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }) {
			t.Errorf("weighted %v: the means differ", weighted)
		}
	}
}
