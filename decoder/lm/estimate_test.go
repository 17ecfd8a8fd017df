package lm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/testsupport/parsetest"
	"github.com/mtune/mtune/testsupport/shared"
)

// trainLines returns lines 1–n of europarl-fr-en's English side.
func trainLines(t testing.TB, n int) []byte {
	t.Helper()
	rc, err := storage.Open(context.Background(), shared.Path(t, "europarl-fr-en", "en.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var out []byte
	br := bufio.NewReader(rc)
	for i := 0; i < n; i++ {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		out = append(out, line...)
	}
	return out
}

// TestEstimateEuroparl estimates the 5-gram model of the train split and
// compares it with the one Moses' training built with lmplz.
func TestEstimateEuroparl(t *testing.T) {
	want := europarlLM(t)
	c := NewCounter(5)
	for line := range bytes.Lines(trainLines(t, 8000)) {
		if err := c.AddLine(line); err != nil {
			t.Fatal(err)
		}
	}
	a, err := c.Estimate(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, wantCounts := a.Counts(), want.Counts()
	for i := range wantCounts {
		if got[i] != wantCounts[i] {
			t.Fatalf("counts %v, lmplz %v", got, wantCounts)
		}
	}
	var total, exact, missing int
	var worstP, worstB float64
	ids := make([]WordID, 0, 5)
	for k := range a.Orders {
		g := &a.Orders[k]
		n := k + 1
		for i := range g.Prob {
			ids = ids[:0]
			for _, w := range g.Words[i*n : (i+1)*n] {
				id, ok := want.Vocab().ID(a.Words[w])
				if !ok {
					t.Fatalf("word %q not in lmplz's model", a.Words[w])
				}
				ids = append(ids, id)
			}
			p, bo, ok := want.NGram(ids...)
			total++
			if !ok {
				missing++
				continue
			}
			var b float32
			if n < len(a.Orders) {
				b = g.Backoff[i]
			}
			dp, db := math.Abs(float64(p-g.Prob[i])), math.Abs(float64(bo-b))
			worstP, worstB = max(worstP, dp), max(worstB, db)
			if dp == 0 && db == 0 {
				exact++
			}
		}
	}
	if missing > 0 || worstP > 1e-4 || worstB > 1e-4 {
		t.Errorf("%d of %d n-grams missing from lmplz's model; largest differences: log10 p %.2g, back-off %.2g", missing, total, worstP, worstB)
	}
	ref, err := storage.ReadFile(context.Background(), shared.Path(t, "moses-models", "europarl-fr-en-8k", "lm.en.5.arpa.gz"))
	if err != nil {
		t.Fatal(err)
	}
	diff := diffLines(t, a, string(ref))
	t.Logf("counts %v as lmplz; %d n-grams, %d with bit-identical log10 p and back-off; largest differences %.2g (p), %.2g (back-off); %d of %d lines of the ARPA text differ",
		got, total, exact, worstP, worstB, diff, strings.Count(string(ref), "\n"))
	t.Logf("discounts %v", a.Discounts)

	// The remaining differences (about one float32 ulp) come from lmplz's
	// log10f, which glibc does not round correctly; the estimator here
	// rounds correctly.
}

// diffLines writes a and counts the lines that differ from ref.
func diffLines(t *testing.T, a *ARPA, ref string) int {
	var buf bytes.Buffer
	if err := WriteARPA(&buf, a); err != nil {
		t.Fatal(err)
	}
	gl, wl := strings.Split(buf.String(), "\n"), strings.Split(ref, "\n")
	diff := max(len(gl), len(wl)) - min(len(gl), len(wl))
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			diff++
		}
	}
	return diff
}

// TestEstimateByHand checks a bigram model worked out on paper with the
// fallback discounts 0.5, 1, 1.5 (the data is too small for real ones).
func TestEstimateByHand(t *testing.T) {
	a, err := EstimateSentences([][]string{{"a", "b"}, {"a", "b"}, {"b", "a"}}, &EstimateOptions{Order: 2, Fallback: &FallbackDiscount})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Continuation counts a, b, </s>: 2 each; Σ = 6; γ = D2·3/6 = 1/2;
	// p(w) = (2-1)/6 + γ/4 (|V| - 1 = 4: <unk>, </s>, a, b).
	uni := 1.0/6 + 0.5/4
	// Context <s>: a twice, b once: Σ = 3, γ = (D1 + D2)/3 = 1/2.
	hi := (2-1.0)/3 + 0.5*uni
	lo := (1-0.5)/3 + 0.5*uni
	lg := math.Log10
	cases := []struct {
		ngram    string
		prob, bo float64
	}{
		{"<unk>", lg(0.5 / 4), 0},
		{"<s>", 0, lg(0.5)},
		{"</s>", lg(uni), 0},
		{"a", lg(uni), lg(0.5)},
		{"b", lg(uni), lg(0.5)},
		{"<s> a", lg(hi), 0},
		{"<s> b", lg(lo), 0},
		{"a b", lg(hi), 0},
		{"a </s>", lg(lo), 0},
		{"b </s>", lg(hi), 0},
		{"b a", lg(lo), 0},
	}
	for _, c := range cases {
		p, bo, ok := m.NGram(m.IDs(nil, strings.Fields(c.ngram))...)
		if !ok || math.Abs(float64(p)-c.prob) > 1e-6 || math.Abs(float64(bo)-c.bo) > 1e-6 {
			t.Errorf("%s: %g %g %v, want %g %g", c.ngram, p, bo, ok, c.prob, c.bo)
		}
	}
	if got := a.Counts(); len(got) != 2 || got[0] != 5 || got[1] != 6 {
		t.Errorf("counts %v", got)
	}
}

// TestEstimateNormalised checks that every distribution of an estimated
// model sums to 1 over the vocabulary (but <s>), as interpolated
// Kneser–Ney must.
func TestEstimateNormalised(t *testing.T) {
	text := trainLines(t, 300)
	a, err := Estimate(context.Background(), bytes.NewReader(text), &EstimateOptions{Order: 3})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	rng := rand.New(rand.NewPCG(1, 2))
	var worst float64
	for range 60 {
		ws := strings.Fields(lines[rng.IntN(len(lines))])
		st := m.BeginSentence()
		for _, w := range ws[:rng.IntN(len(ws)+1)] {
			_, st = m.Score(st, m.Index(w))
		}
		var sum float64
		for id := 0; id < m.Vocab().Len(); id++ {
			if WordID(id) != m.BOS() {
				p, _ := m.Score(st, WordID(id))
				sum += math.Pow(10, float64(p))
			}
		}
		worst = max(worst, math.Abs(sum-1))
	}
	if worst > 1e-4 {
		t.Errorf("a distribution sums to 1 ± %g", worst)
	}
	t.Logf("60 contexts: distributions sum to 1 ± %.2g", worst)
}

// TestEstimateRoundTrip writes an estimate and reads it back.
func TestEstimateRoundTrip(t *testing.T) {
	text := trainLines(t, 500)
	for _, order := range []int{1, 2, 4} {
		a, err := Estimate(context.Background(), bytes.NewReader(text), &EstimateOptions{Order: order})
		if err != nil {
			t.Fatal(err)
		}
		direct, err := NewModel(a, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteARPA(&buf, a); err != nil {
			t.Fatal(err)
		}
		read := loadString(t, buf.String())
		if !sameModel(direct, read) {
			t.Fatalf("order %d: the model read back differs", order)
		}
		var again bytes.Buffer
		if err := WriteARPA(&again, read.ARPA()); err != nil {
			t.Fatal(err)
		}
		if again.String() != buf.String() {
			t.Fatalf("order %d: Model.ARPA does not give back the estimate's text", order)
		}
		s := make([][]string, 0, 500)
		for l := range strings.Lines(string(text)) {
			s = append(s, strings.Fields(l))
		}
		b, err := EstimateSentences(s, &EstimateOptions{Order: order})
		if err != nil {
			t.Fatal(err)
		}
		var buf2 bytes.Buffer
		WriteARPA(&buf2, b)
		if buf2.String() != buf.String() {
			t.Fatalf("order %d: EstimateSentences differs from Estimate", order)
		}
	}
}

func TestEstimateErrors(t *testing.T) {
	cases := []parsetest.ErrCase[struct{}]{
		{Name: "empty", In: "", Kind: ErrDiscount},
		{Name: "tiny", In: "a b\n", Kind: ErrDiscount},
		{Name: "<s> in text", In: "a b\nc <s> d\n", Kind: ErrSpecialInCorpus, Line: 2},
		{Name: "<unk> in text", In: "a <unk>\n", Kind: ErrSpecialInCorpus, Line: 1},
		{Name: "invalid UTF-8", In: "a b\nc \xff\n", Kind: ErrInvalidUTF8, Line: 2},
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			_, err := Estimate(context.Background(), strings.NewReader(c.In), nil)
			if c.Line > 0 {
				parsetest.At[pkgPrefix](t, c.Name, err, c.Kind, "", c.Line, 0)
				return
			}
			var pe *ParseError // an error of the whole input has no position
			if !errors.Is(err, c.Kind) || errors.As(err, &pe) {
				t.Fatalf("got %v, want %v without a position", err, c.Kind)
			}
		})
	}
	if _, err := EstimateSentences([][]string{{"a", "b c"}}, nil); !errors.Is(err, ErrSyntax) {
		t.Errorf("word with a space: %v", err)
	}
	if _, err := Estimate(context.Background(), strings.NewReader("a b\n"), &EstimateOptions{Fallback: &FallbackDiscount}); err != nil {
		t.Errorf("with fallback: %v", err)
	}
}
