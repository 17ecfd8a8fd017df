package tune

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// LearnOptions configure a shard's online learning. The zero value runs
// AdaGrad + FOBOS with its defaults on 100-best lists, seed 0, epoch 0.
type LearnOptions struct {
	// Algo names an online learner of learner/algo; "" means
	// algo.DefaultOnline.
	Algo string
	// Config holds the learner's settings (zero fields: its defaults).
	// Config.Seed is ignored: a shard's learner is seeded from Seed and
	// the shard number. Config.MiniBatch is the mini-batch size here too
	// (0: the learner's default: 20 for adagrad and sgd, 1 for mira, 16
	// for oro).
	Config algo.Config
	// Decode controls decoding and scoring.
	Decode DecodeOptions
	// Seed seeds the run: the shards' learners, and with Epoch the order
	// of each shard's mini-batches.
	Seed uint64
	// Epoch is the 0-based epoch.
	Epoch int
}

func (o LearnOptions) algo() string {
	if o.Algo == "" {
		return DefaultLearner(IPM)
	}
	return o.Algo
}

// Validate checks the options.
func (o LearnOptions) Validate() error {
	info, ok := algo.Lookup(o.algo())
	if !ok {
		return fmt.Errorf("tune: unknown learner %q (choose from %v)", o.algo(), algo.Names())
	}
	if !info.Online {
		return fmt.Errorf("tune: %s is a batch learner; a shard needs an online one", info.Name)
	}
	if o.Config.MiniBatch < 0 || o.Epoch < 0 {
		return fmt.Errorf("tune: invalid mini-batch size %d or epoch %d", o.Config.MiniBatch, o.Epoch)
	}
	if err := o.Decode.Validate(); err != nil {
		return err
	}
	_, err := o.config()
	return err
}

// config returns the learner's settings with the metric hypotheses are
// scored with (Decode.Metric), checked against the learner.
func (o LearnOptions) config() (algo.Config, error) {
	m, err := o.Decode.ParseMetric()
	if err != nil {
		return algo.Config{}, err
	}
	cfg := o.Config
	cfg.SetMetric(m)
	if err := cfg.Validate(o.algo()); err != nil {
		return algo.Config{}, fmt.Errorf("tune: %w", err)
	}
	return cfg, nil
}

// AlgoConfig is a learner's settings (learner/algo.Config), as a run's
// options hold them.
type AlgoConfig = algo.Config

// DefaultLearner is the learner of mode when none is named: the default
// online learner for IPM and Stale, the default batch one for Batch
// (learner/algo declares both).
func DefaultLearner(mode Mode) string {
	if mode.Online() {
		return algo.DefaultOnline
	}
	return algo.DefaultBatch
}

// CheckLearner checks a run's learner: name is a learner of learner/algo,
// an online one unless mode is Batch (whose optimizer runs on a pool),
// with settings c it takes (algo.Config.Validate).
func CheckLearner(mode Mode, name string, c AlgoConfig) error {
	info, ok := algo.Lookup(name)
	if !ok {
		return fmt.Errorf("tune: unknown learner %q (choose from %v)", name, algo.Names())
	}
	if !info.Online && mode.Online() {
		return fmt.Errorf("tune: %s is a batch learner; --mode %s needs an online one", name, mode)
	}
	if err := c.Validate(name); err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	return nil
}

// MiniBatch returns the mini-batch size: Config.MiniBatch, or the
// learner's default (algo.Info.MiniBatch).
func (o LearnOptions) MiniBatch() int { return o.Config.MiniBatchOf(o.algo()) }

// Session is one shard's epoch of online learning with the decoder in the
// loop (DESIGN.md §8): the learner restored from its state, the shard's
// sentences cut into mini-batches in the epoch's random order, and each
// mini-batch decoded with given weights, scored against its references and
// turned into the learner's pool lists. Run makes one update a mini-batch
// in order (iterative parameter mixing, McDonald et al. 2010; Watanabe
// 2012 Alg. 3); RunStale applies stale gradients (Green et al. 2013,
// Alg. 2).
type Session struct {
	shard   int
	dec     Decoder
	o       LearnOptions
	idx     *feature.Index
	on      learner.Online
	sc      *scorer
	batches [][]Sentence
	before  int
	emit    func(NBest)

	mu    sync.Mutex // guards tr, stats, work and emit: Prepare may run concurrently
	tr    *translator
	stats metric.Stats
	work  Work         // sentences, hypotheses and decoding time so far
	learn atomic.Int64 // nanoseconds in the learner's updates
}

// NewSession readies shard's epoch over sents, starting from the weights
// w. If state is not nil, the learner is first restored from it (it must
// come from a learner of the same kind and options) and then given w with
// SetWeights, as parameter mixing requires; otherwise it is made new with
// algo.New, seeded from (o.Seed, shard). The shard's feature index holds
// state's names first, in order, so that the state's ids keep their
// meaning, then w's, then the features decoding meets, each mini-batch's
// new ones in the order of their names (never in the order concurrent
// decodings met them: the ids order the learner's float sums). The
// sentences, in id order, are shuffled by a generator seeded with (o.Seed,
// o.Epoch, shard) and cut into mini-batches of o.MiniBatch(). Each scored n-best
// list goes to emit, if not nil, in the order decoded (never
// concurrently).
func NewSession(dec Decoder, shard int, sents []Sentence, w weights.ByName, state *ShardState, o LearnOptions, emit func(NBest)) (*Session, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	sents = slices.Clone(sents)
	slices.SortFunc(sents, func(a, b Sentence) int { return cmp.Compare(a.ID, b.ID) })
	for i := 1; i < len(sents); i++ {
		if sents[i].ID == sents[i-1].ID {
			return nil, fmt.Errorf("tune: shard %d: sentence %d given twice", shard, sents[i].ID)
		}
	}
	idx := feature.NewIndex()
	if state != nil {
		if state.Shard != shard {
			return nil, fmt.Errorf("tune: shard %d given the state of shard %d", shard, state.Shard)
		}
		idx = feature.NewIndexOf(state.Names...)
		if idx.Len() != len(state.Names) {
			return nil, fmt.Errorf("tune: shard %d: the state repeats a feature name", shard)
		}
	}
	w0, err := w.Over(idx)
	if err != nil {
		return nil, fmt.Errorf("tune: shard %d: epoch weights: %w", shard, err)
	}
	cfg, err := o.config()
	if err != nil {
		return nil, err
	}
	cfg.Seed = mix64(o.Seed, uint64(shard))
	l, err := algo.New(o.algo(), w0, cfg)
	if err != nil {
		return nil, fmt.Errorf("tune: shard %d: %w", shard, err)
	}
	on, ok := l.(learner.Online)
	if !ok {
		return nil, fmt.Errorf("tune: %s is not an online learner", o.algo())
	}
	if state != nil {
		if err := on.UnmarshalBinary(state.State); err != nil {
			return nil, fmt.Errorf("tune: shard %d: restoring the learner: %w", shard, err)
		}
		on.SetWeights(w0)
	}
	sc, err := newScorer(o.Decode)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(o.Seed, mix64(uint64(o.Epoch), uint64(shard))))
	order := rng.Perm(len(sents))
	size := o.MiniBatch()
	var batches [][]Sentence
	for start := 0; start < len(order); start += size {
		b := make([]Sentence, 0, size)
		for _, i := range order[start:min(start+size, len(order))] {
			b = append(b, sents[i])
		}
		batches = append(batches, b)
	}
	return &Session{shard: shard, dec: dec, o: o, idx: idx, on: on, sc: sc, batches: batches,
		before: on.Updates(), emit: emit, tr: newTranslator(dec.Features(), idx)}, nil
}

// Prepare decodes mini-batch i with the weights w (over the shard's
// index), scores each n-best list against its references and returns them
// as the learner's pool lists; each list also goes to the session's emit.
// It may be called from several goroutines at once.
func (s *Session) Prepare(ctx context.Context, i int, w feature.Weights) ([]pool.List, error) {
	sents := s.batches[i]
	s.mu.Lock()
	dw := s.tr.weights(w, nil)
	s.mu.Unlock()
	start := time.Now()
	nbests, err := decodeAll(ctx, s.dec, sents, dw, s.o.Decode)
	if err != nil {
		return nil, fmt.Errorf("%w (shard %d)", err, s.shard)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tr.intern(nbests)
	batch := make([]pool.List, len(sents))
	var stats metric.Stats
	hyps := 0
	for k, x := range sents {
		l, err := s.list(x, nbests[k])
		if err != nil {
			return nil, err
		}
		stats.Add(l.Hyps[0].Stats())
		batch[k] = l
		hyps += len(l.Hyps)
	}
	s.stats.Add(stats)
	s.work.Add(Work{Sentences: len(sents), Hypotheses: hyps, Decode: time.Since(start)})
	if s.emit != nil {
		for k, l := range batch {
			s.emit(NBestOf(l, targets(nbests[k]), s.idx))
		}
	}
	return batch, nil
}

// list scores the n-best list hyps of x and returns it over the shard's
// index.
func (s *Session) list(x Sentence, hyps []decoder.Hypothesis) (pool.List, error) {
	ref, err := s.sc.reference(x)
	if err != nil {
		return pool.List{}, err
	}
	stats := s.sc.stats(ref, hyps)
	l := pool.List{Sent: x.ID, Hyps: make([]pool.Hyp, len(hyps))}
	for k, h := range hyps {
		v, err := s.tr.vector(h.Features)
		if err != nil {
			return pool.List{}, fmt.Errorf("tune: sentence %d hypothesis %d: %w", x.ID, k, err)
		}
		l.Hyps[k] = pool.NewHyp(v, stats[k])
	}
	return l, nil
}

func targets(hyps []decoder.Hypothesis) []string {
	out := make([]string, len(hyps))
	for k, h := range hyps {
		out[k] = h.Target
	}
	return out
}

// Run learns the epoch: for each mini-batch in order, Prepare it with the
// learner's Current weights and make one Update.
func (s *Session) Run(ctx context.Context) (ShardResult, error) {
	on := s.timed()
	for i := range s.batches {
		batch, err := s.Prepare(ctx, i, on.Current())
		if err != nil {
			return ShardResult{}, err
		}
		if err := on.Update(ctx, batch); err != nil {
			return ShardResult{}, fmt.Errorf("tune: shard %d: update: %w", s.shard, err)
		}
	}
	flushDecoded(ctx, s.o.Decode)
	return s.result()
}

// timed is the session's learner, timing its updates into s.learn.
func (s *Session) timed() timedOnline { return timedOnline{Online: s.on, learn: &s.learn} }

// Work returns what the session did so far: the sentences and hypotheses
// it decoded, the updates it made (and the pairs they sampled), the time it spent decoding and in the
// learner's updates (Work.Staleness is left to RunStale's caller).
func (s *Session) Work() Work {
	s.mu.Lock()
	w := s.work
	s.mu.Unlock()
	w.Updates = s.on.Updates() - s.before
	if ps, ok := s.on.(learner.PairSampler); ok {
		w.Pairs = int(ps.PairsSampled()) // the learner was made for this session
	}
	w.Learn = time.Duration(s.learn.Load())
	return w
}

// result is the shard's outcome once its mini-batches are learnt.
func (s *Session) result() (ShardResult, error) {
	res := ShardResult{Shard: s.shard, Epoch: s.o.Epoch, Stats: s.stats}
	for _, b := range s.batches {
		res.Sentences += len(b)
	}
	res.TotalUpdates = s.on.Updates()
	res.Updates = res.TotalUpdates - s.before
	res.Weights = weights.NewByName(s.idx, s.on.Weights())
	var err error
	if res.State, err = s.on.MarshalBinary(); err != nil {
		return ShardResult{}, fmt.Errorf("tune: shard %d: saving the learner: %w", s.shard, err)
	}
	return res, nil
}

// LearnShard runs one epoch of a shard's online learning with the decoder
// in the loop (NewSession, then Run): each mini-batch is decoded with the
// learner's Current weights, scored against its references and learnt
// from with one Update. The result's State resumes the shard in the next
// epoch (ShardResult.ShardState); the Work says what the epoch did (for a
// pipeline's metrics). Decoding, and therefore the result, does not depend
// on o.Decode.Threads.
func LearnShard(ctx context.Context, dec Decoder, shard int, sents []Sentence, w weights.ByName, state *ShardState, o LearnOptions, emit func(NBest)) (ShardResult, Work, error) {
	s, err := NewSession(dec, shard, sents, w, state, o, emit)
	if err != nil {
		return ShardResult{}, Work{}, err
	}
	res, err := s.Run(ctx)
	if err != nil {
		return ShardResult{}, Work{}, err
	}
	return res, s.Work(), nil
}
