package online

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/loss"
	"github.com/mtune/mtune/learner/sample"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// ErrNotFinite reports a gradient or step with a NaN or infinite entry,
// from feature values or weights too large for float64.
var ErrNotFinite = errors.New("online: non-finite gradient")

// Pairwise is the objective of the gradient learners (SGD and AdaGrad):
// pairs sampled from every list of a mini-batch, the pairwise logistic loss
// of Green et al. (2013, eq. 12) or the pairwise hinge over their difference
// vectors, summed, plus optional feature noising (Wang et al. 2013: dropout
// or additive Gaussian noise, loss.Noising). The
// zero value is Green et al.'s objective: 15 pairs a sentence
// (sample.Green), logistic loss, no noising.
type Pairwise struct {
	// Sampler samples the pairs; nil means sample.Green().
	Sampler *sample.PRO
	// Hinge selects the pairwise hinge loss instead of the logistic one.
	Hinge bool
	// Noising is the feature-noising regulariser added to the logistic
	// loss; its zero value is off. It cannot be used with Hinge. Its
	// Unlabeled vectors, if any, are added to every mini-batch's.
	Noising loss.Noising
	// UnlabeledPairs is the number of random pairs of hypotheses (a ≠ b,
	// their order unknown) drawn from each list as unlabelled inputs of the
	// noising regulariser (Wang et al.'s eq. 11); zero means none. It
	// needs Noising on.
	UnlabeledPairs int
	// Metric, when not nil nor BLEU, is the metric of the hypotheses'
	// statistics: the sampler ranks them by its sentence score as a
	// fraction (sample.MetricGain) instead of its own Gain, and a batch
	// whose statistics are not the metric's is an error.
	Metric metric.Metric
}

func (p Pairwise) validate() error {
	if p.Hinge && p.Noising.On() {
		return errors.New("online: feature noising is defined for the logistic loss, not the hinge")
	}
	if err := p.Noising.Validate(); err != nil {
		return fmt.Errorf("online: %w", err)
	}
	if p.UnlabeledPairs < 0 {
		return fmt.Errorf("online: %d unlabelled pairs", p.UnlabeledPairs)
	}
	if p.UnlabeledPairs > 0 && !p.Noising.On() {
		return fmt.Errorf("online: %d unlabelled pairs without feature noising: they only enter its regulariser", p.UnlabeledPairs)
	}
	return nil
}

// seeded returns the generator Gradient draws from for seed.
func seeded(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// pairCount counts the pairs a learner's gradients sampled
// (learner.PairSampler).
type pairCount struct{ n atomic.Int64 }

// PairsSampled returns the number of pairs the learner's gradients sampled
// since it was made.
func (c *pairCount) PairsSampled() int64 { return c.n.Load() }

// gradientOnly is gradient without the loss; it adds the pairs it sampled
// to c.
func (p Pairwise) gradientOnly(w feature.Weights, batch []pool.List, seed uint64, c *pairCount) (feature.Vector, error) {
	g, _, pairs, err := p.gradientPairs(w, batch, seed)
	c.n.Add(int64(pairs))
	return g, err
}

// gradientPairs returns the objective's gradient on batch at w, its value
// and the number of pairs it sampled.
func (p Pairwise) gradientPairs(w feature.Weights, batch []pool.List, seed uint64) (feature.Vector, float64, int, error) {
	if err := checkStats(p.Metric, batch); err != nil {
		return feature.Vector{}, 0, 0, err
	}
	r := seeded(seed)
	s := sample.Green()
	if p.Sampler != nil {
		s = *p.Sampler
	}
	if g := sample.MetricGain(p.Metric); g != nil {
		s.Gain = g
	}
	xs := sample.Vectors(batch, s.Sample(r, batch, nil), nil)
	var g feature.Builder
	var v float64
	if p.Hinge {
		v = loss.Hinge(w, xs, &g)
	} else {
		v = loss.Logistic(w, xs, &g)
		if p.Noising.On() {
			n := p.Noising
			if p.UnlabeledPairs > 0 {
				n.Unlabeled = slices.Clip(n.Unlabeled)
				for _, l := range batch {
					if len(l.Hyps) < 2 {
						continue
					}
					for range p.UnlabeledPairs {
						a := r.IntN(len(l.Hyps))
						b := r.IntN(len(l.Hyps) - 1)
						if b >= a {
							b++
						}
						n.Unlabeled = append(n.Unlabeled, feature.Diff(l.Hyps[a].Features, l.Hyps[b].Features))
					}
				}
			}
			v += n.Penalty(w, xs, &g)
		}
	}
	gv := g.Vector()
	if err := finite(gv); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return feature.Vector{}, 0, len(xs), fmt.Errorf("%w: loss %v on a batch of %d lists", ErrNotFinite, v, len(batch))
	}
	return gv, v, len(xs), nil
}

// checkStats returns an error, wrapping metric.ErrStats, if a hypothesis
// of batch does not hold statistics of m (metric.Metric.Check); with no
// metric (nil: the learner's own sentence BLEU, or a sampler's Gain) it
// checks nothing, as before other metrics.
func checkStats(m metric.Metric, batch []pool.List) error {
	if m == nil {
		return nil
	}
	for _, l := range batch {
		for k, h := range l.Hyps {
			if err := m.Check(h.Stats()); err != nil {
				return fmt.Errorf("online: sentence %d hypothesis %d: %w", l.Sent, k, err)
			}
		}
	}
	return nil
}

func finite(v feature.Vector) error {
	for _, x := range v.Vals {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ErrNotFinite
		}
	}
	return nil
}

// grow returns s extended with zeros to length n.
func grow[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	return append(s, make([]T, n-len(s))...)
}

// assign sets dst to w, as every learner's SetWeights does: it grows dst to
// len(w) when shorter and zeroes its coordinates beyond w.
func assign(dst []float64, w feature.Weights) []float64 {
	dst = grow(dst, len(w))
	copy(dst, w)
	clear(dst[len(w):])
	return dst
}
