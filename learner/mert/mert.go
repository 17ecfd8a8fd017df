package mert

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/par"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/internal/opt"
	"github.com/mtune/mtune/learner/linesearch"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// Defaults, from Moses' mert and mert-moses.pl.
const (
	DefaultRestarts = 20     // mert-moses.pl --random-restarts
	DefaultEpsilon  = 0.0001 // SimpleOptimizer's kEPS, on BLEU in [0, 1]
	DefaultMin      = 0.0    // mert-moses.pl's range of random start points
	DefaultMax      = 1.0
)

// pcgStream is the second PCG seed: the stream of the learner's generator.
const pcgStream = 0x6d657274 // "mert"

// Options configure MERT. The zero value is Moses' default: 20 random
// restarts, coordinate directions only, start points in [0, 1].
type Options struct {
	// Restarts is the number of random start points besides the current
	// weights. Zero means DefaultRestarts (20); a negative value means
	// none.
	Restarts int
	// RandomDirections is the number of random directions searched in every
	// pass besides the coordinate directions. Zero means none, as Moses.
	RandomDirections int
	// Min and Max bound each coordinate of the random start points and
	// random directions, drawn uniformly. When both are zero they are
	// DefaultMin and DefaultMax ([0, 1]). They do not bound the result.
	Min, Max float64
	// Epsilon: passes go on while a pass improves corpus BLEU (in [0, 1])
	// by more than Epsilon, or another metric's gain (on its own scale:
	// 0–100 for chrF and −TER) by more. Zero means DefaultEpsilon.
	Epsilon float64
	// Metric is the metric maximised (metric.Objective: BLEU as a
	// fraction, another metric's gain); nil is BLEU. The line searches sum
	// its statistics along the envelope, so they stay exact.
	Metric metric.Metric
	// MaxPasses limits the passes of one run; zero means no limit.
	MaxPasses int
	// NoNormalize keeps the weights as optimised instead of dividing them
	// by their L1 norm.
	NoNormalize bool
	// Features are the dimensions to optimise. Nil means every feature
	// active in the pool.
	Features []feature.ID
	// Threads is the number of goroutines of the line searches; zero means
	// GOMAXPROCS. The result does not depend on it.
	Threads int
	// Seed seeds the random generator (PCG).
	Seed uint64
}

func (o Options) restarts() int {
	return opt.OrOff(o.Restarts, DefaultRestarts)
}

func (o Options) bounds() (lo, hi float64) {
	if o.Min == 0 && o.Max == 0 {
		return DefaultMin, DefaultMax
	}
	return o.Min, o.Max
}

func (o Options) epsilon() float64 {
	if o.Epsilon == 0 {
		return DefaultEpsilon
	}
	return o.Epsilon
}

func (o Options) threads() int {
	if o.Threads > 0 {
		return o.Threads
	}
	return runtime.GOMAXPROCS(0)
}

func (o Options) validate() error {
	lo, hi := o.bounds()
	switch {
	case !finite(lo) || !finite(hi) || lo > hi:
		return fmt.Errorf("mert: bad range [%v, %v] of random points", o.Min, o.Max)
	case !finite(o.Epsilon) || o.Epsilon < 0:
		return fmt.Errorf("mert: bad epsilon %v", o.Epsilon)
	case o.RandomDirections < 0 || o.MaxPasses < 0:
		return fmt.Errorf("mert: negative count in options")
	}
	for _, id := range o.Features {
		if id < 0 {
			return fmt.Errorf("mert: negative feature id %d", id)
		}
	}
	return nil
}

// Info describes the last optimisation.
type Info struct {
	// Stats are the statistics of the re-ranked lists at the result; BLEU
	// is BLEUStats.BLEU (the objective, metric.Objective, under another
	// metric).
	Stats metric.Stats
	BLEU  float64
	// Dims is the number of dimensions optimised.
	Dims int
	// Runs is the number of runs (start points); BestRun the one that won
	// (0 is the start from the current weights).
	Runs, BestRun int
	// Passes and LineSearches count the work of all runs.
	Passes, LineSearches int
}

// MERT is the MERT optimizer. It satisfies learner.Learner.
type MERT struct {
	w    feature.Weights
	opts Options
	src  *rand.PCG
	rng  *rand.Rand
	info Info
}

var _ learner.Learner = (*MERT)(nil)

// New returns a MERT optimizer starting from a copy of w.
func New(w feature.Weights, opts Options) *MERT {
	src := rand.NewPCG(opts.Seed, pcgStream)
	opts.Features = slices.Clone(opts.Features)
	return &MERT{w: w.Clone(), opts: opts, src: src, rng: rand.New(src)}
}

// Weights returns a copy of the current weights.
func (m *MERT) Weights() feature.Weights { return m.w.Clone() }

// SetWeights replaces the weights (the start point of the next Learn).
func (m *MERT) SetWeights(w feature.Weights) { m.w = w.Clone() }

// Options returns the optimizer's options.
func (m *MERT) Options() Options {
	o := m.opts
	o.Features = slices.Clone(o.Features)
	return o
}

// Info describes the last Learn.
func (m *MERT) Info() Info { return m.info }

// BLEU returns corpus BLEU of lists re-ranked with w (unsmoothed, in
// [0, 1]).
func BLEU(lists []pool.List, w feature.Weights) float64 {
	return metric.BLEUStats(pool.OneBest(lists, w)).BLEU()
}

// Learn optimises the weights on lists from the current weights and
// Options.Restarts random points, drawing from the learner's random
// generator.
func (m *MERT) Learn(ctx context.Context, lists []pool.List) error {
	if err := learner.CheckLists(lists); err != nil {
		return fmt.Errorf("mert: %w", err)
	}
	if err := m.opts.validate(); err != nil {
		return err
	}
	if !m.w.Finite() {
		return errors.New("mert: non-finite start weights")
	}
	p, err := newProblem(lists, m.w, m.opts)
	if err != nil {
		return err
	}
	dims := len(p.ids)
	// Start points: the current weights, then the random ones, all drawn
	// before the runs (as mert does), then a seed for each run's random
	// directions.
	lo, hi := m.opts.bounds()
	starts := [][]float64{p.current(m.w)}
	for range m.opts.restarts() {
		pt := make([]float64, dims)
		for j := range pt {
			pt[j] = lo + m.rng.Float64()*(hi-lo)
		}
		starts = append(starts, pt)
	}
	seeds := make([]uint64, len(starts))
	for i := range seeds {
		seeds[i] = m.rng.Uint64()
	}
	info := Info{Dims: dims, Runs: len(starts)}
	var best []float64
	for i, pt := range starts {
		r := run{p: p, rng: rand.New(rand.NewPCG(seeds[i], uint64(i))), lo: lo, hi: hi}
		st, err := r.optimize(ctx, pt)
		if err != nil {
			return err
		}
		info.Passes += r.passes
		info.LineSearches += r.searches
		if best == nil || p.obj(st) > info.BLEU {
			best, info.Stats, info.BLEU, info.BestRun = pt, st, p.obj(st), i
		}
	}
	w := m.w.Clone()
	for j, id := range p.ids {
		w.Set(id, best[j])
	}
	if !m.opts.NoNormalize {
		var l1 float64
		for _, x := range w {
			l1 += math.Abs(x)
		}
		if l1 > 0 {
			for i := range w {
				w[i] /= l1
			}
		}
	}
	m.w = w
	// Report what re-ranking with the final weights gives (normalising may
	// change the rounding of near-tied scores).
	info.Stats = pool.OneBest(lists, w)
	info.BLEU = p.obj(info.Stats)
	m.info = info
	return nil
}

// problem is the pool in dense form: a column of values per dimension over
// all hypotheses (numbered as the Searcher numbers them), each sorted by
// slope for the coordinate line searches.
type problem struct {
	s       *linesearch.Searcher
	ids     []feature.ID
	cols    [][]float64
	orders  [][]int32
	fixed   []float64 // model score of the fixed features, nil if none
	opts    Options
	threads int
	n       int
	obj     func(metric.Stats) float64 // metric.Objective(opts.Metric)
	// scratch holds the runs' score vectors (base, next, slope,
	// bestSlope: n each), which the runs, one at a time, share: fresh
	// ones each run were 16 MB of garbage a run over a million hypotheses,
	// which let the heap grow to twice what the search holds.
	scratch [4][]float64
}

// buffers returns the problem's scratch vectors: base and next, and slope
// and bestSlope when random directions need them (else nil).
func (p *problem) buffers(random bool) (base, next, slope, bestSlope []float64) {
	k := 2
	if random {
		k = 4
	}
	for i := range k {
		if p.scratch[i] == nil {
			p.scratch[i] = make([]float64, p.n)
		}
	}
	return p.scratch[0], p.scratch[1], p.scratch[2], p.scratch[3]
}

func newProblem(lists []pool.List, w feature.Weights, opts Options) (*problem, error) {
	s, err := linesearch.NewSearcher(lists, linesearch.Options{Threads: opts.Threads, Metric: opts.Metric})
	if err != nil {
		return nil, fmt.Errorf("mert: %w", err)
	}
	p := &problem{s: s, opts: opts, threads: opts.threads(), n: s.Len(), obj: metric.Objective(opts.Metric)}
	maxID := feature.ID(-1)
	for _, l := range lists {
		for _, h := range l.Hyps {
			if n := len(h.Features.IDs); n > 0 {
				maxID = max(maxID, h.Features.IDs[n-1])
			}
		}
	}
	if opts.Features != nil {
		p.ids = slices.Clone(opts.Features)
		slices.Sort(p.ids)
		p.ids = slices.Compact(p.ids)
	} else {
		active := make([]bool, maxID+1)
		for _, l := range lists {
			for _, h := range l.Hyps {
				for _, id := range h.Features.IDs {
					active[id] = true
				}
			}
		}
		for id, ok := range active {
			if ok {
				p.ids = append(p.ids, feature.ID(id))
			}
		}
	}
	if len(p.ids) == 0 {
		return nil, errors.New("mert: no features to optimise")
	}
	dim := make([]int32, max(int(maxID)+1, 0))
	for i := range dim {
		dim[i] = -1
	}
	for j, id := range p.ids {
		if int(id) < len(dim) {
			dim[id] = int32(j)
		}
	}
	p.cols = make([][]float64, len(p.ids))
	for j := range p.cols {
		p.cols[j] = make([]float64, p.n)
	}
	k := 0
	for _, l := range lists {
		for _, h := range l.Hyps {
			var f float64
			for q, id := range h.Features.IDs {
				x := h.Features.Vals[q]
				if !finite(x) {
					return nil, fmt.Errorf("mert: sentence %d: feature %d has value %v", l.Sent, id, x)
				}
				if j := dim[id]; j >= 0 {
					p.cols[j][k] = x
				} else if wx := w.At(id) * x; wx != 0 {
					if p.fixed == nil {
						p.fixed = make([]float64, p.n)
					}
					f += wx
				}
			}
			if p.fixed != nil {
				p.fixed[k] = f
			}
			k++
		}
	}
	p.orders = make([][]int32, len(p.ids))
	for j := range p.orders {
		p.orders[j] = s.SortBySlope(p.cols[j], nil)
	}
	return p, nil
}

// current returns w's values in the problem's dimensions.
func (p *problem) current(w feature.Weights) []float64 {
	pt := make([]float64, len(p.ids))
	for j, id := range p.ids {
		pt[j] = w.At(id)
	}
	return pt
}

// parallel runs fn over contiguous chunks of the hypotheses.
func (p *problem) parallel(fn func(lo, hi int)) {
	t := max(1, min(p.threads, p.n/8192))
	if t == 1 {
		fn(0, p.n)
		return
	}
	par.Do(t, t, func(i int) { fn(p.n*i/t, p.n*(i+1)/t) })
}

// scores writes into dst the model score of every hypothesis at pt (with
// the fixed features when fixed is set) or the slope along pt.
func (p *problem) scores(dst, pt []float64, fixed bool) {
	p.parallel(func(lo, hi int) {
		for k := lo; k < hi; k++ {
			var s float64
			if fixed && p.fixed != nil {
				s = p.fixed[k]
			}
			for j, c := range p.cols {
				s += pt[j] * c[k]
			}
			dst[k] = s
		}
	})
}

// run is one optimisation from one start point.
type run struct {
	p                *problem
	rng              *rand.Rand
	lo, hi           float64
	passes, searches int
}

// optimize improves pt in place as Moses' SimpleOptimizer does and returns
// the statistics at the result.
func (r *run) optimize(ctx context.Context, pt []float64) (metric.Stats, error) {
	p := r.p
	dims := len(p.ids)
	nrand := p.opts.RandomDirections
	base, next, slope, bestSlope := p.buffers(nrand > 0)
	p.scores(base, pt, true)
	stats, err := p.s.OneBest(base)
	if err != nil {
		return metric.Stats{}, fmt.Errorf("mert: %w", err)
	}
	score := p.obj(stats)
	dir, bestDir := make([]float64, dims), make([]float64, dims)
	eps := p.opts.epsilon()
	for p.opts.MaxPasses == 0 || r.passes < p.opts.MaxPasses {
		if err := ctx.Err(); err != nil {
			return metric.Stats{}, err
		}
		r.passes++
		bestD, bestScore, bestGamma := -1, score, 0.0
		for d := 0; d < dims+nrand; d++ {
			var res linesearch.Result
			var err error
			if d < dims {
				res, err = p.s.SearchSorted(base, p.cols[d], p.orders[d])
			} else {
				for j := range dir {
					dir[j] = r.lo + r.rng.Float64()*(r.hi-r.lo)
				}
				p.scores(slope, dir, false)
				res, err = p.s.Search(base, slope)
			}
			if err != nil {
				return metric.Stats{}, fmt.Errorf("mert: %w", err)
			}
			r.searches++
			if b := p.obj(res.Stats); b > bestScore && res.Gamma != 0 {
				bestD, bestScore, bestGamma = d, b, res.Gamma
				if d >= dims {
					copy(bestDir, dir)
					slope, bestSlope = bestSlope, slope
				}
			}
		}
		if bestD < 0 {
			break
		}
		// Move to the best point and check its BLEU.
		var sl []float64
		if bestD < dims {
			sl = p.cols[bestD]
		} else {
			sl = bestSlope
		}
		p.parallel(func(lo, hi int) {
			for k := lo; k < hi; k++ {
				next[k] = base[k] + bestGamma*sl[k]
			}
		})
		st, err := p.s.OneBest(next)
		if err != nil {
			return metric.Stats{}, fmt.Errorf("mert: %w", err)
		}
		if p.obj(st) <= score {
			break // rounding made the line search's interval unreachable
		}
		if bestD < dims {
			pt[bestD] += bestGamma
		} else {
			for j := range pt {
				pt[j] += bestGamma * bestDir[j]
			}
		}
		base, next = next, base
		prev := score
		stats, score = st, p.obj(st)
		if score-prev <= eps {
			break
		}
	}
	// The result's statistics, from scores computed afresh.
	p.scores(base, pt, true)
	stats, err = p.s.OneBest(base)
	if err != nil {
		return metric.Stats{}, fmt.Errorf("mert: %w", err)
	}
	return stats, nil
}

func finite(x float64) bool { return x-x == 0 }
