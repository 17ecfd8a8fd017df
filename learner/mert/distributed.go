package mert

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/linesearch"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// Distributed MERT. Learn holds the whole pool; a Coordinator runs the
// same optimisation (the same start points, random directions, stopping
// rule and choice of the best run) over a pool it never sees, split into
// parts that other machines hold. Each pass of every run is one round:
//
//   - the Coordinator says, in a Pass, from which point each run searches
//     and along which directions (the coordinate directions Dims, then the
//     run's random directions of the pass);
//   - each part of the pool computes its Share (Pass.Share): the summed
//     statistics of its 1-bests at every run's point, and, for every run
//     and direction, the envelopes of its sentences along the line (Och
//     2003, §4; linesearch.SentenceEnvelope), merged (linesearch.Envelopes);
//   - the shares are merged direction by direction wherever convenient and
//     each line is swept (linesearch.Sweep, what Learn's line search does
//     over the whole pool), giving a PassResult;
//   - Update moves each run to its best line's point, or ends it, as
//     Moses' SimpleOptimizer does: a pass that improves corpus BLEU by no
//     more than Epsilon, or finds no better point, ends the run.
//
// A move is checked in the next round, with the statistics computed afresh
// at the new point (Learn checks them in the same pass): a run whose moved
// point turns out no better (rounding) goes back to its previous point and
// ends, as in Learn. The state the Coordinator holds is O(runs × features);
// a round's messages are O(runs × directions) line search results.

// Pass is one round of a distributed MERT: the runs still searching and
// the points and directions of their line searches.
type Pass struct {
	// N is the 1-based round.
	N int
	// Dims are the coordinate directions, the same for every run.
	Dims []feature.ID
	// Runs are the runs of the round.
	Runs []RunPass
}

// RunPass is one run's part of a round.
type RunPass struct {
	// Run numbers the run (0: the start from the current weights).
	Run int
	// Point is the run's current point: every weight.
	Point feature.Weights
	// Search is false when the round only checks the point (the run has
	// used up its passes): no line is searched.
	Search bool
	// Random are the pass's random directions (values on Dims only),
	// searched after the coordinate directions.
	Random []feature.Weights
}

// Directions returns how many lines r searches in a round with dims
// coordinate directions.
func (r RunPass) Directions(dims int) int {
	if !r.Search {
		return 0
	}
	return dims + len(r.Random)
}

// Share is what one part of the pool contributes to a round: for each of
// the Pass's runs, the summed statistics of the part's 1-bests at the run's
// point and the part's envelopes along each of the run's directions.
type Share struct {
	Stats     []metric.Stats
	Envelopes [][]linesearch.Envelopes
}

// Share computes lists' share of the round, with the column layout and
// slope orders Learn uses (one problem for every run: the runs differ only
// on Dims), the hypotheses' statistics checked as those of metric m (nil:
// BLEU), the Options.Metric of the Coordinator.
func (p Pass) Share(lists []pool.List, m metric.Metric) (Share, error) {
	sh := Share{Stats: make([]metric.Stats, len(p.Runs)), Envelopes: make([][]linesearch.Envelopes, len(p.Runs))}
	for i, r := range p.Runs {
		sh.Envelopes[i] = make([]linesearch.Envelopes, r.Directions(len(p.Dims)))
	}
	if pool.Size(lists) == 0 || len(p.Runs) == 0 {
		return sh, nil
	}
	pr, err := newProblem(lists, p.Runs[0].Point, Options{Features: p.Dims, Metric: m})
	if err != nil {
		return Share{}, err
	}
	base := make([]float64, pr.n)
	var slope []float64
	for i, r := range p.Runs {
		pr.scores(base, pr.current(r.Point), true)
		if sh.Stats[i], err = pr.s.OneBest(base); err != nil {
			return Share{}, fmt.Errorf("mert: %w", err)
		}
		for d := range sh.Envelopes[i] {
			var e linesearch.Envelopes
			if d < len(p.Dims) {
				e, err = pr.s.Envelopes(base, pr.cols[d], pr.orders[d])
			} else {
				if slope == nil {
					slope = make([]float64, pr.n)
				}
				pr.scores(slope, pr.current(r.Random[d-len(p.Dims)]), false)
				e, err = pr.s.Envelopes(base, slope, nil)
			}
			if err != nil {
				return Share{}, fmt.Errorf("mert: %w", err)
			}
			sh.Envelopes[i][d] = e
		}
	}
	return sh, nil
}

// SweepOptions are the options of the line searches of a round
// (linesearch.Sweep), those of Learn's, for the corpus score of metric m
// (nil: BLEU), the Coordinator's Options.Metric.
func SweepOptions(m metric.Metric) linesearch.Options { return linesearch.Options{Metric: m} }

// PassResult is the outcome of a round, indexed as the Pass's runs: the
// statistics of the whole pool's 1-bests at each run's point and the
// result of each of its line searches.
type PassResult struct {
	Stats    []metric.Stats
	Searches [][]linesearch.Result
}

// Coordinator runs MERT over a pool held elsewhere (see Pass). It draws
// its start points and random directions as Learn does, from the same
// seed, so that both search the same lines.
type Coordinator struct {
	opts   Options
	dims   []feature.ID
	lo, hi float64
	runs   []*distRun
	round  int
	plan   *Pass
	info   Info
}

// distRun is one run's state.
type distRun struct {
	pt     feature.Weights
	rng    *rand.Rand
	stats  metric.Stats
	score  float64
	scored bool
	// prev is the point before the move under check, nil if none.
	prev     feature.Weights
	done     bool
	passes   int
	searches int
}

// NewCoordinator starts MERT from w along dims (sorted, no duplicates: the
// features to optimise; Options.Features is ignored). The start points are
// w and Options.Restarts random points, drawn as Learn draws them.
func NewCoordinator(w feature.Weights, dims []feature.ID, opts Options) (*Coordinator, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if !w.Finite() {
		return nil, errors.New("mert: non-finite start weights")
	}
	if len(dims) == 0 {
		return nil, errors.New("mert: no features to optimise")
	}
	if !slices.IsSorted(dims) || len(slices.Compact(slices.Clone(dims))) != len(dims) || dims[0] < 0 {
		return nil, fmt.Errorf("mert: dimensions %v are not sorted distinct ids", dims)
	}
	m := New(w, opts)
	lo, hi := opts.bounds()
	c := &Coordinator{opts: opts, dims: slices.Clone(dims), lo: lo, hi: hi}
	width := max(len(w), int(dims[len(dims)-1])+1)
	at := func(vals []float64) feature.Weights {
		pt := make(feature.Weights, width)
		copy(pt, w)
		for j, id := range dims {
			pt[id] = vals[j]
		}
		return pt
	}
	cur := make([]float64, len(dims))
	for j, id := range dims {
		cur[j] = w.At(id)
	}
	starts := []feature.Weights{at(cur)}
	for range opts.restarts() {
		vals := make([]float64, len(dims))
		for j := range vals {
			vals[j] = lo + m.rng.Float64()*(hi-lo)
		}
		starts = append(starts, at(vals))
	}
	for i, pt := range starts {
		c.runs = append(c.runs, &distRun{pt: pt, rng: rand.New(rand.NewPCG(m.rng.Uint64(), uint64(i)))})
	}
	c.info = Info{Dims: len(dims), Runs: len(starts)}
	return c, nil
}

// Next returns the next round, or false when every run has ended.
func (c *Coordinator) Next() (Pass, bool) {
	if c.plan != nil {
		return *c.plan, true
	}
	p := Pass{N: c.round + 1, Dims: c.dims}
	for i, r := range c.runs {
		if r.done {
			continue
		}
		rp := RunPass{Run: i, Point: r.pt, Search: c.opts.MaxPasses == 0 || r.passes < c.opts.MaxPasses}
		if rp.Search {
			for range c.opts.RandomDirections {
				dir := make(feature.Weights, len(r.pt))
				for _, id := range c.dims {
					dir[id] = c.lo + r.rng.Float64()*(c.hi-c.lo)
				}
				rp.Random = append(rp.Random, dir)
			}
		}
		p.Runs = append(p.Runs, rp)
	}
	if len(p.Runs) == 0 {
		return Pass{}, false
	}
	c.plan = &p
	return p, true
}

// Update takes the result of the round Next returned.
func (c *Coordinator) Update(res PassResult) error {
	p := c.plan
	if p == nil {
		return errors.New("mert: Update without a round")
	}
	if len(res.Stats) != len(p.Runs) || len(res.Searches) != len(p.Runs) {
		return fmt.Errorf("mert: round %d has %d runs, the result %d statistics and %d searches", p.N, len(p.Runs), len(res.Stats), len(res.Searches))
	}
	for i, rp := range p.Runs {
		if n := rp.Directions(len(p.Dims)); len(res.Searches[i]) != n {
			return fmt.Errorf("mert: round %d run %d searched %d lines, the result has %d", p.N, rp.Run, n, len(res.Searches[i]))
		}
		if err := metric.CheckStats(c.opts.Metric, res.Stats[i]); err != nil {
			return fmt.Errorf("mert: round %d run %d: %w", p.N, rp.Run, err)
		}
	}
	for i, rp := range p.Runs {
		c.update(c.runs[rp.Run], rp, res.Stats[i], res.Searches[i])
	}
	c.plan = nil
	c.round++
	return nil
}

// update is one run's step of Learn's loop (optimize), from the statistics
// st at its point and its line searches.
func (c *Coordinator) update(r *distRun, rp RunPass, st metric.Stats, searches []linesearch.Result) {
	obj := metric.Objective(c.opts.Metric)
	score := obj(st)
	switch {
	case !r.scored:
		r.stats, r.score, r.scored = st, score, true
	case r.prev != nil && score <= r.score:
		// The move made no gain after all: back, and end.
		r.pt, r.prev, r.done = r.prev, nil, true
		return
	default:
		prev := r.score
		r.stats, r.score, r.prev = st, score, nil
		if score-prev <= c.opts.epsilon() {
			r.done = true
			return
		}
	}
	if !rp.Search {
		r.done = true
		return
	}
	r.passes++
	r.searches += len(searches)
	bestD, bestScore, bestGamma := -1, r.score, 0.0
	for d, s := range searches {
		if b := obj(s.Stats); b > bestScore && s.Gamma != 0 {
			bestD, bestScore, bestGamma = d, b, s.Gamma
		}
	}
	if bestD < 0 {
		r.done = true
		return
	}
	r.prev = r.pt
	next := r.pt.Clone()
	if bestD < len(c.dims) {
		next[c.dims[bestD]] += bestGamma
	} else {
		dir := rp.Random[bestD-len(c.dims)]
		for _, id := range c.dims {
			next[id] += bestGamma * dir[id]
		}
	}
	r.pt = next
}

// Rounds returns the number of rounds done.
func (c *Coordinator) Rounds() int { return c.round }

// Result returns the best run's weights, scaled to an L1 norm of 1 unless
// Options.NoNormalize, and a description of the optimisation whose Stats
// are those of the best run's point before scaling. It fails while runs
// are still searching.
func (c *Coordinator) Result() (feature.Weights, Info, error) {
	info := c.info
	best := -1
	for i, r := range c.runs {
		if !r.done {
			return nil, Info{}, fmt.Errorf("mert: run %d has not ended", i)
		}
		info.Passes += r.passes
		info.LineSearches += r.searches
		st := r.stats
		if obj := metric.Objective(c.opts.Metric); best < 0 || obj(st) > info.BLEU {
			best, info.Stats, info.BLEU, info.BestRun = i, st, obj(st), i
		}
	}
	w := c.runs[best].pt.Clone()
	if !c.opts.NoNormalize {
		w.NormalizeL1()
	}
	return w, info, nil
}
