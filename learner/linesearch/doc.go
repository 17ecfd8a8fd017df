// Package linesearch is Och's exact line search for minimum error rate
// training (Och 2003, §4): the γ that maximises corpus BLEU of the 1-best
// hypotheses on the line of weights w + γ·d.
//
// Along the line, hypothesis k of a sentence has the model score
//
//	score_k(γ) = w·φ_k + γ·(d·φ_k)     (base_k + γ·slope_k)
//
// a straight line. The 1-best of the sentence as a function of γ is the
// upper envelope of its lines: sorting them by slope and keeping the convex
// hull gives the breakpoints where the argmax changes, and at each one the
// change of the sentence's BLEU statistics. The envelopes of the sentences
// are independent, so workers compute them in parallel over chunks of
// sentences. Merging every sentence's breakpoints in order and sweeping
// them while adding up the statistics gives corpus BLEU on every interval
// of γ; the search returns a point inside the best one.
//
// Ties follow pool.Best: of lines with equal slope the higher one wins and,
// of identical lines, the earlier hypothesis. Returned points lie strictly
// inside an interval, never on a breakpoint, so the statistics a search
// reports are those pool.OneBest computes at w + γ·d (up to the rounding of
// the model scores of near-identical hypotheses).
//
// Intervals narrower than 1e-10 of their position are taken for rounding
// artefacts (three or more lines meeting in one point, as the lines of
// hypotheses that differ only in feature j do at γ = −w_j) and chosen only
// if nothing wider is available.
//
// Which point of the best interval: the preferred point Options.Prefer (0,
// "stay at w", unless told otherwise) when it lies inside it; otherwise the
// midpoint of the interval, as Moses' mert does, or, for an unbounded
// interval, a point Options.Margin beyond its breakpoint. When several
// intervals have the same BLEU, the one nearest the preferred point wins
// (Moses takes the leftmost).
//
// Typical use, for one line:
//
//	gamma, stats, err := linesearch.Search(lists, w, dir, linesearch.Options{})
//	// w + gamma·dir re-ranks lists to corpus BLEU stats.BLEU()
//
// and for many lines over the same lists (MERT), a Searcher that keeps its
// buffers and takes the per-hypothesis scores as dense slices:
//
//	s, err := linesearch.NewSearcher(lists, linesearch.Options{})
//	res, err := s.Search(base, slope) // base[k] = w·φ_k, slope[k] = d·φ_k
//
// where k numbers the hypotheses of all lists in order (s.Offset(i) is the
// first one of list i).
//
// Search is also available in its two halves, for line searches spread
// over machines (line-search mixing, Watanabe 2012, §4.2): each list's
// envelope, SentenceEnvelope, holds the statistics of its leftmost 1-best
// and their changes at its breakpoints; Envelopes merges any number of them
// in any order, and Sweep walks the merged breakpoints and picks γ:
//
//	var all linesearch.Envelopes
//	for _, l := range lists { // on any number of workers
//		e, err := linesearch.SentenceEnvelope(l, w, dir)
//		err = all.Add(e)
//	}
//	res, err := linesearch.Sweep(all, linesearch.Options{})
//
// Search is exactly this; a Searcher gives the same results (with integer
// statistics, bit for bit) and shares the choice of the interval.
package linesearch
