package metric

import (
	"fmt"
	"math"

	"github.com/mtune/mtune/internal/enum"
)

// SmoothMethod names one of sacreBLEU's smoothing methods (Chen & Cherry
// 2014).
type SmoothMethod int

const (
	// SmoothNone: no smoothing; an order without matches makes BLEU 0.
	SmoothNone SmoothMethod = iota
	// SmoothFloor: an order without matches gets precision Value/total
	// (Chen & Cherry's method 1; Value defaults to 0.1).
	SmoothFloor
	// SmoothAddK: Value is added to the matches and totals of orders n ≥ 2
	// (method 2, generalising Lin & Och 2004; Value defaults to 1).
	SmoothAddK
	// SmoothExp: the k-th order without matches gets precision
	// 1/(2^k total), as mteval-v13a.pl does (method 3). sacreBLEU's default.
	SmoothExp
)

var smoothNames = [...]string{SmoothNone: "none", SmoothFloor: "floor", SmoothAddK: "add-k", SmoothExp: "exp"}

// String returns sacreBLEU's name of the method: none, floor, add-k or exp.
func (m SmoothMethod) String() string { return enum.Name(m, smoothNames[:], "SmoothMethod") }

// ParseSmoothMethod returns the method sacreBLEU calls name.
func ParseSmoothMethod(name string) (SmoothMethod, error) {
	for i, n := range smoothNames {
		if n == name {
			return SmoothMethod(i), nil
		}
	}
	return 0, fmt.Errorf("metric: unknown smoothing method %q (want none, floor, add-k or exp)", name)
}

// Smoothing computes BLEU the way sacreBLEU 2 does, for a sentence or for a
// corpus. Its zero value is unsmoothed BLEU over all orders.
type Smoothing struct {
	// Method is the smoothing method; the zero value is SmoothNone.
	Method SmoothMethod
	// Value is the constant of SmoothFloor and SmoothAddK. Zero means
	// sacreBLEU's default: 0.1 for floor, 1 for add-k. (A floor or add-k of
	// exactly 0 scores as SmoothNone.)
	Value float64
	// EffectiveOrder averages only the orders up to the last one the
	// hypothesis has n-grams of, as sacreBLEU's sentence_bleu does; false
	// averages all orders.
	EffectiveOrder bool
}

// BLEU returns the smoothed BLEU of s, a fraction in [0, 1].
func (sm Smoothing) BLEU(s Stats) float64 {
	var m, t [MaxOrder]float64
	o := BLEUStats(s).Order()
	for n := range o {
		m[n], t[n] = BLEUStats(s).Match(n), BLEUStats(s).Total(n)
	}
	return sm.Compute(m[:o], t[:o], BLEUStats(s).HypLen(), BLEUStats(s).RefLen())
}

// Compute is sacreBLEU's compute_bleu on raw statistics (as a fraction, not
// multiplied by 100): matches and totals per order 1..len(matches), the
// hypothesis and reference lengths. As in sacreBLEU 2, BLEU is 0 whenever no
// order has a match, whatever the smoothing (sacreBLEU issue #141). It panics
// if the slices differ in length.
func (sm Smoothing) Compute(matches, totals []float64, hypLen, refLen float64) float64 {
	if len(matches) != len(totals) {
		panic("metric: matches and totals differ in length")
	}
	order := len(matches)
	value := sm.Value
	if value == 0 {
		switch sm.Method {
		case SmoothFloor:
			value = 0.1
		case SmoothAddK:
			value = 1
		}
	}
	bp := 1.0
	if hypLen < refLen {
		bp = 0
		if hypLen > 0 {
			bp = math.Exp(1 - refLen/hypLen)
		}
	}
	anyMatch := false
	for _, m := range matches {
		if m != 0 {
			anyMatch = true
		}
	}
	if !anyMatch {
		return 0
	}
	expDiv := 1.0
	effOrder := order
	var logSum float64
	for n := 0; n < order; n++ {
		m, t := matches[n], totals[n]
		if sm.Method == SmoothAddK && n > 0 {
			m += value
			t += value
		}
		if t == 0 {
			if !sm.EffectiveOrder {
				return 0 // the orders left have precision 0
			}
			break
		}
		if sm.EffectiveOrder {
			effOrder = n + 1
		}
		var p float64
		switch {
		case m != 0:
			p = m / t
		case sm.Method == SmoothExp:
			expDiv *= 2
			p = 1 / (expDiv * t)
		case sm.Method == SmoothFloor:
			p = value / t
		}
		if p <= 0 {
			return 0
		}
		logSum += math.Log(p)
	}
	return bp * math.Exp(logSum/float64(effOrder))
}

// PlusOneVariant selects how BLEUPlusOne adds one.
type PlusOneVariant int

const (
	// LinOch is BLEU+1 as Lin & Och (2004) define it: 1 is added to the
	// matches and the n-gram count of every order n ≥ 2; unigram precision
	// and the brevity penalty are unsmoothed.
	LinOch PlusOneVariant = iota
	// MosesPlusOne is the BLEU+1 of Moses' PRO (smoothedSentenceBleu in
	// mert/BleuScorer.cpp, formerly sentenceLevelBleuPlusOne): 1 is added
	// to the matches and counts of every order, unigrams included; the
	// brevity penalty exp(min(0, 1 - r/c)) uses the hypothesis length c and
	// the reference length r unsmoothed.
	MosesPlusOne
	// MosesPlusOneSmoothBP is MosesPlusOne with Moses' pro
	// --smooth-brevity-penalty: the reference length gets +1 too.
	MosesPlusOneSmoothBP
)

// BLEUPlusOne returns the sentence-level BLEU+1 of s in the given variant.
func BLEUPlusOne(s Stats, v PlusOneVariant) float64 {
	if BLEUStats(s).Order() <= 0 {
		return 0
	}
	switch v {
	case LinOch:
		var lp float64
		for n := 0; n < BLEUStats(s).Order(); n++ {
			m, t := BLEUStats(s).Match(n), BLEUStats(s).Total(n)
			if n > 0 {
				m++
				t++
			}
			if m <= 0 || t <= 0 {
				return 0
			}
			lp += math.Log(m) - math.Log(t)
		}
		return BLEUStats(s).BrevityPenalty() * math.Exp(lp/float64(BLEUStats(s).Order()))
	case MosesPlusOne, MosesPlusOneSmoothBP:
		var lp float64
		for n := 0; n < BLEUStats(s).Order(); n++ {
			lp += math.Log(BLEUStats(s).Match(n)+1) - math.Log(BLEUStats(s).Total(n)+1)
		}
		lp /= float64(BLEUStats(s).Order())
		c, r := BLEUStats(s).Total(0), BLEUStats(s).RefLen()
		if v == MosesPlusOneSmoothBP {
			r++
		}
		// Moses computes 1 - r/c in floating point: with c = 0 that is
		// -Inf (BLEU 0) unless r is 0 too, when NaN skips the penalty.
		if c == 0 {
			if r > 0 {
				return 0
			}
		} else if b := 1 - r/c; b < 0 {
			lp += b
		}
		return math.Exp(lp)
	}
	panic(fmt.Sprintf("metric: unknown BLEU+1 variant %d", int(v)))
}

// InterpolatedBLEU returns the sentence-level BLEU of Liang et al. (2006):
// Σ_{i=1..N} BLEU_i / 2^(N-i+1), where BLEU_i is the unsmoothed BLEU of
// orders 1..i and N = s.Order(). An order the hypothesis is too short to have
// n-grams of counts as precision 1 instead of making BLEU_i zero (the
// brevity penalty still applies); an empty hypothesis scores 0.
func InterpolatedBLEU(s Stats) float64 {
	if BLEUStats(s).Order() <= 0 || BLEUStats(s).Total(0) <= 0 {
		return 0
	}
	bp := BLEUStats(s).BrevityPenalty()
	var sum, logSum float64
	for i := 0; i < BLEUStats(s).Order(); i++ {
		m, t := BLEUStats(s).Match(i), BLEUStats(s).Total(i)
		if t > 0 {
			if m <= 0 {
				break // this and every longer BLEU_i are 0
			}
			logSum += math.Log(m / t)
		}
		sum += bp * math.Exp(logSum/float64(i+1)) / math.Ldexp(1, BLEUStats(s).Order()-i)
	}
	return sum
}

// BatchBLEU returns the unsmoothed corpus BLEU of a batch whose summed
// statistics are batch after one sentence's statistics old are replaced by
// new: the batch-local corpus BLEU of Haddow et al. (2011) that Watanabe
// (2012) maximises with a greedy oracle search.
func BatchBLEU(batch, old, new Stats) float64 {
	return BLEUStats(batch.Replace(old, new)).BLEU()
}

// DefaultDecay is the pseudo-corpus decay γ of Chiang et al. (2008) and
// Cherry & Foster (2012).
const DefaultDecay = 0.999

// Background is the pseudo-corpus (background) of Chiang et al. (2008):
// decayed statistics to which a sentence's statistics are added before
// scoring it, so that a sentence-level gain tracks the corpus score. Under
// BLEU (a nil Metric) it is what Moses' kbmira keeps and its gain is
// BackgroundBLEU; under another metric, BackgroundGain.
type Background struct {
	// Stats are the pseudo-corpus statistics.
	Stats Stats
	// Decay is the decay γ applied at each Update; zero means DefaultDecay.
	Decay float64
	// Metric is the metric of Stats; nil means BLEU.
	Metric Metric
	// Sentences is the decayed number of sentences in the pseudo-corpus:
	// each Update makes it γ·Sentences + 1. It scales the gain of a metric
	// other than BLEU (BackgroundGain).
	Sentences float64
}

// NewBackground returns a pseudo-corpus initialised as kbmira does, with
// small positive counts: N-n+1 matches and n-grams for each order n and a
// reference length of N, where N is order (0 means DefaultOrder). It panics
// if order is outside 0..MaxOrder.
func NewBackground(order int) *Background {
	if order == 0 {
		order = DefaultOrder
	}
	if order < 1 || order > MaxOrder {
		panic(fmt.Sprintf("metric: n-gram order %d is not in 1..%d", order, MaxOrder))
	}
	b := &Background{Stats: Stats{N: 2*order + 1}}
	for n := 0; n < order; n++ {
		b.Stats.V[2*n] = float64(order - n)
		b.Stats.V[2*n+1] = float64(order - n)
	}
	b.Stats.V[2*order] = float64(order)
	return b
}

// NewMetricBackground returns an empty pseudo-corpus of m's statistics:
// m.Len() zeros and no sentences. Unlike BLEU's, which needs small
// positive counts (NewBackground) lest an order without matches make it
// 0, the metrics besides BLEU score a lone sentence as it is (chrF's
// effective orders, TER's edits, an external score), so the first
// sentence's gain is its own sentence score as a fraction.
func NewMetricBackground(m Metric) *Background {
	return &Background{Stats: Stats{N: m.Len()}, Metric: m}
}

// BLEU returns sent's pseudo-corpus BLEU, BackgroundBLEU(sent, b.Stats).
func (b *Background) BLEU(sent Stats) float64 { return BackgroundBLEU(sent, b.Stats) }

// Gain returns sent's pseudo-corpus gain: BackgroundBLEU(sent, b.Stats)
// under BLEU, BackgroundGain(b.Metric, sent, b.Stats, b.Sentences) under
// another metric.
func (b *Background) Gain(sent Stats) float64 {
	if isBLEU(b.Metric) {
		return BackgroundBLEU(sent, b.Stats)
	}
	return BackgroundGain(b.Metric, sent, b.Stats, b.Sentences)
}

// Update decays the pseudo-corpus and adds stats to it (kbmira adds the hope
// translation's statistics): Stats = γ·Stats + stats, Sentences =
// γ·Sentences + 1.
func (b *Background) Update(stats Stats) {
	d := b.Decay
	if d == 0 {
		d = DefaultDecay
	}
	b.Stats.Scale(d)
	b.Stats.Add(stats)
	b.Sentences = d*b.Sentences + 1
}

// BackgroundBLEU returns kbmira's sentenceLevelBackgroundBleu: the
// unsmoothed BLEU of sent+bg multiplied by the summed reference length, as in
// Chiang et al. (2008) where the gain is scaled by a length. It is 0 when
// some order of the sum has no match.
func BackgroundBLEU(sent, bg Stats) float64 {
	sent.Add(bg)
	return BLEUStats(sent).BLEU() * BLEUStats(sent).RefLen()
}

// SentenceWords is the length in words that each sentence of a
// pseudo-corpus counts for in BackgroundGain.
const SentenceWords = 25

// BackgroundGain is BackgroundBLEU for a metric m other than BLEU: m's
// corpus gain of sent+bg as a fraction (Fraction) times the size of the
// sum, n+1 sentences for a pseudo-corpus of n (decayed) sentences, at
// SentenceWords words each.
//
// kbmira scales BLEU by the pseudo-corpus' reference length in words, so
// that its gain is about a sentence's share of the corpus score times
// the sentence's length, and its step cap C = 0.01 and the start
// weights' scale were set for gains of that size. The statistics of the
// other metrics count no words (chrF counts characters, an external
// score sentences), so the pseudo-corpus' size is counted in sentences
// and each given the words of a typical reference (europarl100's average
// 28.7, wmt15-en-ru-100's 15.9): m's gain then has BLEU's scale and C its
// meaning. The size must scale the gain: without it a hypothesis' gain,
// its share of a pseudo-corpus of about 1/(1−γ) sentences, shrinks as the
// pseudo-corpus grows. On europarl100 kb-MIRA toward chrF and TER moves
// alike for scales from 10 to 100 words a sentence and hardly or not at
// all for 1 (sentence scores as fractions): RESULTS.md.
//
// For TER (Σ edits / Σ reference length, hypotheses of a sentence sharing
// theirs) two hypotheses differ by their edits times SentenceWords over
// the pseudo-corpus' mean reference length; for external scores (Σ score
// / count), by exactly SentenceWords times their scores' difference.
func BackgroundGain(m Metric, sent, bg Stats, n float64) float64 {
	sent.Add(bg)
	return Fraction(m, sent) * (n + 1) * SentenceWords
}
