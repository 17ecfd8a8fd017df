package feature

import (
	"fmt"
	"testing"
)

// BenchmarkIndex interns 100,000 sparse-feature-like names, then looks
// each up again: what a decoder's index does for an epoch's n-best lists.
func BenchmarkIndex(b *testing.B) {
	names := make([]string, 100000)
	for i := range names {
		names[i] = fmt.Sprintf("pt_%d~%d_la_%d", i, 7*i, i%97)
	}
	b.ReportAllocs()
	for b.Loop() {
		x := NewIndex()
		for _, n := range names {
			x.ID(n)
		}
		for _, n := range names {
			if _, ok := x.Lookup(n); !ok {
				b.Fatal(n)
			}
		}
	}
}
