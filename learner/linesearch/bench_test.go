package linesearch

import (
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/testsupport/learntest"
	"github.com/mtune/mtune/testsupport/shared"
)

func benchLines(b *testing.B, copies int) (*Searcher, []float64, [][]float64) {
	lists, w := loadEuroparl(b)
	lists = learntest.Replicate(lists, copies)
	s, err := NewSearcher(lists, Options{})
	if err != nil {
		b.Fatal(err)
	}
	base := make([]float64, s.Len())
	cols := make([][]float64, len(w))
	for j := range cols {
		cols[j] = make([]float64, s.Len())
	}
	k := 0
	for _, l := range lists {
		for _, h := range l.Hyps {
			base[k] = h.Features.Dot(w)
			for p, id := range h.Features.IDs {
				cols[id][k] = h.Features.Vals[p]
			}
			k++
		}
	}
	return s, base, cols
}

// benchSizes are the pools the benchmarks run on: europarl100 and 100
// copies of it.
var benchSizes = []struct {
	name   string
	copies int
}{{"europarl100", 1}, {"europarl100x100", 100}}

// BenchmarkSearchSorted is one MERT coordinate line search (slopes sorted
// beforehand), cycling through the 15 features.
func BenchmarkSearchSorted(b *testing.B) {
	for _, c := range benchSizes {
		b.Run(c.name, func(b *testing.B) {
			s, base, cols := benchLines(b, c.copies)
			orders := make([][]int32, len(cols))
			for j := range cols {
				orders[j] = s.SortBySlope(cols[j], nil)
			}
			b.ResetTimer()
			cpu := shared.CPUTime()
			for i := 0; i < b.N; i++ {
				j := i % len(cols)
				if _, err := s.SearchSorted(base, cols[j], orders[j]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(shared.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkSearch is a line search along a dense direction (sorting every
// sentence's lines by slope).
func BenchmarkSearch(b *testing.B) {
	for _, c := range benchSizes {
		b.Run(c.name, func(b *testing.B) {
			s, base, cols := benchLines(b, c.copies)
			slope := make([]float64, s.Len())
			d := make(feature.Weights, len(cols))
			for j := range d {
				d[j] = float64(j%3) - 0.7
				for k := range slope {
					slope[k] += d[j] * cols[j][k]
				}
			}
			b.ResetTimer()
			cpu := shared.CPUTime()
			for i := 0; i < b.N; i++ {
				if _, err := s.Search(base, slope); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(shared.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}
