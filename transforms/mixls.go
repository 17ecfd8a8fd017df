package transforms

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// Line-search mixing (Watanabe 2012, §4.2) chooses the new weights
//
//	w(α) = (1 − α)·prev + α·avg = prev + α·d,   d = avg − prev,
//
// with the α that maximises corpus BLEU of the epoch's n-best lists
// re-ranked with w(α), exactly as mix.LineSearch does, but with the work
// spread over the workers: EnvelopeFn computes each sentence's upper
// envelope of the lines w(α)·φ_k = prev·φ_k + α·d·φ_k (where its 1-best
// changes, and how its BLEU statistics change there) in parallel, the
// LineSearchFn combiner gathers every sentence's breakpoints, and its
// ExtractOutput sweeps them in order of α, adding up the statistics, and
// picks the best interval.

// linesearchMargin and linesearchSliver are learner/linesearch's
// DefaultMargin and its sliver width, so that the choice is the same.
const (
	linesearchMargin = 0.1
	linesearchSliver = 1e-10
	linesearchPrefer = 1.0
)

// Breakpoint is where the 1-best of a sentence changes along the line:
// at α = Alpha its statistics change by Delta (the new 1-best's minus the
// old one's).
type Breakpoint struct {
	Alpha float64
	Delta metric.Stats
}

// Envelope is one sentence's contribution to line-search mixing.
type Envelope struct {
	Sent int
	// Hyps is the number of hypotheses of the list (0: it contributes
	// nothing).
	Hyps int
	// First holds the statistics of the 1-best as α → −∞, Zero and One
	// those of the 1-best at α = 0 (prev) and α = 1 (avg), ties to the
	// earlier hypothesis as pool.Best breaks them.
	First, Zero, One metric.Stats
	// Points are the breakpoints, by increasing Alpha.
	Points []Breakpoint
}

// SentenceEnvelope returns the envelope of list l along the line from prev
// (α = 0) to avg (α = 1). It follows learner/linesearch: of lines with
// equal slope the higher wins, the earlier hypothesis on exact ties, and a
// line that rounding leaves on an empty interval is dropped.
func SentenceEnvelope(l pool.List, prev, avg feature.Weights) (Envelope, error) {
	n := len(l.Hyps)
	e := Envelope{Sent: l.Sent, Hyps: n}
	if n == 0 {
		return e, nil
	}
	base := make([]float64, n)
	slope := make([]float64, n)
	dir := make(feature.Weights, max(len(prev), len(avg)))
	for j := range dir {
		dir[j] = avg.At(feature.ID(j)) - prev.At(feature.ID(j))
	}
	order := 0
	for k, h := range l.Hyps {
		if err := h.Stats.Validate(); err != nil {
			return e, fmt.Errorf("transforms: sentence %d hypothesis %d: %w", l.Sent, k, err)
		}
		if k == 0 {
			order = h.Stats.Order
		} else if h.Stats.Order != order {
			return e, fmt.Errorf("transforms: sentence %d: hypotheses of BLEU orders %d and %d", l.Sent, order, h.Stats.Order)
		}
		base[k] = h.Features.Dot(prev)
		slope[k] = h.Features.Dot(dir)
		if !finite(base[k]) || !finite(slope[k]) {
			return e, fmt.Errorf("transforms: sentence %d hypothesis %d: non-finite model score %v or slope %v", l.Sent, k, base[k], slope[k])
		}
	}
	e.Zero = l.Hyps[pool.Best(l, prev)].Stats
	e.One = l.Hyps[pool.Best(l, avg)].Stats

	ord := make([]int32, n)
	for k := range ord {
		ord[k] = int32(k)
	}
	slices.SortFunc(ord, func(a, b int32) int { return cmp.Compare(slope[a], slope[b]) })
	stack := make([]int32, 0, n)
	// First pass: the upper hull, by cross multiplication.
	for p := 0; p < n; {
		k := ord[p]
		m, b := slope[k], base[k]
		for p++; p < n && slope[ord[p]] == m; p++ {
			k2 := ord[p]
			if b2 := base[k2]; b2 > b || (b2 == b && k2 < k) {
				k, b = k2, b2
			}
		}
		for len(stack) > 1 {
			t, s := stack[len(stack)-1], stack[len(stack)-2]
			mt, bt := slope[t], base[t]
			if (bt-b)*(mt-slope[s]) > (base[s]-bt)*(m-mt) {
				break
			}
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, k)
	}
	// Second pass: the breakpoints, dropping lines left on an empty
	// interval by rounding.
	starts := make([]float64, len(stack))
	starts[0] = math.Inf(-1)
	out := 1
	for j := 1; j < len(stack); j++ {
		k := stack[j]
		for {
			t := stack[out-1]
			x := (base[t] - base[k]) / (slope[k] - slope[t])
			if !finite(x) {
				return e, fmt.Errorf("transforms: sentence %d: non-finite breakpoint between hypotheses %d and %d", l.Sent, t, k)
			}
			if out > 1 && x <= starts[out-1] {
				out--
				continue
			}
			stack[out], starts[out] = k, x+0 // +0 turns -0 into 0
			out++
			break
		}
	}
	e.First = l.Hyps[stack[0]].Stats
	for j := 1; j < out; j++ {
		d := l.Hyps[stack[j]].Stats
		d.Sub(l.Hyps[stack[j-1]].Stats)
		e.Points = append(e.Points, Breakpoint{Alpha: starts[j], Delta: d})
	}
	return e, nil
}

func finite(x float64) bool { return x-x == 0 }

// LineSearchResult is the outcome of line-search mixing.
type LineSearchResult struct {
	// Alpha is the chosen α: the mixed weights are (1−α)·prev + α·avg.
	Alpha float64
	// Stats are the summed statistics of the 1-best hypotheses at Alpha,
	// BLEU their corpus BLEU.
	Stats metric.Stats
	BLEU  float64
	// Lo and Hi bound the best interval found by the sweep (possibly
	// infinite); Alpha is outside it when α = 0 or 1 was preferred.
	Lo, Hi float64
	// Breakpoints is the number of distinct α where a 1-best changes,
	// Lists the number of lists with hypotheses.
	Breakpoints, Lists int
}

// LineSearchAccum is LineSearchFn's accumulator: the summed statistics
// and every sentence's breakpoints (sorted only when extracted).
type LineSearchAccum struct {
	First, Zero, One metric.Stats
	Points           []Breakpoint
	Lists            int
}

// LineSearchFn is the CombineFn of line-search mixing: PCollection<Envelope>
// to LineSearchResult.
type LineSearchFn struct{}

// CreateAccumulator returns an empty accumulator.
func (f *LineSearchFn) CreateAccumulator() LineSearchAccum { return LineSearchAccum{} }

// AddInput adds a sentence's envelope.
func (f *LineSearchFn) AddInput(a LineSearchAccum, e Envelope) (LineSearchAccum, error) {
	if e.Hyps == 0 {
		return a, nil
	}
	b := LineSearchAccum{First: e.First, Zero: e.Zero, One: e.One, Points: e.Points, Lists: 1}
	return f.MergeAccumulators(a, b)
}

// MergeAccumulators merges b into a.
func (f *LineSearchFn) MergeAccumulators(a, b LineSearchAccum) (LineSearchAccum, error) {
	if b.Lists == 0 {
		return a, nil
	}
	if a.Lists > 0 && a.First.Order != b.First.Order {
		return a, fmt.Errorf("transforms: line search over statistics of BLEU orders %d and %d", a.First.Order, b.First.Order)
	}
	for _, p := range b.Points {
		if p.Delta.Order != 0 && p.Delta.Order != b.First.Order {
			return a, fmt.Errorf("transforms: line search over statistics of BLEU orders %d and %d", b.First.Order, p.Delta.Order)
		}
	}
	a.First.Add(b.First)
	a.Zero.Add(b.Zero)
	a.One.Add(b.One)
	a.Points = append(a.Points, b.Points...)
	a.Lists += b.Lists
	return a, nil
}

// ExtractOutput sweeps the breakpoints and chooses α.
func (f *LineSearchFn) ExtractOutput(a LineSearchAccum) (LineSearchResult, error) {
	return sweepEnvelopes(a)
}

// SweepEnvelopes chooses α from the sentences' envelopes, as LineSearchFn
// does: the plain-function form of line-search mixing.
func SweepEnvelopes(envs []Envelope) (LineSearchResult, error) {
	var f LineSearchFn
	a := f.CreateAccumulator()
	for _, e := range envs {
		var err error
		if a, err = f.AddInput(a, e); err != nil {
			return LineSearchResult{}, err
		}
	}
	return f.ExtractOutput(a)
}

// lsCandidate is an interval of α considered for the best one.
type lsCandidate struct {
	set   bool
	score float64 // log BLEU
	dist  float64 // from the preferred point
	a, b  float64
	stats metric.Stats
}

func (c *lsCandidate) better(score, dist float64) bool {
	return !c.set || score > c.score || (score == c.score && dist < c.dist)
}

func sweepEnvelopes(a LineSearchAccum) (LineSearchResult, error) {
	if a.Lists == 0 {
		return LineSearchResult{}, errors.New("transforms: line search over no hypotheses")
	}
	pts := slices.Clone(a.Points)
	for _, p := range pts {
		if !finite(p.Alpha) {
			return LineSearchResult{}, fmt.Errorf("transforms: line search: breakpoint at %v", p.Alpha)
		}
	}
	slices.SortStableFunc(pts, func(x, y Breakpoint) int { return cmp.Compare(x.Alpha, y.Alpha) })
	cur := a.First
	var best, thin lsCandidate
	consider := func(lo, hi float64) {
		if !(lo < hi) {
			return
		}
		score := cur.LogBLEU()
		dist := distance(linesearchPrefer, lo, hi)
		c := &best
		if finite(hi-lo) && hi-lo <= linesearchSliver*max(math.Abs(lo), math.Abs(hi)) {
			c = &thin
		}
		if c.better(score, dist) {
			*c = lsCandidate{set: true, score: score, dist: dist, a: lo, b: hi, stats: cur}
		}
	}
	lo := math.Inf(-1)
	distinct := 0
	for i := 0; i < len(pts); {
		x := pts[i].Alpha
		consider(lo, x)
		for ; i < len(pts) && pts[i].Alpha == x; i++ {
			cur.Add(pts[i].Delta)
		}
		lo = x
		distinct++
	}
	consider(lo, math.Inf(1))
	if !best.set {
		best = thin
	}
	res := LineSearchResult{
		Alpha:       pick(best.a, best.b),
		Stats:       best.stats,
		Lo:          best.a,
		Hi:          best.b,
		Breakpoints: distinct,
		Lists:       a.Lists,
	}
	// As mix.LineSearch: the ends of the segment, α = 1 (the average) and
	// α = 0, may be points where hypotheses tie, and better.
	if a.One.BLEU() >= res.Stats.BLEU() && res.Alpha != 1 {
		res.Alpha, res.Stats = 1, a.One
	}
	if a.Zero.BLEU() > res.Stats.BLEU() {
		res.Alpha, res.Stats = 0, a.Zero
	}
	res.BLEU = res.Stats.BLEU()
	return res, nil
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

// pick returns the point of (a, b) the search returns.
func pick(a, b float64) float64 {
	if a < linesearchPrefer && linesearchPrefer < b {
		return linesearchPrefer
	}
	switch {
	case math.IsInf(a, -1):
		return b - max(linesearchMargin, math.Abs(b)*1e-6)
	case math.IsInf(b, 1):
		return a + max(linesearchMargin, math.Abs(a)*1e-6)
	}
	return a + (b-a)/2
}

// MixWeights returns (1−α)·prev + α·avg over the union of their names
// (prev's first, in order).
func MixWeights(prev, avg WireWeights, alpha float64) (WireWeights, error) {
	if err := prev.Validate(); err != nil {
		return WireWeights{}, err
	}
	if err := avg.Validate(); err != nil {
		return WireWeights{}, err
	}
	idx := feature.NewIndexOf(prev.Names...)
	p, _ := prev.Over(idx)
	q, _ := avg.Over(idx)
	w := make(feature.Weights, idx.Len())
	for j := range w {
		// (1−α)·prev + α·avg is exactly prev at α = 0 and avg at α = 1.
		w[j] = (1-alpha)*p.At(feature.ID(j)) + alpha*q.At(feature.ID(j))
	}
	return NewWireWeights(idx, w), nil
}

// LineSearchMix mixes by line search. lists is the PCollection<NBest> of
// the epoch's n-best lists; prev (the weights every shard started the
// epoch from) and avg (their average, see Average) are singleton
// PCollection<WireWeights>. It returns the mixed weights, a singleton
// PCollection<WireWeights>, and the search's outcome, a singleton
// PCollection<LineSearchResult>.
func LineSearchMix(s beam.Scope, lists, prev, avg beam.PCollection) (mixed, result beam.PCollection) {
	s = s.Scope("transforms.LineSearchMix")
	envs := beam.ParDo(s, &EnvelopeFn{}, lists, beam.SideInput{Input: prev}, beam.SideInput{Input: avg})
	result = beam.Combine(s, &LineSearchFn{}, envs)
	mixed = beam.ParDo(s, mixFn, beam.Impulse(s), beam.SideInput{Input: result},
		beam.SideInput{Input: prev}, beam.SideInput{Input: avg})
	return mixed, result
}

// mixFn applies a line search's α.
func mixFn(_ []byte, r LineSearchResult, prev, avg WireWeights) (WireWeights, error) {
	return MixWeights(prev, avg, r.Alpha)
}

// EnvelopeFn computes the Envelope of each NBest along the line from prev
// to avg (the side inputs, singleton WireWeights): PCollection<NBest> to
// PCollection<Envelope>.
type EnvelopeFn struct {
	// Per bundle: the side inputs over idx.
	idx       *feature.Index
	prev, avg feature.Weights
}

// StartBundle maps the bundle's side inputs to an index.
func (f *EnvelopeFn) StartBundle(prev, avg WireWeights) error {
	idx := feature.NewIndexOf(prev.Names...)
	p, err := prev.Over(idx)
	if err != nil {
		return fmt.Errorf("transforms: previous weights: %w", err)
	}
	q, err := avg.Over(idx)
	if err != nil {
		return fmt.Errorf("transforms: averaged weights: %w", err)
	}
	f.idx, f.prev, f.avg = idx, p, q
	return nil
}

// ProcessElement computes one envelope.
func (f *EnvelopeFn) ProcessElement(n NBest, _, _ WireWeights) (Envelope, error) {
	l, err := n.List(f.idx)
	if err != nil {
		return Envelope{}, err
	}
	return SentenceEnvelope(l, f.prev, f.avg)
}
