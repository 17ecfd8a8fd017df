package batch

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	data "github.com/mtune/mtune/testsupport/europarl100"
	"github.com/mtune/mtune/testsupport/learntest"
)

// europarl100 is the shared 100-sentence × 100-best pool with its start
// weights, loaded once.
type europarl100 struct {
	idx   *feature.Index
	lists []pool.List
	init  feature.Weights
}

// loadEuroparl100 returns the europarl100 pool shared by the package's
// tests.
func loadEuroparl100(tb testing.TB) europarl100 {
	tb.Helper()
	lists, w, idx := data.Shared(tb)
	return europarl100{idx: idx, lists: lists, init: w}
}

// randomStats returns valid BLEU-4 statistics of a hypothesis of length
// 0..maxLen against a reference of length 1..maxLen.
func randomStats(r *rand.Rand, maxLen int) metric.Stats {
	s := metric.NewBLEUStats(4, nil, nil, float64(1+r.IntN(maxLen)))
	n := r.IntN(maxLen + 1)
	for k := 0; k < 4; k++ {
		t := max(0, n-k)
		s.V[2*k+1] = float64(t)
		if t > 0 {
			s.V[2*k] = float64(r.IntN(t + 1))
		}
	}
	return s
}

// restat replaces the statistics of lists' hypotheses (in place) by
// random ones of metric m, TER's or external scores': TER's edits
// 0..40 against a reference length each list draws in 1..30, external
// scores in [0, 1) with a count of 1.
func restat(r *rand.Rand, lists []pool.List, m metric.Metric) []pool.List {
	for _, l := range lists {
		refLen := float64(1 + r.IntN(30))
		for k := range l.Hyps {
			switch m := m.(type) {
			case metric.TER:
				l.Hyps[k] = pool.NewHyp(l.Hyps[k].Features, metric.StatsOf(float64(r.IntN(41)), refLen))
			case metric.FileScored:
				l.Hyps[k] = pool.NewHyp(l.Hyps[k].Features, m.FileStats(r.Float64()))
			default:
				panic("restat: TER or external only")
			}
		}
	}
	return lists
}

// randomPool returns lists of random hypotheses: dense features 0..dense-1
// always present (some zero), and a few of sparse further features.
func randomPool(r *rand.Rand, nLists, maxHyps, dense, sparse int) []pool.List {
	return learntest.Lists(nLists, func() int { return 1 + r.IntN(maxHyps) }, func(b *feature.Builder) metric.Stats {
		for j := 0; j < dense; j++ {
			if r.IntN(5) > 0 {
				b.Add(feature.ID(j), r.NormFloat64()*3)
			}
		}
		for m := r.IntN(4); m > 0 && sparse > 0; m-- {
			b.Add(feature.ID(dense+r.IntN(sparse)), 1)
		}
		return randomStats(r, 30)
	})
}

// checkBadOptions checks that newL refuses each of the options bad.
func checkBadOptions[O any, L any](t *testing.T, newL func(feature.Weights, O) (*L, error), bad []O) {
	t.Helper()
	for _, o := range bad {
		if _, err := newL(nil, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// mustCompile is compileLayout failing tb on an error.
func mustCompile(tb testing.TB, lists []pool.List, lay layout) *compiled {
	tb.Helper()
	c, err := compileLayout(lists, lay, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func randomWeights(r *rand.Rand, n int) feature.Weights {
	w := make(feature.Weights, n)
	for j := range w {
		w[j] = r.NormFloat64() * 0.3
	}
	return w
}

// learn trains l, made from d.init with error err, on d.lists, and returns
// its weights, their BLEU ×100 and the training time.
func (d europarl100) learn(t *testing.T, l learner.Learner, err error) (feature.Weights, float64, time.Duration) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := l.Learn(context.Background(), d.lists); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	w := l.Weights()
	return w, 100 * metric.BLEUStats(pool.OneBest(d.lists, w)).BLEU(), took
}
