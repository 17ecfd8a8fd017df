package transforms_test

import (
	"context"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/mix"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	data "github.com/mtune/mtune/testsupport/europarl100"
	"github.com/mtune/mtune/testsupport/randpool"
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
			if m := got.Map(); !maps.Equal(m, tc.want) {
				t.Errorf("%s (split %d): %v, want %v", tc.name, split, m, tc.want)
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

// lineProblem is a line-search mixing problem.
type lineProblem struct {
	name      string
	idx       *feature.Index
	lists     []pool.List
	prev, avg feature.Weights
}

func lineProblems(t testing.TB) []lineProblem {
	var out []lineProblem
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 30; trial++ {
		dims := 1 + r.IntN(5)
		idx := feature.NewIndex()
		for j := 0; j < dims; j++ {
			idx.ID(feature.DenseName("f", j))
		}
		prev := make(feature.Weights, dims)
		avg := make(feature.Weights, dims)
		for j := range prev {
			prev[j] = float64(r.IntN(5) - 2)
			avg[j] = float64(r.IntN(5) - 2)
			if trial%3 == 0 {
				prev[j] += r.NormFloat64()
				avg[j] += r.NormFloat64()
			}
		}
		out = append(out, lineProblem{"random", idx, randpool.Lists(r, 1+r.IntN(30), 0, 12, dims), prev, avg})
	}

	// europarl100 with its init.weights and the average of four perturbed
	// copies, as parallel shards would return.
	lists, prev, idx := data.Load(t)
	prev.Grow(idx.Len())
	for c := 0; c < 3; c++ {
		var shards []mix.Shard
		for s := 0; s < 4; s++ {
			w := prev.Clone()
			for j := range w {
				w[j] += 0.1 * r.NormFloat64()
			}
			shards = append(shards, mix.Shard{Weights: w, Updates: 10 + r.IntN(20)})
		}
		out = append(out, lineProblem{"europarl100", idx, lists, prev, mix.Average(shards, true)})
	}
	return out
}

// bleuAt returns corpus BLEU of lists re-ranked with (1−α)·prev + α·avg.
func bleuAt(lists []pool.List, prev, avg feature.Weights, a float64) float64 {
	w := make(feature.Weights, len(prev))
	for j := range w {
		w[j] = (1-a)*prev[j] + a*avg.At(feature.ID(j))
	}
	return metric.BLEUStats(pool.OneBest(lists, w)).BLEU()
}

// lineSearch chooses α for the lists as the pipeline does: each list's
// share by tune.LineSearchList, merged by LineSearchFn in the order of
// perm, in two accumulators merged at the end, as a runner may.
func lineSearch(lists []pool.List, prev, avg feature.Weights, perm []int) (transforms.LineSearchResult, error) {
	f := &transforms.LineSearchFn{}
	a, b := f.CreateAccumulator(), f.CreateAccumulator()
	dir := mix.Direction(prev, avg)
	for i, k := range perm {
		share, err := tune.LineSearchList(lists[k], prev, avg, dir)
		if err != nil {
			return transforms.LineSearchResult{}, err
		}
		if i < len(perm)/2 {
			a, err = f.AddInput(a, share)
		} else {
			b, err = f.AddInput(b, share)
		}
		if err != nil {
			return transforms.LineSearchResult{}, err
		}
	}
	b, err := f.MergeAccumulators(b, a)
	if err != nil {
		return transforms.LineSearchResult{}, err
	}
	return f.ExtractOutput(b)
}

// TestLineSearchCombine checks the combiner against mix.LineSearch (brute
// force over the same lists) and against a grid of α.
func TestLineSearchCombine(t *testing.T) {
	for i, pr := range lineProblems(t) {
		_, wantAlpha, wantStats, wantErr := mix.LineSearch(pr.prev, pr.avg, pr.lists)
		// The combiner's input order must not matter.
		perm := rand.New(rand.NewPCG(uint64(i), 0)).Perm(len(pr.lists))
		got, err := lineSearch(pr.lists, pr.prev, pr.avg, perm)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%s %d: error %v, mix.LineSearch %v", pr.name, i, err, wantErr)
		}
		if err != nil {
			continue
		}
		if got.Alpha != wantAlpha || got.Stats != wantStats {
			t.Fatalf("%s %d: α %v with %v, mix.LineSearch α %v with %v", pr.name, i, got.Alpha, got.Stats, wantAlpha, wantStats)
		}
		if b := bleuAt(pr.lists, pr.prev, pr.avg, got.Alpha); b != got.BLEU {
			t.Fatalf("%s %d: BLEU %v at α %v, re-ranking gives %v", pr.name, i, got.BLEU, got.Alpha, b)
		}
		for a := -5.0; a <= 5; a += 0.01 {
			if b := bleuAt(pr.lists, pr.prev, pr.avg, a); b > got.BLEU+1e-12 {
				t.Fatalf("%s %d: BLEU %v at α %v beats the search's %v at %v", pr.name, i, b, a, got.BLEU, got.Alpha)
			}
		}
		if pr.name == "europarl100" {
			t.Logf("europarl100: α = %.4f, BLEU %.4f (average %.4f, previous %.4f), %d breakpoints",
				got.Alpha, got.BLEU, bleuAt(pr.lists, pr.prev, pr.avg, 1), bleuAt(pr.lists, pr.prev, pr.avg, 0), got.Breakpoints)
		}
	}
}

func TestLineSearchErrors(t *testing.T) {
	s4, s2 := okStats(), metric.NewBLEUStats(2, nil, []float64{1, 1}, 1)
	hyp := func(s metric.Stats) pool.List {
		return pool.List{Hyps: []pool.Hyp{pool.NewHyp(feature.FromDense([]float64{1}), s)}}
	}
	w := feature.Weights{1}
	tests := []struct {
		name  string
		lists []pool.List
		w     feature.Weights
	}{
		{"no lists", nil, w},
		{"only empty lists", []pool.List{{Sent: 1}}, w},
		{"BLEU-4 and BLEU-2 statistics", []pool.List{hyp(s4), hyp(s2)}, w},
		{"an infinite model score", []pool.List{{Hyps: []pool.Hyp{pool.NewHyp(feature.Vector{IDs: []int32{0}, Vals: []float64{1e308}}, s4)}}}, feature.Weights{1e10}},
	}
	for _, tc := range tests {
		perm := make([]int, len(tc.lists))
		for i := range perm {
			perm[i] = i
		}
		if _, err := lineSearch(tc.lists, tc.w, feature.Weights{0}, perm); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestLineSearchMixPipeline runs LineSearchMix on prism: it must pick the
// α mix.LineSearch picks on the same lists, and mix the weights with it,
// the lists waiting for the average in list files of the folder given
// (issue 35: not in the runner's memory).
func TestLineSearchMixPipeline(t *testing.T) {
	p, s := beam.NewPipelineWithRoot()
	var dirs []string
	for _, pr := range lineProblems(t)[27:] { // 3 random, 3 europarl100
		w, alpha, stats, err := mix.LineSearch(pr.prev, pr.avg, pr.lists)
		if err != nil {
			t.Fatal(err)
		}
		var nbests []tune.NBest
		nonEmpty := 0
		for _, l := range pr.lists {
			nbests = append(nbests, tune.NBestOf(l, nil, pr.idx))
			if len(l.Hyps) > 0 {
				nonEmpty++
			}
		}
		prev := weights.NewByName(pr.idx, pr.prev)
		avg := weights.NewByName(pr.idx, pr.avg)
		dir := t.TempDir()
		dirs = append(dirs, dir)
		mixed, res := transforms.LineSearchMix(s, beam.CreateList(s, nbests), beam.Create(s, prev), beam.Create(s, avg), "", dir)
		passert.Equals(s, beam.ParDo(s, formatLineSearch, res),
			formatLineSearch(transforms.LineSearchResult{Alpha: alpha, Stats: stats, Lists: nonEmpty}))
		passert.Equals(s, beam.ParDo(s, formatWeights, mixed), formatWeights(weights.NewByName(pr.idx, w)))
	}
	ptest.RunAndValidate(t, p)
	for _, dir := range dirs {
		if files, _ := filepath.Glob(filepath.Join(dir, "lists-*.gob.gz")); len(files) == 0 {
			t.Errorf("no list file in %s", dir)
		}
	}
}

// TestSpillListsNoFolder: without a list folder SpillListsFn refuses
// rather than write list files into the working directory.
func TestSpillListsNoFolder(t *testing.T) {
	var f transforms.SpillListsFn
	if err := f.ProcessElement(context.Background(), tune.NBest{Sent: 1}, func(string) {}); err == nil {
		t.Fatal("no error without a list folder")
	}
	if files, _ := filepath.Glob("lists-*.gob.gz"); len(files) > 0 {
		t.Errorf("list files written in the working directory: %v", files)
	}
}

// TestListLinesManyFiles: one ListLinesFn instance, as a runner reuses it
// across bundles, shares out several list files; their merged shares choose
// the α and statistics mix.LineSearch chooses on all the lists at once,
// whatever the order of the files.
func TestListLinesManyFiles(t *testing.T) {
	ctx := context.Background()
	for i, pr := range lineProblems(t)[24:] { // 6 random, 3 europarl100
		_, alpha, stats, err := mix.LineSearch(pr.prev, pr.avg, pr.lists)
		if err != nil {
			t.Fatal(err)
		}
		nonEmpty := 0
		for _, l := range pr.lists {
			if len(l.Hyps) > 0 {
				nonEmpty++
			}
		}
		want := formatLineSearch(transforms.LineSearchResult{Alpha: alpha, Stats: stats, Lists: nonEmpty})
		dir := t.TempDir()
		var paths []string
		for part := 0; part < 3; part++ { // lists i ≡ part (mod 3)
			f, err := tune.CreateListFile(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			for j := part; j < len(pr.lists); j += 3 {
				if err := f.Add(tune.NBestOf(pr.lists[j], nil, pr.idx)); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, f.Path())
		}
		prev, avg := weights.NewByName(pr.idx, pr.prev), weights.NewByName(pr.idx, pr.avg)
		for _, order := range [][]int{{0, 1, 2}, {2, 0, 1}} {
			var fn transforms.ListLinesFn
			var comb transforms.LineSearchFn
			acc := comb.CreateAccumulator()
			for _, k := range order {
				err := fn.ProcessElement(ctx, paths[k], prev, avg, func(l mix.Lines) {
					var err error
					if acc, err = comb.AddInput(acc, l); err != nil {
						t.Fatal(err)
					}
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			got, err := comb.ExtractOutput(acc)
			if err != nil {
				t.Fatal(err)
			}
			if g := formatLineSearch(got); g != want {
				t.Errorf("problem %d, files %v: %s; mix.LineSearch: %s", i, order, g, want)
			}
		}
	}
}

// TestParseMixer checks --mix's registry: each name gives its mixer (in
// any case), an unknown name or an option is refused with the choices.
func TestParseMixer(t *testing.T) {
	for _, tc := range []struct{ spec, want, err string }{
		{"average", "average", ""},
		{"linesearch", "linesearch", ""},
		{"LineSearch", "linesearch", ""},
		{"nope", "", "want one of average, linesearch"},
		{"average:x=1", "", `takes no option "x"`},
	} {
		m, err := transforms.ParseMixer(tc.spec)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %v, want an error with %q", tc.spec, err, tc.err)
		case tc.err == "" && (err != nil || m.Name() != tc.want):
			t.Errorf("%q: %v, %v; want %s", tc.spec, m, err, tc.want)
		}
	}
}
