package lm

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

func addSeeds(f *testing.F, seeds []string, files ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	if shared.Dir() == "" {
		return
	}
	for _, name := range files {
		if data, err := os.ReadFile(filepath.Join(shared.Dir(), "lm", name)); err == nil {
			f.Add(data)
		}
	}
}

// FuzzRead reads arbitrary input: no panic, only *ParseError failures, and
// a model that reads back from its own ARPA text and scores alike.
func FuzzRead(f *testing.F) {
	addSeeds(f, []string{
		small,
		edit("ngram 2=4", "ngram 2=5"),
		edit("a b </s>", "b a </s>"),
		"\\data\\\nngram 1=2\n\n\\1-grams:\n-1\t<s>\n-1\t</s>\n\n\\end\\\n",
		"\\data\\\nngram 1=3\nngram 2=1000000000\n\n\\1-grams:\n-1\t<s>\t-1\n-1\t</s>\n-1\ta\n\n\\2-grams:\n-1\t<s> a\n",
		"# c\n\\data\\\r\nngram 1=2\r\n\\1-grams:\r\n-1e-3 <s>\r\n-0 </s>\r\n\\end\\",
	}, "test.arpa", "test_nounk.arpa", "toy0.arpa", "toy1.arpa")
	f.Fuzz(func(t *testing.T, data []byte) {
		chunk := 7 + len(data)%64
		m, err := read(context.Background(), bytes.NewReader(data), "fuzz", Options{Workers: 2, UnknownLogProb: -100}, chunk)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteARPA(&buf, m.ARPA()); err != nil {
			t.Fatal(err)
		}
		m2, err := Read(context.Background(), bytes.NewReader(buf.Bytes()), "again", nil)
		if err != nil {
			t.Fatalf("reading back: %v\n%s", err, buf.Bytes())
		}
		if !sameModel(m, m2) {
			t.Fatal("model read back differs")
		}
		// Score every word after every word from both.
		n := min(m.Vocab().Len(), 20)
		for a := range n {
			_, st := m.Score(m.BeginSentence(), WordID(a))
			_, st2 := m2.Score(m2.BeginSentence(), WordID(a))
			for b := range n {
				p, _ := m.Score(st, WordID(b))
				p2, _ := m2.Score(st2, WordID(b))
				if p != p2 {
					t.Fatalf("p(%d | %d) = %g, read back %g", b, a, p, p2)
				}
			}
		}
	})
}

// FuzzEstimate estimates from arbitrary text: no panic; a model that reads
// back and whose distributions are sane.
func FuzzEstimate(f *testing.F) {
	f.Add([]byte("a b\nb a\na b c\n"), uint8(3))
	f.Add([]byte("\n\n\n"), uint8(2))
	f.Add([]byte("x\x00y\tz\r\n<s>\n"), uint8(1))
	f.Add([]byte(strings.Repeat("the cat sat on the mat\nthe dog sat\n", 5)), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, order uint8) {
		opts := &EstimateOptions{Order: 1 + int(order)%MaxOrder, Fallback: &FallbackDiscount}
		a, err := Estimate(context.Background(), bytes.NewReader(data), opts)
		if err != nil {
			if !errors.Is(err, ErrSpecialInCorpus) && !errors.Is(err, ErrInvalidUTF8) && !errors.Is(err, ErrDiscount) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteARPA(&buf, a); err != nil {
			t.Fatal(err)
		}
		m, err := Read(context.Background(), &buf, "estimate", nil)
		if err != nil {
			t.Fatalf("reading the estimate: %v", err)
		}
		if m.Order() != opts.Order {
			t.Fatalf("order %d", m.Order())
		}
		for id := range m.Vocab().Len() {
			if p, _ := m.Score(m.BeginSentence(), WordID(id)); p > 0 || !isFinite(p) {
				t.Fatalf("p(%d | <s>) = %g", id, p)
			}
		}
	})
}
