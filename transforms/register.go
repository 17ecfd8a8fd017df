package transforms

import (
	"context"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/linesearch"
	"github.com/mtune/mtune/learner/mix"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/tune"
)

// Every DoFn, CombineFn, function, emitter, iterator and element type of
// the package is registered here: Beam Go on prism silently misbehaves
// with unregistered ones.
func init() {
	for _, t := range []any{
		tune.Sentence{}, weights.ByName{}, tune.WireHyp{}, tune.NBest{}, tune.ShardState{}, tune.ShardResult{},
		LineSearchResult{}, mix.Lines{}, tune.AverageSums{}, tune.MixReport{},
		metric.Stats{}, feature.Vector{}, corpus.Range{}, tune.PoolPartInfo{}, tune.PartResult{},
		linesearch.Packed{}, linesearch.Result{}, tune.RoundItem{}, tune.MERTRound{}, tune.StaleStats{}, tune.StaleReport{},
	} {
		beam.RegisterType(reflect.TypeOf(t))
	}

	register.DoFn1x2[tune.Sentence, int, tune.Sentence](&shardFn{})
	register.Function1x2(keyStateFn)
	register.DoFn2x0[weights.ByName, func(int, weights.ByName)](&replicateFn{})
	register.DoFn7x1[context.Context, int, func(*tune.Sentence) bool, func(*tune.ShardState) bool, func(*weights.ByName) bool,
		func(tune.ShardResult), func(tune.NBest), error](&LearnFn{})
	register.DoFn5x1[context.Context, int, func(*tune.Sentence) bool, func(*weights.ByName) bool, func(tune.NBest), error](&DecodeFn{})
	register.DoFn1x2[tune.Sentence, int, tune.Sentence](&batchKeyFn{})
	register.Combiner3[tune.AverageSums, tune.ShardResult, weights.ByName](&AverageFn{})
	register.DoFn3x1[context.Context, tune.NBest, func(string), error](&SpillListsFn{})
	register.DoFn5x1[context.Context, string, weights.ByName, weights.ByName, func(mix.Lines), error](&ListLinesFn{})
	register.Combiner3[mix.Lines, mix.Lines, LineSearchResult](&LineSearchFn{})
	register.Function4x2(mixFn)
	register.DoFn1x1[weights.ByName, tune.MixReport](&mixReportFn{})
	register.Function1x1(lineSearchReport)
	register.Combiner1[metric.Stats](&SumStatsFn{})
	register.DoFn2x2[tune.NBest, weights.ByName, metric.Stats, error](&OneBestFn{})
	register.DoFn2x2[context.Context, []byte, weights.ByName, error](&readWeightsFn{})
	register.DoFn2x2[context.Context, weights.ByName, string, error](&writeTrioFn{})
	register.DoFn2x2[context.Context, beam.T, string, error](&writeJSONFn{})
	register.DoFn2x2[context.Context, tune.ShardResult, string, error](&writeShardStateFn{})
	register.DoFn3x1[context.Context, []byte, func(tune.ShardState), error](&readShardStatesFn{})
	register.Function3x1(readRange)
	register.DoFn2x1[context.Context, []byte, error](&CheckModelFn{})
	register.Function1x2(poolPartKey)
	register.DoFn4x1[context.Context, int, func(int, linesearch.Packed), func(int, metric.Stats), error](&MERTShareFn{})
	register.Combiner3[linesearch.Packed, linesearch.Packed, linesearch.Result](&MERTLineFn{})
	register.Function2x1(searchItem)
	register.Function2x1(statsItem)
	register.DoFn3x1[context.Context, int, func(*tune.RoundItem) bool, error](&writeRoundFn{})
	register.Emitter2[int, linesearch.Packed]()
	register.Emitter2[int, metric.Stats]()
	register.Iter1[tune.RoundItem]()
	register.DoFn3x2[context.Context, int, func(*tune.NBest) bool, tune.PartResult, error](&WritePoolFn{})
	register.DoFn4x1[context.Context, int, func(*tune.PartResult) bool, func(weights.ByName), error](&BatchLearnFn{})
	register.DoFn3x2[context.Context, int, weights.ByName, metric.Stats, error](&partOneBestFn{})
	register.Function1x1(firstStats)
	register.Function1x1(nonZeroFn)

	register.Emitter2[int, weights.ByName]()
	register.Emitter1[weights.ByName]()
	register.Emitter1[tune.ShardResult]()
	register.Emitter1[tune.NBest]()
	register.Emitter1[mix.Lines]()
	register.Emitter1[string]()
	register.Emitter1[tune.ShardState]()
	register.Emitter1[tune.Sentence]()
	register.Iter1[tune.Sentence]()
	register.Iter1[tune.NBest]()
	register.Iter1[tune.PartResult]()
	register.Iter1[tune.ShardState]()
	register.Iter1[weights.ByName]()
}
