package pool

import (
	"fmt"

	"github.com/mtune/mtune/metric"
)

// Scorer computes the BLEU statistics of hypotheses against the references
// of each sentence of a tuning set. It is safe for concurrent use.
type Scorer struct {
	refs []*metric.Reference
	tok  metric.Tokenizer
}

// NewScorer prepares the references refs[i] (all references of sentence i)
// for BLEU of the given order (0 means 4). tok is applied to references and
// hypotheses alike; nil means the text is already tokenised (split on white
// space only, as Moses' extractor and multi-bleu.perl do).
func NewScorer(refs [][]string, order int, tok metric.Tokenizer) (*Scorer, error) {
	s := &Scorer{refs: make([]*metric.Reference, len(refs)), tok: tok}
	for i, rs := range refs {
		if tok != nil {
			t := make([]string, len(rs))
			for k, r := range rs {
				t[k] = tok(r)
			}
			rs = t
		}
		r, err := metric.NewReferenceText(order, rs...)
		if err != nil {
			return nil, fmt.Errorf("pool: references of sentence %d: %w", i, err)
		}
		s.refs[i] = r
	}
	return s, nil
}

// Len returns the number of sentences the scorer has references for.
func (s *Scorer) Len() int { return len(s.refs) }

// Stats returns the statistics of target as a translation of sentence sent.
func (s *Scorer) Stats(sent int, target string) (metric.Stats, error) {
	if sent < 0 || sent >= len(s.refs) {
		return metric.Stats{}, fmt.Errorf("pool: sentence id %d out of range: the references have %d sentences", sent, len(s.refs))
	}
	if s.tok != nil {
		target = s.tok(target)
	}
	return s.refs[sent].StatsString(target), nil
}
