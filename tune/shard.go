package tune

import (
	"fmt"
	"math/bits"

	"github.com/mtune/mtune/io/weights"
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
		panic(fmt.Sprintf("tune: %d shards", shards))
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

// replicaSalt separates ReplicaSeed's hash from EpochSeed's, which is
// the same SplitMix64 of a seed and a small number.
const replicaSalt = 0x5265706c69636173 // "Replicas"

// ReplicaSeed returns the seed of 0-based replica r of a run seeded with
// seed (--replicas): seed itself for replica 0, so that a run of one
// replica is the run without replicas, and a SplitMix64 hash of the two for
// the others. Every random choice of a replica (the shards, the mini-batch
// order, the learners' sampling) derives from its seed alone, so replica
// r's epochs are those of a run of one replica with --seed
// ReplicaSeed(seed, r). It panics if r < 0.
func ReplicaSeed(seed uint64, r int) uint64 {
	if r < 0 {
		panic(fmt.Sprintf("tune: replica %d", r))
	}
	if r == 0 {
		return seed
	}
	return mix64(seed^replicaSalt, uint64(r))
}

// mix64 hashes two words into one (SplitMix64 finaliser of their sum).
func mix64(a, b uint64) uint64 {
	z := a + 0x9e3779b97f4a7c15*(b+1)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// GatherShard reads the co-grouped inputs of one shard of shards: its
// sentences, its saved learner state (at most one) and the epoch's
// weights, which every shard in range has once (the iterators of a Beam
// CoGroupByKey's group).
func GatherShard(shard, shards int, sents func(*Sentence) bool, states func(*ShardState) bool, weightsOf func(*weights.ByName) bool) ([]Sentence, *ShardState, weights.ByName, error) {
	var w weights.ByName
	if !weightsOf(&w) {
		return nil, nil, weights.ByName{}, fmt.Errorf("tune: a state or sentences for shard %d, but there are only %d shards", shard, shards)
	}
	var extra weights.ByName
	if weightsOf(&extra) {
		return nil, nil, weights.ByName{}, fmt.Errorf("tune: shard %d given the weights twice", shard)
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
			return nil, nil, weights.ByName{}, fmt.Errorf("tune: two states for shard %d", shard)
		}
		state = &ShardState{Shard: st.Shard, Names: st.Names, State: st.State}
	}
	return xs, state, w, nil
}
