package transforms

import (
	"fmt"
	"math/bits"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// ShardOf returns the shard, in [0, shards), of sentence id under seed: h
// is the 64-bit FNV-1a hash of the id and then the seed, each as 8
// little-endian bytes, and the shard is ⌊h·shards / 2⁶⁴⌋, from h's high
// bits. (h mod shards would be wrong: FNV-1a's low k bits depend only on
// the low k bits of each byte, so for 2^k shards a new seed would only
// relabel the same groups of sentences.) It is stable across processes,
// platforms and Go versions (unlike hash/maphash). It panics if shards < 1.
func ShardOf(id int, seed uint64, shards int) int {
	if shards < 1 {
		panic(fmt.Sprintf("transforms: %d shards", shards))
	}
	h := uint64(fnvOffset64)
	for _, x := range [2]uint64{uint64(id), seed} {
		for i := 0; i < 8; i++ {
			h ^= x & 0xff
			h *= fnvPrime64
			x >>= 8
		}
	}
	hi, _ := bits.Mul64(h, uint64(shards))
	return int(hi)
}

// EpochSeed returns the seed that shards the tuning set in an epoch of a
// run seeded with seed (SplitMix64 of the two), so that every epoch deals
// the sentences out anew.
func EpochSeed(seed uint64, epoch int) uint64 {
	z := seed + uint64(epoch+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Shard assigns each sentence to one of shards shards by ShardOf(ID, seed,
// shards). It takes a PCollection<Sentence> and returns a
// PCollection<KV<int, Sentence>> keyed by shard.
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

func (f *shardFn) ProcessElement(x Sentence) (int, Sentence) {
	return ShardOf(x.ID, f.Seed, f.Shards), x
}
