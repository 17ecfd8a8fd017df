// Package randpool makes random n-best pools for tests of mixing and
// line search: hypotheses with coarse dense features, so that ties and
// shared breakpoints are common, and plausible BLEU statistics.
package randpool

import (
	"math/rand/v2"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// Stats returns plausible BLEU statistics of a random hypothesis: a
// reference of 5 to 14 words, a hypothesis of 5 to 14 words and a random
// count of matches of each order.
func Stats(r *rand.Rand) metric.Stats {
	s := metric.Stats{Order: 4, RefLen: float64(5 + r.IntN(10))}
	n := 5 + r.IntN(10)
	for o := range 4 {
		s.Totals[o] = float64(n - o)
		s.Matches[o] = float64(r.IntN(n - o + 1))
	}
	return s
}

// Lists returns sentences lists of 0 to maxHyps random hypotheses each
// over dims dense features, every value one of -3…3, with Stats.
func Lists(r *rand.Rand, sentences, maxHyps, dims int) []pool.List {
	lists := make([]pool.List, sentences)
	for i := range lists {
		l := pool.List{Sent: i, Hyps: make([]pool.Hyp, r.IntN(maxHyps+1))}
		for k := range l.Hyps {
			d := make([]float64, dims)
			for j := range d {
				d[j] = float64(r.IntN(7) - 3)
			}
			l.Hyps[k] = pool.Hyp{Features: feature.FromDense(d), Stats: Stats(r)}
		}
		lists[i] = l
	}
	return lists
}
