package metric

import (
	"strings"
	"testing"
	"time"

	"github.com/mtune/mtune/testsupport/shared"
)

// europarl100 loads the Europarl n-best lists (100 sentences × 100
// hypotheses) and their references.
func europarl100(b *testing.B) (refs []*Reference, sent []int, hyps []string) {
	b.Helper()
	refs = readReferences(b, 4, nil, shared.Path(b, "nbest", "europarl100", "reference"))
	for _, e := range readNbest(b, shared.Path(b, "nbest", "europarl100", "nbest.gz")) {
		sent = append(sent, e.sent)
		hyps = append(hyps, e.target)
	}
	return refs, sent, hyps
}

// reportPerHyp reports the wall and CPU time per hypothesis, and the CPU
// seconds 1,000,000 hypotheses take.
func reportPerHyp(b *testing.B, cpuStart time.Duration, perOp int) {
	n := float64(b.N * perOp)
	cpu := float64((shared.CPUTime() - cpuStart).Nanoseconds())
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/hyp")
	b.ReportMetric(cpu/n, "cpu-ns/hyp")
	b.ReportMetric(cpu/n*1e6/1e9, "cpu-s/1M-hyps")
}

// BenchmarkStatsString scores the 10,000 Europarl hypotheses (25 tokens on
// average) from their text, as extracting statistics from an n-best list
// does; ns/hyp is the cost of one hypothesis.
func BenchmarkStatsString(b *testing.B) {
	refs, sent, hyps := europarl100(b)
	b.ResetTimer()
	cpu := shared.CPUTime()
	var sum Stats
	for i := 0; i < b.N; i++ {
		for j, h := range hyps {
			sum.Add(refs[sent[j]].StatsString(h))
		}
	}
	reportPerHyp(b, cpu, len(hyps))
	if BLEUStats(sum).Total(0) == 0 {
		b.Fatal("no tokens")
	}
}

// BenchmarkStats scores the Europarl hypotheses from tokens split beforehand.
func BenchmarkStats(b *testing.B) {
	refs, sent, hyps := europarl100(b)
	toks := make([][]string, len(hyps))
	for i, h := range hyps {
		toks[i] = strings.Fields(h)
	}
	b.ResetTimer()
	cpu := shared.CPUTime()
	for i := 0; i < b.N; i++ {
		for j, t := range toks {
			refs[sent[j]].Stats(t)
		}
	}
	reportPerHyp(b, cpu, len(hyps))
}

// BenchmarkStatsStringParallel scores from all cores sharing the References.
func BenchmarkStatsStringParallel(b *testing.B) {
	refs, sent, hyps := europarl100(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		j := 0
		for pb.Next() {
			refs[sent[j]].StatsString(hyps[j])
			if j++; j == len(hyps) {
				j = 0
			}
		}
	})
}

// BenchmarkNewReference prepares the 100 Europarl references.
func BenchmarkNewReference(b *testing.B) {
	lines := readLines(b, shared.Path(b, "nbest", "europarl100", "reference"))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			if _, err := NewReferenceText(4, l); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/ref")
}

func BenchmarkAdd(b *testing.B) {
	s := NewBLEUStats(4, []float64{6, 1}, []float64{14, 13, 12, 11}, 18)
	var sum Stats
	for i := 0; i < b.N; i++ {
		sum.Add(s)
	}
	if BLEUStats(sum).RefLen() == 0 {
		b.Fatal("no sum")
	}
}

func BenchmarkTokenize13a(b *testing.B) {
	lines := readLines(b, shared.Path(b, "bleu", "wmt15-en-ru-100", "newstest-2015-100sents.en-ru.google.ru"))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			Tokenize13a(l)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
}
