package online

import (
	"context"
	"github.com/mtune/mtune/metric"
	"math"
	"testing"
	"time"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/loss"
	"github.com/mtune/mtune/pool"
	data "github.com/mtune/mtune/testsupport/europarl100"
)

// europarl100 returns the europarl100 n-best lists scored against their
// reference, shared by the package's tests, and init.weights over the same
// index.
func europarl100(t testing.TB) ([]pool.List, feature.Weights) {
	t.Helper()
	lists, w, _ := data.Shared(t)
	return lists, w
}

func bleu(lists []pool.List, w feature.Weights) float64 {
	return 100 * metric.BLEUStats(pool.OneBest(lists, w)).BLEU()
}

// train runs epochs of l on lists and returns the BLEU after each.
func train(t *testing.T, l learner.Online, lists []pool.List, epochs int) []float64 {
	var out []float64
	start := time.Now()
	for e := range epochs {
		if err := l.Learn(context.Background(), lists); err != nil {
			t.Fatal(err)
		}
		w := l.Weights()
		out = append(out, bleu(lists, w))
		t.Logf("epoch %d: BLEU %.2f, %d non-zero weights, %d updates, %.2fs", e+1, out[e], w.NonZero(), l.Updates(), time.Since(start).Seconds())
	}
	return out
}

// TestQualityEuroparl100 tunes europarl100 from init.weights (13.68 BLEU;
// Moses' PRO reaches 13.35) with each online learner and checks the BLEU
// of the re-ranked lists.
func TestQualityEuroparl100(t *testing.T) {
	lists, w := europarl100(t)
	if got := bleu(lists, w); math.Abs(got-13.68) > 0.005 {
		t.Fatalf("init.weights give %.2f BLEU, want 13.68", got)
	}
	tests := []struct {
		name   string
		make   func() (learner.Online, error)
		epochs int
		min    float64
	}{
		{"AdaGrad logistic", func() (learner.Online, error) { return NewAdaGrad(w, AdaGradOptions{Seed1: 1}) }, 5, 13.35},
		{"AdaGrad logistic + noising", func() (learner.Online, error) {
			return NewAdaGrad(w, AdaGradOptions{Seed1: 1, Objective: Pairwise{Noising: loss.Noising{Level: 0.1}, UnlabeledPairs: 5}})
		}, 5, 13.35},
		{"AdaGrad logistic + Gaussian noising", func() (learner.Online, error) {
			return NewAdaGrad(w, AdaGradOptions{Seed1: 1, Objective: Pairwise{Noising: loss.Noising{Type: loss.Gaussian, Level: 1}, UnlabeledPairs: 5}})
		}, 5, 13.35},
		{"AdaGrad hinge", func() (learner.Online, error) {
			return NewAdaGrad(w, AdaGradOptions{Seed1: 1, Objective: Pairwise{Hinge: true}})
		}, 5, 13.35},
		{"linearized AROW", func() (learner.Online, error) { return NewAdaGrad(w, AdaGradOptions{Seed1: 1, AROW: 1}) }, 5, 13.35},
		{"SGD", func() (learner.Online, error) { return NewSGD(w, SGDOptions{Seed1: 1}) }, 5, 13.35},
		{"MIRA", func() (learner.Online, error) { return NewMIRA(w, MIRAOptions{Seed1: 1}) }, 5, 13.35},
		{"Watanabe hinge", func() (learner.Online, error) { return NewWatanabe(w, WatanabeOptions{Seed1: 1}) }, 4, 13.35},
		{"Watanabe softmax", func() (learner.Online, error) {
			return NewWatanabe(w, WatanabeOptions{Seed1: 1, Softmax: true})
		}, 4, 0}, // reported only: unstable, as Watanabe found it weaker
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := tc.make()
			if err != nil {
				t.Fatal(err)
			}
			curve := train(t, l, lists, tc.epochs)
			if got := curve[len(curve)-1]; got < tc.min {
				t.Fatalf("BLEU %.2f after %d epochs, want ≥ %.2f", got, tc.epochs, tc.min)
			}
		})
	}
}
