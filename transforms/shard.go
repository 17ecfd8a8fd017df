package transforms

import (
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/tune"
)

// Shard assigns each sentence to one of shards shards by tune.ShardOf(ID, seed,
// shards). It takes a PCollection<tune.Sentence> and returns a
// PCollection<KV<int, tune.Sentence>> keyed by shard.
func Shard(s beam.Scope, sents beam.PCollection, shards int, seed uint64) beam.PCollection {
	s = s.Scope("transforms.Shard")
	if shards < 1 {
		panic(fmt.Sprintf("transforms.Shard: %d shards", shards))
	}
	return beam.ParDo(s, &shardFn{Shards: shards, Seed: seed}, sents)
}

// shardFn keys a sentence by its shard.
type shardFn struct {
	Shards int
	Seed   uint64
}

func (f *shardFn) ProcessElement(x tune.Sentence) (int, tune.Sentence) {
	return tune.ShardOf(x.ID, f.Seed, f.Shards), x
}
