package batch

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/par"
	"github.com/mtune/mtune/learner/internal/statecodec"
	"github.com/mtune/mtune/learner/sample"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// MROptions configure minimum risk training. The zero value is Cherry &
// Foster's (2012) setting.
type MROptions struct {
	// Lambda is the L2 weight λ of the objective (λ/2)‖w‖² + Σ_i ℓ_i(w)
	// and of the learning rate η₀/(1+η₀λt); zero means 50, as Cherry &
	// Foster; negative means no regularisation (and a constant rate η₀).
	Lambda float64
	// Eta0 is the initial learning rate η₀; zero means choosing it before
	// each restart as Bottou (2010) does: the rate, among powers of two
	// times a start value, whose one SGD epoch on a sample of at most
	// TuneSample sentences reaches the lowest objective.
	Eta0 float64
	// TuneSample is the most sentences η₀ is chosen on; zero means 1000.
	TuneSample int
	// Scale is the factor α of the model scores in the softmax
	// p(e) ∝ exp(α w·φ(e)); zero means 1 (no sharpening, as Cherry &
	// Foster).
	Scale float64
	// Restarts is the number of SGD runs: each reshuffles the sentences,
	// chooses η₀ afresh and restarts the rate schedule from the best
	// weights so far; zero means 5, as Cherry & Foster.
	Restarts int
	// Epochs is the most epochs of one run; zero means 20. A run also
	// stops when an epoch lowers the objective by less than Tolerance
	// times its magnitude.
	Epochs int
	// Tolerance is the relative decrease of the objective under which a
	// run stops; zero means 1e-4.
	Tolerance float64
	// Smoothing is the sentence BLEU whose expectation is maximised; the
	// zero value is add-1 BLEU (metric.LinOch), as Cherry & Foster.
	Smoothing metric.PlusOneVariant
	// Metric, when not nil nor BLEU, replaces sentence BLEU: the gain
	// whose expectation is maximised is its sentence score as a fraction
	// (metric.SentenceFraction).
	Metric metric.Metric
	// Seed seeds the shuffles and the η₀ samples. Every seed is valid.
	Seed uint64
	// Threads is the number of goroutines that compute the objective over
	// the pool; zero means GOMAXPROCS. The result does not depend on it.
	Threads int
}

func (o MROptions) withDefaults() (MROptions, error) {
	o.Lambda, o.TuneSample, o.Scale = cmp.Or(o.Lambda, 50), cmp.Or(o.TuneSample, 1000), cmp.Or(o.Scale, 1)
	o.Restarts, o.Epochs, o.Tolerance = cmp.Or(o.Restarts, 5), cmp.Or(o.Epochs, 20), cmp.Or(o.Tolerance, 1e-4)
	switch {
	case math.IsNaN(o.Lambda) || math.IsInf(o.Lambda, 0):
		return o, fmt.Errorf("batch: MR lambda = %v", o.Lambda)
	case o.Eta0 < 0 || math.IsNaN(o.Eta0) || math.IsInf(o.Eta0, 0):
		return o, fmt.Errorf("batch: MR eta0 = %v, want ≥ 0", o.Eta0)
	case o.TuneSample < 0:
		return o, fmt.Errorf("batch: MR tune sample = %d, want ≥ 0", o.TuneSample)
	case !(o.Scale > 0) || math.IsInf(o.Scale, 0):
		return o, fmt.Errorf("batch: MR scale = %v, want a positive number", o.Scale)
	case o.Restarts < 0 || o.Epochs < 0:
		return o, fmt.Errorf("batch: MR restarts = %d, epochs = %d, want ≥ 0", o.Restarts, o.Epochs)
	case !(o.Tolerance >= 0) || math.IsInf(o.Tolerance, 0):
		return o, fmt.Errorf("batch: MR tolerance = %v", o.Tolerance)
	case o.Smoothing < metric.LinOch || o.Smoothing > metric.MosesPlusOneSmoothBP:
		return o, fmt.Errorf("batch: unknown MR smoothing %d", o.Smoothing)
	case o.Threads < 0:
		return o, fmt.Errorf("batch: threads = %d, want ≥ 0", o.Threads)
	}
	return o, nil
}

// lambda returns the L2 weight in use (0 when regularisation is off).
func (o MROptions) lambda() float64 { return max(o.Lambda, 0) }

// MRRestart summarises one SGD run of MR.
type MRRestart struct {
	// Eta0 is the initial learning rate of the run.
	Eta0 float64
	// Epochs is the number of epochs run.
	Epochs int
	// Objective is the objective after each epoch.
	Objective []float64
}

// MRRun summarises the last Learn of an MR.
type MRRun struct {
	// Initial is the objective at the starting weights; Final the
	// objective at the weights Learn kept, the lowest seen.
	Initial, Final float64
	Restarts       []MRRestart
}

// MR is minimum risk training (Cherry & Foster 2012, §2.4): it minimises
//
//	F(w) = (λ/2)‖w‖² + Σ_i ℓ_i(w),   ℓ_i(w) = −Σ_e p_i(e) BLEU_i(e),
//	p_i(e) = exp(α w·φ(e)) / Σ_e' exp(α w·φ(e')),
//
// the expected negated sentence BLEU of each n-best list under the softmax
// of the model scores, by stochastic gradient descent (Bottou 2010): one
// sentence i a step, w ← w − η_t (λw + n ∇ℓ_i(w)) with
// η_t = η₀/(1 + η₀λt), where n is the number of sentences and
//
//	∇ℓ_i(w) = −α Σ_e p_i(e) (BLEU_i(e) − E_p[BLEU_i]) φ(e).
//
// Learn runs Restarts runs from the current weights, each stopping at a
// local optimum, and keeps the weights with the lowest objective. The L2
// shrinkage is applied to a scale factor, so a step costs O(the non-zero
// features of sentence i).
type MR struct {
	state[MROptions, MRRun]
}

// NewMR returns MR starting from weights w (copied).
func NewMR(w feature.Weights, opts MROptions) (*MR, error) {
	return newLearner[MR](w, opts)
}

func (r MRRun) clone() MRRun {
	r.Restarts = append([]MRRestart(nil), r.Restarts...)
	for i := range r.Restarts {
		r.Restarts[i].Objective = append([]float64(nil), r.Restarts[i].Objective...)
	}
	return r
}

// Learn minimises the objective on lists from the current weights. On
// error (bad input, ctx cancelled) the learner is unchanged.
func (m *MR) Learn(ctx context.Context, lists []pool.List) error {
	return m.learnLocal(ctx, lists, func(c *compiled) ([]float64, MRRun, error) {
		w, run, err := m.learn(ctx, c)
		if err == nil && !allFinite(w) {
			err = fmt.Errorf("batch: MR diverged (non-finite weights); lower Eta0 or Scale")
		}
		return w, run, err
	})
}

func allFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// mrProblem is the MR objective on a compiled pool.
type mrProblem struct {
	c       *compiled
	gain    []float64 // sentence BLEU of each hypothesis
	alpha   float64
	lambda  float64
	threads int
}

// statsMetric is the metric the pool's statistics are of (nil: BLEU).
func (o MROptions) statsMetric() metric.Metric { return o.Metric }

func newMRProblem(c *compiled, o MROptions) *mrProblem {
	v := o.Smoothing
	gain := func(s metric.Stats) float64 { return metric.BLEUPlusOne(s, v) }
	if g := sample.MetricGain(o.Metric); g != nil {
		gain = g
	}
	return &mrProblem{
		c:       c,
		gain:    c.gains(gain),
		alpha:   o.Scale,
		lambda:  o.lambda(),
		threads: o.Threads,
	}
}

// sentence returns ℓ_l(a·v) for list l and stores in coef (of the list's
// length) the coefficient of each hypothesis' features in the gradient
// with respect to the weights a·v: ∇ℓ_l = Σ_e coef[e-lo] φ(e).
func (pr *mrProblem) sentence(l int, v []float64, a float64, coef []float64) float64 {
	c := pr.c
	lo, hi := c.start[l], c.start[l+1]
	coef = coef[:hi-lo]
	mx := math.Inf(-1)
	as := pr.alpha * a
	for h := lo; h < hi; h++ {
		s := as * c.dot(h, v)
		coef[h-lo] = s
		mx = max(mx, s)
	}
	var z, eg float64
	for h := lo; h < hi; h++ {
		p := math.Exp(coef[h-lo] - mx)
		coef[h-lo] = p
		z += p
		eg += p * pr.gain[h]
	}
	eg /= z
	for h := lo; h < hi; h++ {
		p := coef[h-lo] / z
		coef[h-lo] = -pr.alpha * p * (pr.gain[h] - eg)
	}
	return -eg
}

// objective returns F(w) over the lists in sents (all lists if nil) with
// the L2 term weighted by len(sents)/n, and adds its gradient to grad
// unless grad is nil. The value alone is computed in parallel, in chunks
// of lists summed in a fixed order; with the gradient, in one goroutine.
func (pr *mrProblem) objective(w []float64, sents []int, grad []float64) float64 {
	c := pr.c
	n := c.lists()
	m := n
	if sents != nil {
		m = len(sents)
	}
	chunk, threads := evalChunk, pr.threads
	if grad != nil {
		chunk, threads = max(m, 1), 1
	}
	chunks := (m + chunk - 1) / chunk
	vals := make([]float64, chunks)
	work := func(ch int) {
		var coef []float64
		var sum float64
		for k := ch * chunk; k < min(m, (ch+1)*chunk); k++ {
			l := k
			if sents != nil {
				l = sents[k]
			}
			lo, hi := c.start[l], c.start[l+1]
			if cap(coef) < hi-lo {
				coef = make([]float64, hi-lo)
			}
			sum += pr.sentence(l, w, 1, coef[:hi-lo])
			if grad != nil {
				for h := lo; h < hi; h++ {
					c.addTo(grad, h, coef[h-lo])
				}
			}
		}
		vals[ch] = sum
	}
	par.Do(chunks, threads, work)
	var f float64
	for _, v := range vals {
		f += v
	}
	frac := float64(m) / float64(n)
	var sq float64
	for j, v := range w {
		sq += v * v
		if grad != nil {
			grad[j] += frac * pr.lambda * v
		}
	}
	return f + frac*pr.lambda/2*sq
}

// scaled is a weight vector kept as a·v, so that the L2 shrinkage
// w ← (1−ηλ)w costs O(1).
type scaled struct {
	a float64
	v []float64
}

func newScaled(w []float64) *scaled { return &scaled{a: 1, v: append([]float64(nil), w...)} }

func (s *scaled) clone() *scaled { return &scaled{a: s.a, v: append([]float64(nil), s.v...)} }

func (s *scaled) shrink(f float64) {
	s.a *= f
	switch {
	case s.a == 0:
		clear(s.v)
		s.a = 1
	case math.Abs(s.a) < 1e-9 || math.Abs(s.a) > 1e9:
		for j := range s.v {
			s.v[j] *= s.a
		}
		s.a = 1
	}
}

func (s *scaled) weights() []float64 {
	w := make([]float64, len(s.v))
	for j, x := range s.v {
		w[j] = s.a * x
	}
	return w
}

// rate returns the learning rate η₀/(1+η₀λt) of step t.
func (pr *mrProblem) rate(eta0 float64, t int) float64 {
	return eta0 / (1 + eta0*pr.lambda*float64(t))
}

// sgd makes one SGD step a list, over the lists in order, starting at step
// t of the rate schedule with initial rate eta0, and returns the step
// count reached. coef is scratch.
func (pr *mrProblem) sgd(s *scaled, order []int, eta0 float64, t int, coef []float64) (int, []float64) {
	c := pr.c
	n := float64(c.lists())
	for _, l := range order {
		lo, hi := c.start[l], c.start[l+1]
		if cap(coef) < hi-lo {
			coef = make([]float64, hi-lo)
		}
		coef = coef[:hi-lo]
		pr.sentence(l, s.v, s.a, coef) // gradient at the weights before the step
		eta := pr.rate(eta0, t)
		// w ← (1−ηλ)w − η n Σ_e coef_e φ(e), with w = a·v.
		s.shrink(1 - eta*pr.lambda)
		f := -eta * n / s.a
		for h := lo; h < hi; h++ {
			if coef[h-lo] != 0 {
				c.addTo(s.v, h, f*coef[h-lo])
			}
		}
		t++
	}
	return t, coef
}

// tuneEta0 returns an initial rate for SGD from s on sample, as Bottou's
// determineEta0: starting from 1/λ (1 without regularisation) it doubles or
// halves the rate while one epoch over sample reaches a lower objective on
// sample. If the rate found does not lower the objective below its value at
// s (the objective is not convex, so the search is local), it keeps
// halving until one does, at most 60 times.
func (pr *mrProblem) tuneEta0(s *scaled, sample []int) float64 {
	eval := func(eta0 float64) float64 {
		t := s.clone()
		pr.sgd(t, sample, eta0, 0, nil)
		f := pr.objective(t.weights(), sample, nil)
		if math.IsNaN(f) {
			return math.Inf(1)
		}
		return f
	}
	const factor, steps = 2, 60
	lo := 1.0
	if pr.lambda > 0 {
		lo = 1 / pr.lambda
	}
	loF := eval(lo)
	hi := lo * factor
	hiF := eval(hi)
	var best, bestF float64
	if loF <= hiF {
		for k := 0; k < steps && loF <= hiF; k++ {
			hi, hiF = lo, loF
			lo = hi / factor
			loF = eval(lo)
		}
		best, bestF = lo, loF
		if hiF < loF {
			best, bestF = hi, hiF
		}
	} else {
		for k := 0; k < steps && hiF < loF; k++ {
			lo, loF = hi, hiF
			hi = lo * factor
			hiF = eval(hi)
		}
		best, bestF = lo, loF
	}
	f0 := pr.objective(s.weights(), sample, nil)
	for k := 0; k < steps && !(bestF < f0); k++ {
		best /= factor
		bestF = eval(best)
	}
	return best
}

func (m *MR) learn(ctx context.Context, c *compiled) ([]float64, MRRun, error) {
	o := m.opts
	pr := newMRProblem(c, o)
	rng := rand.New(m.rng)
	s := newScaled(c.gather(m.w))
	best := s.weights()
	bestF := pr.objective(best, nil, nil)
	run := MRRun{Initial: bestF}
	n := c.lists()
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	var coef []float64
	for r := 0; r < o.Restarts; r++ {
		if err := checkCtx(ctx); err != nil {
			return nil, run, err
		}
		s = newScaled(best)
		rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		eta0 := o.Eta0
		if eta0 == 0 {
			sample := order
			if len(sample) > o.TuneSample {
				sample = order[:o.TuneSample]
			}
			eta0 = pr.tuneEta0(s, sample)
		}
		rs := MRRestart{Eta0: eta0}
		prev := bestF
		t := 0
		for e := 0; e < o.Epochs; e++ {
			if err := checkCtx(ctx); err != nil {
				return nil, run, err
			}
			if e > 0 {
				rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
			}
			t, coef = pr.sgd(s, order, eta0, t, coef)
			w := s.weights()
			f := pr.objective(w, nil, nil)
			rs.Objective = append(rs.Objective, f)
			rs.Epochs++
			if f < bestF {
				best, bestF = w, f
			}
			if !(prev-f > o.Tolerance*math.Abs(prev)) {
				break
			}
			prev = f
		}
		run.Restarts = append(run.Restarts, rs)
	}
	run.Final = bestF
	return best, run, nil
}

// mrFormat is how an MR saves its state.
var mrFormat = stateFormat[MROptions, MRRun]{
	magic:   "mtune/batch.MR",
	version: 1,
	opts: func(c *statecodec.Coder, o *MROptions) {
		c.F64(&o.Lambda)
		c.F64(&o.Eta0)
		statecodec.Int(c, &o.TuneSample)
		c.F64(&o.Scale)
		statecodec.Int(c, &o.Restarts)
		statecodec.Int(c, &o.Epochs)
		c.F64(&o.Tolerance)
		statecodec.Int(c, &o.Smoothing)
		c.U64(&o.Seed)
		statecodec.Int(c, &o.Threads)
	},
	run: func(c *statecodec.Coder, r *MRRun) {
		c.F64(&r.Initial)
		c.F64(&r.Final)
		statecodec.Records(c, &r.Restarts, 8*3, func(c *statecodec.Coder, s *MRRestart) {
			c.F64(&s.Eta0)
			statecodec.Int(c, &s.Epochs)
			c.F64s(&s.Objective)
		})
	},
}
