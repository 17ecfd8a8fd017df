package batch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/optimize"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/internal/opt"
	"github.com/mtune/mtune/learner/internal/statecodec"
	"github.com/mtune/mtune/learner/loss"
	"github.com/mtune/mtune/learner/sample"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// PROGain is the sentence BLEU+1 that PRO's sampler ranks hypotheses by.
type PROGain int

const (
	// GainMoses is Moses' pro BLEU+1 (metric.MosesPlusOne).
	GainMoses PROGain = iota
	// GainMosesSmoothBP is Moses' pro with --smooth-brevity-penalty
	// (metric.MosesPlusOneSmoothBP).
	GainMosesSmoothBP
	// GainLinOch is the BLEU+1 of Lin & Och (2004) (metric.LinOch).
	GainLinOch
)

func (g PROGain) variant() metric.PlusOneVariant {
	switch g {
	case GainMosesSmoothBP:
		return metric.MosesPlusOneSmoothBP
	case GainLinOch:
		return metric.LinOch
	}
	return metric.MosesPlusOne
}

// PROOptions configure PRO. The zero value is Moses' pro followed by a
// logistic regression close to the MegaM run mert-moses.pl makes.
type PROOptions struct {
	// Gamma, Xi and MinDiff are the sampler's Γ candidate pairs a sentence,
	// Ξ pairs kept a sentence and threshold on the BLEU+1 difference, as
	// in sample.PRO: zero means 5000, 50 and 0.05; a negative MinDiff keeps
	// every pair whose gains differ.
	Gamma, Xi int
	MinDiff   float64
	// Gain is the BLEU+1 the sampler ranks by; the zero value is Moses'.
	Gain PROGain
	// Metric, when not nil nor BLEU, replaces BLEU+1: the sampler ranks
	// hypotheses by its sentence score as a fraction
	// (metric.SentenceFraction), so that MinDiff keeps its scale.
	Metric metric.Metric
	// Lambda is the weight λ of the L2 term (λ/2)‖w‖² added to the mean
	// logistic loss of the sampled pairs; zero means 1/(2N) for N pairs,
	// which is MegaM's default Gaussian prior of precision 1 on the summed
	// loss of the 2N examples Moses' pro writes (each pair in both
	// orientations); negative means no regularisation.
	Lambda float64
	// Iterations is the most L-BFGS iterations; zero means no limit other
	// than convergence. (mert-moses.pl runs MegaM with -maxi 30.)
	Iterations int
	// Interpolate, when positive, returns α·w_PRO + (1−α)·w_previous
	// (mert-moses.pl --historic-interpolation, Hopkins & May 2011 §5.4.3
	// suggest 0.1); zero returns w_PRO, as mert-moses.pl by default.
	Interpolate float64
	// Normalize divides the weights PRO learns by the sum of their
	// absolute values, as mert-moses.pl does with MegaM's output (before
	// any interpolation); false keeps the classifier's scale.
	Normalize bool
	// Seed seeds the sampler. Every seed is valid.
	Seed uint64
}

func (o PROOptions) withDefaults() (PROOptions, error) {
	o.Gamma, o.Xi, o.MinDiff = cmp.Or(o.Gamma, sample.DefaultGamma), cmp.Or(o.Xi, sample.DefaultXi), cmp.Or(o.MinDiff, sample.DefaultMinDiff)
	switch {
	case o.Gamma < 0 || o.Xi < 0:
		return o, fmt.Errorf("batch: PRO gamma = %d, xi = %d, want ≥ 0", o.Gamma, o.Xi)
	case math.IsNaN(o.MinDiff) || math.IsInf(o.MinDiff, 0):
		return o, fmt.Errorf("batch: PRO threshold = %v", o.MinDiff)
	case o.Gain < GainMoses || o.Gain > GainLinOch:
		return o, fmt.Errorf("batch: unknown PRO gain %d", o.Gain)
	case math.IsNaN(o.Lambda) || math.IsInf(o.Lambda, 0):
		return o, fmt.Errorf("batch: PRO lambda = %v", o.Lambda)
	case o.Iterations < 0:
		return o, fmt.Errorf("batch: PRO iterations = %d, want ≥ 0", o.Iterations)
	case !(o.Interpolate >= 0 && o.Interpolate <= 1):
		return o, fmt.Errorf("batch: PRO interpolation = %v, want 0 ≤ α ≤ 1", o.Interpolate)
	}
	return o, nil
}

// statsMetric is the metric the pool's statistics are of (nil: BLEU).
func (o PROOptions) statsMetric() metric.Metric { return o.Metric }

// sampler returns the pair sampler the options describe.
func (o PROOptions) sampler() sample.PRO {
	gain := sample.PlusOne(o.Gain.variant())
	if g := sample.MetricGain(o.Metric); g != nil {
		gain = g
	}
	return sample.PRO{Gamma: o.Gamma, Xi: o.Xi, MinDiff: o.MinDiff, Gain: gain}
}

// PRORun summarises the last Learn of a PRO.
type PRORun struct {
	// Pairs is the number of pairs sampled.
	Pairs int
	// Lambda is the L2 weight used.
	Lambda float64
	// Initial and Final are the objective at the start and at the end.
	Initial, Final float64
	// Iterations is the number of L-BFGS iterations; Status gonum's
	// termination status.
	Iterations int
	Status     string
}

// PRO is pairwise ranking optimisation (Hopkins & May 2011) as Moses runs
// it: each Learn samples pairs of hypotheses from every list with the PRO
// sampler (learner/sample), then fits the weights by L2-regularised
// logistic regression without bias on their difference vectors,
//
//	minimise (1/N) Σ_pairs log(1 + exp(−w·(φ(better) − φ(worse)))) + (λ/2)‖w‖²,
//
// by L-BFGS (gonum) from the current weights. Moses' pro writes each pair
// in both orientations (x labelled 1, −x labelled 0) for MegaM; without a
// bias both have the same loss, so the mean over them is the mean above.
type PRO struct {
	state[PROOptions, PRORun]
}

// NewPRO returns PRO starting from weights w (copied).
func NewPRO(w feature.Weights, opts PROOptions) (*PRO, error) {
	return newLearner[PRO](w, opts)
}

func (r PRORun) clone() PRORun { return r }

// Learn samples pairs from lists and fits the weights to them. When no
// pair can be sampled (every list's hypotheses score alike) the weights
// stay as they are. On error (bad input, ctx cancelled) the learner is
// unchanged.
func (p *PRO) Learn(ctx context.Context, lists []pool.List) error {
	return p.learnWith(ctx, lists, func(c *compiled) (feature.Weights, PRORun, error) {
		return p.learn(ctx, c, lists)
	})
}

func (p *PRO) learn(ctx context.Context, c *compiled, lists []pool.List) (feature.Weights, PRORun, error) {
	pairs := p.opts.sampler().Sample(rand.New(p.rng), lists, nil)
	if c.dense {
		rows, err := diffRows(lists, pairs, c.ids)
		if err != nil {
			return nil, PRORun{Pairs: len(pairs)}, err
		}
		return p.minimize(ctx, c.ids, len(pairs), func(x, grad []float64) float64 {
			return loss.LogisticRows(x, rows, grad)
		})
	}
	return p.fit(ctx, c.ids, sample.Vectors(lists, pairs, nil))
}

// diffRows returns the difference vector φ(better) − φ(worse) of each
// pair as a dense row over the local ids (ids: sorted, distinct, the
// pool's features): for a pool whose features are dense, half the bytes of
// sparse vectors and no id to look up a value. Each value is the one
// feature.Diff gives, and zero where Diff drops the feature
// (loss.LogisticRows).
func diffRows(lists []pool.List, pairs []sample.Pair, ids []feature.ID) ([]float64, error) {
	d := len(ids)
	rows := make([]float64, len(pairs)*d)
	for i, pr := range pairs {
		row := rows[i*d : (i+1)*d]
		h := lists[pr.List].Hyps
		for _, side := range [2]struct {
			v    feature.Vector
			sign float64
		}{{h[pr.Better].Features, 1}, {h[pr.Worse].Features, -1}} {
			for k, id := range side.v.IDs {
				j, found := slices.BinarySearch(ids, id)
				if !found {
					return nil, fmt.Errorf("batch: PRO: pair %d has feature %d, not one of the pool's", i, id)
				}
				row[j] += side.sign * side.v.Vals[k]
			}
		}
	}
	return rows, nil
}

// fit is the logistic regression of Learn over the difference vectors xs
// (global ids) in the dimensions ids (sorted, distinct: the features of the
// pool the pairs come from).
func (p *PRO) fit(ctx context.Context, ids []feature.ID, xs []feature.Vector) (feature.Weights, PRORun, error) {
	// Difference vectors over local ids.
	for i, x := range xs {
		local := make([]feature.ID, len(x.IDs))
		for k, id := range x.IDs {
			j, found := slices.BinarySearch(ids, id)
			if !found {
				return nil, PRORun{Pairs: len(xs)}, fmt.Errorf("batch: PRO: pair %d has feature %d, not one of the pool's", i, id)
			}
			local[k] = feature.ID(j)
		}
		xs[i] = feature.Vector{IDs: local, Vals: x.Vals}
	}
	return p.minimize(ctx, ids, len(xs), func(x, grad []float64) float64 {
		var g loss.Sink
		if grad != nil {
			g = loss.Dense(grad)
		}
		return loss.Logistic(x, xs, g)
	})
}

// minimize is the logistic regression of Learn over pairs difference
// vectors in the dimensions ids, whose summed loss at the local weights x
// sumLoss gives, adding its gradient to grad when grad is not nil.
func (p *PRO) minimize(ctx context.Context, ids []feature.ID, pairs int, sumLoss func(x, grad []float64) float64) (feature.Weights, PRORun, error) {
	o := p.opts
	run := PRORun{Pairs: pairs}
	if pairs == 0 {
		return p.w.Clone(), run, nil
	}
	c := &compiled{ids: ids, dim: len(ids)}
	n := float64(pairs)
	lambda := opt.OrOff(o.Lambda, 1/(2*n))
	run.Lambda = lambda
	obj := func(x []float64, grad []float64) float64 {
		if grad != nil {
			clear(grad)
		}
		f := sumLoss(x, grad) / n
		var sq float64
		for j, v := range x {
			sq += v * v
			if grad != nil {
				grad[j] = grad[j]/n + lambda*v
			}
		}
		return f + lambda/2*sq
	}
	// gonum asks for the value and the gradient at the same point in turn:
	// compute both at once and keep them for the second call.
	var (
		lastX, lastG []float64
		lastF        float64
	)
	eval := func(x []float64) {
		if lastX != nil && slices.Equal(x, lastX) {
			return
		}
		lastX = append(lastX[:0], x...)
		lastG = slices.Grow(lastG[:0], len(x))[:len(x)]
		lastF = obj(x, lastG)
	}
	problem := optimize.Problem{
		Func: func(x []float64) float64 { eval(x); return lastF },
		Grad: func(grad, x []float64) { eval(x); copy(grad, lastG) },
		Status: func() (optimize.Status, error) {
			if err := ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			return optimize.NotTerminated, nil
		},
	}
	x0 := c.gather(p.w)
	run.Initial = obj(x0, nil)
	res, err := optimize.Minimize(problem, x0, &optimize.Settings{MajorIterations: o.Iterations, GradientThreshold: proGradTol}, &optimize.LBFGS{})
	if cerr := ctx.Err(); cerr != nil {
		return nil, run, fmt.Errorf("batch: %w", cerr)
	}
	if err != nil && res == nil {
		return nil, run, fmt.Errorf("batch: PRO: %w", err)
	}
	if err != nil && !errors.Is(err, optimize.ErrLinesearcherFailure) && !errors.Is(err, optimize.ErrNoProgress) {
		return nil, run, fmt.Errorf("batch: PRO: %w", err)
	}
	x := res.X
	if !allFinite(x) {
		return nil, run, fmt.Errorf("batch: PRO: L-BFGS reached non-finite weights")
	}
	run.Final, run.Iterations, run.Status = res.F, res.MajorIterations, res.Status.String()
	w := c.scatter(p.w, x)
	if o.Normalize {
		feature.Weights(w).NormalizeL1()
	}
	if a := o.Interpolate; a > 0 {
		prev := p.w
		for j := range w {
			w[j] = a*w[j] + (1-a)*prev.At(feature.ID(j))
		}
	}
	return w, run, nil
}

// proGradTol is the gradient norm (∞-norm, of the mean loss) at which
// L-BFGS stops.
const proGradTol = 1e-8

// proFormat is how a PRO saves its state.
var proFormat = stateFormat[PROOptions, PRORun]{
	magic:   "mtune/batch.PRO",
	version: 1,
	opts: func(c *statecodec.Coder, o *PROOptions) {
		statecodec.Int(c, &o.Gamma)
		statecodec.Int(c, &o.Xi)
		c.F64(&o.MinDiff)
		statecodec.Int(c, &o.Gain)
		c.F64(&o.Lambda)
		statecodec.Int(c, &o.Iterations)
		c.F64(&o.Interpolate)
		c.Bool(&o.Normalize)
		c.U64(&o.Seed)
	},
	run: func(c *statecodec.Coder, r *PRORun) {
		statecodec.Int(c, &r.Pairs)
		c.F64(&r.Lambda)
		c.F64(&r.Initial)
		c.F64(&r.Final)
		statecodec.Int(c, &r.Iterations)
		c.String(&r.Status)
	},
}
