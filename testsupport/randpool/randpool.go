// Package randpool makes random n-best pools for tests of mixing and
// line search: hypotheses whose dense features are a mix of small
// integers (many equal slopes, ties and shared breakpoints) and reals,
// some repeating another hypothesis' features (identical lines) with
// other statistics, and plausible BLEU statistics.
package randpool

import (
	"math"
	"math/rand/v2"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// Stats returns plausible BLEU-4 statistics of a random hypothesis: a
// reference of 4 to 15 words, a hypothesis of 4 to 15 words, and matches
// of each order no more than one above those of the order below.
func Stats(r *rand.Rand) metric.Stats {
	s := metric.NewBLEUStats(4, nil, nil, float64(4+r.IntN(12)))
	n := 4 + r.IntN(12)
	prev := n
	for o := range 4 {
		t := n - o
		m := r.IntN(min(t, prev) + 1)
		s.V[2*o+1], s.V[2*o] = float64(t), float64(m)
		prev = m + 1
	}
	return s
}

// Lists returns sentences lists of minHyps to maxHyps random hypotheses
// each over dims dense features: even features are integers in -2…2, odd
// ones reals with two decimals; one hypothesis in eight (after the first)
// repeats an earlier one's features with other Stats.
func Lists(r *rand.Rand, sentences, minHyps, maxHyps, dims int) []pool.List {
	lists := make([]pool.List, sentences)
	for i := range lists {
		l := pool.List{Sent: i, Hyps: make([]pool.Hyp, minHyps+r.IntN(maxHyps-minHyps+1))}
		for k := range l.Hyps {
			if k > 0 && r.IntN(8) == 0 {
				l.Hyps[k] = pool.NewHyp(l.Hyps[r.IntN(k)].Features, Stats(r))
				continue
			}
			d := make([]float64, dims)
			for j := range d {
				if j%2 == 0 {
					d[j] = float64(r.IntN(5) - 2)
				} else {
					d[j] = math.Round(r.NormFloat64()*1000) / 100
				}
			}
			l.Hyps[k] = pool.NewHyp(feature.FromDense(d), Stats(r))
		}
		lists[i] = l
	}
	return lists
}
