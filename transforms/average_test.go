package transforms_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/mix"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

func ww(names []string, vals ...float64) weights.ByName {
	return weights.ByName{Names: names, Vals: vals}
}

func result(shard, updates int, w weights.ByName) tune.ShardResult {
	return tune.ShardResult{Shard: shard, Updates: updates, TotalUpdates: updates, Weights: w}
}

// averageCases have means worked out by hand (exact in binary).
var averageCases = []struct {
	name     string
	results  []tune.ShardResult
	weighted bool
	want     map[string]float64
}{
	{"one shard", []tune.ShardResult{result(0, 3, ww([]string{"a", "b"}, 1, -2))}, false,
		map[string]float64{"a": 1, "b": -2}},
	// (1+3)/2 = 2, (2+0)/2 = 1, (3−1)/2 = 1; names in another order.
	{"uniform", []tune.ShardResult{
		result(0, 1, ww([]string{"a", "b", "c"}, 1, 2, 3)),
		result(1, 3, ww([]string{"c", "a", "b"}, -1, 3, 0))}, false,
		map[string]float64{"a": 2, "b": 1, "c": 1}},
	// (1·1 + 3·3)/4 = 2.5, (1·2 + 3·0)/4 = 0.5, (1·3 − 3·1)/4 = 0.
	{"weighted", []tune.ShardResult{
		result(0, 1, ww([]string{"a", "b", "c"}, 1, 2, 3)),
		result(1, 3, ww([]string{"c", "a", "b"}, -1, 3, 0))}, true,
		map[string]float64{"a": 2.5, "b": 0.5, "c": 0}},
	// A feature one shard lacks counts as zero there: (4+0+2)/3 = 2.
	{"missing names", []tune.ShardResult{
		result(0, 2, ww([]string{"a", "s"}, 4, 3)),
		result(1, 2, ww([]string{"a"}, 0)),
		result(2, 4, ww([]string{"s", "a", "t"}, 0, 2, -6))}, false,
		map[string]float64{"a": 2, "s": 1, "t": -2}},
	// (2·4 + 2·0 + 4·2)/8 = 2, 2·3/8 = 0.75, −6·4/8 = −3.
	{"missing names weighted", []tune.ShardResult{
		result(0, 2, ww([]string{"a", "s"}, 4, 3)),
		result(1, 2, ww([]string{"a"}, 0)),
		result(2, 4, ww([]string{"s", "a", "t"}, 0, 2, -6))}, true,
		map[string]float64{"a": 2, "s": 0.75, "t": -3}},
	{"a shard without updates", []tune.ShardResult{
		result(0, 0, ww([]string{"a"}, 8)),
		result(1, 5, ww([]string{"a"}, 2))}, true,
		map[string]float64{"a": 2}},
	{"no updates at all: uniform", []tune.ShardResult{
		result(0, 0, ww([]string{"a"}, 8)),
		result(1, 0, ww([]string{"a"}, 2))}, true,
		map[string]float64{"a": 5}},
}

func combineAll(t *testing.T, f *transforms.AverageFn, rs []tune.ShardResult, split int) weights.ByName {
	t.Helper()
	// Two accumulators merged, as a runner may do.
	a, b := f.CreateAccumulator(), f.CreateAccumulator()
	var err error
	for i, r := range rs {
		if i < split {
			a, err = f.AddInput(a, r)
		} else {
			b, err = f.AddInput(b, r)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if a, err = f.MergeAccumulators(a, b); err != nil {
		t.Fatal(err)
	}
	w, err := f.ExtractOutput(a)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestAverageFn(t *testing.T) {
	for _, tc := range averageCases {
		for split := 0; split <= len(tc.results); split++ {
			got := combineAll(t, &transforms.AverageFn{Weighted: tc.weighted}, tc.results, split)
			m := got.Map()
			if len(m) != len(tc.want) {
				t.Errorf("%s (split %d): %v, want %v", tc.name, split, m, tc.want)
			}
			for n, x := range tc.want {
				if m[n] != x {
					t.Errorf("%s (split %d): %v, want %v", tc.name, split, m, tc.want)
					break
				}
			}
		}
	}
}

// TestAverageAgainstMix compares with mix.Average on random shards over
// one index.
func TestAverageAgainstMix(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		idx := feature.NewIndex()
		for j := 0; j < 30; j++ {
			idx.ID(string(rune('a' + j)))
		}
		var shards []mix.Shard
		var results []tune.ShardResult
		for s := 0; s < 1+r.IntN(6); s++ {
			w := make(feature.Weights, 1+r.IntN(30))
			for j := range w {
				w[j] = r.NormFloat64()
			}
			u := r.IntN(5)
			shards = append(shards, mix.Shard{Weights: w, Updates: u})
			results = append(results, result(s, u, weights.NewByName(feature.NewIndexOf(idx.Names()[:len(w)]...), w)))
		}
		for _, weighted := range []bool{false, true} {
			want := mix.Average(shards, weighted)
			got := combineAll(t, &transforms.AverageFn{Weighted: weighted}, results, r.IntN(len(results)+1)).Map()
			for j, x := range want {
				if y := got[idx.Name(feature.ID(j))]; math.Abs(x-y) > 1e-14 {
					t.Fatalf("trial %d weighted %v: feature %d: %v, mix.Average %v", trial, weighted, j, y, x)
				}
			}
		}
	}
}

func TestAverageErrors(t *testing.T) {
	f := &transforms.AverageFn{}
	if _, err := f.ExtractOutput(f.CreateAccumulator()); err == nil {
		t.Error("averaging nothing: no error")
	}
	for _, r := range []tune.ShardResult{
		result(0, -1, ww([]string{"a"}, 1)),
		result(0, 1, ww([]string{"a"}, math.NaN())),
		result(0, 1, ww([]string{"a", "a"}, 1, 2)),
	} {
		if _, err := f.AddInput(f.CreateAccumulator(), r); err == nil {
			t.Errorf("AddInput(%+v): no error", r)
		}
	}
}

// TestAveragePipeline runs Average on prism: it must equal the hand mean.
func TestAveragePipeline(t *testing.T) {
	p, s := beam.NewPipelineWithRoot()
	for _, tc := range averageCases {
		col := beam.CreateList(s, tc.results)
		avg := transforms.Average(s, col, tc.weighted)
		names := make([]string, 0, len(tc.want))
		vals := make([]float64, 0, len(tc.want))
		for n, x := range tc.want {
			names = append(names, n)
			vals = append(vals, x)
		}
		passert.Equals(s, beam.ParDo(s, formatWeights, avg), formatWeights(ww(names, vals...)))
	}
	ptest.RunAndValidate(t, p)
}
