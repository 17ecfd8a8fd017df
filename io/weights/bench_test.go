package weights

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/mtune/mtune/feature"
)

// benchSet returns a Set with 15 dense weights and n sparse ones.
func benchSet(n int) *Set {
	rng := rand.New(rand.NewPCG(1, 2))
	s := NewSet(nil)
	b := newDenseBuilder(s)
	for _, g := range []struct {
		label string
		n     int
	}{{"LM0", 1}, {"TranslationModel0", 4}, {"LexicalReordering0", 6}, {"Distortion0", 1}, {"WordPenalty0", 1}, {"PhrasePenalty0", 1}, {"UnknownWordPenalty0", 1}} {
		for range g.n {
			b.add(g.label, rng.NormFloat64())
		}
	}
	for i := range n {
		s.SetValue(fmt.Sprintf("pp_w%d~x%d", i, rng.IntN(1000)), rng.NormFloat64()*1e-3)
	}
	return s
}

func BenchmarkSparse(b *testing.B) { benchFormat(b, WriteSparse, ReadSparse) }

func BenchmarkJSON(b *testing.B) { benchFormat(b, WriteJSON, ReadJSON) }

// benchFormat measures read and write of one format at two sizes.
func benchFormat(b *testing.B, write func(io.Writer, *Set) error, read func(io.Reader, *feature.Index) (*Set, error)) {
	for _, n := range []int{1000, 100000} {
		s := benchSet(n)
		var buf bytes.Buffer
		if err := write(&buf, s); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(fmt.Sprintf("read/%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := read(bytes.NewReader(data), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("write/%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var w bytes.Buffer
				if err := write(&w, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
