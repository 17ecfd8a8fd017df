package linesearch

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/europarl100"
	"github.com/mtune/mtune/testsupport/randpool"
)

// randomLists returns sentences of 1 to hyps random hypotheses over dims
// dense features (randpool.Lists).
func randomLists(r *rand.Rand, sentences, hyps, dims int) []pool.List {
	return randpool.Lists(r, sentences, 1, hyps, dims)
}

func randomWeights(r *rand.Rand, dims int) feature.Weights {
	w := make(feature.Weights, dims)
	for j := range w {
		w[j] = r.Float64()*2 - 1
	}
	return w
}

func along(w, d feature.Weights, gamma float64) feature.Weights {
	out := w.Clone()
	out.Grow(len(d))
	for j, x := range d {
		out[j] += gamma * x
	}
	return out
}

// bruteMax returns the best corpus BLEU over [lo, hi] by brute force: every
// sentence's 1-best is evaluated between each pair of consecutive
// intersections of any two of its lines, the changes are merged and every
// interval scored.
func bruteMax(lists []pool.List, w, d feature.Weights, lo, hi float64) float64 {
	type change struct {
		x        float64
		sent     int
		from, to int
	}
	var changes []change
	cur := make([]int, len(lists))
	var sum metric.Stats
	for i, l := range lists {
		n := len(l.Hyps)
		b, m := make([]float64, n), make([]float64, n)
		for k, h := range l.Hyps {
			b[k], m[k] = h.Features.Dot(w), h.Features.Dot(d)
		}
		var xs []float64
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				if m[p] != m[q] {
					xs = append(xs, (b[p]-b[q])/(m[q]-m[p]))
				}
			}
		}
		sort.Float64s(xs)
		xs = slices.CompactFunc(xs, func(a, b float64) bool { return thin(min(a, b), max(a, b)) })
		best := func(x float64) int {
			arg := 0
			for k := 1; k < n; k++ {
				if b[k]+x*m[k] > b[arg]+x*m[arg] {
					arg = k
				}
			}
			return arg
		}
		if len(xs) == 0 {
			cur[i] = best(0)
		} else {
			cur[i] = best(xs[0] - 1)
			prev := cur[i]
			for j, x := range xs {
				next := x + 1
				if j+1 < len(xs) {
					next = (x + xs[j+1]) / 2
				}
				if a := best(next); a != prev {
					changes = append(changes, change{x, i, prev, a})
					prev = a
				}
			}
		}
		sum.Add(l.Hyps[cur[i]].Stats())
	}
	sort.SliceStable(changes, func(a, b int) bool { return changes[a].x < changes[b].x })
	top, topThin := math.Inf(-1), math.Inf(-1)
	score := func(a, b float64) {
		a, b = max(a, lo), min(b, hi)
		switch {
		case !(a < b):
		case thin(a, b):
			topThin = max(topThin, metric.BLEUStats(sum).BLEU())
		default:
			top = max(top, metric.BLEUStats(sum).BLEU())
		}
	}
	left := math.Inf(-1)
	for j := 0; j < len(changes); {
		x := changes[j].x
		score(left, x)
		for ; j < len(changes) && changes[j].x == x; j++ {
			c := changes[j]
			sum.Sub(lists[c.sent].Hyps[c.from].Stats())
			sum.Add(lists[c.sent].Hyps[c.to].Stats())
		}
		left = x
	}
	score(left, math.Inf(1))
	if math.IsInf(top, -1) {
		return topThin
	}
	return top
}

// thin reports whether [a, b] is a sliver: the search ignores intervals
// narrower than 1e-10 relative, artefacts of rounding where three or more
// lines meet in one point.
func thin(a, b float64) bool {
	return !math.IsInf(b-a, 0) && b-a <= 1e-10*max(math.Abs(a), math.Abs(b))
}

// lineBLEU is corpus BLEU at γ with the model scores taken on the lines,
// base + γ·slope, the earlier hypothesis on ties: unlike re-ranking with
// w + γ·d it gives identical lines identical scores whatever their
// features.
func lineBLEU(lists []pool.List, w, d feature.Weights, g float64) float64 {
	var sum metric.Stats
	for _, l := range lists {
		arg, top := -1, 0.0
		for k, h := range l.Hyps {
			if s := h.Features.Dot(w) + g*h.Features.Dot(d); arg < 0 || s > top {
				arg, top = k, s
			}
		}
		sum.Add(l.Hyps[arg].Stats())
	}
	return metric.BLEUStats(sum).BLEU()
}

// check runs a search and compares it with brute force and a grid. If
// rerank is set, it also checks the statistics the search reports against
// re-ranking the lists with w + γ·d (which identical lines of different
// features may defeat by rounding).
func check(t *testing.T, name string, lists []pool.List, w, d feature.Weights, opts Options, grid int, rerank bool) Result {
	t.Helper()
	s, err := NewSearcher(lists, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	base, slope := make([]float64, s.Len()), make([]float64, s.Len())
	lines(lists, w, d, base, slope)
	res, err := s.Search(base, slope)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	if opts.Min != 0 || opts.Max != 0 {
		lo, hi = opts.Min, opts.Max
	}
	if !(res.Gamma > lo && res.Gamma < hi) || !(res.Gamma > res.Lo && res.Gamma < res.Hi) {
		t.Errorf("%s: γ = %v outside [%v, %v] or its interval (%v, %v)", name, res.Gamma, lo, hi, res.Lo, res.Hi)
	}
	got := metric.BLEUStats(res.Stats).BLEU()
	if at := pool.OneBest(lists, along(w, d, res.Gamma)); rerank && at != res.Stats {
		t.Errorf("%s: statistics at γ = %v are %v, the search reports %v", name, res.Gamma, at, res.Stats)
	}
	if want := bruteMax(lists, w, d, lo, hi); math.Abs(got-want) > 1e-12 {
		t.Errorf("%s: BLEU %.15f at γ = %v, brute force finds %.15f", name, got, res.Gamma, want)
	}
	// A fine grid over the breakpoints' range (and beyond), off the
	// rational points where integer features cross, never beats it.
	glo, ghi := max(lo, -3.0), min(hi, 3.0)
	for i := 0; i < grid; i++ {
		g := glo + (ghi-glo)*(float64(i)+1/math.Pi)/float64(grid)
		if b := lineBLEU(lists, w, d, g); b > got+1e-12 {
			t.Errorf("%s: BLEU %.15f at γ = %v beats the search's %.15f at %v", name, b, g, got, res.Gamma)
			break
		}
	}
	return res
}

func TestRandomAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name                 string
		sentences, hyps, dim int
		opts                 Options
		cases                int
	}{
		{"one sentence", 1, 12, 3, Options{}, 40},
		{"small", 5, 8, 3, Options{}, 40},
		{"many", 40, 30, 4, Options{}, 15},
		{"bounded", 20, 20, 3, Options{Min: -0.5, Max: 0.7}, 15},
		{"half-open", 20, 20, 3, Options{Min: math.Inf(-1), Max: 0.25}, 15},
		{"prefer 1", 20, 20, 3, Options{Prefer: 1}, 15},
		{"wide margin", 20, 20, 3, Options{Margin: 5}, 10},
	}
	for _, tc := range tests {
		for c := 0; c < tc.cases; c++ {
			lists := randomLists(r, tc.sentences, tc.hyps, tc.dim)
			w := randomWeights(r, tc.dim)
			d := randomWeights(r, tc.dim)
			if c%3 == 0 { // a coordinate direction
				d = make(feature.Weights, tc.dim)
				d[c%tc.dim] = 1
			}
			check(t, tc.name, lists, w, d, tc.opts, 600, true)
		}
	}
}

func TestThreadsDeterministic(t *testing.T) {
	defer func(m int) { minChunk = m }(minChunk)
	minChunk = 16
	r := rand.New(rand.NewPCG(3, 4))
	lists := randomLists(r, 300, 40, 5)
	w, d := randomWeights(r, 5), randomWeights(r, 5)
	var want Result
	for i, threads := range []int{1, 2, 3, 8} {
		res := check(t, "threads", lists, w, d, Options{Threads: threads}, 50, true)
		if i == 0 {
			want = res
		} else if res != want {
			t.Errorf("threads %d: %+v, with 1 thread %+v", threads, res, want)
		}
		s, _ := NewSearcher(lists, Options{Threads: threads})
		if threads > 1 && len(s.workers) < 2 {
			t.Errorf("threads %d: %d workers", threads, len(s.workers))
		}
	}
}

// TestTies: identical lines go to the earlier hypothesis, and of parallel
// lines the higher one wins, as pool.Best does.
func TestTies(t *testing.T) {
	st := func(m int) metric.Stats {
		return metric.NewBLEUStats(1, []float64{float64(m)}, []float64{10}, 10)
	}
	v := func(x ...float64) feature.Vector { return feature.FromDense(x) }
	tests := []struct {
		name     string
		hyps     []pool.Hyp
		w, d     feature.Weights
		wantBLEU float64
	}{
		// Two identical lines: the first (2 matches) wins everywhere.
		{"identical", []pool.Hyp{pool.NewHyp(v(1, 1), st(2)), pool.NewHyp(v(1, 1), st(9))}, feature.Weights{1, 0}, feature.Weights{0, 1}, 0.2},
		// Parallel lines: the higher one (3 matches) everywhere.
		{"parallel", []pool.Hyp{pool.NewHyp(v(0, 1), st(9)), pool.NewHyp(v(1, 1), st(3))}, feature.Weights{1, 0}, feature.Weights{0, 1}, 0.3},
		// Crossing lines: 9 matches for γ > 1.
		{"crossing", []pool.Hyp{pool.NewHyp(v(1, 0), st(2)), pool.NewHyp(v(0, 1), st(9))}, feature.Weights{1, 0}, feature.Weights{0, 1}, 0.9},
	}
	for _, tc := range tests {
		lists := []pool.List{{Hyps: tc.hyps}}
		g, s, err := Search(lists, tc.w, tc.d, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := metric.BLEUStats(s).BLEU(); math.Abs(got-tc.wantBLEU) > 1e-15 {
			t.Errorf("%s: BLEU %v at γ %v, want %v", tc.name, got, g, tc.wantBLEU)
		}
		if at := pool.OneBest(lists, along(tc.w, tc.d, g)); at != s {
			t.Errorf("%s: pool.OneBest at γ %v gives %v, search %v", tc.name, g, at, s)
		}
	}
}

// TestPick checks the point returned inside the best interval.
func TestPick(t *testing.T) {
	st := func(m int) metric.Stats {
		return metric.NewBLEUStats(1, []float64{float64(m)}, []float64{10}, 10)
	}
	v := func(x ...float64) feature.Vector { return feature.FromDense(x) }
	// Lines 0, γ and 2γ-3: breakpoints at 0 and 3.
	three := []pool.Hyp{pool.NewHyp(v(0, 0), st(1)), pool.NewHyp(v(0, 1), st(1)), pool.NewHyp(v(-3, 2), st(1))}
	with := func(m0, m1, m2 int) []pool.List {
		h := slices.Clone(three)
		h[0], h[1], h[2] = pool.NewHyp(h[0].Features, st(m0)), pool.NewHyp(h[1].Features, st(m1)), pool.NewHyp(h[2].Features, st(m2))
		return []pool.List{{Hyps: h}}
	}
	w, d := feature.Weights{1, 0}, feature.Weights{0, 1}
	tests := []struct {
		name  string
		lists []pool.List
		opts  Options
		want  float64
	}{
		{"midpoint", with(1, 5, 1), Options{}, 1.5},
		{"right, margin", with(1, 1, 5), Options{}, 3.1},
		{"left, margin", with(5, 1, 1), Options{Prefer: 1}, -0.1},
		{"left holds the preferred point", with(5, 1, 1), Options{Prefer: -7}, -7},
		{"all equal: stay", with(4, 4, 4), Options{}, 0.0 - 0.1}, // 0 is a breakpoint: nearest interval, leftmost
		{"all equal: preferred", with(4, 4, 4), Options{Prefer: 1}, 1},
		{"bounded", with(1, 1, 5), Options{Min: -1, Max: 5}, 4},
		{"bounded left", with(5, 1, 1), Options{Min: -1, Max: 5}, -0.5},
		{"wide margin", with(1, 1, 5), Options{Margin: 2}, 5},
	}
	for _, tc := range tests {
		g, _, err := Search(tc.lists, w, d, tc.opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if math.Abs(g-tc.want) > 1e-12 {
			t.Errorf("%s: γ = %v, want %v", tc.name, g, tc.want)
		}
	}
}

func TestBadInput(t *testing.T) {
	good := []pool.List{{Hyps: []pool.Hyp{pool.NewHyp(feature.FromDense([]float64{1}), metric.NewBLEUStats(1, []float64{1}, []float64{2}, 2))}}}
	bad := func(s metric.Stats) []pool.List {
		return []pool.List{{Hyps: append(slices.Clone(good[0].Hyps), pool.NewHyp(feature.Vector{}, s))}}
	}
	tests := []struct {
		name  string
		lists []pool.List
		w, d  feature.Weights
		opts  Options
	}{
		{"no lists", nil, nil, nil, Options{}},
		{"empty lists", []pool.List{{}, {}}, nil, nil, Options{}},
		{"invalid stats", bad(metric.NewBLEUStats(1, []float64{3}, []float64{2}, 0)), nil, nil, Options{}},
		{"NaN stats", bad(metric.NewBLEUStats(1, []float64{math.NaN()}, []float64{2}, 0)), nil, nil, Options{}},
		{"mixed orders", bad(metric.NewBLEUStats(2, nil, nil, 0)), nil, nil, Options{}},
		{"empty interval", good, nil, nil, Options{Min: 1, Max: 1}},
		{"NaN bound", good, nil, nil, Options{Min: math.NaN(), Max: 1}},
		{"negative margin", good, nil, nil, Options{Margin: -1}},
		{"NaN prefer", good, nil, nil, Options{Prefer: math.NaN()}},
		{"NaN weight", good, feature.Weights{math.NaN()}, nil, Options{}},
		{"infinite direction", good, nil, feature.Weights{math.Inf(1)}, Options{}},
	}
	for _, tc := range tests {
		if _, _, err := Search(tc.lists, tc.w, tc.d, tc.opts); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	_, _, err := Search(good, feature.Weights{math.NaN()}, nil, Options{})
	if !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN weight: %v does not wrap ErrNonFinite", err)
	}
	s, _ := NewSearcher(good, Options{})
	if _, err := s.SearchSorted([]float64{0}, []float64{0}, []int32{0}); err != nil {
		t.Errorf("SearchSorted: %v", err)
	}
}

func TestUnsortedOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	lists := randomLists(r, 3, 10, 2)
	s, _ := NewSearcher(lists, Options{})
	slope := make([]float64, s.Len())
	for k := range slope {
		slope[k] = float64(k % 7)
	}
	order := make([]int32, s.Len())
	for k := range order {
		order[k] = int32(k)
	}
	if _, err := s.SearchSorted(make([]float64, s.Len()), slope, order); err == nil {
		t.Error("unsorted order accepted")
	}
	order = s.SortBySlope(slope, nil)
	res1, err := s.SearchSorted(make([]float64, s.Len()), slope, order)
	if err != nil {
		t.Fatal(err)
	}
	res2, _ := s.Search(make([]float64, s.Len()), slope)
	if res1 != res2 {
		t.Errorf("sorted %+v, unsorted %+v", res1, res2)
	}
}

func TestRadixSort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 10, 255, 256, 1000, 5000} {
		a := make([]breakpoint, n)
		for i := range a {
			x := r.NormFloat64() * math.Pow(10, float64(r.IntN(10)-5))
			switch r.IntN(10) {
			case 0:
				x = 0
			case 1:
				x = math.Round(x)
			case 2, 3: // keys equal in their high 32 bits
				x = 1 + float64(r.IntN(1000))*1e-12
			}
			if n == 5000 && i > 1000 { // a long reversed run of close keys
				x = 2 - float64(i)*1e-13
			}
			a[i] = breakpoint{key: floatKey(x + 0), sent: int32(i)}
		}
		want := slices.Clone(a)
		slices.SortStableFunc(want, func(x, y breakpoint) int {
			fx, fy := keyFloat(x.key), keyFloat(y.key)
			switch {
			case fx < fy:
				return -1
			case fx > fy:
				return 1
			}
			return 0
		})
		var counts [4][256]int
		got := radixSort(a, make([]breakpoint, n), &counts)
		if !slices.Equal(got, want) {
			t.Errorf("n = %d: radix sort differs from a stable sort by value", n)
		}
	}
	for _, x := range []float64{math.Inf(-1), -1e300, -1, -1e-300, 0, 1e-300, 1, 1e300, math.Inf(1)} {
		if keyFloat(floatKey(x)) != x {
			t.Errorf("key round trip of %v", x)
		}
	}
}

// loadEuroparl loads europarl100 and init.weights.
func loadEuroparl(tb testing.TB) ([]pool.List, feature.Weights) {
	tb.Helper()
	lists, w, _ := europarl100.Load(tb)
	return lists, w
}

func TestEuroparl100(t *testing.T) {
	lists, w := loadEuroparl(t)
	dims := len(w)
	r := rand.New(rand.NewPCG(9, 10))
	var dirs []feature.Weights
	for _, j := range []int{0, 7, 9, 14} {
		d := make(feature.Weights, dims)
		d[j] = 1
		dirs = append(dirs, d)
	}
	for range 2 {
		d := make(feature.Weights, dims)
		for j := range d {
			d[j] = r.Float64()*2 - 1
		}
		dirs = append(dirs, d)
	}
	start := metric.BLEUStats(pool.OneBest(lists, w)).BLEU()
	for i, d := range dirs {
		res := check(t, "europarl100", lists, w, d, Options{}, 200, true)
		if metric.BLEUStats(res.Stats).BLEU() < start {
			t.Errorf("direction %d: BLEU %v below the start's %v", i, metric.BLEUStats(res.Stats).BLEU(), start)
		}
		t.Logf("direction %d: γ = %.4f, BLEU %.4f (start %.4f), %d breakpoints", i, res.Gamma, 100*metric.BLEUStats(res.Stats).BLEU(), 100*start, res.Breakpoints)
	}
}

// TestDegenerate: integer features and weights make many lines identical,
// parallel, or meet three at a time in one point; zero weights make every
// line meet at γ = 0.
func TestDegenerate(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		dims := 2 + r.IntN(3)
		lists := randomLists(r, 1+r.IntN(15), 2+r.IntN(20), dims)
		integer := seed%2 == 0
		if integer {
			integerFeatures(r, lists, dims)
		}
		w := randomWeights(r, dims)
		if seed%4 == 0 {
			for j := range w {
				w[j] = float64(r.IntN(3) - 1)
			}
		}
		d := randomWeights(r, dims)
		if seed%3 == 0 {
			d = make(feature.Weights, dims)
			d[r.IntN(dims)] = 1
		}
		opts := Options{}
		if seed%5 == 0 {
			opts = Options{Min: -1, Max: 2}
		}
		name := fmt.Sprintf("seed %d (w %v, d %v)", seed, w, d)
		// With integer features, identical lines may come from different
		// feature vectors, which re-ranking by w + γ·d tells apart by
		// rounding.
		check(t, name, lists, w, d, opts, 100, !integer)
	}
}

// TestPackedLists: lists whose statistics NewHyps packed (the Searcher
// reads their slabs) and the same lists made one hypothesis at a time (it
// copies them) give the same searches, envelopes and 1-best statistics,
// with 1 and 3 workers, reading BLEU's statistics as float32 (stats32) or
// as float64.
func TestPackedLists(t *testing.T) {
	lists, w := loadEuroparl(t)
	packed := make([]pool.List, len(lists))
	single := make([]pool.List, len(lists))
	for i, l := range lists {
		fs := make([]feature.Vector, len(l.Hyps))
		ss := make([]metric.Stats, len(l.Hyps))
		single[i] = pool.List{Sent: l.Sent, Hyps: make([]pool.Hyp, len(l.Hyps))}
		for k, h := range l.Hyps {
			fs[k], ss[k] = h.Features, h.Stats()
			single[i].Hyps[k] = pool.NewHyp(h.Features, h.Stats())
		}
		packed[i] = pool.List{Sent: l.Sent, Hyps: pool.NewHyps(fs, ss)}
		if _, _, ok := packed[i].StatsSlab(); !ok {
			t.Fatalf("list %d: NewHyps did not pack its statistics", i)
		}
		if _, _, ok := single[i].StatsSlab(); ok && len(l.Hyps) > 1 {
			t.Fatalf("list %d: hypotheses made one by one are packed", i)
		}
	}
	defer func(m int) { minChunk = m }(minChunk)
	minChunk = 100
	r := rand.New(rand.NewPCG(3, 4))
	for _, threads := range []int{1, 3} {
		var got [3][]string
		for v, ls := range [][]pool.List{packed, single, packed} {
			s, err := NewSearcher(ls, Options{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			if s.stats32 == nil {
				t.Fatal("BLEU's statistics are not read as float32")
			}
			if v == 2 {
				s.stats32 = nil
			}
			base, slope := make([]float64, s.Len()), make([]float64, s.Len())
			for dir := range 4 {
				d := make(feature.Weights, len(w))
				for j := range d {
					d[j] = r.Float64()*2 - 1
				}
				lines(ls, w, d, base, slope)
				res, err := s.Search(base, slope)
				if err != nil {
					t.Fatal(err)
				}
				env, err := s.Envelopes(base, slope, nil)
				if err != nil {
					t.Fatal(err)
				}
				first, err := s.OneBest(base)
				if err != nil {
					t.Fatal(err)
				}
				got[v] = append(got[v], fmt.Sprintf("direction %d: %+v %+v %+v", dir, res, env, first))
			}
			r = rand.New(rand.NewPCG(3, 4)) // the same directions for both
		}
		if !slices.Equal(got[0], got[1]) {
			t.Errorf("%d workers: packed and single lists search differently", threads)
		}
		if !slices.Equal(got[0], got[2]) {
			t.Errorf("%d workers: statistics read as float32 and as float64 search differently", threads)
		}
	}
}

// TestExact32: statistics are read as float32 only when every one of them
// is one exactly.
func TestExact32(t *testing.T) {
	tests := []struct {
		rows [][]float64
		want []float32
	}{
		{[][]float64{{1, 2}, {}, {3, 1 << 24}}, []float32{1, 2, 3, 1 << 24}},
		{[][]float64{{0.5, -0.25}, {0x1p100}}, []float32{0.5, -0.25, 0x1p100}},
		{[][]float64{{1, 2}, {1<<24 + 1}}, nil},
		{[][]float64{{0.1}}, nil},
		{[][]float64{{1}, {1e300}}, nil},
	}
	for _, tc := range tests {
		n := 0
		for _, r := range tc.rows {
			n += len(r)
		}
		if got := exact32(tc.rows, n); !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("exact32(%v) = %v, want %v", tc.rows, got, tc.want)
		}
	}
}

// lines fills base and slope with each hypothesis' line along w + γ·d,
// numbered across lists as a Searcher numbers them.
func lines(lists []pool.List, w, d feature.Weights, base, slope []float64) {
	k := 0
	for _, l := range lists {
		for _, h := range l.Hyps {
			base[k], slope[k] = h.Features.Dot(w), h.Features.Dot(d)
			k++
		}
	}
}
