package transforms

import (
	"context"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/mix"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/tune"
)

// Every DoFn, CombineFn, function, emitter, iterator and element type of
// the package is registered here: Beam Go on prism silently misbehaves
// with unregistered ones.
func init() {
	for _, t := range []any{
		Sentence{}, WireWeights{}, WireHyp{}, NBest{}, ShardState{}, ShardResult{},
		LineSearchResult{}, mix.Lines{}, tune.AverageSums{},
		metric.Stats{}, feature.Vector{},
	} {
		beam.RegisterType(reflect.TypeOf(t))
	}

	register.DoFn1x2[Sentence, int, Sentence](&shardFn{})
	register.Function1x2(keyStateFn)
	register.DoFn2x0[WireWeights, func(int, WireWeights)](&replicateFn{})
	register.DoFn7x1[context.Context, int, func(*Sentence) bool, func(*ShardState) bool, func(*WireWeights) bool,
		func(ShardResult), func(NBest), error](&LearnFn{})
	register.DoFn5x1[context.Context, int, func(*Sentence) bool, func(*WireWeights) bool, func(NBest), error](&DecodeFn{})
	register.DoFn1x2[Sentence, int, Sentence](&batchKeyFn{})
	register.Combiner3[tune.AverageSums, ShardResult, WireWeights](&AverageFn{})
	register.DoFn3x2[NBest, WireWeights, WireWeights, mix.Lines, error](&ListLinesFn{})
	register.Combiner3[mix.Lines, mix.Lines, LineSearchResult](&LineSearchFn{})
	register.Function4x2(mixFn)
	register.Combiner1[metric.Stats](&SumStatsFn{})
	register.DoFn2x2[NBest, WireWeights, metric.Stats, error](&OneBestFn{})
	register.DoFn2x2[context.Context, []byte, WireWeights, error](&readWeightsFn{})
	register.DoFn2x2[context.Context, WireWeights, string, error](&writeWeightsFn{})
	register.DoFn2x2[context.Context, ShardResult, string, error](&writeShardResultFn{})
	register.DoFn3x1[context.Context, []byte, func(ShardState), error](&readShardStatesFn{})
	register.DoFn3x1[context.Context, []byte, func(Sentence), error](&readSentencesFn{})
	register.DoFn3x2[context.Context, int, func(*NBest) bool, string, error](&writeNBestsFn{})
	register.Function1x1(firstStats)

	register.Emitter2[int, WireWeights]()
	register.Emitter1[ShardResult]()
	register.Emitter1[NBest]()
	register.Emitter1[ShardState]()
	register.Emitter1[Sentence]()
	register.Iter1[Sentence]()
	register.Iter1[NBest]()
	register.Iter1[ShardState]()
	register.Iter1[WireWeights]()
}
