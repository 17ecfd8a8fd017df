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
	return s.segs[sent].Stats(target), nil
}
