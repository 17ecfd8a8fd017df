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

	"github.com/mtune/mtune/internal/shared"
	"github.com/mtune/mtune/io/storage"
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

	// The differences are glibc's: lmplz's log10f is not correctly rounded.
	// With its algorithm the text is lmplz's, byte for byte.
	defer func(f func(float32) float32) { log10fImpl = f }(log10fImpl)
	log10fImpl = glibcLog10f
	if a, err = c.Estimate(nil); err != nil {
		t.Fatal(err)
	}
	if diff := diffLines(t, a, string(ref)); diff != 0 {
		t.Errorf("with glibc's log10f, %d lines differ from lmplz's", diff)
	}
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

// glibcLog10f is log10f as glibc (2.28 and later, x86-64) computes it, to
// explain the last bits of lmplz's output: fdlibm's e_log10f.c reduction
// (log10(x) = k log10(2) + log(m)/ln(10), in float32) over the logf of Arm's
// optimized-routines (math/logf.c and logf_data.c, MIT licence, © Arm
// Limited; the table and polynomial below are theirs).
func glibcLog10f(x float32) float32 {
	const (
		ivln10   = float32(4.3429449201e-01)
		log102hi = float32(3.0102920532e-01)
		log102lo = float32(7.9034151668e-07)
	)
	hx := int32(math.Float32bits(x)) // x is a positive normal number here
	k := (hx >> 23) - 127
	i := int32(uint32(k) >> 31)
	hx = (hx & 0x007fffff) | ((0x7f - i) << 23)
	y := float32(k + i)
	lf := armLogf(math.Float32frombits(uint32(hx)))
	z := float32(y*log102lo) + float32(ivln10*lf)
	return z + float32(y*log102hi)
}

var armLogfTab = [16][2]float64{ // 1/c, log(c)
	{0x1.661ec79f8f3bep+0, -0x1.57bf7808caadep-2}, {0x1.571ed4aaf883dp+0, -0x1.2bef0a7c06ddbp-2},
	{0x1.49539f0f010bp+0, -0x1.01eae7f513a67p-2}, {0x1.3c995b0b80385p+0, -0x1.b31d8a68224e9p-3},
	{0x1.30d190c8864a5p+0, -0x1.6574f0ac07758p-3}, {0x1.25e227b0b8eap+0, -0x1.1aa2bc79c81p-3},
	{0x1.1bb4a4a1a343fp+0, -0x1.a4e76ce8c0e5ep-4}, {0x1.12358f08ae5bap+0, -0x1.1973c5a611cccp-4},
	{0x1.0953f419900a7p+0, -0x1.252f438e10c1ep-5}, {0x1p+0, 0},
	{0x1.e608cfd9a47acp-1, 0x1.aa5aa5df25984p-5}, {0x1.ca4b31f026aap-1, 0x1.c5e53aa362eb4p-4},
	{0x1.b2036576afce6p-1, 0x1.526e57720db08p-3}, {0x1.9c2d163a1aa2dp-1, 0x1.bc2860d22477p-3},
	{0x1.886e6037841edp-1, 0x1.1058bc8a07ee1p-2}, {0x1.767dcf5534862p-1, 0x1.4043057b6ee09p-2},
}

func armLogf(x float32) float32 {
	const ln2 = 0x1.62e42fefa39efp-1
	a := [3]float64{-0x1.00ea348b88334p-2, 0x1.5575b0be00b6ap-2, -0x1.ffffef20a4123p-2}
	ix := math.Float32bits(x)
	if ix == 0x3f800000 {
		return 0
	}
	tmp := ix - 0x3f330000
	i := (tmp >> 19) % 16
	k := int32(tmp) >> 23
	iz := ix - (tmp & (0x1ff << 23))
	invc, logc := armLogfTab[i][0], armLogfTab[i][1]
	z := float64(math.Float32frombits(iz))
	r := float64(z*invc) - 1
	y0 := logc + float64(float64(k)*ln2)
	r2 := r * r
	y := float64(a[1]*r) + a[2]
	y = float64(a[0]*r2) + y
	y = float64(y*r2) + (y0 + r)
	return float32(y)
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
	cases := []struct {
		name string
		in   string
		kind error
		line int
	}{
		{"empty", "", ErrDiscount, 0},
		{"tiny", "a b\n", ErrDiscount, 0},
		{"<s> in text", "a b\nc <s> d\n", ErrSpecialInCorpus, 2},
		{"<unk> in text", "a <unk>\n", ErrSpecialInCorpus, 1},
		{"invalid UTF-8", "a b\nc \xff\n", ErrInvalidUTF8, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Estimate(context.Background(), strings.NewReader(c.in), nil)
			if !errors.Is(err, c.kind) {
				t.Fatalf("got %v, want %v", err, c.kind)
			}
			var pe *ParseError
			if errors.As(err, &pe) != (c.line > 0) || (c.line > 0 && pe.Line != c.line) {
				t.Fatalf("got %v, want line %d", err, c.line)
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
