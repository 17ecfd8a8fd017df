package transforms

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/tune"
)

// Learn runs each shard's online learning for an epoch (LearnFn) over
// sents, a PCollection<tune.Sentence>. weights is a singleton
// PCollection<weights.ByName>, the weights of the epoch; states is a
// PCollection<tune.ShardState> with at most one state per shard (empty in the
// first epoch; a shard without one starts a new learner). The sentences
// are dealt out by Shard with tune.EpochSeed(fn.Options.Seed, fn.Options.Epoch).
//
// It returns a PCollection<tune.ShardResult> with one result for each of the
// fn.Shards shards (a shard dealt no sentence passes its state and the
// epoch's weights through) and a PCollection<tune.NBest> with every sentence's
// scored n-best list. With fn.Stale set, each shard learns with stale
// gradients (the stale mode) and writes its tune.StaleReport into
// fn.ReportDir.
func Learn(s beam.Scope, fn *LearnFn, sents, weights, states beam.PCollection) (results, lists beam.PCollection) {
	s = s.Scope("transforms.Learn")
	if err := fn.check(); err != nil {
		panic(err)
	}
	keyed := Shard(s, sents, fn.Shards, tune.EpochSeed(fn.Options.Seed, fn.Options.Epoch))
	keyedStates := beam.ParDo(s, keyStateFn, states)
	grouped := beam.CoGroupByKey(s, keyed, keyedStates, replicate(s, weights, fn.Shards))
	return beam.ParDo2(s, fn, grouped)
}

// replicate keys a copy of every element of weights, a
// PCollection<weights.ByName>, by each of 0…n-1.
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

func (f *replicateFn) ProcessElement(w weights.ByName, emit func(int, weights.ByName)) {
	for k := 0; k < f.N; k++ {
		emit(k, w)
	}
}

// keyStateFn keys a state by its shard.
func keyStateFn(st tune.ShardState) (int, tune.ShardState) { return st.Shard, st }

// LearnFn is the DoFn of Learn: it runs tune.LearnShard (tune.StaleLearnShard
// with Stale set) on a shard's group of sentences with the decoder in the
// loop. The decoder is loaded once per worker process in Setup.
type LearnFn struct {
	// Decoder is the registered name of the decoder (tune.RegisterDecoder);
	// building the transform panics if it is empty or unknown.
	Decoder string
	// DecoderConfig is passed to the decoder's factory.
	DecoderConfig string
	// Shards is the number of shards; it must be at least 1.
	Shards int
	// Options configure the learning. Options.Decode.Threads 0 means
	// the worker's cores (decodeThreads): a shard decodes the sentences of
	// a mini-batch at once on that many goroutines.
	Options tune.LearnOptions
	// DropLists leaves the lists output empty instead of sending it
	// every sentence's scored n-best list (line-search mixing needs them,
	// averaging does not: dropping them saves encoding ~100 hypotheses a
	// sentence).
	DropLists bool
	// StateDir, if not "", is the folder each shard writes its state and
	// summary to (tune.KeepShardState) before it emits its result without
	// the state, instead of WriteShardStates after it.
	StateDir string
	// NonZeroWeights makes each shard emit its non-zero weights only: for
	// averaging, not line search (tune.KeepShardState).
	NonZeroWeights bool
	// Stale, if not nil, makes the shards learn with stale gradients
	// (tune.StaleLearnShard) configured so (zero value: 2 threads, no
	// staleness bound); nil means tune.LearnShard.
	Stale *tune.StaleOptions
	// ReportDir is the folder (local or gs://) the shards' StaleReports
	// are written to (tune.WriteStaleReport; Stale only); "" means they are
	// not written.
	ReportDir string

	dec tune.Decoder
}

// decodeThreads returns the goroutines a shard decodes a mini-batch on:
// threads, or with 0 all of the worker's cores. A runner may run the
// shards one after another (prism's PROCESS workers, the direct runner) or
// side by side (prism's loopback workers, Dataflow); the built-in decoder
// shares the cores among the shards a worker runs at once (tune.Moses
// decodes no more sentences at once than the process has cores), so that
// no core idles in the first case and none is oversubscribed in the
// second.
func decodeThreads(threads int) int {
	if threads > 0 {
		return threads
	}
	return max(1, runtime.NumCPU())
}

func (f *LearnFn) check() error {
	if f.Shards < 1 {
		return fmt.Errorf("transforms: %d shards", f.Shards)
	}
	if err := tune.CheckDecoder(f.Decoder); err != nil {
		return err
	}
	return f.Options.Validate()
}

// Setup loads the decoder.
func (f *LearnFn) Setup(ctx context.Context) (err error) {
	f.dec, err = OpenDecoder(ctx, f.Decoder, f.DecoderConfig)
	return err
}

// ProcessElement learns one shard's epoch (with stale gradients if
// f.Stale is set).
func (f *LearnFn) ProcessElement(ctx context.Context, shard int, sents func(*tune.Sentence) bool, states func(*tune.ShardState) bool, weightsOf func(*weights.ByName) bool,
	emitResult func(tune.ShardResult), emitList func(tune.NBest)) error {
	xs, state, w, err := tune.GatherShard(shard, f.Shards, sents, states, weightsOf)
	if err != nil {
		return err
	}
	o := f.Options
	o.Decode.Threads = decodeThreads(o.Decode.Threads)
	if f.DropLists {
		emitList = nil
	}
	start := time.Now()
	logShardStart(ctx, shard, o.Epoch, len(xs), state != nil)
	dec, err := tune.DecoderFor(ctx, f.dec, xs)
	if err != nil {
		return err
	}
	var res tune.ShardResult
	var work tune.Work
	if f.Stale != nil {
		res, work, err = tune.StaleLearnShard(ctx, dec, shard, xs, w, state, o, *f.Stale, emitList)
	} else {
		res, work, err = tune.LearnShard(ctx, dec, shard, xs, w, state, o, emitList)
	}
	if err != nil {
		return err
	}
	if f.Stale != nil && f.ReportDir != "" {
		if _, err := tune.WriteStaleReport(ctx, f.ReportDir, tune.StaleReport{Shard: shard, Epoch: o.Epoch, Stats: work.Staleness}); err != nil {
			return err
		}
	}
	if res, err = tune.KeepShardState(ctx, f.StateDir, res, f.NonZeroWeights); err != nil {
		return err
	}
	emitResult(res)
	reportShard(ctx, work, time.Since(start))
	logShardEnd(ctx, shard, work, time.Since(start))
	return nil
}

// logShardStart and logShardEnd log a shard's epoch on the worker (Beam's
// log: the runner's log, Dataflow's worker logs).
func logShardStart(ctx context.Context, shard, epoch, sents int, resumed bool) {
	from := "a new learner"
	if resumed {
		from = "its saved learner"
	}
	log.Infof(ctx, "shard %d: epoch %d: learning %d sentences from %s", shard, epoch+1, sents, from)
}

func logShardEnd(ctx context.Context, shard int, w tune.Work, wall time.Duration) {
	log.Infof(ctx, "shard %d: %d sentences, %d hypotheses, %d updates in %.1f s (decoding %.1f s, updates %.1f s)",
		shard, w.Sentences, w.Hypotheses, w.Updates, wall.Seconds(), w.Decode.Seconds(), w.Learn.Seconds())
}
