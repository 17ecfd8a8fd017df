package transforms_test

import (
	"context"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/mtune/mtune/learner/mix"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// BenchmarkLineSearch compares the pipeline's form (shares merged by
// LineSearchFn) with mix.LineSearch on europarl100 (100 sentences × 100
// hypotheses).
func BenchmarkLineSearch(b *testing.B) {
	pr := lineProblems(b)[30]
	perm := make([]int, len(pr.lists))
	for i := range perm {
		perm[i] = i
	}
	b.Run("LineSearchFn", func(b *testing.B) {
		for b.Loop() {
			if _, err := lineSearch(pr.lists, pr.prev, pr.avg, perm); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mix.LineSearch", func(b *testing.B) {
		for b.Loop() {
			if _, _, _, err := mix.LineSearch(pr.prev, pr.avg, pr.lists); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLearnShard is one AdaGrad epoch over europarl100 with the pool
// decoder: the cost of the shard loop around the learner (translation
// between indexes, scoring, NBest records).
func BenchmarkLearnShard(b *testing.B) {
	e := loadEuroparl100(b)
	w := e.initWeights(b)
	dec := e.decoder(b)
	for b.Loop() {
		if _, _, err := tune.LearnShard(context.Background(), dec, 0, e.sents, w, nil, tune.LearnOptions{}, func(tune.NBest) {}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEpochPipeline is one ipm epoch (Learn on 2 shards, Average,
// LineSearchMix) over europarl100 on prism, to compare with
// BenchmarkLearnShard: the pipeline's overhead.
func BenchmarkEpochPipeline(b *testing.B) {
	e := loadEuroparl100(b)
	for b.Loop() {
		p, s := beam.NewPipelineWithRoot()
		w := transforms.ReadWeights(s, e.weights)
		fn := &transforms.LearnFn{Decoder: "nbest-pool", DecoderConfig: e.nbest, Shards: 2}
		res, lists := transforms.Learn(s, fn, beam.CreateList(s, e.sents), w, beam.CreateList(s, []tune.ShardState{}))
		avg := transforms.Average(s, res, true)
		transforms.LineSearchMix(s, lists, w, avg, "")
		if err := ptest.Run(p); err != nil {
			b.Fatal(err)
		}
	}
}
