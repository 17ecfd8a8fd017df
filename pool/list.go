package pool

import (
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/metric"
	"math"
)

// Hyp is one hypothesis of an n-best list: its features and its BLEU
// statistics against the sentence's references.
type Hyp struct {
	Features feature.Vector
	Stats    metric.Stats
}

// List is the n-best list of one sentence. Sent is the sentence's id (its
// 0-based line in the tuning set).
type List struct {
	Sent int
	Hyps []Hyp
}

// Best returns the index of the hypothesis of l with the highest model score
// w·φ, the earlier one on ties, or -1 for an empty list.
func Best(l List, w feature.Weights) int {
	best, bestScore := -1, 0.0
	for k, h := range l.Hyps {
		s := h.Features.Dot(w)
		if best < 0 || s > bestScore {
			best, bestScore = k, s
		}
	}
	return best
}

// NonFinite returns the list and hypothesis index of the first hypothesis
// of lists whose model score w·φ is NaN or infinite (a feature value times
// its weight overflowing), and false if every score is finite: callers
// refuse such a pool before they rank it, since a NaN or ±Inf score ranks
// arbitrarily.
func NonFinite(lists []List, w feature.Weights) (list, hyp int, ok bool) {
	for i, l := range lists {
		for k, h := range l.Hyps {
			if s := h.Features.Dot(w); math.IsNaN(s) || math.IsInf(s, 0) {
				return i, k, true
			}
		}
	}
	return 0, 0, false
}

// OneBest returns the summed BLEU statistics of the 1-best hypothesis of each
// list under w: corpus BLEU of the re-ranked lists is OneBest(…).BLEU().
// Empty lists contribute nothing.
func OneBest(lists []List, w feature.Weights) metric.Stats {
	var sum metric.Stats
	for _, l := range lists {
		if k := Best(l, w); k >= 0 {
			sum.Add(l.Hyps[k].Stats)
		}
	}
	return sum
}

// Size returns the total number of hypotheses in lists.
func Size(lists []List) int {
	n := 0
	for _, l := range lists {
		n += len(l.Hyps)
	}
	return n
}
