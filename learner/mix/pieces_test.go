package mix

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/internal/learntest"
	"github.com/mtune/mtune/learner/linesearch"
)

// TestPieces: Sums and Lines computed in two pieces, in another order, and
// merged give what Average and LineSearch give over the whole.
func TestPieces(t *testing.T) {
	tests := []struct {
		name     string
		seed     uint64
		weighted bool
	}{
		{"uniform", 1, false},
		{"weighted", 2, true},
	}
	for _, tc := range tests {
		r := rand.New(rand.NewPCG(tc.seed, 7))
		for c := range 50 {
			dims := 2 + r.IntN(3)
			var shards []Shard
			for range 1 + r.IntN(5) {
				w := make(feature.Weights, 1+r.IntN(dims))
				for j := range w {
					w[j] = float64(r.IntN(9)-4) / 4 // exact sums: any order
				}
				shards = append(shards, Shard{w, r.IntN(4)})
			}
			split := r.IntN(len(shards) + 1)
			var a, b Sums
			for i, s := range shards {
				if i < split {
					a.Add(s.Weights, s.Updates)
				} else {
					b.Add(s.Weights, s.Updates)
				}
			}
			b.Merge(a)
			want := Average(shards, tc.weighted)
			if got := b.Mean(tc.weighted); !slices.Equal(got, want) {
				t.Errorf("%s %d: Sums %v, Average %v", tc.name, c, got, want)
			}

			prev := make(feature.Weights, dims)
			for j := range prev {
				prev[j] = r.NormFloat64()
			}
			avg := Average(shards, tc.weighted)
			lists := learntest.DenseLists(r, 1+r.IntN(12), 10, dims, true)
			w, alpha, stats, err := LineSearch(prev, avg, lists)
			if err != nil {
				t.Fatal(err)
			}
			dir := Direction(prev, avg)
			var la, lb Lines
			order := r.Perm(len(lists))
			for i, k := range order {
				dst := &la
				if i >= len(lists)/2 {
					dst = &lb
				}
				if err := dst.Add(lists[k], prev, avg, dir); err != nil {
					t.Fatal(err)
				}
			}
			if err := lb.Merge(la); err != nil {
				t.Fatal(err)
			}
			res, err := lb.Search(linesearch.Options{Prefer: 1})
			if err != nil {
				t.Fatal(err)
			}
			if res.Alpha != alpha || res.Stats != stats || !slices.Equal(Interpolate(prev, avg, res.Alpha), w) {
				t.Errorf("%s %d: merged pieces α = %v with %v, LineSearch α = %v with %v", tc.name, c, res.Alpha, res.Stats, alpha, stats)
			}
		}
	}
}
