package batch

import (
	"context"
	"github.com/mtune/mtune/metric"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/learntest"
)

// benchLearn runs a fresh learner on lists b.N times and reports the BLEU
// its weights give on the original europarl100 lists.
func benchLearn(b *testing.B, lists []pool.List, make func(w feature.Weights) (learner.Learner, error)) {
	d := loadEuroparl100(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := make(d.init)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Learn(context.Background(), lists); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		b.ReportMetric(100*metric.BLEUStats(pool.OneBest(d.lists, l.Weights())).BLEU(), "BLEU")
		b.StartTimer()
	}
}

// newWith returns the benchLearn maker that calls newL (NewMIRA, NewMR or
// NewPRO) with opts.
func newWith[O any, L learner.Learner](newL func(feature.Weights, O) (L, error), opts O) func(feature.Weights) (learner.Learner, error) {
	return func(w feature.Weights) (learner.Learner, error) { return newL(w, opts) }
}

// BenchmarkMIRA is kbmira's 60 passes on europarl100 (100 sentences × 100
// hypotheses).
func BenchmarkMIRA(b *testing.B) {
	benchLearn(b, loadEuroparl100(b).lists, newWith(NewMIRA, MIRAOptions{}))
}

// BenchmarkMIRA100x runs kbmira's 60 passes on europarl100 duplicated 100
// times under new sentence ids (10,000 sentences × 100 hypotheses, 1M
// hypotheses). Moses' kbmira takes 36 s on this machine type.
func BenchmarkMIRA100x(b *testing.B) {
	benchLearn(b, learntest.Replicate(loadEuroparl100(b).lists, 100), newWith(NewMIRA, MIRAOptions{}))
}

// BenchmarkMR is MR with its defaults on europarl100.
func BenchmarkMR(b *testing.B) {
	benchLearn(b, loadEuroparl100(b).lists, newWith(NewMR, MROptions{}))
}

// BenchmarkMR100x is MR with its defaults on europarl100 duplicated 100
// times.
func BenchmarkMR100x(b *testing.B) {
	benchLearn(b, learntest.Replicate(loadEuroparl100(b).lists, 100), newWith(NewMR, MROptions{}))
}

// BenchmarkPRO is PRO with its defaults on europarl100: sampling and
// L-BFGS.
func BenchmarkPRO(b *testing.B) {
	benchLearn(b, loadEuroparl100(b).lists, newWith(NewPRO, PROOptions{}))
}

// BenchmarkPRO100x is PRO on europarl100 duplicated 100 times (about
// 330,000 pairs).
func BenchmarkPRO100x(b *testing.B) {
	benchLearn(b, learntest.Replicate(loadEuroparl100(b).lists, 100), newWith(NewPRO, PROOptions{}))
}
