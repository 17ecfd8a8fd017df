package linesearch

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/mtune/mtune/metric"
)

// Envelopes is the union of sentences' envelopes, what Sweep needs: the
// summed statistics of their leftmost 1-bests and all their breakpoints
// (in any order). Its fields are exported so that it can be serialised as
// a combiner's accumulator; the zero value holds no sentence.
type Envelopes struct {
	// First is the sum of the sentences' Envelope.First.
	First metric.Stats
	// Points are the sentences' breakpoints, unsorted.
	Points []Breakpoint
	// Lists is the number of non-empty envelopes merged.
	Lists int
}

// Add merges one sentence's envelope into a; an empty one is skipped.
func (a *Envelopes) Add(e Envelope) error {
	if e.Hyps == 0 {
		return nil
	}
	return a.Merge(Envelopes{First: e.First, Points: e.Points, Lists: 1})
}

// Merge merges b into a. It fails if their statistics have different BLEU
// orders.
func (a *Envelopes) Merge(b Envelopes) error {
	if b.Lists == 0 {
		return nil
	}
	if a.Lists > 0 && metric.BLEUStats(a.First).Order() != metric.BLEUStats(b.First).Order() {
		return fmt.Errorf("linesearch: merging statistics of BLEU orders %d and %d", metric.BLEUStats(a.First).Order(), metric.BLEUStats(b.First).Order())
	}
	for _, p := range b.Points {
		if metric.BLEUStats(p.Delta).Order() != 0 && metric.BLEUStats(p.Delta).Order() != metric.BLEUStats(b.First).Order() {
			return fmt.Errorf("linesearch: merging statistics of BLEU orders %d and %d", metric.BLEUStats(b.First).Order(), metric.BLEUStats(p.Delta).Order())
		}
	}
	a.First.Add(b.First)
	a.Points = append(a.Points, b.Points...)
	a.Lists += b.Lists
	return nil
}

// Sweep is the second half of Och's line search (2003, §4): it orders the
// breakpoints of all the sentences by γ and walks them from −∞, adding up
// each change of the statistics, so that corpus BLEU is known on every
// interval of γ; it returns a point of the best interval, chosen as the
// package documentation says (opts: bounds, preferred point, margin;
// Threads is unused). It fails if a holds no sentence, a breakpoint is not
// finite, or the options are invalid.
func Sweep(a Envelopes, opts Options) (Result, error) {
	c, err := newChooser(opts)
	if err != nil {
		return Result{}, err
	}
	if a.Lists == 0 {
		return Result{}, errors.New("linesearch: no hypotheses")
	}
	pts := slices.Clone(a.Points)
	for _, p := range pts {
		if !finite(p.Gamma) {
			return Result{}, fmt.Errorf("%w: breakpoint at %v", ErrNonFinite, p.Gamma)
		}
	}
	slices.SortStableFunc(pts, func(x, y Breakpoint) int { return cmp.Compare(x.Gamma, y.Gamma) })
	cur := a.First
	lo := math.Inf(-1)
	distinct := 0
	for i := 0; i < len(pts); {
		x := pts[i].Gamma
		c.consider(lo, x, cur)
		for ; i < len(pts) && pts[i].Gamma == x; i++ {
			cur.Add(pts[i].Delta)
		}
		lo = x
		distinct++
	}
	c.consider(lo, math.Inf(1), cur)
	return c.result(distinct), nil
}

// chooser picks the best interval of γ as a sweep offers them, from left
// to right: Sweep and Searcher share it.
type chooser struct {
	lo, hi         float64 // Options.Min and Max, or ±Inf
	prefer, margin float64
	best, thin     candidate
	// gain is what intervals are compared by (gainOf): log BLEU under
	// BLEU, else the metric's Gain.
	gain func(metric.Stats) float64
}

// newChooser checks opts and returns a chooser for them.
func newChooser(opts Options) (*chooser, error) {
	c := &chooser{lo: math.Inf(-1), hi: math.Inf(1), prefer: opts.Prefer, margin: opts.Margin, gain: gainOf(opts.Metric)}
	if opts.Min != 0 || opts.Max != 0 {
		c.lo, c.hi = opts.Min, opts.Max
		if !(c.lo < c.hi) {
			return nil, fmt.Errorf("linesearch: empty interval [%v, %v]", opts.Min, opts.Max)
		}
	}
	if !finite(opts.Prefer) {
		return nil, fmt.Errorf("%w: preferred point %v", ErrNonFinite, opts.Prefer)
	}
	if c.margin == 0 {
		c.margin = DefaultMargin
	}
	if !(c.margin > 0) || math.IsInf(c.margin, 1) {
		return nil, fmt.Errorf("linesearch: margin %v is not a positive number", opts.Margin)
	}
	return c, nil
}

// gainOf returns what a chooser compares intervals by under the metric m:
// an Objectiver's log objective (log BLEU for BLEU or a nil m), else its
// Gain.
func gainOf(m metric.Metric) func(metric.Stats) float64 {
	if o, ok := metric.OrDefault(m).(metric.Objectiver); ok {
		return o.LogObjective
	}
	return func(s metric.Stats) float64 { return metric.Gain(m, s) }
}

// candidate is an interval of γ considered for the best one.
type candidate struct {
	set   bool
	score float64 // the chooser's score: log BLEU, or the metric's gain
	dist  float64 // from the preferred point
	a, b  float64
	stats metric.Stats
}

// better reports whether an interval with score and dist beats c.
func (c *candidate) better(score, dist float64) bool {
	return !c.set || score > c.score || (score == c.score && dist < c.dist)
}

// reset forgets the intervals seen.
func (c *chooser) reset() { c.best, c.thin = candidate{}, candidate{} }

// consider offers the interval (lo, hi), on which the 1-best hypotheses
// have the summed statistics cur: the higher BLEU wins, then the interval
// nearer the preferred point; slivers only if nothing wider exists.
func (c *chooser) consider(lo, hi float64, cur metric.Stats) {
	a, b := max(lo, c.lo), min(hi, c.hi)
	if !(a < b) {
		return
	}
	score := c.gain(cur)
	dist := distance(c.prefer, a, b)
	cd := &c.best
	if finite(b-a) && b-a <= sliver*max(math.Abs(a), math.Abs(b)) {
		cd = &c.thin
	}
	if cd.better(score, dist) {
		*cd = candidate{set: true, score: score, dist: dist, a: a, b: b, stats: cur}
	}
}

// result returns the point of the best interval offered.
func (c *chooser) result(breakpoints int) Result {
	best := c.best
	if !best.set {
		best = c.thin
	}
	return Result{
		Gamma:       c.pick(best.a, best.b),
		Stats:       best.stats,
		Lo:          best.a,
		Hi:          best.b,
		Breakpoints: breakpoints,
	}
}

// distance returns how far p is from the open interval (a, b): zero inside.
func distance(p, a, b float64) float64 {
	switch {
	case p <= a:
		if p == a {
			return 0
		}
		return a - p
	case p >= b:
		return p - b
	}
	return 0
}

// pick returns the point of (a, b) a search returns.
func (c *chooser) pick(a, b float64) float64 {
	if a < c.prefer && c.prefer < b {
		return c.prefer
	}
	switch {
	case math.IsInf(a, -1):
		return b - max(c.margin, math.Abs(b)*1e-6)
	case math.IsInf(b, 1):
		return a + max(c.margin, math.Abs(a)*1e-6)
	}
	return a + (b-a)/2
}
