package linesearch

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/par"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// DefaultMargin is how far beyond the outermost breakpoint a search goes
// when the best interval is unbounded and holds no preferred point: Moses'
// mert steps 0.1 past the last breakpoint (and 1000 before the first).
const DefaultMargin = 0.1

// minChunk is the smallest number of hypotheses worth a worker goroutine
// (a variable so that tests can make small searches parallel).
var minChunk = 4096

// sliver is the relative width below which an interval is taken for an
// artefact of rounding (three or more lines through one point) and chosen
// only if no wider interval is available.
const sliver = 1e-10

// ErrNonFinite is wrapped by the errors that report a NaN or infinite model
// score, slope or breakpoint.
var ErrNonFinite = errors.New("linesearch: non-finite value")

// Options control a line search. The zero value searches the whole line
// from γ = 0 with GOMAXPROCS workers.
type Options struct {
	// Min and Max restrict γ to [Min, Max] (MERT's bounds). When both are
	// zero γ is unconstrained; an infinite bound leaves that side open.
	Min, Max float64
	// Prefer is the γ returned when it lies inside a best interval, and
	// the point that breaks ties between intervals of equal BLEU (the
	// nearest wins). Zero means γ = 0: stay at w unless BLEU improves.
	Prefer float64
	// Margin is how far beyond the outermost breakpoint the search goes
	// when the best interval is unbounded (but at least a millionth of the
	// breakpoint's magnitude). Zero means DefaultMargin.
	Margin float64
	// Metric is the metric whose corpus score the search maximises over
	// the statistics summed along the envelope (its Gain); nil is BLEU.
	Metric metric.Metric
	// Threads is the number of worker goroutines of a Searcher that
	// compute envelopes; zero means GOMAXPROCS. Results do not depend on
	// it. Search and Sweep do not use it.
	Threads int
}

// Result is the outcome of a line search.
type Result struct {
	// Gamma is the chosen point of the line.
	Gamma float64
	// Stats are the summed statistics of the 1-best hypotheses at Gamma
	// (the metric's: corpus BLEU is BLEUStats.BLEU).
	Stats metric.Stats
	// Lo and Hi bound the best interval (within Options.Min and Max); they
	// may be infinite.
	Lo, Hi float64
	// Breakpoints is the number of distinct points where the 1-best of some
	// sentence changes.
	Breakpoints int
}

// Search returns the γ that maximises corpus BLEU of lists re-ranked with
// w + γ·dir, and the statistics there: the envelope of each list
// (SentenceEnvelope), merged (Envelopes) and swept (Sweep), the code path
// that line-search mixing spreads over workers. It computes the envelopes
// in one goroutine (Options.Threads is for a Searcher). See Searcher for
// searching many lines over the same lists.
func Search(lists []pool.List, w, dir feature.Weights, opts Options) (gamma float64, stats metric.Stats, err error) {
	if _, err := newChooser(opts); err != nil {
		return 0, metric.Stats{}, err
	}
	var all Envelopes
	for i, l := range lists {
		for k, h := range l.Hyps {
			if err := metric.CheckStats(opts.Metric, h.Stats()); err != nil {
				return 0, metric.Stats{}, fmt.Errorf("linesearch: list %d (sentence %d) hypothesis %d: %w", i, l.Sent, k, err)
			}
		}
		e, err := SentenceEnvelope(l, w, dir)
		if err != nil {
			return 0, metric.Stats{}, fmt.Errorf("%w (list %d)", err, i)
		}
		if err := all.Add(e); err != nil {
			return 0, metric.Stats{}, fmt.Errorf("%w (list %d)", err, i)
		}
	}
	res, err := Sweep(all, opts)
	if err != nil {
		return 0, metric.Stats{}, err
	}
	return res.Gamma, res.Stats, nil
}

// A Searcher runs line searches over a fixed set of n-best lists, keeping
// its buffers between searches. Hypotheses are numbered 0..Len()-1 across
// the lists in order: list i holds Offset(i) ≤ k < Offset(i+1).
//
// The Searcher reads the lists' statistics during every search: they must
// not change while it is in use. A Searcher is not safe for concurrent use.
type Searcher struct {
	off   []int32
	width int // statistics a hypothesis
	// rows holds each list's statistics as one slab, hypothesis k's at
	// [k·width, (k+1)·width): the list's own (pool.List.StatsSlab) or a
	// copy. A row read through rows costs one cache miss where a
	// pool.Hyp's statistics cost three (the list, the hypothesis, its
	// statistics).
	rows [][]float64
	// stats32 holds every hypothesis' statistics as float32, hypothesis k
	// (numbered across the lists) at [k·width, (k+1)·width), when each of
	// them is a float32 exactly (BLEU's counts and lengths, chrF's and
	// TER's): half the bytes a sweep reads at random, so more of them stay
	// in cache (a million BLEU hypotheses: 36 MB against 72). Sums are
	// still float64, of the same values in the same order. Nil otherwise.
	stats32 []float32
	choose  *chooser
	maxLen  int
	first   []int32
	workers []*worker
	heads   []int
}

// NewSearcher prepares line searches over lists. It fails if a hypothesis
// has invalid statistics (under Options.Metric) or another number of them than the rest, if
// there are no hypotheses, or if the options are invalid.
func NewSearcher(lists []pool.List, opts Options) (*Searcher, error) {
	c, err := newChooser(opts)
	if err != nil {
		return nil, err
	}
	s := &Searcher{
		off:    make([]int32, len(lists)+1),
		choose: c,
		first:  make([]int32, len(lists)),
	}
	n := 0
	for i, l := range lists {
		for k, h := range l.Hyps {
			if err := metric.CheckStats(opts.Metric, h.Stats()); err != nil {
				return nil, fmt.Errorf("linesearch: list %d (sentence %d) hypothesis %d: %w", i, l.Sent, k, err)
			}
			if s.width == 0 {
				s.width = h.Stats().N
			} else if h.Stats().N != s.width {
				return nil, fmt.Errorf("linesearch: list %d (sentence %d) hypothesis %d has %d statistics, others %d", i, l.Sent, k, h.Stats().N, s.width)
			}
		}
		n += len(l.Hyps)
		if n > math.MaxInt32 {
			return nil, fmt.Errorf("linesearch: more than %d hypotheses", math.MaxInt32)
		}
		s.off[i+1] = int32(n)
		s.maxLen = max(s.maxLen, len(l.Hyps))
	}
	if n == 0 {
		return nil, errors.New("linesearch: no hypotheses")
	}
	s.rows = make([][]float64, len(lists))
	for i, l := range lists {
		slab, _, ok := l.StatsSlab()
		if !ok {
			slab = make([]float64, 0, len(l.Hyps)*s.width)
			for _, h := range l.Hyps {
				slab = append(slab, h.StatsValues()...)
			}
		}
		s.rows[i] = slab
	}
	s.stats32 = exact32(s.rows, n*s.width)
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = max(1, min(threads, (n+minChunk-1)/minChunk, len(lists)))
	// Contiguous chunks of sentences with about n/threads hypotheses each.
	start := 0
	for t := 0; t < threads; t++ {
		end := start
		target := int32((int64(n) * int64(t+1)) / int64(threads))
		for end < len(lists) && (s.off[end] < target || t == threads-1) {
			end++
		}
		s.workers = append(s.workers, &worker{
			s: s, from: start, to: end,
			stack:  make([]int32, s.maxLen),
			starts: make([]float64, s.maxLen),
		})
		start = end
	}
	s.heads = make([]int, len(s.workers))
	return s, nil
}

// Len returns the number of hypotheses.
func (s *Searcher) Len() int { return int(s.off[len(s.off)-1]) }

// Search returns the best point on the line whose hypothesis k has model
// score base[k] + γ·slope[k]: base[k] = w·φ_k and slope[k] = d·φ_k for the
// line w + γ·d. It panics if the slices are not Len() long.
func (s *Searcher) Search(base, slope []float64) (Result, error) {
	return s.search(base, slope, nil)
}

// SearchSorted is Search with each list's hypotheses already sorted by
// slope: order[Offset(i):Offset(i+1)] holds the numbers of list i's
// hypotheses, by increasing slope (ties in any order), as SortBySlope
// returns them. It saves the sorting when many searches share the slopes
// (MERT's coordinate directions). It fails if order is not sorted.
func (s *Searcher) SearchSorted(base, slope []float64, order []int32) (Result, error) {
	if len(order) != s.Len() {
		panic(fmt.Sprintf("linesearch: order has %d entries for %d hypotheses", len(order), s.Len()))
	}
	return s.search(base, slope, order)
}

// Envelopes is the first half of Search over the Searcher's lists: their
// envelopes along the line whose hypothesis k has model score
// base[k] + γ·slope[k], merged, for Sweep to take with the envelopes of
// lists held elsewhere (MERT over a pool split between machines). order is
// nil or as SearchSorted takes it. Sweep of the result alone is Search.
func (s *Searcher) Envelopes(base, slope []float64, order []int32) (Envelopes, error) {
	if len(base) != s.Len() || len(slope) != s.Len() || (order != nil && len(order) != s.Len()) {
		panic(fmt.Sprintf("linesearch: %d scores, %d slopes and %d orders for %d hypotheses", len(base), len(slope), len(order), s.Len()))
	}
	s.parallel(func(w *worker) { w.envelopes(base, slope, order) })
	if err := s.workerErr(); err != nil {
		return Envelopes{}, err
	}
	e := Envelopes{First: s.firstStats()}
	for _, f := range s.first {
		if f >= 0 {
			e.Lists++
		}
	}
	for _, w := range s.workers {
		for _, bp := range w.sorted {
			var d metric.Stats
			s.add(&d, bp.sent, bp.to, 1)
			s.add(&d, bp.sent, bp.from, -1)
			e.Points = append(e.Points, Breakpoint{Gamma: keyFloat(bp.key), Delta: d})
		}
	}
	return e, nil
}

// SortBySlope returns, in dst (grown as needed), the hypotheses of each list
// sorted by increasing slope: the order SearchSorted takes.
func (s *Searcher) SortBySlope(slope []float64, dst []int32) []int32 {
	if len(slope) != s.Len() {
		panic(fmt.Sprintf("linesearch: %d slopes for %d hypotheses", len(slope), s.Len()))
	}
	if cap(dst) < s.Len() {
		dst = make([]int32, s.Len())
	}
	dst = dst[:s.Len()]
	s.parallel(func(w *worker) {
		w.grow()
		for i := w.from; i < w.to; i++ {
			lo, hi := s.off[i], s.off[i+1]
			w.sortSentence(slope, lo, hi, dst[lo:hi])
		}
	})
	return dst
}

// OneBest returns the summed statistics of each list's hypothesis with the
// highest base score (the earlier one on ties), as pool.OneBest does for the
// weights that give those scores. It panics if base is not Len() long.
func (s *Searcher) OneBest(base []float64) (metric.Stats, error) {
	if len(base) != s.Len() {
		panic(fmt.Sprintf("linesearch: %d scores for %d hypotheses", len(base), s.Len()))
	}
	s.parallel(func(w *worker) {
		w.err = nil
		for i := w.from; i < w.to; i++ {
			lo, hi := s.off[i], s.off[i+1]
			best := int32(-1)
			for k := lo; k < hi; k++ {
				if !finite(base[k]) {
					w.err = fmt.Errorf("%w: model score %v of list %d hypothesis %d", ErrNonFinite, base[k], i, k-lo)
					return
				}
				if best < 0 || base[k] > base[best] {
					best = k
				}
			}
			if best >= 0 {
				best -= lo
			}
			s.first[i] = best
		}
	})
	if err := s.workerErr(); err != nil {
		return metric.Stats{}, err
	}
	return s.firstStats(), nil
}

func (s *Searcher) parallel(fn func(w *worker)) {
	if len(s.workers) == 1 {
		fn(s.workers[0])
		return
	}
	par.Do(len(s.workers), len(s.workers), func(i int) { fn(s.workers[i]) })
}

func (s *Searcher) workerErr() error {
	for _, w := range s.workers {
		if w.err != nil {
			return w.err
		}
	}
	return nil
}

// firstStats sums the statistics of the hypotheses s.first names, in list
// order (so that the sum does not depend on the number of workers).
func (s *Searcher) firstStats() metric.Stats {
	var sum metric.Stats
	for i, f := range s.first {
		if f >= 0 {
			s.add(&sum, int32(i), f, 1)
		}
	}
	return sum
}

// exact32 returns the n values of rows, in order, as float32, or nil if
// one of them is not a float32 exactly.
func exact32(rows [][]float64, n int) []float32 {
	out := make([]float32, 0, n)
	for _, r := range rows {
		for _, x := range r {
			if float64(float32(x)) != x {
				return nil
			}
			out = append(out, float32(x))
		}
	}
	return out
}

// add adds sign (1 or -1) times the statistics of list i's hypothesis k
// to sum: a + (-x) is a - x exactly, so subtracting is adding with -1.
func (s *Searcher) add(sum *metric.Stats, i, k int32, sign float64) {
	sum.N = s.width
	v := sum.V[:s.width]
	if s.stats32 != nil {
		for j, x := range s.stats32[int(s.off[i]+k)*s.width:][:s.width] {
			v[j] += sign * float64(x)
		}
		return
	}
	for j, x := range s.rows[i][int(k)*s.width:][:s.width] {
		v[j] += sign * x
	}
}

func (s *Searcher) search(base, slope []float64, order []int32) (Result, error) {
	if len(base) != s.Len() || len(slope) != s.Len() {
		panic(fmt.Sprintf("linesearch: %d scores and %d slopes for %d hypotheses", len(base), len(slope), s.Len()))
	}
	s.parallel(func(w *worker) { w.envelopes(base, slope, order) })
	if err := s.workerErr(); err != nil {
		return Result{}, err
	}
	return s.sweep(), nil
}

// sweep merges the workers' sorted breakpoints, adding up the statistics
// interval by interval, and picks the best interval as Sweep does.
func (s *Searcher) sweep() Result {
	cur := s.firstStats()
	c := s.choose
	c.reset()
	for i := range s.heads {
		s.heads[i] = 0
	}
	lo := math.Inf(-1)
	distinct := 0
	for {
		// The smallest key among the workers' heads; workers hold
		// increasing sentence ranges, so ties go in sentence order.
		var key uint64
		found := false
		for i, w := range s.workers {
			if h := s.heads[i]; h < len(w.sorted) {
				if k := w.sorted[h].key; !found || k < key {
					key, found = k, true
				}
			}
		}
		if !found {
			break
		}
		x := keyFloat(key)
		c.consider(lo, x, cur)
		for i, w := range s.workers {
			h := s.heads[i]
			for ; h < len(w.sorted) && w.sorted[h].key == key; h++ {
				bp := &w.sorted[h]
				s.add(&cur, bp.sent, bp.from, -1)
				s.add(&cur, bp.sent, bp.to, 1)
			}
			s.heads[i] = h
		}
		lo = x
		distinct++
	}
	c.consider(lo, math.Inf(1), cur)
	return c.result(distinct)
}

func finite(x float64) bool { return x-x == 0 }
