package online

import (
	"context"
	"fmt"
	"math"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/internal/statecodec"
	"github.com/mtune/mtune/learner/loss"
	"github.com/mtune/mtune/pool"
)

// Defaults of Green et al. (2013) §4.2.
const (
	DefaultAdaGradRate  = 0.02
	DefaultL1           = 0.1
	DefaultAdaGradBatch = 20
)

// AdaGradOptions configure an AdaGrad learner. The zero value is Green et
// al.'s setting: η = 0.02, λ = 0.1, mini-batches of 20, 15 pairs a
// sentence under the logistic loss.
type AdaGradOptions struct {
	// Rate is the learning rate η; zero means DefaultAdaGradRate.
	Rate float64
	// L1 is the strength λ of the L1 proximal step; zero means DefaultL1,
	// a negative value turns L1 off. Phrasal's gradient counts every pair
	// in both orientations, twice the gradient of eq. 12 used here, which
	// halves its threshold η·λ/√G: Phrasal's λ = 0.1 is L1 = 0.05 here.
	L1 float64
	// L2 is the strength of an L2 proximal step w_j ← w_j/(1 + η·L2/√G_j)
	// taken with the L1 step; zero means none.
	L2 float64
	// AROW, when positive, replaces AdaGrad's rates η/√G_j by those of
	// linearized AROW (Green et al. 2013 eqs. 10–11 with α_t = 1 and
	// Σ₀⁻¹ = AROW·I): η/(AROW + G_j), in the gradient and the proximal
	// steps alike. Zero means AdaGrad.
	AROW float64
	// BatchSize is the number of lists per update in Learn; zero means
	// DefaultAdaGradBatch.
	BatchSize int
	// Objective is the loss the gradients come from; its zero value is
	// Green et al.'s.
	Objective Pairwise
	// Seed1 and Seed2 seed the learner's PCG generator, which orders the
	// lists of each epoch and seeds each update's pair sampling.
	Seed1, Seed2 uint64
}

// AdaGrad is the adaptive online learner of Green et al. (2013, Alg. 1):
// AdaGrad's per-coordinate learning rates (Duchi et al. 2011) with FOBOS
// regularisation (Duchi & Singer 2009). Each update with gradient g does,
// for every coordinate j,
//
//	G_j += g_j²
//	w_j −= η·g_j/√G_j
//	w_j  = sign(w_j)·max(0, |w_j| − η·λ/√G_j) / (1 + η·L2/√G_j)
//
// where the proximal (last) step applies to every coordinate whose G_j > 0,
// touched by this update or not. A coordinate never touched (G_j = 0) is
// not regularised: it keeps its initial weight, as in Phrasal
// (AdaGradFastFOBOSUpdater does not decay a weight until its feature has
// been seen), since η·λ/√0 is undefined.
//
// The proximal steps are applied lazily: an update visits only the
// coordinates of its gradient. A coordinate remembers the update count up
// to which it has been regularised; while it is idle G_j does not change,
// so its k skipped steps are one closed-form step (for L1 alone,
// max(0, |w_j| − k·η·λ/√G_j)) taken when it is next touched, and for all
// coordinates when the weights are read (Weights, Current, without changing
// the state) and at the end of each Learn epoch. The result equals the eager
// update, which regularises every coordinate at every step, up to rounding.
// An update costs O(active coordinates), whatever the number of features.
type AdaGrad struct {
	opts AdaGradOptions

	core
	w    []float64 // weights, regularised through update last[j]
	sumG []float64 // G_j, the sum of squared gradients
	last []int64   // update count up to which w[j] is regularised

	cur atCurrent // scratch of Update
	pairCount
}

// NewAdaGrad returns an AdaGrad learner starting from weights w (copied).
func NewAdaGrad(w feature.Weights, opts AdaGradOptions) (*AdaGrad, error) {
	setDefault(&opts.Rate, DefaultAdaGradRate)
	setStrength(&opts.L1, DefaultL1)
	setDefault(&opts.BatchSize, DefaultAdaGradBatch)
	if !(opts.Rate > 0) || !(opts.L2 >= 0) || !(opts.AROW >= 0) || opts.BatchSize < 0 ||
		math.IsInf(opts.Rate, 0) || math.IsInf(opts.L1, 0) || math.IsInf(opts.L2, 0) || math.IsInf(opts.AROW, 0) {
		return nil, fmt.Errorf("online: invalid AdaGrad options (rate %v, L1 %v, L2 %v, batch %d)", opts.Rate, opts.L1, opts.L2, opts.BatchSize)
	}
	if err := opts.Objective.validate(); err != nil {
		return nil, err
	}
	a := &AdaGrad{opts: opts}
	if err := a.start(w, opts.Seed1, opts.Seed2); err != nil {
		return nil, err
	}
	a.w = append([]float64(nil), w...)
	a.sumG = make([]float64, len(w))
	a.last = make([]int64, len(w))
	return a, nil
}

// Reserve grows the learner's state to n features at once, so that later
// updates never reallocate it.
func (a *AdaGrad) Reserve(n int) { a.locked(func() { a.grow(n) }) }

func (a *AdaGrad) grow(n int) {
	if n > len(a.w) {
		a.w = grow(a.w, n)
		a.sumG = grow(a.sumG, n)
		a.last = grow(a.last, n)
	}
}

// rate returns the learning rate of a coordinate whose squared gradients
// sum to G > 0: η/√G, or η/(AROW + G) for linearized AROW.
func (a *AdaGrad) rate(G float64) float64 {
	if a.opts.AROW > 0 {
		return a.opts.Rate / (a.opts.AROW + G)
	}
	return a.opts.Rate / math.Sqrt(G)
}

// prox applies k proximal steps with the rate of G (> 0) to x.
func (a *AdaGrad) prox(x float64, k int64, G float64) float64 {
	r := a.rate(G)
	c1, c2 := r*a.opts.L1, r*a.opts.L2
	if c2 == 0 {
		return loss.SoftThreshold(x, float64(k)*c1)
	}
	if k == 1 {
		return loss.SoftThreshold(x, c1) / (1 + c2)
	}
	// k steps of x ↦ max(0, x − c1)/(1+c2) on |x|: with q = 1/(1+c2),
	// |x|·q^k − c1·Σ_{i=1..k} q^i, and Σ_{i=1..k} q^i = (1 − q^k)/c2.
	qk := math.Pow(1+c2, -float64(k))
	if m := math.Abs(x)*qk - c1*(1-qk)/c2; m > 0 {
		return math.Copysign(m, x)
	}
	return 0
}

// current returns w_j with its pending proximal steps applied.
func (a *AdaGrad) current(j int) float64 {
	x := a.w[j]
	if k := a.t - a.last[j]; k > 0 && x != 0 && a.sumG[j] > 0 {
		return a.prox(x, k, a.sumG[j])
	}
	return x
}

// Gradient returns the gradient of the objective on batch at w, its pairs
// drawn from a generator seeded by seed. It does not read the learner's
// state.
func (a *AdaGrad) Gradient(w feature.Weights, batch []pool.List, seed uint64) (feature.Vector, error) {
	return a.opts.Objective.gradientOnly(w, batch, seed, &a.pairCount)
}

// Apply makes one AdaGrad + FOBOS update with gradient g, which must be
// finite (as Gradient returns it).
func (a *AdaGrad) Apply(g feature.Vector) { a.locked(func() { a.apply(g) }) }

func (a *AdaGrad) apply(g feature.Vector) {
	if n := len(g.IDs); n > 0 {
		a.grow(int(g.IDs[n-1]) + 1)
	}
	t := a.t + 1
	for k, id := range g.IDs {
		j := int(id)
		x := a.current(j)
		gj := g.Vals[k]
		G := a.sumG[j] + gj*gj
		a.sumG[j] = G
		x -= a.rate(G) * gj
		a.w[j] = a.prox(x, 1, G)
		a.last[j] = t
	}
	a.t = t
}

// Update makes one update from batch: Apply(Gradient(Current(), batch,
// seed)) with a seed drawn from the learner's generator, in time
// proportional to the batch's features, not to all features.
func (a *AdaGrad) Update(ctx context.Context, batch []pool.List) error {
	return withLock(&a.core, func() error { return a.update(batch) })
}

func (a *AdaGrad) update(batch []pool.List) error {
	seed := a.rng.Uint64()
	return a.cur.step(a.w, a.current, batch, func() (feature.Vector, error) {
		return a.Gradient(a.w, batch, seed)
	}, a.apply)
}

// Learn runs one epoch over lists: a random order, mini-batches of
// BatchSize, one update each; then it applies every pending proximal step.
func (a *AdaGrad) Learn(ctx context.Context, lists []pool.List) error {
	return withLock(&a.core, func() error {
		defer a.flush()
		return a.epoch(ctx, lists, a.opts.BatchSize, a.update)
	})
}

// flush applies every pending proximal step.
func (a *AdaGrad) flush() {
	for j := range a.w {
		a.w[j] = a.current(j)
		a.last[j] = a.t
	}
}

// Weights returns the current weights with every pending proximal step
// applied; it does not change the learner.
func (a *AdaGrad) Weights() feature.Weights { return a.Current() }

// Current returns the current weights with every pending proximal step
// applied (the same as Weights: AdaGrad does not average).
func (a *AdaGrad) Current() feature.Weights {
	a.mu.Lock()
	defer a.mu.Unlock()
	w := make(feature.Weights, len(a.w))
	for j := range w {
		w[j] = a.current(j)
	}
	return w
}

// SetWeights replaces the current weights, keeping G, the update count and
// the generator; no proximal step is pending after it.
func (a *AdaGrad) SetWeights(w feature.Weights) {
	a.locked(func() {
		a.grow(len(w))
		a.w = assign(a.w, w)
		for j := range a.last {
			a.last[j] = a.t
		}
	})
}

const adagradMagic, adagradVersion = "mtune/online.AdaGrad", 1

// MarshalBinary returns the learner's state: weights, G, the last update
// each coordinate was regularised at, the update count and the generator.
// The options are not saved: restore into a learner made with the same
// options.
func (a *AdaGrad) MarshalBinary() ([]byte, error) {
	return a.marshal(adagradMagic, adagradVersion, func(e *statecodec.Encoder) {
		e.I64(a.t)
		e.F64s(a.w)
		e.F64s(a.sumG)
		e.I64s(a.last)
	})
}

// UnmarshalBinary restores a state MarshalBinary returned. On error the
// learner is unchanged.
func (a *AdaGrad) UnmarshalBinary(data []byte) error {
	d := statecodec.NewDecoder(data, adagradMagic, adagradVersion)
	t := d.I64()
	w, sumG, last := d.FiniteF64s(), d.FiniteF64s(), d.I64s()
	if d.Check(t >= 0 && len(sumG) == len(w) && len(last) == len(w), "inconsistent lengths or count") {
		for j := range last {
			if !d.Check(last[j] >= 0 && last[j] <= t && sumG[j] >= 0, "bad entry %d", j) {
				break
			}
		}
	}
	return a.restore(d, func() { a.t, a.w, a.sumG, a.last = t, w, sumG, last })
}
