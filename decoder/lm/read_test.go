package lm

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mtune/mtune/testsupport/parsetest"
)

// small is a valid trigram model; the cases below break it.
const small = `\data\
ngram 1=5
ngram 2=4
ngram 3=2

\1-grams:
-1.0	<unk>	0
-99	<s>	-0.5
-0.7	</s>
-0.6	a	-0.2
-0.9	b	-0.1

\2-grams:
-0.2	<s> a	-0.3
-0.4	a b	-0.05
-0.1	b </s>
-0.5	a </s>

\3-grams:
-0.05	<s> a b
-0.02	a b </s>

\end\
`

// edit replaces old by new in small, once.
func edit(old, new string) string {
	if !strings.Contains(small, old) {
		panic("edit: " + old)
	}
	return strings.Replace(small, old, new, 1)
}

func TestReadErrors(t *testing.T) {
	cases := []struct {
		name string
		in   string
		kind error
		line int
	}{
		{"empty", "", io.ErrUnexpectedEOF, 0},
		{"blank only", "\n\n", io.ErrUnexpectedEOF, 2},
		{"garbage first", "hello\n" + small, ErrSyntax, 1},
		{"no counts", "\\data\\\n\n\\1-grams:\n", ErrSyntax, 3},
		{"count line", edit("ngram 2=4", "ngram 2 4"), ErrSyntax, 3},
		{"count not a number", edit("ngram 2=4", "ngram 2=four"), ErrSyntax, 3},
		{"count negative", edit("ngram 2=4", "ngram 2=-4"), ErrSyntax, 3},
		{"orders not consecutive", edit("ngram 3=2", "ngram 4=2"), ErrSyntax, 4},
		{"order too high", "\\data\\\nngram 1=1\nngram 2=1\nngram 3=1\nngram 4=1\nngram 5=1\nngram 6=1\nngram 7=1\nngram 8=1\nngram 9=1\n\n", ErrOrder, 11},
		{"unigrams fewer", edit("ngram 1=5", "ngram 1=6"), ErrCount, 13},
		{"unigrams more", edit("ngram 1=5", "ngram 1=4"), ErrCount, 11},
		{"bigrams fewer", edit("ngram 2=4", "ngram 2=5"), ErrCount, 19},
		{"bigrams more", edit("ngram 2=4", "ngram 2=3"), ErrCount, 17},
		{"trigrams fewer", edit("ngram 3=2", "ngram 3=3"), ErrCount, 23},
		{"trigrams more", edit("ngram 3=2", "ngram 3=1"), ErrCount, 21},
		{"bad prob", edit("-0.4\ta b", "-0.4x\ta b"), ErrNumber, 15},
		{"NaN prob", edit("-0.4\ta b", "NaN\ta b"), ErrNumber, 15},
		{"inf prob", edit("-0.6\ta", "-inf\ta"), ErrNumber, 10},
		{"huge prob", edit("-0.6\ta", "-1e50\ta"), ErrNumber, 10},
		{"positive prob", edit("-0.05\t<s> a b", "0.05\t<s> a b"), ErrNumber, 20},
		{"bad backoff", edit("a\t-0.2", "a\t-0.2.3"), ErrNumber, 10},
		{"NaN backoff", edit("a b\t-0.05", "a b\tnan"), ErrNumber, 15},
		{"top backoff", edit("<s> a b", "<s> a b\t-0.5"), ErrSyntax, 20},
		{"extra field", edit("a b\t-0.05", "a b\t-0.05 x"), ErrSyntax, 15},
		{"missing word", edit("-0.1\tb </s>", "-0.1\tb"), ErrSyntax, 16},
		{"unigram no word", edit("-0.7\t</s>", "-0.7"), ErrSyntax, 9},
		{"unknown word", edit("b </s>", "c </s>"), ErrUnknownWord, 16},
		{"missing context", edit("a b </s>", "b a </s>"), ErrMissingContext, 21},
		{"duplicate unigram", edit("-0.9\tb", "-0.9\ta"), ErrDuplicate, 11},
		{"duplicate unk", edit("-0.9\tb\t-0.1", "-0.9\t<UNK>"), ErrDuplicate, 11},
		{"<unk> not listed", strings.NewReplacer("ngram 1=5", "ngram 1=4", "-1.0\t<unk>\t0\n", "", "b </s>", "<unk> </s>").Replace(small), ErrUnknownWord, 15},
		{"duplicate bigram", edit("a </s>", "b </s>"), ErrDuplicate, 17},
		{"no <s>", strings.ReplaceAll(small, "<s>", "<x>"), ErrSpecialWord, 13},
		{"no </s>", strings.ReplaceAll(small, "</s>", "<x>"), ErrSpecialWord, 13},
		{"wrong header", edit("\\3-grams:", "\\4-grams:"), ErrSyntax, 19},
		{"header garbage", edit("\\2-grams:", "2-grams:"), ErrCount, 13},
		{"missing end", strings.TrimSuffix(small, "\\end\\\n"), io.ErrUnexpectedEOF, 22},
		{"cut in trigrams", small[:strings.Index(small, "-0.02")], io.ErrUnexpectedEOF, 20},
		{"text after end", small + "\nmore\n", ErrSyntax, 25},
		{"invalid UTF-8 unigram", edit("-0.9\tb", "-0.9\tb\xff"), ErrInvalidUTF8, 11},
		{"invalid UTF-8 bigram", edit("-0.1\tb </s>", "-0.1\tb </s>\xc3"), ErrInvalidUTF8, 16},
		{"invalid UTF-8 header", edit("\\data\\", "\\data\\\xff"), ErrInvalidUTF8, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, chunk := range []int{chunkSize, 7, 64} {
				_, err := read(context.Background(), strings.NewReader(c.in), "x.arpa", Options{Workers: 2, UnknownLogProb: -100}, chunk)
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("chunk %d: error %v (%T), want a *ParseError", chunk, err, err)
				}
				if !errors.Is(err, c.kind) || pe.Line != c.line || pe.File != "x.arpa" {
					t.Fatalf("chunk %d: %v (line %d), want %v at line %d", chunk, err, pe.Line, c.kind, c.line)
				}
				if !strings.HasPrefix(err.Error(), "lm: x.arpa") {
					t.Fatalf("message %q", err)
				}
			}
		})
	}
}

// TestReadTolerates checks inputs KenLM accepts (and a few more).
func TestReadTolerates(t *testing.T) {
	cases := []struct{ name, in string }{
		{"as is", small},
		{"comments and blanks first", "# made by hand\n\n  \n" + small},
		{"CRLF", strings.ReplaceAll(small, "\n", "\r\n")},
		{"no final newline", strings.TrimSuffix(small, "\n")},
		{"spaces for tabs", strings.ReplaceAll(small, "\t", "  ")},
		{"blank lines in sections", strings.ReplaceAll(small, "\n-0.", "\n\n \n-0.")},
		{"no blank line after counts", edit("ngram 3=2\n\n", "ngram 3=2\n")},
		{"trailing blank lines", small + "\n\n  \n"},
		{"zero back-off on the top order", edit("<s> a b", "<s> a b\t0")},
		{"<UNK>", edit("<unk>", "<UNK>")},
		{"exponents", edit("-0.6\ta\t-0.2", "-6E-1\ta\t-2e-1")},
	}
	want := loadString(t, small)
	ref := parseRef(t, small)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, chunk := range []int{chunkSize, 5, 33} {
				m, err := read(context.Background(), strings.NewReader(c.in), "x", Options{Workers: 3, UnknownLogProb: -100}, chunk)
				if err != nil {
					t.Fatalf("chunk %d: %v", chunk, err)
				}
				if !sameModel(want, m) {
					t.Fatalf("chunk %d: model differs", chunk)
				}
			}
		})
	}
	checkAgainstRef(t, want, ref, vocabWords(want), 200, 6, 1)
}

// sameModel reports whether two models list the same n-grams with the same
// values.
func sameModel(a, b *Model) bool {
	var x, y strings.Builder
	if WriteARPA(&x, a.ARPA()) != nil || WriteARPA(&y, b.ARPA()) != nil {
		return false
	}
	return x.String() == y.String()
}

// TestReadOneByte reads through iotest.OneByteReader and a reader that
// fails mid-way.
func TestReadOneByte(t *testing.T) {
	text := readShared(t, "lm", "test.arpa")
	want := loadString(t, text)
	m, err := Read(context.Background(), iotest.OneByteReader(strings.NewReader(text)), "one", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !sameModel(want, m) {
		t.Fatal("model differs")
	}
	boom := errors.New("boom")
	_, err = Read(context.Background(), io.MultiReader(strings.NewReader(text[:1000]), iotest.ErrReader(boom)), "boom", nil)
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, boom) || pe.Line != strings.Count(text[:1000], "\n")+1 {
		t.Fatalf("got %v", err)
	}
}

// TestLoadTruncatedGzip cuts a gzip file short: Load must fail with the
// path and line, wrapping io.ErrUnexpectedEOF.
func TestLoadTruncatedGzip(t *testing.T) {
	text := readShared(t, "lm", "test.arpa")
	whole, cut := parsetest.GzipWholeAndCut(t, strings.Repeat("# padding so the cut falls in the n-grams\n", 50)+text,
		"whole.arpa.gz", "cut.arpa.gz", 3, 4)
	dir := filepath.Dir(whole)
	m, err := Load(context.Background(), whole, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !sameModel(m, loadString(t, text)) {
		t.Fatal("model differs")
	}
	_, err = Load(context.Background(), cut, nil)
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, io.ErrUnexpectedEOF) || pe.File != cut || pe.Line == 0 {
		t.Fatalf("got %v", err)
	}
	t.Logf("%v", err)
	if _, err := Load(context.Background(), filepath.Join(dir, "missing.arpa"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// TestCancel checks that a cancelled context stops reading.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, strings.NewReader(small), "x", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

func TestNGramLookup(t *testing.T) {
	m := loadString(t, small)
	ids := func(s string) []WordID { return m.IDs(nil, strings.Fields(s)) }
	cases := []struct {
		ngram    string
		prob, bo float32
		ok       bool
	}{
		{"a", -0.6, -0.2, true},
		{"</s>", -0.7, 0, true},
		{"<s> a", -0.2, -0.3, true},
		{"a b", -0.4, -0.05, true},
		{"<s> a b", -0.05, 0, true},
		{"b a", 0, 0, false},
		{"<s> a b </s>", 0, 0, false},
	}
	for _, c := range cases {
		p, bo, ok := m.NGram(ids(c.ngram)...)
		if ok != c.ok || p != c.prob || bo != c.bo || (bo == 0 && math.Signbit(float64(bo))) {
			t.Errorf("NGram(%s) = %g, %g, %v; want %g, %g, %v", c.ngram, p, bo, ok, c.prob, c.bo, c.ok)
		}
	}
	if _, _, ok := m.NGram(); ok {
		t.Error("NGram() found")
	}
	if _, _, ok := m.NGram(-1); ok {
		t.Error("NGram(-1) found")
	}
	if got := m.Counts(); len(got) != 3 || got[0] != 5 || got[1] != 4 || got[2] != 2 {
		t.Errorf("Counts = %v", got)
	}
	// Words outside the vocabulary score as <unk>.
	p1, _ := m.Score(m.NullContext(), 1000)
	p2, _ := m.Score(m.NullContext(), Unknown)
	if p1 != p2 || p1 != -1 {
		t.Errorf("p(1000) = %g, p(<unk>) = %g", p1, p2)
	}
}

// TestUnigramModel reads an order-1 model (KenLM refuses these; we score
// them by their unigrams).
func TestUnigramModel(t *testing.T) {
	m := loadString(t, "\\data\\\nngram 1=3\n\n\\1-grams:\n-1\t<s>\n-0.5\t</s>\t0\n-0.3\ta\n\n\\end\\\n")
	if m.Order() != 1 {
		t.Fatal(m.Order())
	}
	if got := m.SentenceScore(m.IDs(nil, []string{"a", "a"})); math.Abs(got-(-1.1)) > 1e-6 {
		t.Errorf("score %g", got)
	}
	if m.BeginSentence().Len() != 1 {
		t.Error("BeginSentence")
	}
}

// TestErrorsDoNotQuoteLines loads files that are not language models (or
// are broken ones) and checks that the error names the file and the line
// and does not print the offending line: only a short token at most.
func TestErrorsDoNotQuoteLines(t *testing.T) {
	secret, long := parsetest.Secret, parsetest.Long
	load := func(path string) error {
		_, err := Load(context.Background(), path, nil)
		return err
	}
	parsetest.NoQuoteCases(t, []parsetest.QuoteCase{
		{Name: "a corpus file", Parse: load, In: secret + "\nmore text\n", Line: 1},
		{Name: "count line", Parse: load, In: edit("ngram 2=4", "ngram 2 "+secret), Line: 3},
		{Name: "count line without ngram", Parse: load, In: edit("ngram 2=4", secret), Line: 3},
		{Name: "bad count", Parse: load, In: edit("ngram 2=4", "ngram 2="+secret), Line: 3},
		{Name: "section header", Parse: load, In: edit("\\2-grams:", "\\2-grams: "+secret), Line: 13},
		{Name: "text after end", Parse: load, In: small + secret + "\n", Line: 24},
		{Name: "bad number", Parse: load, In: edit("-0.4\ta b", strings.ReplaceAll(secret, " ", "")+"\ta b"), Line: 15},
		{Name: "after the back-off", Parse: load, In: edit("a b\t-0.05", "a b\t-0.05 "+long), Line: 15},
		{Name: "unknown word", Parse: load, In: edit("b </s>", long+" </s>"), Line: 16},
	})
}
