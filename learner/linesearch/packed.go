package linesearch

import (
	"fmt"
	"math"

	"github.com/mtune/mtune/metric"
)

// Packed is Envelopes in the compact form a shuffle carries (MERT over a
// pool split between machines sends every line's envelopes through one):
// the statistics of BLEU, chrF and TER's edits are counts, so each
// breakpoint's change is N small integers besides its γ (N = 2·Order+1
// for BLEU), where Envelopes holds a whole metric.Stats. Merge appends;
// Unpack gives the Envelopes back exactly.
type Packed struct {
	// N is the number of statistics (metric.Stats.N).
	N int
	// First is Envelopes.First's counts (metric.Stats.V[:N]).
	First []int64
	// Gammas are the breakpoints; Deltas their changes, N each.
	Gammas []float64
	Deltas []int64
	Lists  int
}

// Pack returns a in the compact form. It fails if a statistic is not an
// integer (decayed or scaled statistics have no compact form).
func (a Envelopes) Pack() (Packed, error) {
	p := Packed{N: a.First.N, Lists: a.Lists, Gammas: make([]float64, len(a.Points))}
	if a.Lists == 0 {
		return Packed{}, nil
	}
	var err error
	if p.First, err = counts(nil, a.First, p.N); err != nil {
		return Packed{}, err
	}
	p.Deltas = make([]int64, 0, len(a.Points)*p.N)
	for i, bp := range a.Points {
		p.Gammas[i] = bp.Gamma
		if p.Deltas, err = counts(p.Deltas, bp.Delta, p.N); err != nil {
			return Packed{}, err
		}
	}
	return p, nil
}

// counts appends s's n statistics (metric.Stats.V[:n]), which may be
// negative (a breakpoint's change).
func counts(dst []int64, s metric.Stats, n int) ([]int64, error) {
	if s.N != 0 && s.N != n {
		return nil, fmt.Errorf("linesearch: packing statistics of %d and %d numbers", s.N, n)
	}
	for _, x := range s.V[:n] {
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return nil, fmt.Errorf("linesearch: packing statistic %v, not a count", x)
		}
		dst = append(dst, int64(x))
	}
	return dst, nil
}

// Merge appends b to p. It fails if their numbers of statistics differ.
func (p *Packed) Merge(b Packed) error {
	if b.Lists == 0 {
		return nil
	}
	if p.Lists == 0 {
		*p = Packed{N: b.N, First: append([]int64(nil), b.First...)}
	} else {
		if p.N != b.N {
			return fmt.Errorf("linesearch: merging statistics of %d and %d numbers", p.N, b.N)
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
	w := p.N
	if w < 1 || w > metric.MaxStats || len(p.First) != w || len(p.Deltas) != w*len(p.Gammas) {
		return Envelopes{}, fmt.Errorf("linesearch: malformed packed envelopes (%d statistics, %d first counts, %d breakpoints, %d counts)", p.N, len(p.First), len(p.Gammas), len(p.Deltas))
	}
	stats := func(c []int64) metric.Stats {
		s := metric.Stats{N: w}
		for i, x := range c {
			s.V[i] = float64(x)
		}
		return s
	}
	a := Envelopes{First: stats(p.First), Lists: p.Lists, Points: make([]Breakpoint, len(p.Gammas))}
	for i, g := range p.Gammas {
		a.Points[i] = Breakpoint{Gamma: g, Delta: stats(p.Deltas[i*w : (i+1)*w])}
	}
	return a, nil
}
