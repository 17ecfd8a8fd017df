package transforms_test

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/mtune/mtune/io/weights"
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
		transforms.LineSearchMix(s, lists, w, avg, "", b.TempDir())
		if err := ptest.Run(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkShardWire encodes, with the coder the runner uses between
// stages, what an epoch of averaging moves at the scale of a 4k-sentence
// --sparse all epoch of Moses' 8k model (a shard met 200,000 features,
// names of 37 bytes, 23,500 of them non-zero; its AdaGrad state 32 bytes a
// feature; the mixed weights name 348,000): a shard's whole result and
// what it emits with LearnFn.StateDir and NonZeroWeights; the mixed
// weights whole and their non-zero ones (NonZero), which each of the
// dev set's decoding batches copies. wire-bytes is the encoded size.
func BenchmarkShardWire(b *testing.B) {
	names := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("pt_%016x~%016x", uint64(i)*0x9e3779b97f4a7c15, i)
		}
		return out
	}
	byName := func(n, nonZero int) weights.ByName {
		ww := weights.ByName{Names: names(n), Vals: make([]float64, n)}
		for i := 0; i < n; i += n / nonZero {
			ww.Vals[i] = 1e-3 * float64(i%97+1)
		}
		return ww
	}
	whole := tune.ShardResult{Shard: 1, Updates: 100, TotalUpdates: 100, Sentences: 2000,
		Weights: byName(200_000, 23_500), State: bytes.Repeat([]byte{7, 1, 2, 3}, 8*200_000)}
	kept, err := tune.KeepShardState(context.Background(), b.TempDir(), whole, true)
	if err != nil {
		b.Fatal(err)
	}
	mixed := byName(348_000, 47_000)
	for _, c := range []struct {
		name string
		v    any
	}{
		{"result/whole", whole}, {"result/kept", kept},
		{"mixed/whole", mixed}, {"mixed/NonZero", mixed.NonZero()},
	} {
		b.Run(c.name, func(b *testing.B) {
			enc := beam.NewElementEncoder(reflect.TypeOf(c.v))
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := enc.Encode(c.v, &buf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len()), "wire-bytes")
		})
	}
}
