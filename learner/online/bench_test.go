package online

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/learntest"
)

// sparseBatch returns a mini-batch of 20 lists × 10 hypotheses whose
// features are drawn from 300 ids spread over [0, n): 15 "dense" ones
// every hypothesis has and sparse indicators.
func sparseBatch(r *rand.Rand, n int) []pool.List {
	ids := make([]feature.ID, 300)
	for i := range ids {
		ids[i] = feature.ID(r.IntN(n))
	}
	var b feature.Builder
	batch := make([]pool.List, 20)
	for i := range batch {
		batch[i].Hyps = make([]pool.Hyp, 10)
		for k := range batch[i].Hyps {
			for j := range 15 {
				b.Add(ids[j], r.NormFloat64())
			}
			for range 10 {
				b.Add(ids[15+r.IntN(285)], 1)
			}
			batch[i].Hyps[k] = pool.NewHyp(b.Vector(), learntest.RandStats(r))
		}
	}
	return batch
}

// BenchmarkAdaGradUpdate makes one mini-batch update (pair sampling,
// logistic gradient, lazy AdaGrad + FOBOS) with about 300 active features
// against weights of 10k and 10M features: the time must not grow with the
// total.
func BenchmarkAdaGradUpdate(b *testing.B) {
	for _, n := range []int{10_000, 10_000_000} {
		b.Run(fmt.Sprintf("features=%d", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			batches := make([][]pool.List, 8)
			for i := range batches {
				batches[i] = sparseBatch(r, n)
			}
			a, err := NewAdaGrad(make(feature.Weights, n), AdaGradOptions{})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if err := a.Update(ctx, batches[i%len(batches)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAdaGradApply applies a 300-entry gradient (the update without
// the gradient computation) against 10k and 10M features.
func BenchmarkAdaGradApply(b *testing.B) {
	for _, n := range []int{10_000, 10_000_000} {
		b.Run(fmt.Sprintf("features=%d", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			gs := make([]feature.Vector, 8)
			var bl feature.Builder
			for i := range gs {
				for range 300 {
					bl.Add(feature.ID(r.IntN(n)), r.NormFloat64())
				}
				gs[i] = bl.Vector()
			}
			a, err := NewAdaGrad(make(feature.Weights, n), AdaGradOptions{})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				a.Apply(gs[i%len(gs)])
			}
		})
	}
}

// BenchmarkWatanabeEuroparl100 makes one update of Watanabe's learner
// (hinge, 16 sentences, oracle-vs-rest pairs, interior-point QP) on
// europarl100.
func BenchmarkWatanabeEuroparl100(b *testing.B) {
	lists, w := europarl100(b)
	for _, soft := range []bool{false, true} {
		b.Run(fmt.Sprintf("softmax=%v", soft), func(b *testing.B) {
			l, err := NewWatanabe(w, WatanabeOptions{Softmax: soft})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				k := (i * 16) % 84
				if err := l.Update(ctx, lists[k:k+16]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
