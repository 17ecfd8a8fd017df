package transforms_test

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/bits"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// stdShard is ShardOf by the standard library's FNV-1a.
func stdShard(id int, seed uint64, shards int) int {
	h := fnv.New64a()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(id))
	binary.LittleEndian.PutUint64(b[8:], seed)
	h.Write(b[:])
	hi, _ := bits.Mul64(h.Sum64(), uint64(shards))
	return int(hi)
}

func TestShardOf(t *testing.T) {
	tests := []struct {
		name   string
		seed   uint64
		shards int
	}{
		{"one shard", 7, 1},
		{"two shards", 0, 2},
		{"four shards", 12345, 4},
		{"seven shards, large seed", 1<<63 + 17, 7},
	}
	for _, tc := range tests {
		counts := make([]int, tc.shards)
		for id := 0; id < 2000; id++ {
			k := tune.ShardOf(id, tc.seed, tc.shards)
			if want := stdShard(id, tc.seed, tc.shards); k != want {
				t.Fatalf("%s: ShardOf(%d) = %d, hash/fnv gives %d", tc.name, id, k, want)
			}
			counts[k]++
		}
		// Balance: every shard within 15% of its share.
		for k, c := range counts {
			if share := 2000 / tc.shards; c < share*85/100 || c > share*115/100 {
				t.Errorf("%s: shard %d got %d of 2000 sentences", tc.name, k, c)
			}
		}
	}
	// Epoch seeds deal the sentences out anew: of the pairs of sentences
	// that share a shard in one epoch, about 1/S share one in the next (not
	// all, as a mere relabelling of the shards would give).
	for _, shards := range []int{2, 4, 5} {
		const n = 400
		a, b := make([]int, n), make([]int, n)
		for id := range a {
			a[id] = tune.ShardOf(id, tune.EpochSeed(1, 0), shards)
			b[id] = tune.ShardOf(id, tune.EpochSeed(1, 1), shards)
		}
		together, again := 0, 0
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if a[i] == a[j] {
					together++
					if b[i] == b[j] {
						again++
					}
				}
			}
		}
		if f, want := float64(again)/float64(together), 1/float64(shards); math.Abs(f-want) > 0.05 {
			t.Errorf("%d shards: %.3f of the pairs sharing a shard in epoch 0 share one in epoch 1, want about %.3f", shards, f, want)
		}
	}
}

func TestShardPipeline(t *testing.T) {
	var sents []tune.Sentence
	var want []any
	const shards, seed = 3, 99
	for id := 0; id < 50; id++ {
		sents = append(sents, tune.Sentence{ID: id, Src: "s", Refs: []string{"r"}})
		want = append(want, formatKV(stdShard(id, seed, shards), sents[id]))
	}
	p, s, col := ptest.CreateList(sents)
	keyed := transforms.Shard(s, col, shards, seed)
	passert.Equals(s, beam.ParDo(s, formatKV, keyed), want...)
	ptest.RunAndValidate(t, p)
}
