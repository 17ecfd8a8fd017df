package tune

import (
	"context"
	"fmt"
	"sync"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/option"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/pool"
)

// StaleOptions configure Green et al.'s stale-gradient parallelism
// (their Algorithm 2) inside a shard's worker: stale mode's options,
// declared once here (internal/option) for the flags, their refusals, the
// manifest and --resume.
type StaleOptions struct {
	// Threads is the number of goroutines decoding mini-batches and
	// computing gradients; 0 means 2. At most Threads gradients are in
	// flight (read but not yet applied) at once, so Threads = 1 is plain
	// sequential online learning.
	Threads int `option:"threads" modes:"stale" min:"1" default:"2" help:"stale mode: goroutines per shard decoding mini-batches and computing gradients"`
	// MaxStaleness is the largest staleness a gradient may be applied
	// with; a staler one is recomputed against fresh weights first. 0
	// means unlimited.
	MaxStaleness int `option:"max-staleness" modes:"stale" min:"1" help:"stale mode: recompute against fresh weights a gradient staler than this many updates (default: no bound)"`
}

func init() { option.Declare(StaleOptions{}) }

// StaleStats records the staleness of a run's updates: the number of
// updates applied between reading the weights a gradient was computed at
// and applying it.
type StaleStats struct {
	// Histogram[s] counts the updates applied with staleness s; its sum
	// is the number of updates.
	Histogram []int
	// Recomputes counts gradients found staler than MaxStaleness and
	// recomputed against fresh weights (then applied with staleness 0).
	Recomputes int
}

// Updates returns the number of updates recorded.
func (s StaleStats) Updates() int {
	n := 0
	for _, c := range s.Histogram {
		n += c
	}
	return n
}

// Max returns the largest staleness recorded (0 without updates).
func (s StaleStats) Max() int {
	for k := len(s.Histogram) - 1; k >= 0; k-- {
		if s.Histogram[k] > 0 {
			return k
		}
	}
	return 0
}

// Mean returns the mean staleness (0 without updates).
func (s StaleStats) Mean() float64 {
	n, sum := 0, 0
	for k, c := range s.Histogram {
		n += c
		sum += k * c
	}
	if n == 0 {
		return 0
	}
	return float64(sum) / float64(n)
}

// Add adds t's counts to s.
func (s *StaleStats) Add(t StaleStats) {
	for len(s.Histogram) < len(t.Histogram) {
		s.Histogram = append(s.Histogram, 0)
	}
	for k, c := range t.Histogram {
		s.Histogram[k] += c
	}
	s.Recomputes += t.Recomputes
}

func (s *StaleStats) record(staleness int) {
	for len(s.Histogram) <= staleness {
		s.Histogram = append(s.Histogram, 0)
	}
	s.Histogram[staleness]++
}

// StaleReport is a shard's StaleStats for an epoch.
type StaleReport struct {
	Shard int
	Epoch int
	Stats StaleStats
}

// BatchFunc prepares mini-batch i at weights w: decodes it with w and
// returns its scored n-best lists. RunStale calls it from several
// goroutines at once.
type BatchFunc func(ctx context.Context, i int, w feature.Weights) ([]pool.List, error)

// staleJob is a finished gradient on its way to the applier.
type staleJob struct {
	i     int
	batch []pool.List
	g     feature.Vector
	read  int // on.Updates() when the weights were read
	done  chan struct{}
}

// RunStale makes one update of on for each of the mini-batches 0..n-1 with
// stale gradients (Green et al. 2013, Algorithm 2): o.Threads goroutines
// each take the next mini-batch, read on's Current weights and update
// count, prepare the batch at those weights and compute its gradient with
// on.Gradient(w, batch, seed(i)); one applier applies each finished
// gradient at once with on.Apply, in the order they finish. A worker takes
// its next mini-batch only once its gradient is applied, so at most
// Threads gradients are in flight.
//
// A gradient staler than o.MaxStaleness (if not 0) is recomputed by the
// applier on the same n-best lists (they are not decoded again) at the
// then current weights, and applied with staleness 0. The returned stats
// hold one record per update.
//
// With Threads > 1 the application order, and so the result, depends on
// timing; with Threads = 1 it is Apply(Gradient(Current(), batch_i,
// seed(i))) for i in order, deterministic.
func RunStale(ctx context.Context, on learner.Online, n int, prepare BatchFunc, seed func(i int) uint64, o StaleOptions) (StaleStats, error) {
	var st StaleStats
	if n <= 0 {
		return st, nil
	}
	if err := option.Validate(&o); err != nil {
		return st, fmt.Errorf("tune: stale options: %w", err)
	}
	option.Defaults(&o)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu      sync.Mutex // orders weight reads against applications
		next    int
		nextMu  sync.Mutex
		errOnce sync.Once
		runErr  error
	)
	fail := func(err error) {
		errOnce.Do(func() { runErr = err; cancel() })
	}
	jobs := make(chan *staleJob)
	var wg sync.WaitGroup
	for t := 0; t < min(o.Threads, n); t++ {
		wg.Go(func() {
			for ctx.Err() == nil {
				nextMu.Lock()
				i := next
				next++
				nextMu.Unlock()
				if i >= n {
					return
				}
				mu.Lock()
				w, read := on.Current(), on.Updates()
				mu.Unlock()
				batch, err := prepare(ctx, i, w)
				if err != nil {
					fail(err)
					return
				}
				g, err := on.Gradient(w, batch, seed(i))
				if err != nil {
					fail(fmt.Errorf("tune: mini-batch %d: gradient: %w", i, err))
					return
				}
				j := &staleJob{i: i, batch: batch, g: g, read: read, done: make(chan struct{})}
				select {
				case jobs <- j:
				case <-ctx.Done():
					return
				}
				select {
				case <-j.done:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(jobs) }()
	for j := range jobs {
		mu.Lock()
		s := on.Updates() - j.read
		g := j.g
		if o.MaxStaleness > 0 && s > o.MaxStaleness {
			var err error
			g, err = on.Gradient(on.Current(), j.batch, seed(j.i))
			if err != nil {
				mu.Unlock()
				fail(fmt.Errorf("tune: mini-batch %d: recomputing the gradient: %w", j.i, err))
				close(j.done)
				continue
			}
			st.Recomputes++
			s = 0
		}
		on.Apply(g)
		mu.Unlock()
		st.record(s)
		close(j.done)
	}
	if runErr != nil {
		return st, runErr
	}
	if err := ctx.Err(); err != nil && next < n {
		return st, err
	}
	return st, nil
}

// StaleSeed returns the gradient seed of mini-batch i of a shard in an
// epoch whose seed is epochSeed (EpochSeed).
func StaleSeed(epochSeed uint64, shard, i int) uint64 {
	return mix64(mix64(epochSeed, uint64(shard)), uint64(i))
}

// RunStale learns the session's epoch with stale gradients (RunStale
// over its mini-batches, each prepared with Prepare): the same shard
// setup, sentence order and mini-batches as Run, gradient seeds
// StaleSeed(EpochSeed(o.Seed, o.Epoch), shard, i).
func (s *Session) RunStale(ctx context.Context, so StaleOptions) (ShardResult, StaleStats, error) {
	es := EpochSeed(s.o.Seed, s.o.Epoch)
	seed := func(i int) uint64 { return StaleSeed(es, s.shard, i) }
	st, err := RunStale(ctx, s.timed(), len(s.batches), s.Prepare, seed, so)
	if err != nil {
		return ShardResult{}, st, fmt.Errorf("tune: shard %d: %w", s.shard, err)
	}
	flushDecoded(ctx, s.o.Decode)
	res, err := s.result()
	return res, st, err
}

// StaleLearnShard is LearnShard with stale gradients (NewSession, then
// RunStale). The n-best lists go to emit as each mini-batch is decoded (in
// the order decoded; emit is never called concurrently). The Work's
// Staleness holds the staleness of every update.
func StaleLearnShard(ctx context.Context, dec Decoder, shard int, sents []Sentence, w weights.ByName, state *ShardState, o LearnOptions, so StaleOptions, emit func(NBest)) (ShardResult, Work, error) {
	s, err := NewSession(dec, shard, sents, w, state, o, emit)
	if err != nil {
		return ShardResult{}, Work{}, err
	}
	res, st, err := s.RunStale(ctx, so)
	if err != nil {
		return ShardResult{}, Work{}, err
	}
	work := s.Work()
	work.Staleness = st
	return res, work, nil
}
