package mert

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/internal/statecodec"
)

// The state format (learner/internal/statecodec), version 1:
//
//	"mtune/mert", version 1 (uint32)
//	options: Restarts, RandomDirections (int); Min, Max, Epsilon (float64
//	bits); MaxPasses (int); NoNormalize (bool); Threads (int); Seed
//	(uint64); Features (int64 slice)
//	weights (float64 slice)
//	generator (PCG)
//
// The Info of the last Learn is not saved, nor Options.Metric (a metric
// need not be serialisable): UnmarshalBinary keeps the receiver's, so a
// state is restored into a MERT made with the metric it was saved under.
const (
	stateMagic   = "mtune/mert"
	stateVersion = 1
)

// ErrState is wrapped by the errors UnmarshalBinary returns for malformed
// state.
var ErrState = errors.New("mert: invalid state")

// MarshalBinary saves the weights, the options and the random generator.
func (m *MERT) MarshalBinary() ([]byte, error) {
	o := m.opts
	e := statecodec.NewEncoder(stateMagic, stateVersion)
	e.Int(o.Restarts)
	e.Int(o.RandomDirections)
	e.F64(o.Min)
	e.F64(o.Max)
	e.F64(o.Epsilon)
	e.Int(o.MaxPasses)
	e.Bool(o.NoNormalize)
	e.Int(o.Threads)
	e.U64(o.Seed)
	ids := make([]int64, len(o.Features))
	for i, id := range o.Features {
		ids[i] = int64(id)
	}
	e.I64s(ids)
	e.F64s(m.w)
	e.PCG(m.src)
	b, err := e.Finish()
	if err != nil {
		return nil, fmt.Errorf("mert: %w", err)
	}
	return b, nil
}

// UnmarshalBinary restores state saved by MarshalBinary, keeping the
// receiver's Options.Metric, which the state does not hold.
func (m *MERT) UnmarshalBinary(data []byte) error {
	d := statecodec.NewDecoder(data, stateMagic, stateVersion)
	var o Options
	o.Restarts = d.Int()
	o.RandomDirections = d.Int()
	o.Min, o.Max, o.Epsilon = d.F64(), d.F64(), d.F64()
	o.MaxPasses = d.Int()
	o.NoNormalize = d.Bool()
	o.Threads = d.Int()
	o.Seed = d.U64()
	if ids := d.I64s(); len(ids) > 0 {
		o.Features = make([]feature.ID, len(ids))
		for i, id := range ids {
			if !d.Check(id == int64(feature.ID(id)), "feature id %d", id) {
				break
			}
			o.Features[i] = feature.ID(id)
		}
	}
	var w feature.Weights
	if x := d.FiniteF64s(); len(x) > 0 {
		w = x
	}
	src := d.PCG()
	err := d.Finish()
	if err == nil {
		err = o.validate()
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrState, err)
	}
	o.Metric = m.opts.Metric
	m.w, m.opts, m.src, m.rng, m.info = w, o, src, rand.New(src), Info{}
	return nil
}
