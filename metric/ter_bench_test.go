package metric

import (
	"path/filepath"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// wmt15TER prepares TER segments of the 100 WMT15 en-ru references and
// returns them with the Google translations.
func wmt15TER(b *testing.B, m TER) ([]Segment, []string) {
	b.Helper()
	dir := shared.Path(b, "bleu", "wmt15-en-ru-100")
	refs := readLines(b, filepath.Join(dir, "newstest-2015-100sents.en-ru.ref.ru"))
	hyps := readLines(b, filepath.Join(dir, "newstest-2015-100sents.en-ru.google.ru"))
	segs := make([]Segment, len(refs))
	for i, r := range refs {
		s, err := m.Segment([]string{r})
		if err != nil {
			b.Fatal(err)
		}
		segs[i] = s
	}
	return segs, hyps
}

// BenchmarkTERSegment scores the 100 Google translations of WMT15 en-ru
// (20 words on average) against their prepared references, as extracting
// TER statistics from a decoder's output does; ns/hyp is the cost of one
// hypothesis.
func BenchmarkTERSegment(b *testing.B) {
	for _, c := range []struct {
		name string
		m    TER
	}{{"default", TER{}}, {"normalized", TER{Normalized: true}}} {
		b.Run(c.name, func(b *testing.B) {
			segs, hyps := wmt15TER(b, c.m)
			var s [2]float64
			b.ResetTimer()
			cpu := shared.CPUTime()
			for range b.N {
				for i, h := range hyps {
					fillTER(segs[i], s[:], h)
				}
			}
			reportPerHyp(b, cpu, len(hyps))
		})
	}
}

// BenchmarkTERSegmentParallel scores from all cores sharing the Segments.
func BenchmarkTERSegmentParallel(b *testing.B) {
	segs, hyps := wmt15TER(b, TER{})
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var s [2]float64
		j := 0
		for pb.Next() {
			fillTER(segs[j], s[:], hyps[j])
			if j++; j == len(hyps) {
				j = 0
			}
		}
	})
}
