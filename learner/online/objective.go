package online

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/loss"
	"github.com/mtune/mtune/learner/sample"
	"github.com/mtune/mtune/pool"
)

// ErrNotFinite reports a gradient or step with a NaN or infinite entry,
// from feature values or weights too large for float64.
var ErrNotFinite = errors.New("online: non-finite gradient")

// Pairwise is the objective of the gradient learners (SGD and AdaGrad):
// pairs sampled from every list of a mini-batch, the pairwise logistic loss
// of Green et al. (2013, eq. 12) or the pairwise hinge over their difference
// vectors, summed, plus optional feature noising (Wang et al. 2013). The
// zero value is Green et al.'s objective: 15 pairs a sentence
// (sample.Green), logistic loss, no noising.
type Pairwise struct {
	// Sampler samples the pairs; nil means sample.Green().
	Sampler *sample.PRO
	// Hinge selects the pairwise hinge loss instead of the logistic one.
	Hinge bool
	// Noising is the dropout-noising regulariser added to the logistic loss;
	// its zero value is off. It cannot be used with Hinge. Its Unlabeled
	// vectors, if any, are added to every mini-batch's.
	Noising loss.Noising
	// UnlabeledPairs is the number of random pairs of hypotheses (a ≠ b,
	// their order unknown) drawn from each list as unlabelled inputs of the
	// noising regulariser; zero means none.
	UnlabeledPairs int
}

func (p Pairwise) validate() error {
	if p.Hinge && p.Noising.Rate != 0 {
		return errors.New("online: feature noising is defined for the logistic loss, not the hinge")
	}
	if p.Noising.Rate < 0 || p.Noising.Rate >= 1 {
		return fmt.Errorf("online: dropout rate %v outside [0, 1)", p.Noising.Rate)
	}
	if p.UnlabeledPairs < 0 {
		return fmt.Errorf("online: %d unlabelled pairs", p.UnlabeledPairs)
	}
	return nil
}

// seeded returns the generator Gradient draws from for seed.
func seeded(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// gradient returns the objective's gradient on batch at w and its value.
func (p Pairwise) gradient(w feature.Weights, batch []pool.List, seed uint64) (feature.Vector, float64, error) {
	r := seeded(seed)
	s := sample.Green()
	if p.Sampler != nil {
		s = *p.Sampler
	}
	xs := sample.Vectors(batch, s.Sample(r, batch, nil), nil)
	var g feature.Builder
	var v float64
	if p.Hinge {
		v = loss.Hinge(w, xs, &g)
	} else {
		v = loss.Logistic(w, xs, &g)
		if p.Noising.Rate > 0 {
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
		return feature.Vector{}, 0, fmt.Errorf("%w: loss %v on a batch of %d lists", ErrNotFinite, v, len(batch))
	}
	return gv, v, nil
}

func finite(v feature.Vector) error {
	for _, x := range v.Vals {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ErrNotFinite
		}
	}
	return nil
}

// batchIDs returns the distinct feature ids of the hypotheses of batch, in
// increasing order, reusing buf.
func batchIDs(batch []pool.List, buf []feature.ID) []feature.ID {
	buf = buf[:0]
	for _, l := range batch {
		for _, h := range l.Hyps {
			buf = append(buf, h.Features.IDs...)
		}
	}
	slices.Sort(buf)
	return slices.Compact(buf)
}

// withCurrent runs f on the weight slice w whose coordinates ids (sorted,
// distinct) hold, during the call, the values cur(j) reports, the other
// coordinates left as they are; it restores w before returning. Learners
// whose stored weights lag their current ones (pending lazy
// regularisation, a pending scale factor) compute a gradient this way in
// O(|ids|) with exactly the values Current would give.
func withCurrent(w []float64, ids []feature.ID, saved []float64, cur func(j int) float64, f func()) []float64 {
	saved = saved[:0]
	for _, id := range ids {
		if int(id) >= len(w) {
			break
		}
		saved = append(saved, w[id])
	}
	for k := range saved {
		w[ids[k]] = cur(int(ids[k]))
	}
	defer func() {
		for k, x := range saved {
			w[ids[k]] = x
		}
	}()
	f()
	return saved
}

// grow returns s extended with zeros to length n.
func grow[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	return append(s, make([]T, n-len(s))...)
}

// epoch runs one epoch over lists in the given order (a permutation of
// their indices): mini-batches of size, update called on each.
func epoch(ctx context.Context, order []int, lists []pool.List, size int, update func(context.Context, []pool.List) error) error {
	batch := make([]pool.List, 0, size)
	for start := 0; start < len(order); start += size {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch = batch[:0]
		for _, i := range order[start:min(start+size, len(order))] {
			batch = append(batch, lists[i])
		}
		if err := update(ctx, batch); err != nil {
			return err
		}
	}
	return nil
}
