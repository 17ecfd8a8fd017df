package online

import (
	"context"
	"fmt"
	"math"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/internal/statecodec"
	"github.com/mtune/mtune/pool"
)

// scaled holds weights w = s·v, so that scaling all of w (an L2 step, a
// projection) costs O(1) and adding to a coordinate stays O(1). It tracks
// Σ v_j² incrementally for the norm of w.
type scaled struct {
	v     []float64
	s     float64
	norm2 float64 // Σ_j v_j², kept up to date by add
}

func newScaled(w []float64) scaled {
	x := scaled{v: append([]float64(nil), w...), s: 1}
	x.recount()
	return x
}

func (x *scaled) at(j int) float64 { return x.s * x.v[j] }

// add adds d to w_j.
func (x *scaled) add(j int, d float64) {
	old := x.v[j]
	nv := old + d/x.s
	x.v[j] = nv
	x.norm2 += nv*nv - old*old
}

// mul multiplies w by a ≥ 0.
func (x *scaled) mul(a float64) {
	x.s *= a
	if x.s == 0 {
		clear(x.v)
		x.s, x.norm2 = 1, 0
	} else if x.s < 1e-100 {
		x.renorm()
	}
}

// renorm folds s into v, in O(n); mul does it when s gets tiny.
func (x *scaled) renorm() {
	for j := range x.v {
		x.v[j] *= x.s
	}
	x.s = 1
	x.recount()
}

// recount recomputes Σ v_j², removing the drift of its incremental updates.
func (x *scaled) recount() {
	x.norm2 = 0
	for _, y := range x.v {
		x.norm2 += y * y
	}
}

// sqnorm returns ‖w‖².
func (x *scaled) sqnorm() float64 { return x.s * x.s * max(x.norm2, 0) }

func (x *scaled) weights() feature.Weights {
	w := make(feature.Weights, len(x.v))
	for j := range w {
		w[j] = x.at(j)
	}
	return w
}

func (x *scaled) set(w feature.Weights) {
	x.v = assign(x.v, w)
	x.s = 1
	x.recount()
}

func (x *scaled) encode(e *statecodec.Encoder) {
	e.F64s(x.v)
	e.F64(x.s)
	e.F64(x.norm2)
}

func decodeScaled(d *statecodec.Decoder) scaled {
	x := scaled{v: d.FiniteF64s(), s: d.FiniteF64(), norm2: d.FiniteF64()}
	d.Check(x.s > 0, "scale %v", x.s)
	return x
}

// DefaultSGDRate is plain SGD's default learning rate.
const DefaultSGDRate = 1e-3

// SGDOptions configure plain SGD. The zero value is η = 0.001, no L2,
// mini-batches of 20 under Green et al.'s pairwise objective.
type SGDOptions struct {
	// Rate is the constant learning rate η; zero means DefaultSGDRate.
	Rate float64
	// L2 is the strength λ of L2 regularisation, applied as weight decay
	// w ← (1 − η·λ)·w before each gradient step; zero means none.
	L2 float64
	// BatchSize is the number of lists per update in Learn; zero means 20.
	BatchSize int
	// Objective is the loss the gradients come from.
	Objective Pairwise
	// Seed1 and Seed2 seed the learner's PCG generator.
	Seed1, Seed2 uint64
}

// SGD is plain stochastic gradient descent (Green et al. 2013 eq. 1),
// w ← (1 − η·λ)·w − η·g, for comparison with AdaGrad. The weight decay is a
// scale factor kept apart from the weights, so an update costs O(active
// coordinates).
type SGD struct {
	opts SGDOptions

	core
	w scaled

	cur atCurrent // scratch of Update
	pairCount
}

// NewSGD returns an SGD learner starting from weights w (copied).
func NewSGD(w feature.Weights, opts SGDOptions) (*SGD, error) {
	setDefault(&opts.Rate, DefaultSGDRate)
	setDefault(&opts.BatchSize, DefaultAdaGradBatch)
	if !(opts.Rate > 0) || math.IsInf(opts.Rate, 0) || !(opts.L2 >= 0) || opts.Rate*opts.L2 > 1 || opts.BatchSize < 0 {
		return nil, fmt.Errorf("online: invalid SGD options (rate %v, L2 %v, batch %d)", opts.Rate, opts.L2, opts.BatchSize)
	}
	if err := opts.Objective.validate(); err != nil {
		return nil, err
	}
	s := &SGD{opts: opts, w: newScaled(w)}
	if err := s.start(w, opts.Seed1, opts.Seed2); err != nil {
		return nil, err
	}
	return s, nil
}

// Gradient returns the gradient of the objective on batch at w.
func (s *SGD) Gradient(w feature.Weights, batch []pool.List, seed uint64) (feature.Vector, error) {
	return s.opts.Objective.gradientOnly(w, batch, seed, &s.pairCount)
}

// Apply makes one step w ← (1 − η·λ)·w − η·g.
func (s *SGD) Apply(g feature.Vector) { s.locked(func() { s.apply(g) }) }

func (s *SGD) apply(g feature.Vector) {
	if n := len(g.IDs); n > 0 {
		s.w.v = grow(s.w.v, int(g.IDs[n-1])+1)
	}
	if s.opts.L2 > 0 {
		s.w.mul(1 - s.opts.Rate*s.opts.L2)
	}
	for k, id := range g.IDs {
		s.w.add(int(id), -s.opts.Rate*g.Vals[k])
	}
	s.t++
}

// Update makes one update from batch: Apply(Gradient(Current(), batch,
// seed)) with a seed drawn from the learner's generator.
func (s *SGD) Update(ctx context.Context, batch []pool.List) error {
	return withLock(&s.core, func() error { return s.update(batch) })
}

func (s *SGD) update(batch []pool.List) error {
	seed := s.rng.Uint64()
	return s.cur.step(s.w.v, s.w.at, batch, func() (feature.Vector, error) {
		return s.Gradient(s.w.v, batch, seed)
	}, s.apply)
}

// Learn runs one epoch over lists in a random order, in mini-batches.
func (s *SGD) Learn(ctx context.Context, lists []pool.List) error {
	return withLock(&s.core, func() error { return s.epoch(ctx, lists, s.opts.BatchSize, s.update) })
}

// Weights returns a copy of the current weights.
func (s *SGD) Weights() feature.Weights { return s.Current() }

// Current returns a copy of the current weights.
func (s *SGD) Current() feature.Weights { return withLock(&s.core, s.w.weights) }

// SetWeights replaces the current weights, keeping the update count and
// the generator.
func (s *SGD) SetWeights(w feature.Weights) { s.locked(func() { s.w.set(w) }) }

const sgdMagic, sgdVersion = "mtune/online.SGD", 1

// MarshalBinary returns the learner's state (weights, update count,
// generator); restore it into a learner made with the same options.
func (s *SGD) MarshalBinary() ([]byte, error) {
	return s.marshal(sgdMagic, sgdVersion, func(e *statecodec.Encoder) {
		e.I64(s.t)
		s.w.encode(e)
	})
}

// UnmarshalBinary restores a state MarshalBinary returned. On error the
// learner is unchanged.
func (s *SGD) UnmarshalBinary(data []byte) error {
	d := statecodec.NewDecoder(data, sgdMagic, sgdVersion)
	t := d.I64()
	w := decodeScaled(d)
	d.Check(t >= 0, "update count %d", t)
	return s.restore(d, func() { s.t, s.w = t, w })
}
