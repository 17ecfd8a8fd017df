package online

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/internal/opt"
	"github.com/mtune/mtune/learner/internal/statecodec"
	"github.com/mtune/mtune/pool"
)

// ErrState reports learner state that UnmarshalBinary cannot restore:
// another learner's state, another version, or corrupt or truncated bytes.
var ErrState = errors.New("online: invalid learner state")

// Every learner of the package is a learner.Online; AdaGrad and SGD, which
// learn from sampled pairs, are also learner.PairSamplers.
var (
	_ learner.Online      = (*AdaGrad)(nil)
	_ learner.Online      = (*SGD)(nil)
	_ learner.Online      = (*MIRA)(nil)
	_ learner.Online      = (*Watanabe)(nil)
	_ learner.PairSampler = (*AdaGrad)(nil)
	_ learner.PairSampler = (*SGD)(nil)
)

// core is what every learner of the package has: the lock that serialises
// its methods, the update count, and its generator, which orders the lists of each Learn
// epoch (AdaGrad and SGD also draw each update's sampling seed from it).
//
// A learner's state is a learner/internal/statecodec record: the magic
// "mtune/online.<learner>", a version, the learner's own fields, then the
// generator. Floats keep their exact bits, so a restored learner continues
// bit-identically.
type core struct {
	mu  sync.Mutex
	pcg *rand.PCG
	rng *rand.Rand
	t   int64 // updates applied (Watanabe counts its own)
}

// start checks a new learner's initial weights w, which must be finite,
// and starts the generator from seed1 and seed2.
func (c *core) start(w feature.Weights, seed1, seed2 uint64) error {
	if !w.Finite() {
		return fmt.Errorf("online: initial weights: %w", ErrNotFinite)
	}
	c.pcg = rand.NewPCG(seed1, seed2)
	c.rng = rand.New(c.pcg)
	return nil
}

// setDefault sets *x to def if it is zero, as an option's zero value means
// its default.
func setDefault[T comparable](x *T, def T) {
	var zero T
	if *x == zero {
		*x = def
	}
}

// setStrength is setDefault for a regulariser's strength, which a negative
// value turns off (sets to zero).
func setStrength(x *float64, def float64) { *x = opt.OrOff(*x, def) }

// Updates returns the number of updates applied.
func (c *core) Updates() int { return withLock(c, func() int { return int(c.t) }) }

// locked calls f under the lock.
func (c *core) locked(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
}

// withLock returns f() computed under c's lock: the exported methods that
// return a value are this around their unexported work.
func withLock[T any](c *core, f func() T) T {
	c.mu.Lock()
	defer c.mu.Unlock()
	return f()
}

// epoch runs one epoch over lists: an order drawn from the generator,
// mini-batches of size in that order, update called on each, the context
// checked before each. The caller holds the lock. Lists with no non-zero
// feature are an error wrapping learner.ErrNoFeatures.
func (c *core) epoch(ctx context.Context, lists []pool.List, size int, update func([]pool.List) error) error {
	if err := learner.CheckLists(lists); err != nil {
		return fmt.Errorf("online: %w", err)
	}
	order := c.rng.Perm(len(lists))
	batch := make([]pool.List, 0, size)
	for start := 0; start < len(order); start += size {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch = batch[:0]
		for _, i := range order[start:min(start+size, len(order))] {
			batch = append(batch, lists[i])
		}
		if err := update(batch); err != nil {
			return err
		}
	}
	return nil
}

// marshal returns the state: under the lock, the header of magic and
// version, the fields that fields writes, and the generator.
func (c *core) marshal(magic string, version uint32, fields func(*statecodec.Encoder)) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := statecodec.NewEncoder(magic, version)
	fields(e)
	e.PCG(c.pcg)
	return e.Finish()
}

// restore reads the generator, the last field of the state d decodes, and
// checks that nothing follows. If d holds no error it calls set to install
// the learner's fields and installs the generator, under the lock;
// otherwise it changes nothing and returns an error wrapping ErrState.
func (c *core) restore(d *statecodec.Decoder, set func()) error {
	pcg := d.PCG()
	if err := d.Finish(); err != nil {
		return fmt.Errorf("%w: %w", ErrState, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	set()
	c.pcg, c.rng = pcg, rand.New(pcg)
	return nil
}

// atCurrent lets a learner whose stored weights lag its current ones
// (pending lazy regularisation, a pending scale factor) compute a gradient
// at its current weights in time proportional to the mini-batch's features.
// It holds the scratch that reuses.
type atCurrent struct {
	ids   []feature.ID
	saved []float64
}

// run calls f while the weight slice w holds, at every coordinate active in
// batch, the value cur reports (what Current would give), the other
// coordinates left as they are; it restores w before returning.
func (s *atCurrent) run(w []float64, cur func(j int) float64, batch []pool.List, f func()) {
	s.ids = s.ids[:0]
	for _, l := range batch {
		for _, h := range l.Hyps {
			s.ids = append(s.ids, h.Features.IDs...)
		}
	}
	slices.Sort(s.ids)
	s.ids = slices.Compact(s.ids)
	s.saved = s.saved[:0]
	for _, id := range s.ids {
		if int(id) >= len(w) {
			break
		}
		s.saved = append(s.saved, w[id])
	}
	for k := range s.saved {
		w[s.ids[k]] = cur(int(s.ids[k]))
	}
	defer func() {
		for k, x := range s.saved {
			w[s.ids[k]] = x
		}
	}()
	f()
}

// step computes an update at the current weights, f run inside s.run(w,
// cur, batch, ·), and, if f succeeds, calls apply with its result.
func (s *atCurrent) step(w []float64, cur func(j int) float64, batch []pool.List, f func() (feature.Vector, error), apply func(feature.Vector)) error {
	var g feature.Vector
	var err error
	s.run(w, cur, batch, func() { g, err = f() })
	if err != nil {
		return err
	}
	apply(g)
	return nil
}
