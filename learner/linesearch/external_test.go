package linesearch

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// TestExternalAgainstBruteForce: the line search is exact for external
// scores (metric.External, the mean of per-hypothesis scores: a metric
// that is not BLEU, whose statistics add). On random small pools with
// external statistics (scores on a grid of quarters, so that intervals tie)
// and random directions, every interval between consecutive breakpoints
// of any sentence is scored by re-ranking each sentence at its midpoint
// by brute force; the search's interval reaches the largest mean, its
// statistics are those of re-ranking at its γ, and among the best
// intervals it takes one nearest to Options.Prefer (0: stay at w), the
// search's own rule for ties.
func TestExternalAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	m := metric.External{Label: "COMET"}
	for _, tc := range []struct {
		name                 string
		sentences, hyps, dim int
		cases                int
	}{
		{"5x4 dim 2", 5, 4, 2, 200},
		{"5x4 dim 3", 5, 4, 3, 200},
		{"3x6 dim 3", 3, 6, 3, 100},
	} {
		for c := 0; c < tc.cases; c++ {
			lists := randomLists(r, tc.sentences, tc.hyps, tc.dim)
			for i := range lists {
				for k := range lists[i].Hyps {
					lists[i].Hyps[k] = pool.NewHyp(lists[i].Hyps[k].Features, metric.ExternalStats(float64(r.IntN(5))/4))
				}
			}
			w, d := randomWeights(r, tc.dim), randomWeights(r, tc.dim)
			s, err := NewSearcher(lists, Options{Metric: m})
			if err != nil {
				t.Fatal(err)
			}
			var base, slope []float64
			for _, l := range lists {
				for _, h := range l.Hyps {
					base, slope = append(base, h.Features.Dot(w)), append(slope, h.Features.Dot(d))
				}
			}
			res, err := s.Search(base, slope)
			if err != nil {
				t.Fatal(err)
			}
			got := m.Score(res.Stats)
			if at := externalAt(lists, w, d, res.Gamma); at != res.Stats {
				t.Errorf("%s #%d: statistics at γ = %v are %v, the search reports %v", tc.name, c, res.Gamma, at, res.Stats)
			}
			best, near := externalBrute(lists, w, d, m)
			if got != best {
				t.Errorf("%s #%d: mean %v at γ = %v, brute force finds %v", tc.name, c, got, res.Gamma, best)
			}
			if dist := gapTo(res.Lo, res.Hi, 0); math.Abs(dist-near) > 1e-9*max(1, near) {
				t.Errorf("%s #%d: chose (%v, %v), %v from 0; a best interval is %v from 0", tc.name, c, res.Lo, res.Hi, dist, near)
			}
		}
	}
}

// externalAt is the summed statistics of the 1-bests of lists re-ranked
// with the model scores on the lines w·f + γ·d·f, the earlier hypothesis
// on ties (lineBLEU's rule).
func externalAt(lists []pool.List, w, d feature.Weights, g float64) metric.Stats {
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
	return sum
}

// externalBrute returns the largest score under m of the 1-bests along
// w + γ·d, found by re-ranking at the midpoint of every interval between
// consecutive intersections of any two lines of any sentence (and beyond
// the outermost), and the distance from 0 of the nearest interval that
// reaches it. Slivers (thin) count only when nothing else reaches it, as
// the search takes them.
func externalBrute(lists []pool.List, w, d feature.Weights, m metric.Metric) (best, near float64) {
	var xs []float64
	for _, l := range lists {
		for p, a := range l.Hyps {
			for _, b := range l.Hyps[p+1:] {
				bp, bq := a.Features.Dot(w), b.Features.Dot(w)
				mp, mq := a.Features.Dot(d), b.Features.Dot(d)
				if mp != mq {
					xs = append(xs, (bp-bq)/(mq-mp))
				}
			}
		}
	}
	slices.Sort(xs)
	xs = slices.CompactFunc(xs, func(a, b float64) bool { return thin(min(a, b), max(a, b)) })
	bounds := append(append([]float64{math.Inf(-1)}, xs...), math.Inf(1))
	type interval struct{ lo, hi, score float64 }
	var all []interval
	for j := 0; j+1 < len(bounds); j++ {
		lo, hi := bounds[j], bounds[j+1]
		mid := (lo + hi) / 2
		switch {
		case math.IsInf(lo, -1) && math.IsInf(hi, 1):
			mid = 0
		case math.IsInf(lo, -1):
			mid = hi - 1
		case math.IsInf(hi, 1):
			mid = lo + 1
		}
		all = append(all, interval{lo, hi, m.Score(externalAt(lists, w, d, mid))})
	}
	for _, slivers := range []bool{false, true} {
		best, near = math.Inf(-1), math.Inf(1)
		for _, iv := range all {
			if thin(iv.lo, iv.hi) != slivers {
				continue
			}
			switch {
			case iv.score > best:
				best, near = iv.score, gapTo(iv.lo, iv.hi, 0)
			case iv.score == best:
				near = min(near, gapTo(iv.lo, iv.hi, 0))
			}
		}
		if !math.IsInf(best, -1) {
			break
		}
	}
	return best, near
}

// gapTo is how far x lies from the interval [lo, hi].
func gapTo(lo, hi, x float64) float64 {
	switch {
	case x < lo:
		return lo - x
	case x > hi:
		return x - hi
	}
	return 0
}
