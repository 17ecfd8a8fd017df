package batch

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/internal/statecodec"
	"github.com/mtune/mtune/pool"
)

// ErrState is wrapped by the errors UnmarshalBinary returns for data that is
// not a learner state of the expected kind and version.
var ErrState = errors.New("batch: invalid learner state")

// errUninit is returned by the methods of a zero learner that was not
// restored with UnmarshalBinary.
var errUninit = errors.New("batch: learner not made by its New function nor restored by UnmarshalBinary")

// options is the options type O of a learner.
type options[O any] interface {
	withDefaults() (O, error)
	seed() uint64 // the Seed option
}

// state is what every learner of this package keeps between Learns and
// saves: its options O, weights, random state and last run's summary R.
type state[O options[O], R any] struct {
	opts O
	w    feature.Weights
	rng  *rand.PCG
	run  R
}

// newState returns the state of a new learner starting from weights w
// (copied) with opts, defaults filled in.
func newState[O options[O], R any](w feature.Weights, opts O) (state[O, R], error) {
	o, err := opts.withDefaults()
	if err != nil {
		return state[O, R]{}, err
	}
	if err := validWeights(w); err != nil {
		return state[O, R]{}, err
	}
	return state[O, R]{opts: o, w: w.Clone(), rng: rand.NewPCG(o.seed(), seedStream)}, nil
}

// begin is the start every Learn shares: it checks that s was made or
// restored, that ctx is live and that the weights are valid, compiles
// lists, and returns them with a copy of the random state, which Learn
// puts back on error.
func (s *state[O, R]) begin(ctx context.Context, lists []pool.List) (*compiled, rand.PCG, error) {
	if s.rng == nil {
		return nil, rand.PCG{}, errUninit
	}
	if err := checkCtx(ctx); err != nil {
		return nil, rand.PCG{}, err
	}
	if err := validWeights(s.w); err != nil {
		return nil, rand.PCG{}, err
	}
	c, err := compile(lists)
	if err != nil {
		return nil, rand.PCG{}, err
	}
	return c, *s.rng, nil
}

// stateFields lists a learner's saved fields through c: its options, then
// (by the shared code) weights and random state, then its run summary.
type stateFields[O, R any] struct {
	opts func(c *statecodec.Coder, o *O)
	run  func(c *statecodec.Coder, r *R)
}

// code writes or reads s through c, in the order of a saved state.
func (s *state[O, R]) code(c *statecodec.Coder, f stateFields[O, R]) {
	f.opts(c, &s.opts)
	c.FiniteF64s((*[]float64)(&s.w))
	c.PCG(&s.rng)
	f.run(c, &s.run)
}

// marshal saves s as a state with magic and version.
func (s *state[O, R]) marshal(magic string, version uint32, f stateFields[O, R]) ([]byte, error) {
	if s.rng == nil {
		return nil, errUninit
	}
	e := statecodec.NewEncoder(magic, version)
	s.code(statecodec.Writing(e), f)
	return e.Finish()
}

// unmarshal restores s from data, a state with magic and version, filling
// in the options' defaults; on error (wrapping ErrState) s is unchanged.
func (s *state[O, R]) unmarshal(data []byte, magic string, version uint32, f stateFields[O, R]) error {
	d := statecodec.NewDecoder(data, magic, version)
	var n state[O, R]
	n.code(statecodec.Reading(d), f)
	err := d.Finish()
	if err == nil {
		n.opts, err = n.opts.withDefaults()
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrState, err)
	}
	*s = n
	return nil
}

// Options returns the options with defaults filled in.
func (s *state[O, R]) Options() O { return s.opts }

// Weights returns a copy of the current weights.
func (s *state[O, R]) Weights() feature.Weights { return s.w.Clone() }

// SetWeights replaces the weights the next Learn starts from.
func (s *state[O, R]) SetWeights(w feature.Weights) { s.w = w.Clone() }

func (o MIRAOptions) seed() uint64 { return o.Seed }
func (o MROptions) seed() uint64   { return o.Seed }
func (o PROOptions) seed() uint64  { return o.Seed }
