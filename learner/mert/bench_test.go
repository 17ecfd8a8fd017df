package mert

import (
	"context"
	"github.com/mtune/mtune/metric"
	"testing"

	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/learntest"
	"github.com/mtune/mtune/testsupport/shared"
)

// BenchmarkLearn runs MERT with Moses' defaults (20 random restarts) on
// europarl100 and on europarl100 duplicated 100 times (1M hypotheses;
// Moses' mert takes 165 s on it).
func BenchmarkLearn(b *testing.B) {
	for _, c := range []struct {
		name   string
		copies int
	}{{"europarl100", 1}, {"europarl100x100", 100}} {
		b.Run(c.name, func(b *testing.B) {
			orig, w := loadEuroparl(b)
			ref := New(w, Options{Seed: 1})
			if err := ref.Learn(context.Background(), orig); err != nil {
				b.Fatal(err)
			}
			lists := learntest.Replicate(orig, c.copies)
			b.ResetTimer()
			cpu := shared.CPUTime()
			var m *MERT
			for i := 0; i < b.N; i++ {
				m = New(w, Options{Seed: 1})
				if err := m.Learn(context.Background(), lists); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			// The duplicated lists have the BLEU landscape of the original.
			if got, want := BLEU(orig, m.Weights()), BLEU(orig, ref.Weights()); got != want {
				b.Errorf("BLEU %.6f on the original lists with the weights learned on the copies, %.6f learned on the original", 100*got, 100*want)
			}
			b.ReportMetric(100*m.Info().BLEU, "BLEU")
			b.ReportMetric(100*metric.BLEUStats(pool.OneBest(lists, m.Weights())).BLEU(), "BLEU-reranked")
			b.ReportMetric(float64(m.Info().LineSearches), "searches")
			b.ReportMetric((shared.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/op")
		})
	}
}
