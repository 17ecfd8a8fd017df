package transforms

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/tune"
)

func init() {
	beam.RegisterType(reflect.TypeOf(tune.StaleStats{}))
	beam.RegisterType(reflect.TypeOf(tune.StaleReport{}))
	register.DoFn7x1[context.Context, int, func(*tune.Sentence) bool, func(*tune.ShardState) bool, func(*weights.ByName) bool,
		func(tune.ShardResult), func(tune.NBest), error](&StaleLearnFn{})
}

// StaleLearn is Learn with StaleLearnFn: each shard learns its epoch with
// stale gradients. It returns the shards' results and the n-best lists as
// Learn does; each shard's tune.StaleReport is written into fn.ReportDir
// (tune.WriteStaleReport).
func StaleLearn(s beam.Scope, fn *StaleLearnFn, sents, weights, states beam.PCollection) (results, lists beam.PCollection) {
	s = s.Scope("transforms.StaleLearn")
	if err := fn.check(); err != nil {
		panic(err)
	}
	return learnShards(s, fn, fn.Shards, fn.Options, sents, weights, states)
}

// StaleLearnFn is the DoFn of StaleLearn: LearnFn with tune.StaleLearnShard.
type StaleLearnFn struct {
	// tune.Decoder, DecoderConfig, Shards, Options, DropLists, StateDir
	// and NonZeroWeights are LearnFn's.
	Decoder        string
	DecoderConfig  string
	Shards         int
	Options        tune.LearnOptions
	DropLists      bool
	StateDir       string
	NonZeroWeights bool
	// Stale configures the stale gradients (zero value: 2 threads, no
	// staleness bound).
	Stale tune.StaleOptions
	// ReportDir is the folder (local or gs://) the shards' StaleReports
	// are written to; "" means they are not written.
	ReportDir string

	dec tune.Decoder
}

func (f *StaleLearnFn) check() error {
	if f.Stale.MaxStaleness < 0 || f.Stale.Threads < 0 {
		return fmt.Errorf("transforms: invalid stale options %+v", f.Stale)
	}
	return (&LearnFn{Decoder: f.Decoder, Shards: f.Shards, Options: f.Options}).check()
}

// Setup loads the decoder.
func (f *StaleLearnFn) Setup(ctx context.Context) (err error) {
	f.dec, err = OpenDecoder(ctx, f.Decoder, f.DecoderConfig)
	return err
}

// ProcessElement learns one shard's epoch with stale gradients.
func (f *StaleLearnFn) ProcessElement(ctx context.Context, shard int, sents func(*tune.Sentence) bool, states func(*tune.ShardState) bool, weightsOf func(*weights.ByName) bool,
	emitResult func(tune.ShardResult), emitList func(tune.NBest)) error {
	xs, state, w, err := tune.GatherShard(shard, f.Shards, sents, states, weightsOf)
	if err != nil {
		return err
	}
	if f.DropLists {
		emitList = nil
	}
	start := time.Now()
	logShardStart(ctx, shard, f.Options.Epoch, len(xs), state != nil)
	dec, err := tune.DecoderFor(ctx, f.dec, xs)
	if err != nil {
		return err
	}
	o := f.Options
	o.Decode.Threads = decodeThreads(o.Decode.Threads)
	res, work, err := tune.StaleLearnShard(ctx, dec, shard, xs, w, state, o, f.Stale, emitList)
	if err != nil {
		return err
	}
	if f.ReportDir != "" {
		if _, err := tune.WriteStaleReport(ctx, f.ReportDir, tune.StaleReport{Shard: shard, Epoch: f.Options.Epoch, Stats: work.Staleness}); err != nil {
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
