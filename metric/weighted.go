package metric

import (
	"fmt"
	"strconv"
	"strings"
)

// Weighted is a weighted sum of metrics, as Moses' interpolated scorer
// and Phrasal's BLEU−TER: its statistics are its parts' side by side, and
// its score Σ wᵢ·Gain(partᵢ), each part oriented so that higher is better
// (−TER), so that "bleu:0.5,ter:0.5" scores (BLEU − TER)/2. Build one with
// NewWeighted.
type Weighted struct {
	parts   []Metric
	weights []float64
	offs    []int // the first statistic of each part
	n       int
}

// NewWeighted returns the sum of parts[i] weighted by weights[i]. It fails
// for no part, an external part, a weight that is not finite and
// positive, or more than MaxStats statistics in all.
func NewWeighted(parts []Metric, weights []float64) (*Weighted, error) {
	if len(parts) == 0 || len(parts) != len(weights) {
		return nil, fmt.Errorf("metric: a weighted metric of %d parts and %d weights", len(parts), len(weights))
	}
	w := &Weighted{parts: parts, weights: weights}
	for i, p := range parts {
		if _, ok := p.(FileScored); ok {
			return nil, fmt.Errorf("metric: external scores are read from a file, not computed from text: they cannot be part of a weighted sum")
		}
		if x := weights[i]; !(x > 0) || x > 1e300 {
			return nil, fmt.Errorf("metric: weight %v of %s: want a positive number", x, p.Name())
		}
		w.offs = append(w.offs, w.n)
		w.n += p.Len()
	}
	if w.n > MaxStats {
		return nil, fmt.Errorf("metric: %s has %d statistics, more than %d", w.Name(), w.n, MaxStats)
	}
	return w, nil
}

// part returns part i's statistics within s.
func (w *Weighted) part(s Stats, i int) Stats {
	n := w.parts[i].Len()
	p := Stats{N: n}
	if s.N != 0 {
		copy(p.V[:n], s.V[w.offs[i]:w.offs[i]+n])
	}
	return p
}

// Name is "0.5·BLEU+0.5·−TER": each weight, then the part's name, negated
// for a part where lower is better.
func (w *Weighted) Name() string {
	var b strings.Builder
	for i, p := range w.parts {
		if i > 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.FormatFloat(w.weights[i], 'g', -1, 64))
		b.WriteString("·")
		if !p.HigherIsBetter() {
			b.WriteString("−")
		}
		b.WriteString(p.Name())
	}
	return b.String()
}

// Signature joins the parts' names and signatures.
func (w *Weighted) Signature(nrefs int) string {
	var parts []string
	for i, p := range w.parts {
		parts = append(parts, fmt.Sprintf("%s:%g[%s]", p.Name(), w.weights[i], p.Signature(nrefs)))
	}
	return strings.Join(parts, "+")
}

// Len is the sum of the parts'.
func (w *Weighted) Len() int { return w.n }

// HigherIsBetter is true: the parts are oriented.
func (*Weighted) HigherIsBetter() bool { return true }

// Segment prepares every part's.
func (w *Weighted) Segment(refs []string) (Segment, error) {
	g := weightedSegment{w: w, segs: make([]Segment, len(w.parts))}
	for i, p := range w.parts {
		s, err := p.Segment(refs)
		if err != nil {
			return nil, err
		}
		g.segs[i] = s
	}
	return g, nil
}

type weightedSegment struct {
	w    *Weighted
	segs []Segment
}

func (g weightedSegment) Stats(hyp string) Stats {
	s := Stats{N: g.w.n}
	for i, seg := range g.segs {
		p := seg.Stats(hyp)
		copy(s.V[g.w.offs[i]:], p.V[:p.N])
	}
	return s
}

// Score is Σ wᵢ·Gain(partᵢ).
func (w *Weighted) Score(s Stats) float64 {
	var sum float64
	for i, p := range w.parts {
		sum += w.weights[i] * Gain(p, w.part(s, i))
	}
	return sum
}

// SentenceScore is Σ wᵢ·SentenceGain(partᵢ).
func (w *Weighted) SentenceScore(s Stats) float64 {
	var sum float64
	for i, p := range w.parts {
		sum += w.weights[i] * SentenceGain(p, w.part(s, i))
	}
	return sum
}

// Check checks each part's statistics.
func (w *Weighted) Check(s Stats) error {
	if err := checkLen(w.Name(), s, w.n); err != nil {
		return err
	}
	for i, p := range w.parts {
		if err := p.Check(w.part(s, i)); err != nil {
			return err
		}
	}
	return nil
}

var _ Metric = (*Weighted)(nil)
