package metric

// MaxStats is the most sufficient statistics a hypothesis has under any one
// metric: chrF++'s 24 (three a character order 1–6 and a word order 1–2).
const MaxStats = 24

// Metric is an automatic evaluation metric as Moses' mert/Scorer.h makes
// one (DESIGN.md §11): per-hypothesis sufficient statistics that add over
// sentences, a corpus score computed from their sum, a smoothed sentence
// score for the learners that need one, a direction, a name and a
// sacreBLEU-style signature. The statistics of a corpus are the sums of its
// hypotheses', so a corpus score never needs the text again, and line
// searches (MERT, line-search mixing) stay exact by summing statistics
// along the envelope.
type Metric interface {
	// Name is the metric's name as sacreBLEU prints it before " = ":
	// "BLEU", "chrF2", "chrF2++", "TER".
	Name() string
	// Signature is sacreBLEU's signature of the metric's settings
	// ("nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.4.3"
	// for chrF with sacreBLEU 2.4.3's defaults), nrefs the references
	// given per segment.
	Signature(nrefs int) string
	// Len is the number of statistics a hypothesis has, at most MaxStats.
	Len() int
	// HigherIsBetter is false for an error rate (TER): the learners
	// maximise its negation.
	HigherIsBetter() bool
	// Segment prepares the references of one segment for scoring its
	// hypotheses.
	Segment(refs []string) (Segment, error)
	// Score is the corpus score, as sacreBLEU prints it (0–100), of the
	// statistics summed over a corpus' hypotheses (len(stats) == Len()).
	Score(stats []float64) float64
	// SentenceScore is one hypothesis' sentence-level score, on Score's
	// scale, with the smoothing the metric calls for at the sentence
	// level.
	SentenceScore(stats []float64) float64
}

// Segment scores the hypotheses of one segment against its references. A
// Segment serves any number of goroutines at once.
type Segment interface {
	// Stats writes hyp's statistics into dst, which has Len() elements.
	Stats(dst []float64, hyp string)
}
