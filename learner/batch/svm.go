package batch

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/internal/statecodec"
	"github.com/mtune/mtune/learner/sample"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// SVMOptions configure the structured SVM. The zero value is Cherry &
// Foster's (2012) setting.
type SVMOptions struct {
	// Lambda is the L2 weight λ of objective (4); zero means 1000, Cherry &
	// Foster's §4 setting (their tune.py passes the equivalent C = 1/λ =
	// 1e-3). The costs are sentence BLEU as a fraction in [0, 1], as the
	// package's MR; the paper does not say which scale its λ assumes (λ
	// on BLEU×100 gives the weights of 100λ here, times 100). It must be
	// positive: the dual bounds each sentence's multipliers by C = 1/λ.
	Lambda float64
	// Iterations is the most alternations of the latent SVM (oracle
	// selection, then a structured SVM solve); zero means 10, as Cherry &
	// Foster. Learn stops earlier when no oracle changes.
	Iterations int
	// Epsilon is the tolerance of the cutting-plane algorithm and of its
	// dual solver, in sentence BLEU (a fraction): a constraint violated by
	// less than Epsilon beyond its sentence's slack is not added, and a
	// sentence's dual block counts as solved when its active constraints'
	// violations differ by at most Epsilon; zero means 1e-4.
	Epsilon float64
	// Metric, when not nil nor BLEU, replaces sentence BLEU in the costs:
	// its sentence score as a fraction (metric.SentenceFraction); the
	// alternations' reports then give its objective (metric.Objective).
	Metric metric.Metric
	// Seed seeds the order in which the dual solver visits the sentences.
	// Every seed is valid.
	Seed uint64
	// Threads is the number of goroutines that evaluate each alternation's
	// 1-best BLEU on the pool; zero means GOMAXPROCS. The result does not
	// depend on it.
	Threads int
}

func (o SVMOptions) withDefaults() (SVMOptions, error) {
	o.Lambda, o.Iterations, o.Epsilon = cmp.Or(o.Lambda, 1000), cmp.Or(o.Iterations, 10), cmp.Or(o.Epsilon, 1e-4)
	switch {
	case !(o.Lambda > 0) || math.IsInf(o.Lambda, 0):
		return o, fmt.Errorf("batch: SVM lambda = %v, want a positive number", o.Lambda)
	case o.Iterations < 0:
		return o, fmt.Errorf("batch: SVM iterations = %d, want ≥ 0", o.Iterations)
	case !(o.Epsilon > 0) || math.IsInf(o.Epsilon, 0):
		return o, fmt.Errorf("batch: SVM epsilon = %v, want a positive number", o.Epsilon)
	case o.Threads < 0:
		return o, fmt.Errorf("batch: threads = %d, want ≥ 0", o.Threads)
	}
	return o, nil
}

func (o SVMOptions) seed() uint64 { return o.Seed }

func (SVMOptions) format() stateFormat[SVMOptions, SVMRun] { return svmFormat }

// SVMIteration summarises one alternation of the latent SVM.
type SVMIteration struct {
	// Changed is the number of sentences whose oracle changed (all of them
	// in the first iteration).
	Changed int
	// Rounds is the number of cutting-plane rounds, Passes the number of
	// passes of the dual solver over the sentences, and Constraints the
	// size of the working set at the end.
	Rounds, Passes, Constraints int
	// Converged reports that the cutting-plane algorithm ended with a round
	// that added no constraint and every dual solve met its tolerance,
	// rather than at a limit (svmMaxRounds, svmMaxPasses).
	Converged bool
	// Objective is objective (4) with the §3.2 loss at the iteration's
	// weights; Gap the duality gap of the structured SVM with the
	// iteration's oracles fixed (its primal objective minus its dual),
	// at most 2ε times the number of sentences when it converged.
	Objective, Gap float64
	// BLEU is the corpus BLEU (a fraction) of the 1-best hypotheses under
	// the iteration's weights (under another metric, its objective:
	// metric.Objective).
	BLEU float64
}

// SVMRun summarises the last Learn of an SVM.
type SVMRun struct {
	// Initial is objective (4) at the starting weights.
	Initial float64
	// Iterations has one entry an alternation.
	Iterations []SVMIteration
	// Best is the index in Iterations of the weights Learn kept, those
	// with the lowest objective; -1 when there was no iteration.
	Best int
}

// SVM is the structured SVM of Cherry & Foster (2012, §3.2), a latent SVM
// (Yu & Joachims 2009) on the pooled k-best lists. It minimises objective
// (4),
//
//	F(w) = (λ/2)‖w‖² + Σ_i ℓ_i(w),
//
// with the loss of §3.2 (printed without an equation number; it is MIRA's
// structured hinge (2) with the oracle left free inside an oracle set):
//
//	Ẽ*_i   = {e ∈ Ẽ_i : BLEU_i(e) is maximal}                 (oracle set)
//	Δ_i(e) = max_e' BLEU_i(e') − BLEU_i(e)                     (cost)
//	ℓ_i(w) = max_e [Δ_i(e) + w·h_i(e)] − max_{e*∈Ẽ*_i} w·h_i(e*)   (loss)
//
// where BLEU_i is Liang et al.'s (2006) interpolated sentence BLEU
// (metric.InterpolatedBLEU), a fixed cost, unlike MIRA's pseudo-corpus.
// The maximiser of the first term is the cost-augmented "fear" hypothesis
// of §3.1, argmax_e w·h_i(e) − BLEU_i(e).
//
// As §3.2 describes, Learn alternates Iterations times: it fixes each
// sentence's oracle e*_i, the member of Ẽ*_i with the highest model score
// (1) under the current weights, which turns (4) into a convex structured
// SVM, and solves that by the n-slack cutting-plane algorithm of
// Tsochantaridis et al. (2004) — in rounds, add each sentence's fear when
// it violates its margin by more than Epsilon beyond the sentence's slack,
// then re-solve the quadratic program on the working set — until a round
// adds nothing. The quadratic programs are solved, as the paper says, by a
// multiclass SVM dual coordinate descent like LIBLINEAR's (Hsieh et al.
// 2008; Keerthi et al. 2008): with C = 1/λ and δ_i(e) = h_i(e*_i) − h_i(e),
// the dual is
//
//	max_α Σ_i Σ_e α_ie Δ_i(e) − ½‖Σ α_ie δ_i(e)‖²,  α ≥ 0, Σ_e α_ie = C,
//	w = Σ_i Σ_e α_ie δ_i(e),
//
// (the oracle's own multiplier is the slack's), and the solver visits the
// sentences in a random order each pass, LIBLINEAR's permutation, and
// optimises one sentence's block of multipliers by SMO steps that move
// mass between its most and least violated constraints. The paper leaves
// open how the alternations start and end: Learn warm-starts each solve
// from the previous multipliers (still feasible when an oracle changes,
// since every member of Ẽ*_i has cost 0), stops when no oracle changes, and
// keeps the weights of the alternation with the lowest objective (4) — what
// Cherry's SvmTrainNbest (not public) appears to do: Portage's tune.py
// reads "Best obj found on it#" from its log. The
// starting weights only break the first oracles' BLEU ties; the weights
// Learn returns are at the SVM's own scale (tune.py normalises them
// afterwards, which changes no ranking).
type SVM struct {
	state[SVMOptions, SVMRun]
}

// NewSVM returns the structured SVM starting from weights w (copied).
func NewSVM(w feature.Weights, opts SVMOptions) (*SVM, error) {
	return newLearner[SVM](w, opts)
}

func (r SVMRun) clone() SVMRun {
	r.Iterations = append([]SVMIteration(nil), r.Iterations...)
	return r
}

// Learn trains the structured SVM on lists from the current weights and
// keeps the weights with the lowest objective. On error (bad input, ctx
// cancelled) the learner is unchanged.
func (s *SVM) Learn(ctx context.Context, lists []pool.List) error {
	return s.learnLocal(ctx, lists, func(c *compiled) ([]float64, SVMRun, error) {
		return newSVMProblem(c, s.opts).learn(ctx, c.gather(s.w), rand.New(s.rng))
	})
}

// Limits that make every solve end; the tolerances normally end it first.
const (
	svmMaxRounds     = 200  // cutting-plane rounds a solve
	svmMaxPasses     = 1000 // dual passes a quadratic program
	svmMaxBlockSteps = 50   // SMO steps on one sentence's block a visit
)

// svmProblem is the latent structured SVM on a compiled pool: its costs,
// current oracles, working sets with their dual multipliers, and the
// weights w = Σ α δ they give.
type svmProblem struct {
	c      *compiled
	obj    func(metric.Stats) float64 // the alternations' reported score
	lambda float64
	cap    float64 // C = 1/λ, the sum of each sentence's multipliers
	eps    float64
	iters  int
	thr    int       // Threads
	gain   []float64 // interpolated sentence BLEU of each hypothesis
	top    []float64 // each list's highest gain
	oracle []int     // each list's oracle e*_i, -1 before the first selection
	ws     [][]int   // each list's working set (hypotheses), oracle included
	alpha  [][]float64
	w      []float64
	// scratch
	v        []float64
	ids, ta  []int32
	diff, tb []float64
	order    []int
}

// statsMetric is the metric the pool's statistics are of (nil: BLEU).
func (o SVMOptions) statsMetric() metric.Metric { return o.Metric }

func newSVMProblem(c *compiled, o SVMOptions) *svmProblem {
	n := c.lists()
	gain := metric.InterpolatedBLEU
	if g := sample.MetricGain(o.Metric); g != nil {
		gain = g
	}
	p := &svmProblem{c: c, lambda: o.Lambda, cap: 1 / o.Lambda, eps: o.Epsilon, iters: o.Iterations, thr: o.Threads,
		obj:  metric.Objective(o.Metric),
		gain: c.gains(gain), top: make([]float64, n), oracle: make([]int, n),
		ws: make([][]int, n), alpha: make([][]float64, n), w: make([]float64, c.dim), order: make([]int, n)}
	for l := range p.top {
		p.top[l] = math.Inf(-1)
		for h := c.start[l]; h < c.start[l+1]; h++ {
			p.top[l] = max(p.top[l], p.gain[h])
		}
		p.oracle[l] = -1
		p.order[l] = l
	}
	return p
}

// learn runs the latent SVM's alternations of §3.2 from the local start
// weights w0: select the oracles under the current weights, solve the
// structured SVM they fix, repeat until no oracle changes or Iterations
// alternations; it returns the weights with the lowest objective (4).
func (p *svmProblem) learn(ctx context.Context, w0 []float64, rng *rand.Rand) ([]float64, SVMRun, error) {
	run := SVMRun{Initial: p.objective(w0), Best: -1}
	best, bestObj := w0, math.Inf(1)
	cur := w0
	for it := 0; it < p.iters; it++ {
		if err := checkCtx(ctx); err != nil {
			return nil, run, err
		}
		changed := p.selectOracles(cur)
		if it > 0 && changed == 0 {
			break // the same convex problem as the last alternation
		}
		p.rebuild()
		st := SVMIteration{Changed: changed}
		var err error
		if st.Rounds, st.Passes, st.Converged, err = p.cuttingPlane(ctx, rng); err != nil {
			return nil, run, err
		}
		cur = append([]float64(nil), p.w...)
		for _, s := range p.ws {
			st.Constraints += len(s)
		}
		st.Objective = p.objective(cur)
		st.Gap = p.primal() - p.dual()
		st.BLEU = p.obj(p.c.oneBest(cur, p.thr))
		run.Iterations = append(run.Iterations, st)
		if st.Objective < bestObj {
			best, bestObj, run.Best = cur, st.Objective, it
		}
	}
	return best, run, nil
}

// selectOracles sets each list's oracle e*_i to the member of its oracle
// set Ẽ*_i with the highest model score (1) under w, the earliest on ties,
// puts it in the working set, and returns how many oracles changed.
func (p *svmProblem) selectOracles(w []float64) int {
	c, changed := p.c, 0
	for l := range p.oracle {
		best, bestScore := -1, 0.0
		for h := c.start[l]; h < c.start[l+1]; h++ {
			if p.gain[h] != p.top[l] {
				continue
			}
			if s := c.dot(h, w); best < 0 || s > bestScore {
				best, bestScore = h, s
			}
		}
		if best == p.oracle[l] {
			continue
		}
		changed++
		p.oracle[l] = best
		if p.ws[l] == nil { // first selection: all the mass on the slack
			p.ws[l], p.alpha[l] = []int{best}, []float64{p.cap}
			continue
		}
		if !slices.Contains(p.ws[l], best) {
			p.ws[l] = append(p.ws[l], best)
			p.alpha[l] = append(p.alpha[l], 0)
		}
	}
	return changed
}

// rebuild recomputes w = Σ_i Σ_e α_ie (h(e*_i) − h(e)) from the multipliers
// and the current oracles.
func (p *svmProblem) rebuild() {
	clear(p.w)
	for l, s := range p.ws {
		var sum float64
		for k, h := range s {
			sum += p.alpha[l][k]
			p.c.addTo(p.w, h, -p.alpha[l][k])
		}
		p.c.addTo(p.w, p.oracle[l], sum)
	}
}

// cost returns the fear score w·h(e) − BLEU_i(e) of hypothesis h under the
// current weights: Δ_i(e) + w·h(e) up to a constant of the sentence, so the
// constraint of e is violated by its fear score minus the oracle's.
func (p *svmProblem) cost(h int) float64 { return p.c.dot(h, p.w) - p.gain[h] }

// cuttingPlane solves the structured SVM with the oracles fixed by the
// n-slack cutting-plane algorithm (Tsochantaridis et al. 2004): each round
// adds every sentence's most violated constraint, its fear
// argmax_e Δ_i(e) + w·h_i(e), when it exceeds the sentence's slack
// ξ_i = max_{e ∈ W_i} (its violation) by more than ε, then re-solves the
// dual on the working sets; it ends with a round that adds nothing. It
// returns the rounds, the dual passes, and whether it converged (ended so,
// with the last dual solve within its tolerance).
func (p *svmProblem) cuttingPlane(ctx context.Context, rng *rand.Rand) (rounds, passes int, converged bool, err error) {
	c := p.c
	solved := false
	for rounds < svmMaxRounds {
		if err := checkCtx(ctx); err != nil {
			return rounds, passes, false, err
		}
		rounds++
		added := 0
		for l, s := range p.ws {
			slack := math.Inf(-1)
			for _, h := range s {
				slack = max(slack, p.cost(h))
			}
			fear, fearCost := -1, 0.0
			for h := c.start[l]; h < c.start[l+1]; h++ {
				if v := p.cost(h); fear < 0 || v > fearCost {
					fear, fearCost = h, v
				}
			}
			if fearCost > slack+p.eps && !slices.Contains(s, fear) {
				p.ws[l] = append(s, fear)
				p.alpha[l] = append(p.alpha[l], 0)
				added++
			}
		}
		if added == 0 && solved {
			return rounds, passes, converged, nil
		}
		n, ok, err := p.solveDual(ctx, rng)
		passes += n
		if err != nil {
			return rounds, passes, false, err
		}
		solved, converged = true, ok
	}
	return rounds, passes, false, nil
}

// solveDual runs dual coordinate descent on the working sets until every
// sentence's block satisfies the KKT conditions within ε (or
// svmMaxPasses), visiting the sentences in a fresh random order each pass
// as LIBLINEAR does. It returns the passes made and whether the last met
// the tolerance.
func (p *svmProblem) solveDual(ctx context.Context, rng *rand.Rand) (int, bool, error) {
	for pass := 1; pass <= svmMaxPasses; pass++ {
		if err := checkCtx(ctx); err != nil {
			return pass - 1, false, err
		}
		rng.Shuffle(len(p.order), func(i, j int) { p.order[i], p.order[j] = p.order[j], p.order[i] })
		worst := 0.0
		for _, l := range p.order {
			worst = max(worst, p.solveBlock(l))
		}
		if worst <= p.eps {
			return pass, true, nil
		}
	}
	return svmMaxPasses, false, nil
}

// solveBlock optimises the multipliers of list l, the others fixed, by SMO
// steps: move mass from the least violated constraint holding any (down)
// to the most violated one (up) — the dual's gradient in α_ie is e's
// violation Δ_i(e) − w·δ_i(e), and moving t changes w by
// t (h(down) − h(up)) — with the step that equalises their violations,
// clipped to α_down. It returns the block's KKT violation before the
// first step.
func (p *svmProblem) solveBlock(l int) float64 {
	s, a := p.ws[l], p.alpha[l]
	if len(s) < 2 {
		return 0
	}
	p.v = slices.Grow(p.v[:0], len(s))[:len(s)]
	first := 0.0
	for step := 0; step < svmMaxBlockSteps; step++ {
		up, down := 0, -1
		for k, h := range s {
			p.v[k] = p.cost(h)
			if p.v[k] > p.v[up] {
				up = k
			}
			if a[k] > 0 && (down < 0 || p.v[k] < p.v[down]) {
				down = k
			}
		}
		if down < 0 { // no mass: cannot happen while Σ_e α_ie = C > 0
			break
		}
		viol := p.v[up] - p.v[down]
		if step == 0 {
			first = viol
		}
		if viol <= p.eps || up == down {
			break
		}
		p.ids, p.diff, p.ta, p.tb = p.c.diff(s[down], s[up], p.ids[:0], p.diff[:0], p.ta[:0], p.tb[:0])
		var norm float64
		for _, x := range p.diff {
			norm += x * x
		}
		t := a[down]
		if norm > 0 {
			t = min(t, viol/norm)
		}
		if t == a[down] {
			a[up] += a[down]
			a[down] = 0
		} else {
			a[up] += t
			a[down] -= t
		}
		for k, j := range p.ids {
			p.w[j] += t * p.diff[k]
		}
	}
	return first
}

// objective returns objective (4) with the §3.2 loss at local weights w:
// (λ/2)‖w‖² + Σ_i max_e [Δ_i(e) + w·h_i(e)] − max_{e*∈Ẽ*_i} w·h_i(e*).
func (p *svmProblem) objective(w []float64) float64 {
	c := p.c
	var sq, loss float64
	for _, x := range w {
		sq += x * x
	}
	for l := range p.top {
		fear, oracle := math.Inf(-1), math.Inf(-1)
		for h := c.start[l]; h < c.start[l+1]; h++ {
			s := c.dot(h, w)
			fear = max(fear, s-p.gain[h])
			if p.gain[h] == p.top[l] {
				oracle = max(oracle, s)
			}
		}
		loss += fear + p.top[l] - oracle
	}
	return p.lambda/2*sq + loss
}

// primal returns objective (4) at the current weights with the oracles
// fixed: the loss of list i is max_e [Δ_i(e) + w·h_i(e)] − w·h_i(e*_i).
func (p *svmProblem) primal() float64 {
	c := p.c
	var sq, loss float64
	for _, x := range p.w {
		sq += x * x
	}
	for l, o := range p.oracle {
		fear := math.Inf(-1)
		for h := c.start[l]; h < c.start[l+1]; h++ {
			fear = max(fear, p.cost(h))
		}
		loss += fear - p.cost(o)
	}
	return p.lambda/2*sq + loss
}

// dual returns the dual objective at the current multipliers, scaled to
// the primal's units: λ (Σ_i Σ_e α_ie Δ_i(e) − ½‖w‖²). It is at most the
// primal, equal at the optimum.
func (p *svmProblem) dual() float64 {
	var sq, lin float64
	for _, x := range p.w {
		sq += x * x
	}
	for l, s := range p.ws {
		for k, h := range s {
			lin += p.alpha[l][k] * (p.top[l] - p.gain[h])
		}
	}
	return p.lambda * (lin - sq/2)
}

// svmFormat is how an SVM saves its state.
var svmFormat = stateFormat[SVMOptions, SVMRun]{
	magic:   "mtune/batch.SVM",
	version: 1,
	opts: func(c *statecodec.Coder, o *SVMOptions) {
		c.F64(&o.Lambda)
		statecodec.Int(c, &o.Iterations)
		c.F64(&o.Epsilon)
		c.U64(&o.Seed)
		statecodec.Int(c, &o.Threads)
	},
	run: func(c *statecodec.Coder, r *SVMRun) {
		c.F64(&r.Initial)
		statecodec.Int(c, &r.Best)
		statecodec.Records(c, &r.Iterations, 8*7+1, func(c *statecodec.Coder, it *SVMIteration) {
			statecodec.Int(c, &it.Changed)
			statecodec.Int(c, &it.Rounds)
			statecodec.Int(c, &it.Passes)
			statecodec.Int(c, &it.Constraints)
			c.Bool(&it.Converged)
			c.F64(&it.Objective)
			c.F64(&it.Gap)
			c.F64(&it.BLEU)
		})
	},
}
