package transforms

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/learner/online"
	"github.com/mtune/mtune/pool"
)

// LearnOptions configure a shard's online learning. The zero value runs
// AdaGrad + FOBOS with its defaults on 100-best lists, seed 0, epoch 0.
type LearnOptions struct {
	// Algo names an online learner of learner/algo; "" means "adagrad".
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
		return "adagrad"
	}
	return o.Algo
}

func (o LearnOptions) validate() error {
	info, ok := algo.Lookup(o.algo())
	if !ok {
		return fmt.Errorf("transforms: unknown learner %q (choose from %v)", o.algo(), algo.Names())
	}
	if !info.Online {
		return fmt.Errorf("transforms: %s is a batch learner; a shard needs an online one", info.Name)
	}
	if o.Config.MiniBatch < 0 || o.Epoch < 0 {
		return fmt.Errorf("transforms: invalid mini-batch size %d or epoch %d", o.Config.MiniBatch, o.Epoch)
	}
	return o.Decode.validate()
}

// miniBatch returns the mini-batch size.
func (o LearnOptions) miniBatch() int {
	if o.Config.MiniBatch > 0 {
		return o.Config.MiniBatch
	}
	switch o.algo() {
	case "mira":
		return 1
	case "oro":
		return online.DefaultWatanabeBatch
	}
	return online.DefaultAdaGradBatch
}

// mix64 hashes two words into one (SplitMix64 finaliser of their sum).
func mix64(a, b uint64) uint64 {
	z := a + 0x9e3779b97f4a7c15*(b+1)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// LearnShard runs one epoch of a shard's online learning with the decoder in
// the loop: the sentences, shuffled by a generator seeded with (Seed,
// Epoch, shard), are cut into mini-batches; each mini-batch is decoded
// with the learner's Current weights, scored against its references and
// learnt from with one Update.
//
// The learner starts from the weights w. If state is not nil, it is first
// restored from state (which must come from a learner of the same kind and
// options) and then given w with SetWeights, as parameter mixing requires;
// otherwise it is made new with algo.New. The feature index of the shard
// holds state's names first, in order, so that the state's ids keep their
// meaning, then w's, then the features decoding meets.
//
// Each sentence's scored n-best list goes to emit (if not nil) in the
// order decoded. The result's State resumes the shard in the next epoch
// (ShardResult.ShardState). Decoding, and therefore the result, does not
// depend on Decode.Threads.
func LearnShard(ctx context.Context, dec Decoder, shard int, sents []Sentence, w WireWeights, state *ShardState, o LearnOptions, emit func(NBest)) (ShardResult, error) {
	if err := o.validate(); err != nil {
		return ShardResult{}, err
	}
	sents = slices.Clone(sents)
	slices.SortFunc(sents, func(a, b Sentence) int { return cmp.Compare(a.ID, b.ID) })
	for i := 1; i < len(sents); i++ {
		if sents[i].ID == sents[i-1].ID {
			return ShardResult{}, fmt.Errorf("transforms: shard %d: sentence %d given twice", shard, sents[i].ID)
		}
	}
	idx := feature.NewIndex()
	if state != nil {
		if state.Shard != shard {
			return ShardResult{}, fmt.Errorf("transforms: shard %d given the state of shard %d", shard, state.Shard)
		}
		idx = feature.NewIndexOf(state.Names...)
		if idx.Len() != len(state.Names) {
			return ShardResult{}, fmt.Errorf("transforms: shard %d: the state repeats a feature name", shard)
		}
	}
	w0, err := w.Weights(idx)
	if err != nil {
		return ShardResult{}, fmt.Errorf("transforms: shard %d: epoch weights: %w", shard, err)
	}
	cfg := o.Config
	cfg.Seed = mix64(o.Seed, uint64(shard))
	l, err := algo.New(o.algo(), w0, cfg)
	if err != nil {
		return ShardResult{}, fmt.Errorf("transforms: shard %d: %w", shard, err)
	}
	on, ok := l.(learner.Online)
	if !ok {
		return ShardResult{}, fmt.Errorf("transforms: %s is not an online learner", o.algo())
	}
	if state != nil {
		if err := on.UnmarshalBinary(state.State); err != nil {
			return ShardResult{}, fmt.Errorf("transforms: shard %d: restoring the learner: %w", shard, err)
		}
		on.SetWeights(w0)
	}
	sc, err := newScorer(o.Decode)
	if err != nil {
		return ShardResult{}, err
	}
	res := ShardResult{Shard: shard, Epoch: o.Epoch, Sentences: len(sents)}
	before := on.Updates()

	rng := rand.New(rand.NewPCG(o.Seed, mix64(uint64(o.Epoch), uint64(shard))))
	order := rng.Perm(len(sents))
	tr := newTranslator(dec.Features(), idx)
	var dw feature.Weights
	size := o.miniBatch()
	batchSents := make([]Sentence, 0, size)
	for start := 0; start < len(order); start += size {
		batchSents = batchSents[:0]
		for _, i := range order[start:min(start+size, len(order))] {
			batchSents = append(batchSents, sents[i])
		}
		dw = tr.weights(on.Current(), dw)
		nbests, err := decodeAll(ctx, dec, batchSents, dw, o.Decode)
		if err != nil {
			return ShardResult{}, fmt.Errorf("%w (shard %d)", err, shard)
		}
		batch := make([]pool.List, len(batchSents))
		for i, x := range batchSents {
			ref, err := sc.reference(x)
			if err != nil {
				return ShardResult{}, err
			}
			hyps := nbests[i]
			stats := sc.stats(ref, hyps)
			list := pool.List{Sent: x.ID, Hyps: make([]pool.Hyp, len(hyps))}
			var targets []string
			if emit != nil {
				targets = make([]string, len(hyps))
			}
			for k, h := range hyps {
				v, err := tr.vector(h.Features)
				if err != nil {
					return ShardResult{}, fmt.Errorf("transforms: sentence %d hypothesis %d: %w", x.ID, k, err)
				}
				list.Hyps[k] = pool.Hyp{Features: v, Stats: stats[k]}
				if targets != nil {
					targets[k] = h.Target
				}
			}
			res.Stats.Add(stats[0])
			batch[i] = list
			if emit != nil {
				emit(NBestOf(list, targets, idx))
			}
		}
		if err := on.Update(ctx, batch); err != nil {
			return ShardResult{}, fmt.Errorf("transforms: shard %d: update: %w", shard, err)
		}
	}
	res.TotalUpdates = on.Updates()
	res.Updates = res.TotalUpdates - before
	res.Weights = NewWireWeights(idx, on.Weights())
	if res.State, err = on.MarshalBinary(); err != nil {
		return ShardResult{}, fmt.Errorf("transforms: shard %d: saving the learner: %w", shard, err)
	}
	return res, nil
}

// Learn runs each shard's online learning for an epoch (LearnFn) over
// sents, a PCollection<Sentence>. weights is a singleton
// PCollection<WireWeights>, the weights of the epoch; states is a
// PCollection<ShardState> with at most one state per shard (empty in the
// first epoch; a shard without one starts a new learner). The sentences
// are dealt out by Shard with EpochSeed(fn.Options.Seed, fn.Options.Epoch).
//
// It returns a PCollection<ShardResult> with one result for each of the
// fn.Shards shards (a shard dealt no sentence passes its state and the
// epoch's weights through) and a PCollection<NBest> with every sentence's
// scored n-best list.
func Learn(s beam.Scope, fn *LearnFn, sents, weights, states beam.PCollection) (results, lists beam.PCollection) {
	s = s.Scope("transforms.Learn")
	if err := fn.check(); err != nil {
		panic(err)
	}
	keyed := Shard(s, sents, fn.Shards, EpochSeed(fn.Options.Seed, fn.Options.Epoch))
	keyedStates := beam.ParDo(s, keyStateFn, states)
	grouped := beam.CoGroupByKey(s, keyed, keyedStates, replicate(s, weights, fn.Shards))
	return beam.ParDo2(s, fn, grouped)
}

// replicate keys a copy of every element of weights, a
// PCollection<WireWeights>, by each of 0…n-1.
//
// The learning and decoding steps join the epoch's weights to their
// groups this way rather than read them as a side input: Beam's prism
// runner (v2.77) re-evaluates a stage that reads a side input in a busy
// loop for as long as one of its bundles runs, which took a third of a
// 2-core machine away from decoding.
func replicate(s beam.Scope, weights beam.PCollection, n int) beam.PCollection {
	return beam.ParDo(s, &replicateFn{N: n}, weights)
}

// replicateFn emits (k, w) for every k < N: every key gets the weights,
// so every shard or batch is processed even if it holds no sentence.
type replicateFn struct {
	N int
}

func (f *replicateFn) ProcessElement(w WireWeights, emit func(int, WireWeights)) {
	for k := 0; k < f.N; k++ {
		emit(k, w)
	}
}

// keyStateFn keys a state by its shard.
func keyStateFn(st ShardState) (int, ShardState) { return st.Shard, st }

// LearnFn is the DoFn of Learn: it runs LearnShard on a shard's group of
// sentences with the decoder in the loop. The decoder is loaded once per
// worker process in Setup.
type LearnFn struct {
	// Decoder is the registered name of the decoder (RegisterDecoder);
	// building the transform panics if it is empty or unknown.
	Decoder string
	// DecoderConfig is passed to the decoder's factory.
	DecoderConfig string
	// Shards is the number of shards; it must be at least 1.
	Shards int
	// Options configure the learning. Options.Decode.Threads 0 means
	// the worker's cores divided by Shards (at least 1): a shard decodes
	// the sentences of a mini-batch at once on that many goroutines.
	Options LearnOptions
	// DropLists leaves the lists output empty instead of sending it
	// every sentence's scored n-best list (line-search mixing needs them,
	// averaging does not: dropping them saves encoding ~100 hypotheses a
	// sentence).
	DropLists bool

	dec Decoder
}

// decodeThreads returns the goroutines a shard decodes a mini-batch on:
// threads, or with 0 the worker's cores shared out among the shards.
func decodeThreads(threads, shards int) int {
	if threads > 0 {
		return threads
	}
	return max(1, runtime.NumCPU()/max(1, shards))
}

func (f *LearnFn) check() error {
	if f.Shards < 1 {
		return fmt.Errorf("transforms: %d shards", f.Shards)
	}
	if err := checkDecoder(f.Decoder); err != nil {
		return err
	}
	return f.Options.validate()
}

// Setup loads the decoder.
func (f *LearnFn) Setup(ctx context.Context) error {
	d, err := OpenDecoder(ctx, f.Decoder, f.DecoderConfig)
	if err != nil {
		return err
	}
	f.dec = d
	return nil
}

// gatherShard reads the co-grouped inputs of one shard: its sentences, its
// saved learner state (at most one) and the epoch's weights, which every
// shard in range has once.
func gatherShard(shard, shards int, sents func(*Sentence) bool, states func(*ShardState) bool, weights func(*WireWeights) bool) ([]Sentence, *ShardState, WireWeights, error) {
	var w WireWeights
	if !weights(&w) {
		return nil, nil, WireWeights{}, fmt.Errorf("transforms: a state or sentences for shard %d, but there are only %d shards", shard, shards)
	}
	var extra WireWeights
	if weights(&extra) {
		return nil, nil, WireWeights{}, fmt.Errorf("transforms: shard %d given the weights twice", shard)
	}
	var xs []Sentence
	var x Sentence
	for sents(&x) {
		xs = append(xs, x)
	}
	var state *ShardState
	var st ShardState
	for states(&st) {
		if state != nil {
			return nil, nil, WireWeights{}, fmt.Errorf("transforms: two states for shard %d", shard)
		}
		state = &ShardState{Shard: st.Shard, Names: st.Names, State: st.State}
	}
	return xs, state, w, nil
}

// ProcessElement learns one shard's epoch.
func (f *LearnFn) ProcessElement(ctx context.Context, shard int, sents func(*Sentence) bool, states func(*ShardState) bool, weights func(*WireWeights) bool,
	emitResult func(ShardResult), emitList func(NBest)) error {
	xs, state, w, err := gatherShard(shard, f.Shards, sents, states, weights)
	if err != nil {
		return err
	}
	o := f.Options
	o.Decode.Threads = decodeThreads(o.Decode.Threads, f.Shards)
	if f.DropLists {
		emitList = nil
	}
	res, err := LearnShard(ctx, f.dec, shard, xs, w, state, o, emitList)
	if err != nil {
		return err
	}
	emitResult(res)
	return nil
}
