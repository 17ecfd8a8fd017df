package metric

import (
	"fmt"
	"math"
)

// BLEUStats is a view of statistics in BLEU's layout, Moses' (a SCORESTAT
// line of mert's extractor): for each order n = 1..Order() the clipped
// n-gram matches and the hypothesis n-gram count, then the reference
// length (m1 t1 m2 t2 … r, N = 2·Order+1). It holds BLEU's reading of
// them and its maths: BLEUStats(s).BLEU() is corpus BLEU of the summed
// statistics s. Converting a Stats to it (and back) copies nothing else.
type BLEUStats Stats

// NewBLEUStats returns BLEU statistics of the given order (1..MaxOrder)
// with the counts matches[n] and totals[n] of order n+1 (0 past their
// ends) and the reference length refLen.
func NewBLEUStats(order int, matches, totals []float64, refLen float64) Stats {
	s := Stats{N: 2*order + 1}
	for n := 0; n < order; n++ {
		if n < len(matches) {
			s.V[2*n] = matches[n]
		}
		if n < len(totals) {
			s.V[2*n+1] = totals[n]
		}
	}
	s.V[2*order] = refLen
	return s
}

// Order returns the BLEU order, N = 2·Order+1 (0 for the zero Stats).
func (s BLEUStats) Order() int { return s.N / 2 }

// Match returns the clipped matches of order n+1 (0-based n).
func (s BLEUStats) Match(n int) float64 { return s.V[2*n] }

// Total returns the hypothesis n-grams of order n+1 (0-based n).
func (s BLEUStats) Total(n int) float64 { return s.V[2*n+1] }

// RefLen returns the reference length.
func (s BLEUStats) RefLen() float64 {
	if s.N == 0 {
		return 0
	}
	return s.V[s.N-1]
}

// HypLen returns the hypothesis length, the number of unigrams.
func (s BLEUStats) HypLen() float64 { return s.V[1] }

// Precisions returns the n-gram precisions Matches[n]/Totals[n] for the
// orders in use; an order with no hypothesis n-grams has precision 0.
func (s BLEUStats) Precisions() [MaxOrder]float64 {
	var p [MaxOrder]float64
	for n := 0; n < s.Order(); n++ {
		if s.Total(n) != 0 {
			p[n] = s.Match(n) / s.Total(n)
		}
	}
	return p
}

// BrevityPenalty returns exp(1 - r/c) when the hypothesis length c is below
// the reference length r, 1 otherwise, and 0 when c is 0 and r is not.
func (s BLEUStats) BrevityPenalty() float64 {
	c, r := s.Total(0), s.RefLen()
	switch {
	case c >= r:
		return 1
	case c <= 0:
		return 0
	}
	return math.Exp(1 - r/c)
}

// Ratio returns the hypothesis length over the reference length, or 0 when
// the reference length is 0.
func (s BLEUStats) Ratio() float64 {
	if s.RefLen() == 0 {
		return 0
	}
	return s.Total(0) / s.RefLen()
}

// LogBLEU returns the logarithm of BLEU (Papineni et al. 2002): the mean of
// the log precisions of orders 1..Order() plus min(0, 1 - r/c). It is -Inf when
// some order has no match (or no n-gram), or when Order is 0.
func (s BLEUStats) LogBLEU() float64 {
	if s.Order() <= 0 {
		return math.Inf(-1)
	}
	var lp float64
	for n := 0; n < s.Order(); n++ {
		m, t := s.Match(n), s.Total(n)
		if m <= 0 || t <= 0 {
			return math.Inf(-1)
		}
		lp += math.Log(m) - math.Log(t)
	}
	lp /= float64(s.Order())
	if c, r := s.Total(0), s.RefLen(); c < r {
		lp += 1 - r/c
	}
	return lp
}

// BLEU returns corpus BLEU without smoothing, a fraction in [0, 1]: 0 when
// some order has no match.
func (s BLEUStats) BLEU() float64 { return math.Exp(s.LogBLEU()) }

// bleuOf is BLEUStats(s).BLEU, as a function of Stats.
func bleuOf(s Stats) float64 { return BLEUStats(s).BLEU() }

// Validate reports whether s holds BLEU statistics some hypothesis could
// have: Moses' layout (N = 2·Order+1) with an order in 1..MaxOrder, finite
// non-negative counts, no more matches than n-grams, and zeros beyond N
// (Stats.Validate).
func (s BLEUStats) Validate() error {
	if s.N%2 != 1 || s.Order() < 1 || s.Order() > MaxOrder {
		return fmt.Errorf("%w: %d numbers are not BLEU's 2n+1 for an order n in 1..%d", ErrStats, s.N, MaxOrder)
	}
	if err := Stats(s).Validate(); err != nil {
		return err
	}
	if err := checkCount("reference length", s.RefLen()); err != nil {
		return err
	}
	for n := 0; n < s.Order(); n++ {
		m, t := s.Match(n), s.Total(n)
		if err := checkCount("matches", m); err != nil {
			return err
		}
		if err := checkCount("n-grams", t); err != nil {
			return err
		}
		if m > t {
			return fmt.Errorf("%w: %g matches > %g n-grams of order %d", ErrStats, m, t, n+1)
		}
	}
	return nil
}

// BLEUScore is the report of a BLEU score, with the JSON field names of
// `mtune score --json`. BLEU, the precisions and BP are fractions in [0, 1]
// (multi-bleu.perl prints them multiplied by 100).
type BLEUScore struct {
	BLEU       float64   `json:"bleu"`
	Precisions []float64 `json:"precisions"`
	BP         float64   `json:"bp"`
	Ratio      float64   `json:"ratio"`
	HypLen     float64   `json:"hyp_len"`
	RefLen     float64   `json:"ref_len"`
	Matches    []float64 `json:"matches"`
	Totals     []float64 `json:"totals"`
	Order      int       `json:"order"`
}

// Score returns the unsmoothed corpus BLEU of s and its parts.
func (s BLEUStats) Score() BLEUScore {
	p := s.Precisions()
	m, t := make([]float64, s.Order()), make([]float64, s.Order())
	for n := range m {
		m[n], t[n] = s.Match(n), s.Total(n)
	}
	return BLEUScore{
		BLEU:       s.BLEU(),
		Precisions: append([]float64(nil), p[:s.Order()]...),
		BP:         s.BrevityPenalty(),
		Ratio:      s.Ratio(),
		HypLen:     s.Total(0),
		RefLen:     s.RefLen(),
		Matches:    m,
		Totals:     t,
		Order:      s.Order(),
	}
}
