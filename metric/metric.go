package metric

import "fmt"

// MaxStats is the most sufficient statistics a hypothesis has under any
// metric: chrF++'s 24 (three a character order 1–6 and a word order 1–2)
// with room for a weighted sum of it and TER's or an external score's.
const MaxStats = 32

// Metric is an automatic evaluation metric as Moses' mert/Scorer.h makes
// one (DESIGN.md §11): per-hypothesis sufficient statistics (Stats) that
// add over sentences, a corpus score computed from their sum, a smoothed
// sentence score for the learners that need one, a direction, a name and a
// sacreBLEU-style signature. The statistics of a corpus are the sums of its
// hypotheses', so a corpus score never needs the text again, and line
// searches (MERT, line-search mixing) stay exact by summing statistics
// along the envelope.
type Metric interface {
	// Name is the metric's name as sacreBLEU prints it before " = ":
	// "BLEU", "chrF2", "chrF2++", "TER".
	Name() string
	// Signature is sacreBLEU's signature of the metric's settings
	// ("nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0" for
	// chrF with sacreBLEU's defaults), nrefs the references given per
	// segment (negative: it varies).
	Signature(nrefs int) string
	// Len is the number of statistics a hypothesis has (Stats.N), at most
	// MaxStats.
	Len() int
	// HigherIsBetter is false for an error rate (TER): the learners
	// maximise its negation (Gain).
	HigherIsBetter() bool
	// Segment prepares the references of one segment for scoring its
	// hypotheses.
	Segment(refs []string) (Segment, error)
	// Score is the corpus score, as sacreBLEU prints it (0–100 for BLEU,
	// chrF and TER), of the statistics summed over a corpus' hypotheses.
	Score(s Stats) float64
	// SentenceScore is one hypothesis' sentence-level score, on Score's
	// scale, with the smoothing the metric calls for at the sentence
	// level.
	SentenceScore(s Stats) float64
	// Check reports whether s holds statistics a hypothesis (or a sum of
	// hypotheses) could have under the metric: Len numbers, finite, and
	// what else the metric asks (BLEU's matches no more than its n-grams).
	Check(s Stats) error
}

// Segment scores the hypotheses of one segment against its references. A
// Segment serves any number of goroutines at once.
type Segment interface {
	// Stats returns hyp's statistics.
	Stats(hyp string) Stats
}

// Gain is m's score of s oriented so that higher is better: the score, or
// its negation for an error rate. The learners maximise it.
func Gain(m Metric, s Stats) float64 {
	if m.HigherIsBetter() {
		return m.Score(s)
	}
	return -m.Score(s)
}

// SentenceGain is m's sentence score of s oriented as Gain.
func SentenceGain(m Metric, s Stats) float64 {
	if m.HigherIsBetter() {
		return m.SentenceScore(s)
	}
	return -m.SentenceScore(s)
}

// checkLen reports whether s has the n numbers of metric name, finite,
// zero beyond n.
func checkLen(name string, s Stats, n int) error {
	if s.N != n {
		return fmt.Errorf("%w: %d numbers, %s has %d", ErrStats, s.N, name, n)
	}
	return s.Validate()
}

// Objective returns the function by which the learners compare
// statistics, higher being better: an Objectiver's own (for BLEU, or a nil
// m, corpus BLEU as a fraction, BLEUStats.BLEU, as Moses' mert compares); for
// any other metric its Gain.
func Objective(m Metric) func(Stats) float64 {
	if o, ok := OrDefault(m).(Objectiver); ok {
		return o.Objective
	}
	return func(s Stats) float64 { return Gain(m, s) }
}

// CheckStats is m.Check(s), or, for a nil m (BLEU by default),
// BLEUStats(s).Validate: the one check of a hypothesis' statistics under the
// metric a learner optimises.
func CheckStats(m Metric, s Stats) error {
	if m == nil {
		return BLEUStats(s).Validate()
	}
	return m.Check(s)
}

// isBLEU reports whether m is BLEU or nil (BLEU by default). Only this
// package asks; the others ask for a behaviour (behaviour.go).
func isBLEU(m Metric) bool {
	_, ok := m.(BLEU)
	return ok || m == nil
}

// CorpusScore is m's corpus score of the summed statistics s, BLEU's (in
// points) when m is nil.
func CorpusScore(m Metric, s Stats) float64 { return OrDefault(m).Score(s) }

// SentenceFraction is SentenceGain on the scale of a fraction, as the
// learners' thresholds and step sizes expect (BLEU+1 is in [0, 1]): the
// gain over 100 for a metric scored 0–100 (chrF, TER, a weighted sum),
// an external score as it is.
func SentenceFraction(m Metric, s Stats) float64 { return fraction(m, SentenceGain(m, s)) }

// Fraction is Gain on the scale of a fraction, as SentenceFraction puts
// the sentence score: the corpus gain over 100 for a metric scored 0–100,
// an external score's mean as it is.
func Fraction(m Metric, s Stats) float64 { return fraction(m, Gain(m, s)) }

// fraction puts a gain g of m on the scale of a fraction: a score read
// from a file (FileScored) is taken as it is.
func fraction(m Metric, g float64) float64 {
	if _, ok := m.(FileScored); ok {
		return g
	}
	return g / 100
}
