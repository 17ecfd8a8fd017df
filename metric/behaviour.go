package metric

import "fmt"

// The behaviours a metric may offer beyond Metric. Code outside this
// package asks a metric for a behaviour (a type assertion on one of these
// interfaces, or a function here that makes one), never which metric it
// is: what a learner, a command or a record needs of BLEU is what BLEU
// offers, and a metric that offers the same is treated the same
// (DESIGN.md §13).

// Objectiver is a metric that the learners compare statistics by its own
// objective rather than by its Gain: BLEU, unsmoothed and as a fraction,
// as Moses' mert compares (Objective), BLEU+1 as a fraction for a sentence
// (SentenceObjective) and log BLEU for the chooser of a line search
// (LogObjective).
type Objectiver interface {
	Metric
	// Objective is the corpus objective of the summed statistics s,
	// higher being better.
	Objective(s Stats) float64
	// SentenceObjective is one hypothesis' objective, smoothed as the
	// metric's sentence score is.
	SentenceObjective(s Stats) float64
	// LogObjective is the logarithm of Objective (-Inf for 0), what a line
	// search's chooser compares intervals by.
	LogObjective(s Stats) float64
}

// Smoother is a metric whose sentence-level score is a smoothing of its
// statistics that the learner chooses: BLEU's BLEU+1 in the variant of Lin
// & Och or of Moses' PRO (BLEUPlusOne). A learner under it ranks and costs
// hypotheses by its own variant, not by SentenceFraction; a learner that
// optimises BLEU only needs it.
type Smoother interface {
	Metric
	// PlusOne is the sentence score of s, a fraction, smoothed in
	// variant v.
	PlusOne(s Stats, v PlusOneVariant) float64
}

// Backgrounder is a metric with a pseudo-corpus of its own (Chiang et al.
// 2008, as Moses' kbmira keeps it for BLEU): it starts from small positive
// counts rather than from nothing, a sentence's gain against it is its own
// (BackgroundBLEU, in the layout of its statistics), and the learners may
// keep it in that layout.
type Backgrounder interface {
	Metric
	// Background returns the pseudo-corpus kbmira starts from
	// (NewBackground of BLEU's order).
	Background() *Background
}

// FileScored is a metric whose per-hypothesis scores are computed
// elsewhere and read from a score file aligned with the n-best lists
// (External), not computed from references: it scores given n-best lists
// only, never new translations, and is no part of a weighted sum.
type FileScored interface {
	Metric
	// FileStats returns the statistics of a hypothesis whose score in
	// the file is score.
	FileStats(score float64) Stats
}

// ScorePrinter is a metric that prints its corpus score its own way
// (ScoreLine): BLEU as multi-bleu.perl, external scores with 4 decimals.
type ScorePrinter interface {
	Metric
	// ScoreLine is the line of the summed statistics s, without the
	// signature.
	ScoreLine(s Stats) string
}

// Reporter is a metric whose corpus score has a report of its parts (BLEU's
// precisions, brevity penalty and lengths), which `mtune score --json`
// writes instead of the name, score and statistics alone.
type Reporter interface {
	Metric
	// Report returns the JSON object of the summed statistics s, with the
	// metric's name and the signature given.
	Report(s Stats, signature string) any
}

// unnamed is a metric that mtune's files and records knew before there
// were others (BLEU): RecordName gives "" for it.
type unnamed interface {
	Metric
	recordUnnamed()
}

// RecordName is the name under which a run's records (the manifest,
// metrics.json, a line search's result, a pool's score file) name their
// scores' metric: "" for BLEU (or a nil m), the default, which they leave
// unnamed so that they stay byte for byte as before other metrics, and
// m.Name() for any other.
func RecordName(m Metric) string {
	if _, ok := m.(unnamed); ok || m == nil {
		return ""
	}
	return m.Name()
}

// OrDefault returns m, or DefaultBLEU when m is nil (the metric a nil
// Metric means throughout mtune).
func OrDefault(m Metric) Metric {
	if m == nil {
		return DefaultBLEU()
	}
	return m
}

// SentenceObjective returns the function by which the learners compare
// one hypothesis' statistics, the sentence counterpart of Objective: an
// Objectiver's own (BLEU+1 as a fraction, BLEUPlusOne with LinOch, for
// BLEU or a nil m), else SentenceGain.
func SentenceObjective(m Metric) func(Stats) float64 {
	if o, ok := OrDefault(m).(Objectiver); ok {
		return o.SentenceObjective
	}
	return func(s Stats) float64 { return SentenceGain(m, s) }
}

// ScoreLine is the line a command prints for the summed statistics s
// under m: a ScorePrinter's own (multi-bleu.perl's for BLEU), else
// "chrF2 = 56.76" as sacreBLEU prints it.
func ScoreLine(m Metric, s Stats) string {
	if p, ok := m.(ScorePrinter); ok {
		return p.ScoreLine(s)
	}
	return fmt.Sprintf("%s = %.2f", m.Name(), m.Score(s))
}
