package metric

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SacreBLEUVersion is the sacreBLEU release this package's metrics are
// checked against and that their signatures name: chrF and chrF++ were
// compared with sacreBLEU 2.6.0 (mjpost/sacrebleu at f615c72, whose
// sacrebleu/ is the v2.6.0 tag's).
const SacreBLEUVersion = "2.6.0"

// ChrF is the character n-gram F-score chrF (Popović 2015) and, with word
// n-grams, chrF++ (Popović 2017), computed as sacreBLEU 2's CHRF metric
// computes them (sacrebleu/metrics/chrf.py).
//
// A hypothesis' statistics are three numbers per order, character orders
// 1..CharOrder first, then word orders 1..WordOrder:
//
//	stats[3k]   the hypothesis' n-grams of that order (0 when the reference has none)
//	stats[3k+1] the reference's n-grams of that order
//	stats[3k+2] the matches: Σ over distinct n-grams of min(hyp count, ref count)
//
// which is sacreBLEU's layout, so Len() is 18 for chrF and 24 for chrF++.
// Character n-grams run over the Unicode code points of the text with its
// white space removed (Python's str.split white space, Whitespace false) or
// kept (Whitespace true). Word n-grams run over the words of str.split,
// each word of two or more code points having one ASCII punctuation mark
// split off its end or, failing that, its start (sacreBLEU's
// _remove_punctuation: "(hi)" gives "(hi" and ")"). Text is UTF-8, each
// invalid byte read as U+FFFD (sacreBLEU reads its files as strict UTF-8
// and stops at such a byte).
//
// The zero value has no n-gram orders and is unusable: NewChrF gives
// sacreBLEU's defaults.
type ChrF struct {
	// CharOrder is the highest character n-gram order (sacreBLEU: 6).
	CharOrder int
	// WordOrder is the highest word n-gram order: 0 for chrF, 2 for chrF++.
	WordOrder int
	// Beta weighs recall Beta times as much as precision (sacreBLEU: 2);
	// 0 scores precision alone.
	Beta int
	// Lowercase lower-cases hypotheses and references first, as Python's
	// str.lower does (appendPyLower); false is sacreBLEU's default, case
	// counts.
	Lowercase bool
	// Whitespace keeps white space in character n-grams; false, sacreBLEU's
	// default, removes it.
	Whitespace bool
	// EpsSmoothing averages the F-scores of all orders with ε = 1e-16 for a
	// missing precision, recall or F-score, as chrF++.py, Moses and NLTK do
	// (sacreBLEU's --chrf-eps-smoothing). False, sacreBLEU 2's default,
	// averages precision and recall over the effective orders (those where
	// both hypothesis and reference have n-grams) and takes the F-score of
	// the averages.
	EpsSmoothing bool
}

// NewChrF returns sacreBLEU 2's default chrF (character 6-grams, β = 2,
// case-sensitive, white space removed, effective-order averaging) or, with
// plusPlus, its default chrF++ (word 2-grams added).
func NewChrF(plusPlus bool) ChrF {
	c := ChrF{CharOrder: 6, Beta: 2}
	if plusPlus {
		c.WordOrder = 2
	}
	return c
}

var _ Metric = ChrF{}

// chrfEps is sacreBLEU's ε for missing precisions, recalls and F-scores.
const chrfEps = 1e-16

// Name is "chrF" followed by β and a "+" per word order: "chrF2",
// "chrF2++".
func (c ChrF) Name() string {
	return "chrF" + strconv.Itoa(c.Beta) + strings.Repeat("+", max(c.WordOrder, 0))
}

// Signature is sacreBLEU's CHRFSignature, keys in its order with the
// version last:
// "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0". A
// negative nrefs, sacreBLEU's mark of a varying number of references,
// prints as "var".
func (c ChrF) Signature(nrefs int) string {
	kase := "mixed"
	if c.Lowercase {
		kase = "lc"
	}
	return fmt.Sprintf("nrefs:%s|case:%s|eff:%s|nc:%d|nw:%d|space:%s|version:%s",
		nrefsField(nrefs), kase, yesNo(!c.EpsSmoothing), c.CharOrder, c.WordOrder, yesNo(c.Whitespace), SacreBLEUVersion)
}

// Len is 3 × (CharOrder + WordOrder).
func (c ChrF) Len() int { return 3 * (c.CharOrder + c.WordOrder) }

// HigherIsBetter is true.
func (c ChrF) HigherIsBetter() bool { return true }

// check reports whether c's orders are usable.
func (c ChrF) check() error {
	switch {
	case c.CharOrder < 0 || c.WordOrder < 0:
		return fmt.Errorf("metric: chrF orders must not be negative (char %d, word %d)", c.CharOrder, c.WordOrder)
	case c.CharOrder+c.WordOrder == 0:
		return errors.New("metric: chrF needs a character or word order above 0")
	case c.Len() > MaxStats:
		return fmt.Errorf("metric: chrF with char order %d and word order %d has %d statistics, more than %d",
			c.CharOrder, c.WordOrder, c.Len(), MaxStats)
	}
	return nil
}

// score is the chrF of statistics summed over a corpus, on 0–100, as
// sacreBLEU's CHRF._compute_f_score computes it. With k running over the
// orders, P_k = matches/hyp and R_k = matches/ref:
//
//   - effective order (default): P and R are the means of P_k and R_k over
//     the orders with hyp > 0 and ref > 0, and the score is
//     100 (1+β²) P R / (β² P + R), 0 when P + R = 0 or no order counts;
//   - EpsSmoothing: the score is 100/K Σ_k F_k, F_k = (1+β²) P_k R_k /
//     (β² P_k + R_k), with P_k, R_k or F_k = 1e-16 where its denominator
//     is 0.
//
// It panics if len(stats) != c.Len().
func (c ChrF) score(stats []float64) float64 {
	if len(stats) != c.Len() {
		panic(fmt.Sprintf("metric: chrF score of %d statistics, want %d", len(stats), c.Len()))
	}
	factor := float64(c.Beta * c.Beta)
	order := len(stats) / 3
	var score, avgPrec, avgRec float64
	eff := 0
	for k := 0; k < order; k++ {
		hyp, ref, match := stats[3*k], stats[3*k+1], stats[3*k+2]
		prec, rec := chrfEps, chrfEps
		if hyp > 0 {
			prec = match / hyp
		}
		if ref > 0 {
			rec = match / ref
		}
		if c.EpsSmoothing {
			// float64() keeps the product out of a fused multiply-add:
			// Python rounds it before adding.
			if denom := float64(factor*prec) + rec; denom > 0 {
				score += (1 + factor) * prec * rec / denom
			} else {
				score += chrfEps
			}
			continue
		}
		if hyp > 0 && ref > 0 {
			avgPrec += prec
			avgRec += rec
			eff++
		}
	}
	if c.EpsSmoothing {
		return 100 * score / float64(order)
	}
	if eff == 0 {
		return 0
	}
	avgPrec /= float64(eff)
	avgRec /= float64(eff)
	if avgPrec+avgRec == 0 {
		return 0
	}
	score = (1 + factor) * avgPrec * avgRec
	score /= float64(factor*avgPrec) + avgRec
	return 100 * score
}

// SentenceScore is sacreBLEU's CHRF.sentence_score: the sentence's
// statistics scored as a one-sentence corpus, with the same effective-order
// (or ε) rule as Score; sacreBLEU smooths chrF no further at the sentence
// level.
func (c ChrF) SentenceScore(s Stats) float64 { return c.score(s.V[:s.N]) }

// Score is the chrF of the statistics s (score's).
func (c ChrF) Score(s Stats) float64 { return c.score(s.V[:s.N]) }

// Check reports whether s holds chrF statistics of c's orders: Len
// finite, non-negative numbers, no order with more matches than the
// hypothesis or the reference has n-grams.
func (c ChrF) Check(s Stats) error {
	if err := checkLen(c.Name(), s, c.Len()); err != nil {
		return err
	}
	for i := 0; i < s.N; i += 3 {
		h, r, m := s.V[i], s.V[i+1], s.V[i+2]
		if h < 0 || r < 0 || m < 0 || m > h || m > r {
			return fmt.Errorf("%w: chrF order statistics %g %g %g (hypothesis n-grams, reference n-grams, matches)", ErrStats, h, r, m)
		}
	}
	return nil
}
