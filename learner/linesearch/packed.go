package linesearch

import (
	"fmt"
	"math"

	"github.com/mtune/mtune/metric"
)

// Packed is Envelopes in the compact form a shuffle carries (MERT over a
// pool split between machines sends every line's envelopes through one):
// BLEU statistics are counts, so each breakpoint's change is 2·Order+1
// small integers besides its γ, where Envelopes holds a whole
// metric.Stats (14 floats). Merge appends; Unpack gives the Envelopes
// back exactly.
type Packed struct {
	Order int
	// First is Envelopes.First's counts (metric.Stats.ToMoses layout).
	First []int64
	// Gammas are the breakpoints; Deltas their changes, 2·Order+1 each.
	Gammas []float64
	Deltas []int64
	Lists  int
}

// Pack returns a in the compact form. It fails if a statistic is not an
// integer (decayed or scaled statistics have no compact form).
func (a Envelopes) Pack() (Packed, error) {
	p := Packed{Order: a.First.Order, Lists: a.Lists, Gammas: make([]float64, len(a.Points))}
	if a.Lists == 0 {
		return Packed{}, nil
	}
	var err error
	if p.First, err = counts(nil, a.First, p.Order); err != nil {
		return Packed{}, err
	}
	p.Deltas = make([]int64, 0, len(a.Points)*(2*p.Order+1))
	for i, bp := range a.Points {
		p.Gammas[i] = bp.Gamma
		if p.Deltas, err = counts(p.Deltas, bp.Delta, p.Order); err != nil {
			return Packed{}, err
		}
	}
	return p, nil
}

// counts appends s's counts in metric.Stats.ToMoses's layout (matches and
// totals of orders 1..order, then the reference length), which may be
// negative (a breakpoint's change).
func counts(dst []int64, s metric.Stats, order int) ([]int64, error) {
	if s.Order != 0 && s.Order != order {
		return nil, fmt.Errorf("linesearch: packing statistics of BLEU orders %d and %d", s.Order, order)
	}
	add := func(x float64) error {
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return fmt.Errorf("linesearch: packing statistic %v, not a count", x)
		}
		dst = append(dst, int64(x))
		return nil
	}
	for n := 0; n < order; n++ {
		if err := add(s.Matches[n]); err != nil {
			return nil, err
		}
		if err := add(s.Totals[n]); err != nil {
			return nil, err
		}
	}
	return dst, add(s.RefLen)
}

// Merge appends b to p. It fails if their BLEU orders differ.
func (p *Packed) Merge(b Packed) error {
	if b.Lists == 0 {
		return nil
	}
	if p.Lists == 0 {
		*p = Packed{Order: b.Order, First: append([]int64(nil), b.First...)}
	} else {
		if p.Order != b.Order {
			return fmt.Errorf("linesearch: merging statistics of BLEU orders %d and %d", p.Order, b.Order)
		}
		for i, x := range b.First {
			p.First[i] += x
		}
	}
	p.Gammas = append(p.Gammas, b.Gammas...)
	p.Deltas = append(p.Deltas, b.Deltas...)
	p.Lists += b.Lists
	return nil
}

// Unpack returns the Envelopes p packs. It fails if p is malformed.
func (p Packed) Unpack() (Envelopes, error) {
	if p.Lists == 0 {
		return Envelopes{}, nil
	}
	w := 2*p.Order + 1
	if p.Order < 1 || p.Order > metric.MaxOrder || len(p.First) != w || len(p.Deltas) != w*len(p.Gammas) {
		return Envelopes{}, fmt.Errorf("linesearch: malformed packed envelopes (order %d, %d first counts, %d breakpoints, %d counts)", p.Order, len(p.First), len(p.Gammas), len(p.Deltas))
	}
	stats := func(c []int64) metric.Stats {
		s := metric.Stats{Order: p.Order, RefLen: float64(c[2*p.Order])}
		for n := 0; n < p.Order; n++ {
			s.Matches[n], s.Totals[n] = float64(c[2*n]), float64(c[2*n+1])
		}
		return s
	}
	a := Envelopes{First: stats(p.First), Lists: p.Lists, Points: make([]Breakpoint, len(p.Gammas))}
	for i, g := range p.Gammas {
		a.Points[i] = Breakpoint{Gamma: g, Delta: stats(p.Deltas[i*w : (i+1)*w])}
	}
	return a, nil
}
