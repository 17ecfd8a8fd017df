package batch

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/internal/statecodec"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// ErrState is wrapped by the errors UnmarshalBinary returns for data that is
// not a learner state of the expected kind and version.
var ErrState = errors.New("batch: invalid learner state")

// errUninit is returned by the methods of a zero learner that was not
// restored with UnmarshalBinary.
var errUninit = errors.New("batch: learner not made by its New function nor restored by UnmarshalBinary")

// options is the options type O of a learner whose last run's summary is
// R.
type options[O, R any] interface {
	withDefaults() (O, error)
	seed() uint64 // the Seed option
	// statsMetric is the Metric option, the metric the pool's statistics
	// are of (nil: BLEU); a saved state does not hold it (a metric need
	// not be serialisable), so UnmarshalBinary keeps the receiver's
	// (withMetric).
	statsMetric() metric.Metric
	withMetric(m metric.Metric) O
	// format is how the learner saves its state, whatever the options'
	// values (those of a zero learner give it too).
	format() stateFormat[O, R]
}

// summary is the summary R of a learner's last run.
type summary[R any] interface {
	// clone returns a copy sharing no memory with the receiver.
	clone() R
}

// state is what every learner of this package keeps between Learns and
// saves: its options O, weights, random state and last run's summary R.
type state[O options[O, R], R summary[R]] struct {
	opts O
	w    feature.Weights
	rng  *rand.PCG
	run  R
}

// newLearner returns a new learner L (MIRA, MR, PRO or SVM, each a state and
// nothing more) starting from weights w (copied) with opts, defaults filled
// in.
func newLearner[L ~struct{ state[O, R] }, O options[O, R], R summary[R]](w feature.Weights, opts O) (*L, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := validWeights(w); err != nil {
		return nil, err
	}
	return &L{state[O, R]{opts: o, w: w.Clone(), rng: rand.NewPCG(o.seed(), seedStream)}}, nil
}

// learnWith is the Learn every learner shares: it checks that s was made
// or restored, that ctx is live and that the weights are valid, compiles
// lists, and calls fit on them; it keeps the weights and run summary fit
// returns or, when fit fails, puts the random state fit drew from back,
// so that a Learn that fails leaves the learner unchanged.
func (s *state[O, R]) learnWith(ctx context.Context, lists []pool.List, fit func(c *compiled) (feature.Weights, R, error)) error {
	return s.learnOn(ctx, func() (feature.Weights, R, error) {
		c, err := compileMetric(lists, s.opts.statsMetric())
		if err != nil {
			var none R
			return nil, none, err
		}
		return fit(c)
	})
}

// learnOn is learnWith for any data: it checks s, ctx and the weights,
// calls fit, and keeps what fit returns or puts the random state back.
func (s *state[O, R]) learnOn(ctx context.Context, fit func() (feature.Weights, R, error)) error {
	if s.rng == nil {
		return errUninit
	}
	if err := checkCtx(ctx); err != nil {
		return err
	}
	if err := validWeights(s.w); err != nil {
		return err
	}
	saved := *s.rng
	w, run, err := fit()
	if err != nil {
		*s.rng = saved
		return err
	}
	s.w, s.run = w, run
	return nil
}

// learnLocal is learnWith for a fit that returns the weights over the
// compiled pool's local ids: they are scattered over the learner's weights.
func (s *state[O, R]) learnLocal(ctx context.Context, lists []pool.List, fit func(c *compiled) ([]float64, R, error)) error {
	return s.learnWith(ctx, lists, func(c *compiled) (feature.Weights, R, error) {
		w, run, err := fit(c)
		if err != nil {
			return nil, run, err
		}
		return c.scatter(s.w, w), run, nil
	})
}

// stateFormat is how a learner saves its state: a statecodec record with
// the header magic and version, then the learner's options (listed by
// opts), the weights and random state (by the shared code), then its last
// run's summary (by run).
type stateFormat[O, R any] struct {
	magic   string
	version uint32
	opts    func(c *statecodec.Coder, o *O)
	run     func(c *statecodec.Coder, r *R)
}

// code writes or reads s through c, in the order of a saved state.
func (s *state[O, R]) code(c *statecodec.Coder) {
	f := s.opts.format()
	f.opts(c, &s.opts)
	c.FiniteF64s((*[]float64)(&s.w))
	c.PCG(&s.rng)
	f.run(c, &s.run)
}

// MarshalBinary saves the learner's whole state: options, weights, random
// state and the last run's summary.
func (s *state[O, R]) MarshalBinary() ([]byte, error) {
	if s.rng == nil {
		return nil, errUninit
	}
	f := s.opts.format()
	e := statecodec.NewEncoder(f.magic, f.version)
	s.code(statecodec.Writing(e))
	return e.Finish()
}

// UnmarshalBinary restores a state saved by MarshalBinary, replacing the
// whole learner but its Metric option, which the state does not hold (the
// receiver's is kept: restore into a learner made with the metric the
// state was saved under), and filling in the options' defaults; on error
// (wrapping ErrState) the learner is unchanged.
func (s *state[O, R]) UnmarshalBinary(data []byte) error {
	f := s.opts.format()
	d := statecodec.NewDecoder(data, f.magic, f.version)
	var n state[O, R]
	n.code(statecodec.Reading(d))
	err := d.Finish()
	if err == nil {
		n.opts, err = n.opts.withMetric(s.opts.statsMetric()).withDefaults()
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrState, err)
	}
	*s = n
	return nil
}

// LastRun returns a summary of the last successful Learn.
func (s *state[O, R]) LastRun() R { return s.run.clone() }

// Options returns the options with defaults filled in.
func (s *state[O, R]) Options() O { return s.opts }

// Weights returns a copy of the current weights.
func (s *state[O, R]) Weights() feature.Weights { return s.w.Clone() }

// SetWeights replaces the weights the next Learn starts from.
func (s *state[O, R]) SetWeights(w feature.Weights) { s.w = w.Clone() }

// Every learner of this package is a learner.Learner.
var (
	_ learner.Learner = (*MIRA)(nil)
	_ learner.Learner = (*MR)(nil)
	_ learner.Learner = (*PRO)(nil)
	_ learner.Learner = (*SVM)(nil)
)

func (o MIRAOptions) seed() uint64 { return o.Seed }
func (o MROptions) seed() uint64   { return o.Seed }
func (o PROOptions) seed() uint64  { return o.Seed }

func (o MIRAOptions) withMetric(m metric.Metric) MIRAOptions { o.Metric = m; return o }
func (o MROptions) withMetric(m metric.Metric) MROptions     { o.Metric = m; return o }
func (o PROOptions) withMetric(m metric.Metric) PROOptions   { o.Metric = m; return o }
func (o SVMOptions) withMetric(m metric.Metric) SVMOptions   { o.Metric = m; return o }

func (MIRAOptions) format() stateFormat[MIRAOptions, MIRARun] { return miraFormat }
func (MROptions) format() stateFormat[MROptions, MRRun]       { return mrFormat }
func (PROOptions) format() stateFormat[PROOptions, PRORun]    { return proFormat }
