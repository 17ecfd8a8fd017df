package linesearch

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// Breakpoint is where the 1-best of a sentence changes along the line: at
// γ = Gamma its BLEU statistics change by Delta (the new 1-best's minus the
// old one's).
type Breakpoint struct {
	Gamma float64
	Delta metric.Stats
}

// Envelope is the upper envelope of one sentence's lines along w + γ·d
// (Och 2003, §4): which hypothesis is the 1-best on each interval of γ,
// kept as the statistics of the leftmost 1-best and their changes at the
// breakpoints. It holds no hypothesis numbers, so the envelopes of many
// sentences can be computed apart (on other machines) and merged
// (Envelopes) before the sweep.
type Envelope struct {
	// Sent is the list's sentence number.
	Sent int
	// Hyps is the number of hypotheses of the list (0: the envelope is
	// empty and contributes nothing).
	Hyps int
	// First holds the statistics of the 1-best as γ → −∞.
	First metric.Stats
	// Points are the breakpoints, by increasing Gamma.
	Points []Breakpoint
}

// SentenceEnvelope returns the envelope of list l along the line w + γ·dir:
// hypothesis k has the line w·φ_k + γ·(dir·φ_k) (Och 2003, §4; Watanabe
// 2012, §4.2 mixes along dir = w_avg − w_prev). Ties are broken as Search
// breaks them. It fails for invalid statistics (metric.Stats.Validate),
// statistics of different lengths and non-finite scores (wrapping
// ErrNonFinite).
func SentenceEnvelope(l pool.List, w, dir feature.Weights) (Envelope, error) {
	n := len(l.Hyps)
	e := Envelope{Sent: l.Sent, Hyps: n}
	if n == 0 {
		return e, nil
	}
	base := make([]float64, n)
	slope := make([]float64, n)
	width := len(l.Hyps[0].StatsValues())
	for k, h := range l.Hyps {
		if err := h.ValidateStats(); err != nil {
			return e, fmt.Errorf("linesearch: sentence %d hypothesis %d: %w", l.Sent, k, err)
		}
		if n := len(h.StatsValues()); n != width {
			return e, fmt.Errorf("linesearch: sentence %d hypothesis %d has %d statistics, others %d", l.Sent, k, n, width)
		}
		base[k] = h.Features.Dot(w)
		slope[k] = h.Features.Dot(dir)
	}
	ws := worker{keys: make([]slopeIdx, n)}
	ord := make([]int32, n)
	ws.sortSentence(slope, 0, int32(n), ord)
	stack := make([]int32, n)
	starts := make([]float64, n)
	m, err := envelope(ord, base, slope, stack, starts)
	if err != nil {
		return e, fmt.Errorf("%w (sentence %d)", err, l.Sent)
	}
	e.First = l.Hyps[stack[0]].Stats()
	e.Points = make([]Breakpoint, 0, m-1)
	for j := 1; j < m; j++ {
		d := l.Hyps[stack[j]].Stats()
		l.Hyps[stack[j-1]].SubStatsFrom(&d)
		e.Points = append(e.Points, Breakpoint{Gamma: starts[j], Delta: d})
	}
	return e, nil
}

// breakpoint is where the 1-best of sentence sent changes from hypothesis
// from to hypothesis to (numbers within the list), at γ = keyFloat(key).
type breakpoint struct {
	key      uint64
	sent     int32
	from, to int32
}

// slopeIdx is a hypothesis number with its slope, for sorting.
type slopeIdx struct {
	m float64
	k int32
}

// worker computes the envelopes of the sentences from..to-1.
type worker struct {
	s        *Searcher
	from, to int
	keys     []slopeIdx
	order    []int32
	stack    []int32
	starts   []float64
	bps, tmp []breakpoint
	sorted   []breakpoint
	counts   [4][256]int
	err      error
}

func (w *worker) grow() {
	if len(w.keys) < w.s.maxLen {
		w.keys = make([]slopeIdx, w.s.maxLen)
		w.order = make([]int32, w.s.maxLen)
	}
}

// sortSentence writes the numbers lo..hi-1 into dst sorted by slope.
func (w *worker) sortSentence(slope []float64, lo, hi int32, dst []int32) {
	keys := w.keys[:hi-lo]
	for k := lo; k < hi; k++ {
		keys[k-lo] = slopeIdx{slope[k], k}
	}
	slices.SortFunc(keys, func(a, b slopeIdx) int { return cmp.Compare(a.m, b.m) })
	for i := range keys {
		dst[i] = keys[i].k
	}
}

// envelopes computes the envelope of each of the worker's sentences,
// records its leftmost hypothesis in s.first and its breakpoints in
// w.sorted, sorted by γ (and by sentence on ties).
func (w *worker) envelopes(base, slope []float64, order []int32) {
	s := w.s
	w.err = nil
	w.bps = w.bps[:0]
	w.sorted = nil
	if order == nil {
		w.grow()
	}
	for i := w.from; i < w.to; i++ {
		lo, hi := s.off[i], s.off[i+1]
		if lo == hi {
			s.first[i] = -1
			continue
		}
		var ord []int32
		if order != nil {
			ord = order[lo:hi]
		} else {
			ord = w.order[:hi-lo]
			w.sortSentence(slope, lo, hi, ord)
		}
		n, err := envelope(ord, base, slope, w.stack, w.starts)
		if err != nil {
			w.err = fmt.Errorf("%w (list %d)", err, i)
			return
		}
		s.first[i] = w.stack[0] - lo
		for j := 1; j < n; j++ {
			w.bps = append(w.bps, breakpoint{
				key:  floatKey(w.starts[j]),
				sent: int32(i),
				from: w.stack[j-1] - lo,
				to:   w.stack[j] - lo,
			})
		}
	}
	if cap(w.tmp) < len(w.bps) {
		w.tmp = make([]breakpoint, cap(w.bps))
	}
	w.sorted = radixSort(w.bps, w.tmp[:len(w.bps)], &w.counts)
}

// envelope computes the upper envelope of the lines base[k] + γ·slope[k]
// for the hypotheses k in ord, sorted by slope. It leaves in stack[:n] the
// hypotheses on the envelope from left to right and in starts[:n] the γ
// where each one begins (starts[0] = -Inf, then strictly increasing). Of
// lines with equal slope the one with the higher base wins, the lower number
// on exact ties.
//
// A first pass keeps the upper hull testing intersections by cross
// multiplication (no division in the loop over all lines); a second one
// computes the breakpoints of the few lines left, dropping any line that
// rounding leaves on an empty interval.
func envelope(ord []int32, base, slope []float64, stack []int32, starts []float64) (int, error) {
	n := 0
	for p := 0; p < len(ord); {
		k := ord[p]
		m, b := slope[k], base[k]
		if !finite(m - m + b - b) {
			return 0, fmt.Errorf("%w: hypothesis %d has score %v and slope %v", ErrNonFinite, k, b, m)
		}
		p++
		for ; p < len(ord); p++ {
			k2 := ord[p]
			m2, b2 := slope[k2], base[k2]
			if m2 != m {
				if m2 < m {
					return 0, fmt.Errorf("linesearch: hypotheses not sorted by slope (%v after %v)", m2, m)
				}
				break
			}
			if !finite(b2 - b2) {
				return 0, fmt.Errorf("%w: hypothesis %d has score %v", ErrNonFinite, k2, b2)
			}
			if b2 > b || (b2 == b && k2 < k) {
				k, b = k2, b2
			}
		}
		// Pop the top t while the new line overtakes it no later than t
		// overtakes the line s below it:
		// (b_t - b)/(m - m_t) <= (b_s - b_t)/(m_t - m_s).
		for n > 1 {
			t, s := stack[n-1], stack[n-2]
			mt, bt := slope[t], base[t]
			if (bt-b)*(mt-slope[s]) > (base[s]-bt)*(m-mt) {
				break
			}
			n--
		}
		stack[n] = k
		n++
	}
	starts[0] = math.Inf(-1)
	out := 1
	for j := 1; j < n; j++ {
		k := stack[j]
		for {
			t := stack[out-1]
			x := (base[t] - base[k]) / (slope[k] - slope[t])
			if !finite(x) {
				return 0, fmt.Errorf("%w: breakpoint %v between hypotheses %d and %d", ErrNonFinite, x, t, k)
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
	return out, nil
}

// floatKey maps x to an integer with the same order.
func floatKey(x float64) uint64 {
	u := math.Float64bits(x)
	if u>>63 != 0 {
		return ^u
	}
	return u | 1<<63
}

// keyFloat is the inverse of floatKey.
func keyFloat(k uint64) float64 {
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// radixSort sorts a by key, stably, using tmp (as long as a) as scratch,
// and returns whichever of the two holds the result. An LSD radix sort on
// the high 32 bits of the keys (sign, exponent and 20 bits of mantissa: a
// relative resolution of 1e-6) leaves only runs of nearly equal keys out of
// order, which an insertion sort then finishes in about linear time.
//
// counts is scratch (a goroutine's stack would have to grow for it).
func radixSort(a, tmp []breakpoint, counts *[4][256]int) []breakpoint {
	n := len(a)
	if n < 256 {
		slices.SortStableFunc(a, byKey)
		return a
	}
	*counts = [4][256]int{}
	for i := range a {
		k := a[i].key >> 32
		for d := range 4 {
			counts[d][byte(k>>(8*d))]++
		}
	}
	src, dst := a, tmp
	for d := range 4 {
		c := &counts[d]
		shift := 32 + 8*uint(d)
		if c[byte(src[0].key>>shift)] == n {
			continue // every key has the same digit
		}
		sum := 0
		for b := range c {
			c[b], sum = sum, sum+c[b]
		}
		for i := range src {
			b := byte(src[i].key >> shift)
			dst[c[b]] = src[i]
			c[b]++
		}
		src, dst = dst, src
	}
	budget := 4 * n // moves, before giving up on the insertion sort
	for i := 1; i < n; i++ {
		if src[i].key >= src[i-1].key {
			continue
		}
		x := src[i]
		j := i
		for ; j > 0 && src[j-1].key > x.key; j-- {
			src[j] = src[j-1]
		}
		src[j] = x
		if budget -= i - j; budget < 0 {
			slices.SortStableFunc(src, byKey)
			break
		}
	}
	return src
}

func byKey(x, y breakpoint) int { return cmp.Compare(x.key, y.key) }
