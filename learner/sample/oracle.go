package sample

import (
	"slices"

	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// maxOraclePasses bounds the greedy oracle search. Every change strictly
// raises the batch BLEU, so the search ends anyway; the bound only caps the
// time spent on huge batches.
const maxOraclePasses = 50

// Oracles returns in dst[:len(lists)] the index of an oracle hypothesis of
// each list, -1 for an empty list: the greedy search of Watanabe (2012) for
// the choice of one hypothesis per list with the highest batch-local corpus
// score (Haddow et al. 2011) under m: m's objective (metric.Objective; BLEU
// for a nil m). It starts from each list's best hypothesis by its sentence
// objective (metric.SentenceObjective: BLEU+1, metric.LinOch, under BLEU;
// under another metric its sentence gain) and then visits the lists
// in order, replacing a list's choice whenever another of its hypotheses
// raises the batch score (metric.BatchBLEU), until a full pass changes
// nothing. Ties keep the current choice, and otherwise go to the earlier
// hypothesis.
func Oracles(lists []pool.List, m metric.Metric, dst []int) []int {
	sent, obj := oracleScores(m)
	dst = slices.Grow(dst[:0], len(lists))[:len(lists)]
	var total metric.Stats
	for i, l := range lists {
		dst[i] = -1
		best := 0.0
		for k, h := range l.Hyps {
			if b := sent(h.Stats()); dst[i] < 0 || b > best {
				dst[i], best = k, b
			}
		}
		if dst[i] >= 0 {
			total.Add(l.Hyps[dst[i]].Stats())
		}
	}
	for range maxOraclePasses {
		changed := false
		for i, l := range lists {
			if dst[i] < 0 {
				continue
			}
			old := l.Hyps[dst[i]].Stats()
			best, bestScore := dst[i], obj(total)
			for k, h := range l.Hyps {
				if b := obj(total.Replace(old, h.Stats())); b > bestScore {
					best, bestScore = k, b
				}
			}
			if best != dst[i] {
				total = total.Replace(old, l.Hyps[best].Stats())
				dst[i] = best
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return dst
}

// oracleScores returns the sentence score the oracle search starts from
// and the batch score it maximises under m (nil: BLEU): m's sentence and
// corpus objectives (metric.SentenceObjective, metric.Objective).
func oracleScores(m metric.Metric) (sent, batch func(metric.Stats) float64) {
	return metric.SentenceObjective(m), metric.Objective(m)
}

// OracleSet returns in dst the hypotheses of l with the same statistics
// as hypothesis k (k included), in list order: the set ORACLE(w; f, e) of
// Watanabe (2012) when k is the oracle, as hypotheses with equal statistics
// are equally good under any metric.
func OracleSet(l pool.List, k int, dst []int) []int {
	dst = dst[:0]
	for j, h := range l.Hyps {
		if h.Stats() == l.Hyps[k].Stats() {
			dst = append(dst, j)
		}
	}
	return dst
}

// OracleVsRest appends to dst the pairs of Watanabe (2012) for a
// mini-batch, under m as Oracles takes it: in each list, every hypothesis
// of its oracle set (Oracles, OracleSet) against every hypothesis outside
// it. A pair's Gap is the batch score (BLEU, or m's objective) lost by
// putting Worse in place of the oracle.
func OracleVsRest(lists []pool.List, m metric.Metric, dst []Pair) []Pair {
	oracles := Oracles(lists, m, nil)
	_, obj := oracleScores(m)
	var total metric.Stats
	for i, l := range lists {
		if oracles[i] >= 0 {
			total.Add(l.Hyps[oracles[i]].Stats())
		}
	}
	top := obj(total)
	var set []int
	for i, l := range lists {
		o := oracles[i]
		if o < 0 {
			continue
		}
		set = OracleSet(l, o, set)
		ost := l.Hyps[o].Stats()
		for j, h := range l.Hyps {
			if h.Stats() == ost {
				continue
			}
			gap := top - obj(total.Replace(ost, h.Stats()))
			for _, b := range set {
				dst = append(dst, Pair{List: i, Better: b, Worse: j, Gap: gap})
			}
		}
	}
	return dst
}
