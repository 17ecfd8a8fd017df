package pool

import (
	"fmt"

	"github.com/mtune/mtune/metric"
)

// Scorer computes the statistics of hypotheses under a metric against the
// references of each sentence of a tuning set. It is safe for concurrent
// use.
type Scorer struct {
	m    metric.Metric
	segs []metric.Segment
	refs int // references per sentence; -1 when it varies
	// ext, for external scores (NewExternalScorer), returns the score of
	// the hypothesis read at file:line of an n-best list; nil otherwise.
	ext func(file string, line int) (float64, error)
	// fileStats, with ext, gives a score's statistics (FileScored).
	fileStats func(score float64) metric.Stats
}

// NewScorer prepares the references refs[i] (all references of sentence i)
// for the metric m (metric.Metric.Segment: BLEU's tokenizer, chrF's
// character n-grams, …).
func NewScorer(refs [][]string, m metric.Metric) (*Scorer, error) {
	s := &Scorer{m: m, segs: make([]metric.Segment, len(refs))}
	for i, rs := range refs {
		g, err := m.Segment(rs)
		if err != nil {
			return nil, fmt.Errorf("pool: references of sentence %d: %w", i, err)
		}
		s.segs[i] = g
		switch {
		case i == 0:
			s.refs = len(rs)
		case s.refs != len(rs):
			s.refs = -1
		}
	}
	return s, nil
}

// NewExternalScorer returns a scorer of the hypotheses of sentences
// sentences (ids 0 to sentences-1) whose statistics are scores computed
// elsewhere and read from files (m: metric.FileScored, as external scores
// are): score(file, line) is the score of the hypothesis an n-best reader
// read at file:line, m.FileStats its statistics. It has no
// references: Stats fails, Hyp gives the statistics.
func NewExternalScorer(m metric.FileScored, sentences int, score func(file string, line int) (float64, error)) *Scorer {
	return &Scorer{m: m, segs: make([]metric.Segment, sentences), ext: score, fileStats: m.FileStats}
}

// External reports whether the scorer's statistics are external scores
// (NewExternalScorer), which only Hyp gives.
func (s *Scorer) External() bool { return s.ext != nil }

// Metric is the metric the scorer computes the statistics of.
func (s *Scorer) Metric() metric.Metric { return s.m }

// Refs is the number of references each sentence has, -1 when it varies
// (a metric's Signature).
func (s *Scorer) Refs() int { return s.refs }

// Len returns the number of sentences the scorer has references for.
func (s *Scorer) Len() int { return len(s.segs) }

// Stats returns the statistics of target as a translation of sentence sent.
func (s *Scorer) Stats(sent int, target string) (metric.Stats, error) {
	if sent < 0 || sent >= len(s.segs) {
		return metric.Stats{}, fmt.Errorf("pool: sentence id %d out of range: the references have %d sentences", sent, len(s.segs))
	}
	if s.ext != nil {
		return metric.Stats{}, fmt.Errorf("pool: sentence %d: %s: the scores are by n-best line (Scorer.Hyp): %w", sent, s.m.Name(), metric.ErrExternalText)
	}
	return s.segs[sent].Stats(target), nil
}

// Hyp returns the statistics of target, a hypothesis of sentence sent
// read at file:line of an n-best list: its external score's for an
// external scorer, else Stats(sent, target).
func (s *Scorer) Hyp(sent int, target, file string, line int) (metric.Stats, error) {
	if s.ext == nil {
		return s.Stats(sent, target)
	}
	if sent < 0 || sent >= len(s.segs) {
		return metric.Stats{}, fmt.Errorf("pool: %s:%d: sentence id %d out of range: the lists have %d sentences", file, line, sent, len(s.segs))
	}
	x, err := s.ext(file, line)
	if err != nil {
		return metric.Stats{}, err
	}
	return s.fileStats(x), nil
}
