package metric

import (
	"errors"
	"fmt"
)

// External is a metric whose per-hypothesis scores were computed elsewhere
// (COMET, COMETKiwi, MetricX, a quality-estimation model) and are read
// from a score file aligned with the n-best lists (package
// pool/poolfile): a hypothesis' statistics are its score and a count of
// 1 (ExternalStats), and a corpus' score is the mean of its hypotheses'
// (as qaware-decode feeds Travatar's MERT). Higher is better; the scores
// are taken as they are, not scaled.
type External struct {
	// Label names the scores in reports ("COMET"); "" is "external".
	Label string
}

// ErrExternalText is returned, wrapped, by External.Segment: an external
// metric's scores are read from a file, not computed from text.
var ErrExternalText = errors.New("metric: external scores are read from a score file, not computed from the text")

// ExternalStats returns the statistics of a hypothesis whose external
// score is score.
func ExternalStats(score float64) Stats { return StatsOf(score, 1) }

// Name is the label, or "external".
func (e External) Name() string {
	if e.Label == "" {
		return "external"
	}
	return e.Label
}

// Signature says where the scores come from.
func (e External) Signature(nrefs int) string { return "scores:file|mean" }

// Len is 2: the sum of the scores and their count.
func (External) Len() int { return 2 }

// HigherIsBetter is true.
func (External) HigherIsBetter() bool { return true }

// Segment fails with ErrExternalText.
func (e External) Segment(refs []string) (Segment, error) {
	return nil, fmt.Errorf("%s: %w", e.Name(), ErrExternalText)
}

// Score is the mean score, 0 for no hypothesis.
func (External) Score(s Stats) float64 {
	if s.V[1] == 0 {
		return 0
	}
	return s.V[0] / s.V[1]
}

// SentenceScore is the hypothesis' score (Score of one).
func (e External) SentenceScore(s Stats) float64 { return e.Score(s) }

// Check reports whether s holds a finite sum of scores and a
// non-negative count.
func (e External) Check(s Stats) error {
	if err := checkLen(e.Name(), s, 2); err != nil {
		return err
	}
	if s.V[1] < 0 {
		return fmt.Errorf("%w: %s: count %g", ErrStats, e.Name(), s.V[1])
	}
	return nil
}

// FileStats is ExternalStats(score).
func (External) FileStats(score float64) Stats { return ExternalStats(score) }

// ScoreLine is "COMET = 0.8123": the name and the mean score with 4
// decimals.
func (e External) ScoreLine(s Stats) string { return fmt.Sprintf("%s = %.4f", e.Name(), e.Score(s)) }

var (
	_ Metric       = External{}
	_ FileScored   = External{}
	_ ScorePrinter = External{}
)
