package mix

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/linesearch"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/europarl100"
	"github.com/mtune/mtune/testsupport/learntest"
)

func TestAverage(t *testing.T) {
	w := func(x ...float64) feature.Weights { return x }
	tests := []struct {
		name     string
		shards   []Shard
		weighted bool
		want     feature.Weights
	}{
		{"none", nil, false, nil},
		{"one", []Shard{{w(1, -2), 5}}, false, w(1, -2)},
		{"uniform", []Shard{{w(1, 2, 3), 1}, {w(3, 0, -1), 9}}, false, w(2, 1, 1)},
		// (1·1 + 3·9)/10 = 2.8, (2·1 + 0·9)/10 = 0.2, (3 − 9)/10 = −0.6
		{"weighted", []Shard{{w(1, 2, 3), 1}, {w(3, 0, -1), 9}}, true, w(2.8, 0.2, -0.6)},
		// (0.5 + 1.5 + 4)/3 = 2, (1 + 0 + 2)/3 = 1
		{"ragged", []Shard{{w(0.5, 1), 2}, {w(1.5), 2}, {w(4, 2, 6), 4}}, false, w(2, 1, 2)},
		// (2·0.5 + 2·1.5 + 4·4)/8 = 2.5, (2·1 + 4·2)/8 = 1.25, 4·6/8 = 3
		{"ragged weighted", []Shard{{w(0.5, 1), 2}, {w(1.5), 2}, {w(4, 2, 6), 4}}, true, w(2.5, 1.25, 3)},
		{"a shard without updates", []Shard{{w(8, 8), 0}, {w(2, -4), 3}}, true, w(2, -4)},
		{"no updates at all", []Shard{{w(8, 8), 0}, {w(2, -4), 0}}, true, w(5, 2)},
	}
	for _, tc := range tests {
		got := Average(tc.shards, tc.weighted)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			continue
		}
		for j := range got {
			if math.Abs(got[j]-tc.want[j]) > 1e-15 {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
				break
			}
		}
	}
}

func mixed(prev, avg feature.Weights, a float64) feature.Weights {
	w := make(feature.Weights, len(prev))
	for j := range w {
		w[j] = (1-a)*prev[j] + a*avg[j]
	}
	return w
}

// bruteAlpha picks α by brute force: it collects every α where two lines of
// a sentence cross, finds the 1-best of every sentence between each two
// consecutive ones (merging neighbours where no 1-best changes), scores a
// point inside each interval (0.1 beyond the outermost breakpoints) by
// re-ranking, and keeps the best, the interval nearest to 1 on ties (1
// itself when it lies inside).
func bruteAlpha(lists []pool.List, prev, avg feature.Weights) (alpha, bleu float64) {
	var xs []float64
	for _, l := range lists {
		for p := range l.Hyps {
			for q := p + 1; q < len(l.Hyps); q++ {
				bp, bq := l.Hyps[p].Features.Dot(prev), l.Hyps[q].Features.Dot(prev)
				mp := l.Hyps[p].Features.Dot(avg) - bp
				mq := l.Hyps[q].Features.Dot(avg) - bq
				if mp != mq {
					xs = append(xs, (bp-bq)/(mq-mp))
				}
			}
		}
	}
	sort.Float64s(xs)
	xs = slices.Compact(xs)
	bests := func(a float64) []int {
		w := mixed(prev, avg, a)
		out := make([]int, len(lists))
		for i, l := range lists {
			out[i] = pool.Best(l, w)
		}
		return out
	}
	type interval struct {
		lo, hi float64
		best   []int
	}
	var ivs []interval
	add := func(lo, hi, at float64) {
		b := bests(at)
		if n := len(ivs); n > 0 && slices.Equal(ivs[n-1].best, b) {
			ivs[n-1].hi = hi
			return
		}
		ivs = append(ivs, interval{lo, hi, b})
	}
	if len(xs) == 0 {
		add(math.Inf(-1), math.Inf(1), 1)
	} else {
		add(math.Inf(-1), xs[0], xs[0]-1)
		for j := 0; j+1 < len(xs); j++ {
			add(xs[j], xs[j+1], (xs[j]+xs[j+1])/2)
		}
		add(xs[len(xs)-1], math.Inf(1), xs[len(xs)-1]+1)
	}
	bestDist := math.Inf(1)
	bleu = -1
	for _, iv := range ivs {
		var at, dist float64
		switch {
		case iv.lo < 1 && 1 < iv.hi:
			at = 1
		case iv.lo >= 1:
			dist = iv.lo - 1
		default:
			dist = 1 - iv.hi
		}
		if at != 1 {
			switch {
			case math.IsInf(iv.lo, -1):
				at = iv.hi - 0.1
			case math.IsInf(iv.hi, 1):
				at = iv.lo + 0.1
			default:
				at = (iv.lo + iv.hi) / 2
			}
		}
		b := metric.BLEUStats(pool.OneBest(lists, mixed(prev, avg, at))).BLEU()
		if b > bleu || (b == bleu && dist < bestDist) {
			bleu, bestDist, alpha = b, dist, at
		}
	}
	return alpha, bleu
}

func TestLineSearchBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for c := 0; c < 300; c++ {
		dims := 2 + r.IntN(3)
		lists := learntest.DenseLists(r, 1+r.IntN(12), 10, dims, true)
		prev := make(feature.Weights, dims)
		var shards []Shard
		for j := range prev {
			prev[j] = r.NormFloat64()
		}
		for s := 0; s < 3; s++ {
			sw := make(feature.Weights, dims)
			for j := range sw {
				sw[j] = prev[j] + r.NormFloat64()
			}
			shards = append(shards, Shard{sw, 1 + r.IntN(5)})
		}
		avg := Average(shards, c%2 == 0)
		if c%10 == 9 {
			avg = prev.Clone() // nothing moved: α = 1 keeps the average
		}
		w, alpha, stats, err := LineSearch(prev, avg, lists)
		if err != nil {
			t.Fatal(err)
		}
		wantAlpha, wantBLEU := bruteAlpha(lists, prev, avg)
		if math.Abs(metric.BLEUStats(stats).BLEU()-wantBLEU) > 1e-12 || math.Abs(alpha-wantAlpha) > 1e-9*max(1, math.Abs(alpha)) {
			t.Errorf("case %d: α = %v with BLEU %v; brute force picks α = %v with %v", c, alpha, metric.BLEUStats(stats).BLEU(), wantAlpha, wantBLEU)
		}
		if !slices.Equal(w, mixed(prev, avg, alpha)) {
			t.Errorf("case %d: w = %v is not (1−α)·prev + α·avg", c, w)
		}
		if got := pool.OneBest(lists, w); got != stats {
			t.Errorf("case %d: re-ranking with w gives %v, the search %v", c, got, stats)
		}
		if alpha == 1 && !slices.Equal(w, avg) {
			t.Errorf("case %d: α = 1 but w ≠ avg", c)
		}
	}
}

func TestLineSearchBadInput(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lists := learntest.DenseLists(r, 3, 5, 2, true)
	tests := []struct {
		name      string
		prev, avg feature.Weights
		lists     []pool.List
	}{
		{"no lists", feature.Weights{1}, feature.Weights{2}, nil},
		{"NaN prev", feature.Weights{math.NaN()}, feature.Weights{2}, lists},
		{"infinite avg", feature.Weights{1}, feature.Weights{math.Inf(-1)}, lists},
	}
	for _, tc := range tests {
		if _, _, _, err := LineSearch(tc.prev, tc.avg, tc.lists); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if _, _, _, err := LineSearchOptions(feature.Weights{1}, feature.Weights{2}, lists, linesearch.Options{Min: 2, Max: 1}); err == nil {
		t.Error("empty interval: no error")
	}
}

// TestEuroparl100: line-search mixing of shard weights perturbed from
// init.weights is at least as good as the start (α = 0) and the average
// (α = 1).
func TestEuroparl100(t *testing.T) {
	lists, prev, _ := europarl100.Load(t)
	r := rand.New(rand.NewPCG(5, 6))
	for c := 0; c < 4; c++ {
		var shards []Shard
		for s := 0; s < 4; s++ {
			w := prev.Clone()
			for j := range w {
				w[j] += 0.1 * r.NormFloat64()
			}
			shards = append(shards, Shard{w, 10 + r.IntN(20)})
		}
		avg := Average(shards, true)
		w, alpha, stats, err := LineSearch(prev, avg, lists)
		if err != nil {
			t.Fatal(err)
		}
		b0, b1 := metric.BLEUStats(pool.OneBest(lists, prev)).BLEU(), metric.BLEUStats(pool.OneBest(lists, avg)).BLEU()
		if metric.BLEUStats(stats).BLEU() < b0 || metric.BLEUStats(stats).BLEU() < b1 || pool.OneBest(lists, w) != stats {
			t.Errorf("case %d: α = %v gives %v; α = 0 gives %v, α = 1 %v", c, alpha, metric.BLEUStats(stats).BLEU(), b0, b1)
		}
		t.Logf("case %d: α = %.3f, BLEU %.2f (prev %.2f, average %.2f)", c, alpha, 100*metric.BLEUStats(stats).BLEU(), 100*b0, 100*b1)
	}
}

// TestLineSearchTieAtAverage: at α = 1 both sentences' lines tie and go to
// their first (good) hypothesis, which no interval of α achieves: the
// average itself is returned.
func TestLineSearchTieAtAverage(t *testing.T) {
	st := func(m int) metric.Stats {
		return metric.NewBLEUStats(1, []float64{float64(m)}, []float64{10}, 10)
	}
	v := func(x ...float64) feature.Vector { return feature.FromDense(x) }
	lists := []pool.List{
		{Sent: 0, Hyps: []pool.Hyp{pool.NewHyp(v(1, 0), st(9)), pool.NewHyp(v(0, 1), st(1))}},
		{Sent: 1, Hyps: []pool.Hyp{pool.NewHyp(v(0, 1), st(9)), pool.NewHyp(v(1, 0), st(1))}},
	}
	prev, avg := feature.Weights{0, 1}, feature.Weights{1, 1}
	w, alpha, stats, err := LineSearch(prev, avg, lists)
	if err != nil {
		t.Fatal(err)
	}
	if alpha != 1 || !slices.Equal(w, avg) || math.Abs(metric.BLEUStats(stats).BLEU()-0.9) > 1e-15 {
		t.Errorf("α = %v, w = %v, BLEU %v; want 1, %v, 0.9", alpha, w, metric.BLEUStats(stats).BLEU(), avg)
	}
	// Bounded away from 1, the line search's own answer stands.
	_, alpha, stats, err = LineSearchOptions(prev, avg, lists, linesearch.Options{Min: -1, Max: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if alpha < -1 || alpha > 0.5 || math.Abs(metric.BLEUStats(stats).BLEU()-0.5) > 1e-15 {
		t.Errorf("bounded: α = %v, BLEU %v; want α in [-1, 0.5], BLEU 0.5", alpha, metric.BLEUStats(stats).BLEU())
	}
}

// TestPieces: Sums and Lines computed in two pieces, in another order, and
// merged give what Average and LineSearch give over the whole.
func TestPieces(t *testing.T) {
	tests := []struct {
		name     string
		seed     uint64
		weighted bool
	}{
		{"uniform", 1, false},
		{"weighted", 2, true},
	}
	for _, tc := range tests {
		r := rand.New(rand.NewPCG(tc.seed, 7))
		for c := range 50 {
			dims := 2 + r.IntN(3)
			var shards []Shard
			for range 1 + r.IntN(5) {
				w := make(feature.Weights, 1+r.IntN(dims))
				for j := range w {
					w[j] = float64(r.IntN(9)-4) / 4 // exact sums: any order
				}
				shards = append(shards, Shard{w, r.IntN(4)})
			}
			split := r.IntN(len(shards) + 1)
			var a, b Sums
			for i, s := range shards {
				if i < split {
					a.Add(s.Weights, s.Updates)
				} else {
					b.Add(s.Weights, s.Updates)
				}
			}
			b.Merge(a)
			want := Average(shards, tc.weighted)
			if got := b.Mean(tc.weighted); !slices.Equal(got, want) {
				t.Errorf("%s %d: Sums %v, Average %v", tc.name, c, got, want)
			}

			prev := make(feature.Weights, dims)
			for j := range prev {
				prev[j] = r.NormFloat64()
			}
			avg := Average(shards, tc.weighted)
			lists := learntest.DenseLists(r, 1+r.IntN(12), 10, dims, true)
			w, alpha, stats, err := LineSearch(prev, avg, lists)
			if err != nil {
				t.Fatal(err)
			}
			dir := Direction(prev, avg)
			var la, lb Lines
			order := r.Perm(len(lists))
			for i, k := range order {
				dst := &la
				if i >= len(lists)/2 {
					dst = &lb
				}
				if err := dst.Add(lists[k], prev, avg, dir); err != nil {
					t.Fatal(err)
				}
			}
			if err := lb.Merge(la); err != nil {
				t.Fatal(err)
			}
			res, err := lb.Search(linesearch.Options{Prefer: 1})
			if err != nil {
				t.Fatal(err)
			}
			if res.Alpha != alpha || res.Stats != stats || !slices.Equal(Interpolate(prev, avg, res.Alpha), w) {
				t.Errorf("%s %d: merged pieces α = %v with %v, LineSearch α = %v with %v", tc.name, c, res.Alpha, res.Stats, alpha, stats)
			}
		}
	}
}
