package transforms

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/tune"
)

func init() {
	beam.RegisterType(reflect.TypeOf(StaleStats{}))
	beam.RegisterType(reflect.TypeOf(StaleReport{}))
	register.DoFn7x1[context.Context, int, func(*Sentence) bool, func(*ShardState) bool, func(*WireWeights) bool,
		func(ShardResult), func(NBest), error](&StaleLearnFn{})
}

// StaleOptions configure Green et al.'s stale-gradient parallelism
// (their Algorithm 2) inside a shard's worker.
type StaleOptions struct {
	// Threads is the number of goroutines decoding mini-batches and
	// computing gradients; 0 means 2. At most Threads gradients are in
	// flight (read but not yet applied) at once, so Threads = 1 is plain
	// sequential online learning.
	Threads int
	// MaxStaleness is the largest staleness a gradient may be applied
	// with; a staler one is recomputed against fresh weights first. 0
	// means unlimited.
	MaxStaleness int
}

func (o StaleOptions) threads() int {
	if o.Threads <= 0 {
		return 2
	}
	return o.Threads
}

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
	if o.MaxStaleness < 0 {
		return st, fmt.Errorf("transforms: negative max staleness %d", o.MaxStaleness)
	}
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
	for t := 0; t < min(o.threads(), n); t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
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
					fail(fmt.Errorf("transforms: mini-batch %d: gradient: %w", i, err))
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
		}()
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
				fail(fmt.Errorf("transforms: mini-batch %d: recomputing the gradient: %w", j.i, err))
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

// StaleLearnShard is LearnShard with stale gradients: the same shard
// setup, sentence order and mini-batches, but the mini-batches are decoded
// and learnt from by RunStale with so, gradient seeds StaleSeed(EpochSeed(
// o.Seed, o.Epoch), shard, i). The n-best lists go to emit as each
// mini-batch is decoded (in the order decoded; emit is never called
// concurrently).
func StaleLearnShard(ctx context.Context, dec Decoder, shard int, sents []Sentence, w WireWeights, state *ShardState, o LearnOptions, so StaleOptions, emit func(NBest)) (ShardResult, StaleStats, error) {
	if err := o.validate(); err != nil {
		return ShardResult{}, StaleStats{}, err
	}
	sents = slices.Clone(sents)
	slices.SortFunc(sents, func(a, b Sentence) int { return cmp.Compare(a.ID, b.ID) })
	for i := 1; i < len(sents); i++ {
		if sents[i].ID == sents[i-1].ID {
			return ShardResult{}, StaleStats{}, fmt.Errorf("transforms: shard %d: sentence %d given twice", shard, sents[i].ID)
		}
	}
	idx := feature.NewIndex()
	if state != nil {
		if state.Shard != shard {
			return ShardResult{}, StaleStats{}, fmt.Errorf("transforms: shard %d given the state of shard %d", shard, state.Shard)
		}
		idx = feature.NewIndexOf(state.Names...)
		if idx.Len() != len(state.Names) {
			return ShardResult{}, StaleStats{}, fmt.Errorf("transforms: shard %d: the state repeats a feature name", shard)
		}
	}
	w0, err := w.Weights(idx)
	if err != nil {
		return ShardResult{}, StaleStats{}, fmt.Errorf("transforms: shard %d: epoch weights: %w", shard, err)
	}
	cfg := o.Config
	cfg.Seed = mix64(o.Seed, uint64(shard))
	l, err := algo.New(o.algo(), w0, cfg)
	if err != nil {
		return ShardResult{}, StaleStats{}, fmt.Errorf("transforms: shard %d: %w", shard, err)
	}
	on, ok := l.(learner.Online)
	if !ok {
		return ShardResult{}, StaleStats{}, fmt.Errorf("transforms: %s is not an online learner", o.algo())
	}
	if state != nil {
		if err := on.UnmarshalBinary(state.State); err != nil {
			return ShardResult{}, StaleStats{}, fmt.Errorf("transforms: shard %d: restoring the learner: %w", shard, err)
		}
		on.SetWeights(w0)
	}
	sc, err := newScorer(o.Decode)
	if err != nil {
		return ShardResult{}, StaleStats{}, err
	}
	res := ShardResult{Shard: shard, Epoch: o.Epoch, Sentences: len(sents)}
	before := on.Updates()

	// The same order and mini-batches as LearnShard.
	rng := rand.New(rand.NewPCG(o.Seed, mix64(uint64(o.Epoch), uint64(shard))))
	order := rng.Perm(len(sents))
	size := o.miniBatch()
	var batches [][]Sentence
	for start := 0; start < len(order); start += size {
		var b []Sentence
		for _, i := range order[start:min(start+size, len(order))] {
			b = append(b, sents[i])
		}
		batches = append(batches, b)
	}
	tr := newTranslator(dec.Features(), idx)
	var trMu sync.Mutex // the translator and res.Stats are not concurrency-safe; emit is serialised
	prepare := func(ctx context.Context, bi int, cur feature.Weights) ([]pool.List, error) {
		batchSents := batches[bi]
		trMu.Lock()
		dw := tr.weights(cur, nil)
		trMu.Unlock()
		nbests, err := decodeAll(ctx, dec, batchSents, dw, o.Decode)
		if err != nil {
			return nil, fmt.Errorf("%w (shard %d)", err, shard)
		}
		trMu.Lock()
		defer trMu.Unlock()
		batch := make([]pool.List, len(batchSents))
		var stats metric.Stats
		for i, x := range batchSents {
			ref, err := sc.reference(x)
			if err != nil {
				return nil, err
			}
			hyps := nbests[i]
			hs := sc.stats(ref, hyps)
			list := pool.List{Sent: x.ID, Hyps: make([]pool.Hyp, len(hyps))}
			for k, h := range hyps {
				v, err := tr.vector(h.Features)
				if err != nil {
					return nil, fmt.Errorf("transforms: sentence %d hypothesis %d: %w", x.ID, k, err)
				}
				list.Hyps[k] = pool.Hyp{Features: v, Stats: hs[k]}
			}
			stats.Add(hs[0])
			batch[i] = list
		}
		res.Stats.Add(stats)
		if emit != nil {
			for i, list := range batch {
				targets := make([]string, len(nbests[i]))
				for k, h := range nbests[i] {
					targets[k] = h.Target
				}
				emit(NBestOf(list, targets, idx))
			}
		}
		return batch, nil
	}
	es := EpochSeed(o.Seed, o.Epoch)
	seed := func(i int) uint64 { return StaleSeed(es, shard, i) }
	st, err := RunStale(ctx, on, len(batches), prepare, seed, so)
	if err != nil {
		return ShardResult{}, st, fmt.Errorf("transforms: shard %d: %w", shard, err)
	}
	res.TotalUpdates = on.Updates()
	res.Updates = res.TotalUpdates - before
	res.Weights = NewWireWeights(idx, on.Weights())
	if res.State, err = on.MarshalBinary(); err != nil {
		return ShardResult{}, st, fmt.Errorf("transforms: shard %d: saving the learner: %w", shard, err)
	}
	return res, st, nil
}

// StaleReportPath is the file StaleLearnFn writes shard k's StaleReport to
// in dir.
func StaleReportPath(dir string, k int) string {
	return storage.Join(dir, tune.StaleReportName(k))
}

// ReadStaleReportFile reads a file StaleLearnFn wrote.
func ReadStaleReportFile(ctx context.Context, path string) (StaleReport, error) {
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		return StaleReport{}, fmt.Errorf("transforms: %w", err)
	}
	var r StaleReport
	if err := json.Unmarshal(data, &r); err != nil {
		return StaleReport{}, fmt.Errorf("transforms: %s: %w", path, err)
	}
	return r, nil
}

// StaleLearn is Learn with StaleLearnFn: each shard learns its epoch with
// stale gradients. It returns the shards' results and the n-best lists as
// Learn does; each shard's StaleReport is written to
// StaleReportPath(fn.ReportDir, shard).
func StaleLearn(s beam.Scope, fn *StaleLearnFn, sents, weights, states beam.PCollection) (results, lists beam.PCollection) {
	s = s.Scope("transforms.StaleLearn")
	if err := fn.check(); err != nil {
		panic(err)
	}
	keyed := Shard(s, sents, fn.Shards, EpochSeed(fn.Options.Seed, fn.Options.Epoch))
	keyedStates := beam.ParDo(s, keyStateFn, states)
	grouped := beam.CoGroupByKey(s, keyed, keyedStates, replicate(s, weights, fn.Shards))
	return beam.ParDo2(s, fn, grouped)
}

// StaleLearnFn is the DoFn of StaleLearn: LearnFn with StaleLearnShard.
type StaleLearnFn struct {
	// Decoder, DecoderConfig, Shards, Options and DropLists are
	// LearnFn's.
	Decoder       string
	DecoderConfig string
	Shards        int
	Options       LearnOptions
	DropLists     bool
	// Stale configures the stale gradients (zero value: 2 threads, no
	// staleness bound).
	Stale StaleOptions
	// ReportDir is the folder (local or gs://) the shards' StaleReports
	// are written to; "" means they are not written.
	ReportDir string

	dec Decoder
}

func (f *StaleLearnFn) check() error {
	if f.Stale.MaxStaleness < 0 || f.Stale.Threads < 0 {
		return fmt.Errorf("transforms: invalid stale options %+v", f.Stale)
	}
	return (&LearnFn{Decoder: f.Decoder, Shards: f.Shards, Options: f.Options}).check()
}

// Setup loads the decoder.
func (f *StaleLearnFn) Setup(ctx context.Context) error {
	d, err := OpenDecoder(ctx, f.Decoder, f.DecoderConfig)
	if err != nil {
		return err
	}
	f.dec = d
	return nil
}

// ProcessElement learns one shard's epoch with stale gradients.
func (f *StaleLearnFn) ProcessElement(ctx context.Context, shard int, sents func(*Sentence) bool, states func(*ShardState) bool, weights func(*WireWeights) bool,
	emitResult func(ShardResult), emitList func(NBest)) error {
	xs, state, w, err := gatherShard(shard, f.Shards, sents, states, weights)
	if err != nil {
		return err
	}
	if f.DropLists {
		emitList = nil
	}
	res, stats, err := StaleLearnShard(ctx, f.dec, shard, xs, w, state, f.Options, f.Stale, emitList)
	if err != nil {
		return err
	}
	if f.ReportDir != "" {
		data, err := json.Marshal(StaleReport{Shard: shard, Epoch: f.Options.Epoch, Stats: stats})
		if err != nil {
			return fmt.Errorf("transforms: %w", err)
		}
		if err := storage.WriteFile(ctx, StaleReportPath(f.ReportDir, shard), append(data, '\n')); err != nil {
			return fmt.Errorf("transforms: %w", err)
		}
	}
	emitResult(res)
	return nil
}
