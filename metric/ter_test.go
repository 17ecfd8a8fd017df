package metric

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mtune/mtune/testsupport/shared"
)

// terOptions turns sacreBLEU's TER keyword arguments into a TER.
func terOptions(t testing.TB, kwargs map[string]bool) TER {
	t.Helper()
	var m TER
	for k, v := range kwargs {
		switch k {
		case "normalized":
			m.Normalized = v
		case "no_punct":
			m.NoPunct = v
		case "asian_support":
			m.AsianSupport = v
		case "case_sensitive":
			m.CaseSensitive = v
		default:
			t.Fatalf("unknown TER option %q", k)
		}
	}
	return m
}

// loadJSON reads testdata/name into v.
func loadJSON(t testing.TB, name string, v any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// terTokenList returns line's tokens under m.
func terTokenList(m TER, line string) []string {
	var x terText
	b := m.normalize(&x, line)
	var toks []string
	for {
		i, j := nextPyField(b)
		if i == j {
			return toks
		}
		toks = append(toks, string(b[i:j]))
		b = b[j:]
	}
}

// terTokens returns line's tokens under m, joined by single spaces as
// sacreBLEU's tokenizer returns them.
func terTokens(m TER, line string) string { return strings.Join(terTokenList(m, line), " ") }

// terStats returns the statistics of hyp against refs.
func terStats(t testing.TB, m TER, hyp string, refs ...string) [2]float64 {
	t.Helper()
	seg, err := m.Segment(refs)
	if err != nil {
		t.Fatal(err)
	}
	var s [2]float64
	fillTER(seg, s[:], hyp)
	return s
}

// terCorpus returns the summed statistics of hyps against the reference
// streams refs (refs[k][i] is segment i's k-th reference), in order.
func terCorpus(t testing.TB, m TER, hyps []string, refs [][]string) (sum [2]float64, per [][2]float64) {
	t.Helper()
	for i, h := range hyps {
		rs := make([]string, len(refs))
		for k := range refs {
			rs[k] = refs[k][i]
		}
		s := terStats(t, m, h, rs...)
		per = append(per, s)
		sum[0] += s[0]
		sum[1] += s[1]
	}
	return sum, per
}

// TestTERSacreBLEUUnitVectors checks sacreBLEU's own TER tests
// (testdata/sacrebleu-ter-vectors.json): corpus scores and tokenisations.
func TestTERSacreBLEUUnitVectors(t *testing.T) {
	var v struct {
		Epsilon float64 `json:"epsilon"`
		Corpus  []struct {
			Hyps     []string   `json:"hyps"`
			Refs     [][]string `json:"refs"`
			Expected float64    `json:"expected_fraction"`
			Source   string     `json:"expected_source"`
		} `json:"corpus_ter"`
		Tokenizer []struct {
			Kwargs map[string]bool `json:"kwargs"`
			Cases  [][2]string     `json:"cases"`
		} `json:"tokenizer"`
		WMT17 map[string]float64 `json:"tercom_wmt17"`
	}
	loadJSON(t, "sacrebleu-ter-vectors.json", &v)
	if len(v.Corpus) != 7 || len(v.Tokenizer) != 4 || len(v.WMT17) != 81 || v.Epsilon != 1e-3 {
		t.Fatalf("vectors file: %d corpus cases, %d tokenizer sets, %d tercom scores, epsilon %g; want 7, 4, 81, 0.001",
			len(v.Corpus), len(v.Tokenizer), len(v.WMT17), v.Epsilon)
	}
	for i, c := range v.Corpus {
		t.Run(fmt.Sprintf("corpus%d", i), func(t *testing.T) {
			sum, _ := terCorpus(t, TER{}, c.Hyps, c.Refs)
			if got := terScore(sum[:]); math.Abs(got-100*c.Expected) >= v.Epsilon {
				t.Errorf("TER = %v, want 100 × %s within %g", got, c.Source, v.Epsilon)
			}
		})
	}
	for _, set := range v.Tokenizer {
		m := terOptions(t, set.Kwargs)
		for _, c := range set.Cases {
			if got := terTokens(m, c[0]); got != c[1] {
				t.Errorf("%+v: tokenize(%q) = %q, want %q", m, c[0], got, c[1])
			}
		}
	}
}

// TestTERTokenizerPython checks the tokenisation against sacreBLEU's on
// inputs chosen to reach every rule, under every option set
// (testdata/sacrebleu-ter-tokenizer.json).
func TestTERTokenizerPython(t *testing.T) {
	var v struct {
		Sets []struct {
			Kwargs map[string]bool `json:"kwargs"`
			Cases  [][2]string     `json:"cases"`
		} `json:"sets"`
	}
	loadJSON(t, "sacrebleu-ter-tokenizer.json", &v)
	n := 0
	for _, set := range v.Sets {
		m := terOptions(t, set.Kwargs)
		for _, c := range set.Cases {
			n++
			if got := terTokens(m, c[0]); got != c[1] {
				t.Errorf("%+v: tokenize(%q)\n got %q\nwant %q", m, c[0], got, c[1])
			}
		}
	}
	if n < 200 {
		t.Fatalf("only %d tokenizer cases", n)
	}
}

// TestTERPythonUnicode checks lower-casing, the Final_Sigma properties and
// white space against Python's, for every code point assigned in that
// Python's Unicode version (testdata/python-unicode.json).
func TestTERPythonUnicode(t *testing.T) {
	var v struct {
		Unicode       string    `json:"unicode"`
		Lower         [][]rune  `json:"lower"`
		CaseIgnorable [][2]rune `json:"case_ignorable"`
		Cased         [][2]rune `json:"cased_not_ignorable"`
		Space         []rune    `json:"space"`
		Assigned      [][2]rune `json:"assigned"`
	}
	loadJSON(t, "python-unicode.json", &v)
	set := func(rs [][2]rune) map[rune]bool {
		m := map[rune]bool{}
		for _, r := range rs {
			for c := r[0]; c <= r[1]; c++ {
				m[c] = true
			}
		}
		return m
	}
	lower := map[rune]string{}
	for _, l := range v.Lower {
		lower[l[0]] = string(l[1:])
	}
	ign, cased, assigned := set(v.CaseIgnorable), set(v.Cased), set(v.Assigned)
	space := map[rune]bool{}
	for _, c := range v.Space {
		space[c] = true
	}
	if len(lower) < 1000 || len(assigned) < 100000 || len(space) != 29 {
		t.Fatalf("python-unicode.json looks truncated: %d lower-case mappings, %d assigned, %d spaces",
			len(lower), len(assigned), len(space))
	}
	checked := 0
	for c := rune(0); c <= 0x10ffff; c++ {
		if c >= 0xd800 && c < 0xe000 || !assigned[c] {
			continue
		}
		checked++
		want, ok := lower[c]
		if !ok {
			want = string(c)
		}
		if c == 0x3a3 {
			want = "σ" // alone: not final
		}
		if got := string(appendPyLower(nil, string(c))); got != want {
			t.Errorf("lower(%U) = %q, Python %q", c, got, want)
		}
		gi := isCaseIgnorable(c)
		if gi != ign[c] || (isCased(c) && !gi) != cased[c] {
			t.Errorf("%U: case-ignorable %v, cased %v; Python (Unicode %s): %v, %v", c, gi, isCased(c), v.Unicode, ign[c], cased[c])
		}
		if isPySpace(c) != space[c] || (c >= 0x80 && isPySpaceNonASCII(c) != space[c]) {
			t.Errorf("%U: white space %v (%v), Python %v", c, isPySpace(c), c >= 0x80 && isPySpaceNonASCII(c), space[c])
		}
	}
	t.Logf("%d code points of Unicode %s agree", checked, v.Unicode)
}

// TestTERFinalSigma checks Σ in and out of the Final_Sigma context, as
// Python lower-cases it.
func TestTERFinalSigma(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Σ", "σ"}, {"ΑΣ", "ας"}, {"ΑΣ Β", "ας β"}, {"ΑΣΒ", "ασβ"}, {"ΑΣ.Β", "ασ.β"}, {"ΑΣ. Β", "ας. β"},
		{"Α'Σ", "α'ς"}, {".Σ", ".σ"}, {"ΑΣ\u0301", "ας\u0301"}, {"ΑΣ\u0301Β", "ασ\u0301β"}, {"İ", "i\u0307"},
		{"ΟΔΥΣΣΕΥΣ", "οδυσσευς"}, {"A\xffΣ", "a\xffσ"},
	} {
		if got := string(appendPyLowerBytes(nil, c.in)); got != c.want {
			t.Errorf("lower(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestTERRandomPairs checks the edit counts of random token sequences made
// to stress the shift search against sacreBLEU's
// (testdata/sacrebleu-ter-random.json).
func TestTERRandomPairs(t *testing.T) {
	var v struct {
		Cases []struct {
			Kind   string `json:"kind"`
			Hyp    string `json:"hyp"`
			Ref    string `json:"ref"`
			Edits  int    `json:"edits"`
			RefLen int    `json:"ref_len"`
		} `json:"cases"`
	}
	loadJSON(t, "sacrebleu-ter-random.json", &v)
	kinds := map[string]int{}
	for i, c := range v.Cases {
		kinds[c.Kind]++
		s := terStats(t, TER{}, c.Hyp, c.Ref)
		if s[0] != float64(c.Edits) || s[1] != float64(c.RefLen) {
			t.Errorf("case %d (%s): edits %v, length %v; sacreBLEU %d, %d\nhyp %s\nref %s",
				i, c.Kind, s[0], s[1], c.Edits, c.RefLen, c.Hyp, c.Ref)
		}
	}
	if len(v.Cases) < 250 {
		t.Fatalf("only %d random cases", len(v.Cases))
	}
	t.Logf("%d cases: %v", len(v.Cases), kinds)
}

// terWMT15 is testdata/sacrebleu-ter-wmt15.json.
type terWMT15 struct {
	Source  string `json:"source"`
	Command string `json:"command"`
	CLI     struct {
		Output string `json:"output"`
	} `json:"cli"`
	Cases []struct {
		Name      string          `json:"name"`
		Kwargs    map[string]bool `json:"kwargs"`
		Hyps      string          `json:"hyps"`
		Refs      []string        `json:"refs"`
		Signature string          `json:"signature"`
		Score     float64         `json:"score"`
		PrintedW2 string          `json:"printed_w2"`
		PrintedW1 string          `json:"printed_w1"`
		NumEdits  float64         `json:"num_edits"`
		RefLength float64         `json:"ref_length"`
		Sentences []struct {
			Edits         float64 `json:"edits"`
			RefLen        float64 `json:"ref_len"`
			SentenceScore float64 `json:"sentence_score"`
		} `json:"sentences"`
	} `json:"cases"`
}

// TestTERWMT15 checks corpus TER, and every sentence's edits, reference
// length and sentence score, on the 100 WMT15 en-ru sentences against
// sacreBLEU's, under every option set, with one reference and with two
// (testdata/sacrebleu-ter-wmt15.json).
func TestTERWMT15(t *testing.T) {
	var v terWMT15
	loadJSON(t, "sacrebleu-ter-wmt15.json", &v)
	dir := shared.Path(t, "bleu", "wmt15-en-ru-100")
	var lines func(name string) []string
	lines = func(name string) []string {
		if name == "synthetic_hyps" {
			return terSynthetic(lines("newstest-2015-100sents.en-ru.ref.ru"), lines("newstest-2015-100sents.en-ru.google.ru"))
		}
		l := readLines(t, filepath.Join(dir, name))
		if len(l) != 100 {
			t.Fatalf("%s: %d lines, want 100", name, len(l))
		}
		return l
	}
	if len(v.Cases) != 10 {
		t.Fatalf("%d cases, want 10", len(v.Cases))
	}
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			m := terOptions(t, c.Kwargs)
			hyps := lines(c.Hyps)
			var refs [][]string
			for _, r := range c.Refs {
				refs = append(refs, lines(r))
			}
			sum, per := terCorpus(t, m, hyps, refs)
			if len(c.Sentences) != len(hyps) {
				t.Fatalf("%d sentences recorded, %d read", len(c.Sentences), len(hyps))
			}
			for i, s := range c.Sentences {
				if per[i][0] != s.Edits || per[i][1] != s.RefLen {
					t.Errorf("sentence %d: edits %v, length %v; sacreBLEU %v, %v", i+1, per[i][0], per[i][1], s.Edits, s.RefLen)
				}
				if got := terScore(per[i][:]); got != s.SentenceScore {
					t.Errorf("sentence %d: sentence TER %v, sacreBLEU %v", i+1, got, s.SentenceScore)
				}
			}
			got := terScore(sum[:])
			if sum[0] != c.NumEdits || sum[1] != c.RefLength {
				t.Errorf("corpus: %v edits, length %v; sacreBLEU %v, %v", sum[0], sum[1], c.NumEdits, c.RefLength)
			}
			if math.Abs(got-c.Score) > 1e-9 {
				t.Errorf("corpus TER %.15g, sacreBLEU %.15g", got, c.Score)
			}
			if p := fmt.Sprintf("TER = %.2f", got); p != c.PrintedW2 {
				t.Errorf("printed %q, sacreBLEU %q", p, c.PrintedW2)
			}
			if p := fmt.Sprintf("TER = %.1f", got); p != c.PrintedW1 {
				t.Errorf("printed %q, sacreBLEU %q", p, c.PrintedW1)
			}
			if sig := m.Signature(len(refs)); sig != c.Signature {
				t.Errorf("signature %q, sacreBLEU %q", sig, c.Signature)
			}
			t.Logf("%s = %.2f (%v edits / %v words); sacreBLEU %.15g", m.Name(), got, sum[0], sum[1], c.Score)
		})
	}
	// sacreBLEU's command line on the default case.
	var cli struct {
		Score     float64 `json:"score"`
		Signature string  `json:"signature"`
	}
	if err := json.Unmarshal([]byte(v.CLI.Output), &cli); err != nil {
		t.Fatalf("cli output: %v", err)
	}
	sum, _ := terCorpus(t, TER{}, lines(v.Cases[0].Hyps), [][]string{lines(v.Cases[0].Refs[0])})
	if got := fmt.Sprintf("%.1f", terScore(sum[:])); got != fmt.Sprint(cli.Score) || (TER{}).Signature(1) != cli.Signature {
		t.Errorf("TER %s, signature %q; sacreBLEU's command line %v, %q", got, (TER{}).Signature(1), cli.Score, cli.Signature)
	}
}

// TestTEREdgeCases checks empty and identical sentences, several references
// and the scores' zero-length rule.
func TestTEREdgeCases(t *testing.T) {
	cases := []struct {
		name string
		m    TER
		hyp  string
		refs []string
		want [2]float64
	}{
		{"empty hypothesis", TER{}, "", []string{"a b c"}, [2]float64{3, 3}},
		{"blank hypothesis", TER{}, " \t\u3000", []string{"a b c"}, [2]float64{3, 3}},
		{"empty reference", TER{}, "a b", []string{""}, [2]float64{2, 0}},
		{"both empty", TER{}, "", []string{""}, [2]float64{0, 0}},
		{"identical", TER{}, "the cat sat on the mat .", []string{"the cat sat on the mat ."}, [2]float64{0, 7}},
		{"identical but case", TER{}, "The Cat", []string{"the cat"}, [2]float64{0, 2}},
		{"case-sensitive", TER{CaseSensitive: true}, "The Cat", []string{"the cat"}, [2]float64{2, 2}},
		{"white space", TER{}, "  a\u00a0b\u2003c  ", []string{"a b c"}, [2]float64{0, 3}},
		{"zero-width space is no space", TER{}, "a\u200bb", []string{"a b"}, [2]float64{2, 2}},
		{"one shift", TER{}, "d e f g h a b c", []string{"a b c d e f g h"}, [2]float64{1, 8}},
		{"non-ASCII", TER{}, "Ёлки-палки, ЁЖ и ÆØÅ", []string{"ёлки-палки, ёж и æøå"}, [2]float64{0, 4}},
		{"non-ASCII shift", TER{}, "日本 語 の テキスト", []string{"の テキスト 日本 語"}, [2]float64{1, 4}},
		{"best of two references", TER{}, "a b c", []string{"x y z w", "a b d"}, [2]float64{1, 3.5}},
		{"an empty reference among two", TER{}, "a b c", []string{"", "a b c d"}, [2]float64{1, 2}},
		{"normalized", TER{Normalized: true}, "Jim's car.", []string{"jim 's car ."}, [2]float64{0, 4}},
		{"no punct", TER{NoPunct: true}, "a, b.", []string{"a b"}, [2]float64{0, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := terStats(t, c.m, c.hyp, c.refs...); got != c.want {
				t.Errorf("stats %v, want %v", got, c.want)
			}
		})
	}
	var m TER
	for _, c := range []struct {
		stats [2]float64
		want  float64
	}{{[2]float64{0, 0}, 0}, {[2]float64{3, 0}, 100}, {[2]float64{0, 5}, 0}, {[2]float64{1, 8}, 12.5}, {[2]float64{9, 3}, 300}} {
		if got := terScore(c.stats[:]); got != c.want {
			t.Errorf("Score(%v) = %v, want %v", c.stats, got, c.want)
		}
		if got := terScore(c.stats[:]); got != c.want {
			t.Errorf("SentenceScore(%v) = %v, want %v", c.stats, got, c.want)
		}
	}
	if _, err := m.Segment(nil); err == nil {
		t.Error("Segment(nil): no error")
	}
	if m.Name() != "TER" || m.Len() != 2 || m.HigherIsBetter() {
		t.Errorf("Name %q, Len %d, HigherIsBetter %v", m.Name(), m.Len(), m.HigherIsBetter())
	}
	for _, c := range []struct {
		m     TER
		nrefs int
		want  string
	}{
		{TER{}, 1, "nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0"},
		{TER{Normalized: true, NoPunct: true, AsianSupport: true, CaseSensitive: true}, 4,
			"nrefs:4|case:mixed|tok:tercom|norm:yes|punct:no|asian:yes|version:2.6.0"},
		{TER{}, 0, "nrefs:var|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0"},
	} {
		if got := c.m.Signature(c.nrefs); got != c.want {
			t.Errorf("Signature(%d) = %q, want %q", c.nrefs, got, c.want)
		}
	}
}

// TestTERLongSentences checks that long sentences stay fast: the shift
// search scores at most about 1000 shifted hypotheses, each in time linear
// in the length (the beam is 50 wide).
func TestTERLongSentences(t *testing.T) {
	words := func(n, vocab, seed int) string {
		var b strings.Builder
		x := uint32(seed)
		for i := range n {
			x = x*1664525 + 1013904223
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "w%d", (x>>16)%uint32(vocab))
		}
		return b.String()
	}
	for _, c := range []struct{ nh, nr, vocab int }{{300, 300, 5}, {500, 450, 50}, {2000, 2000, 3}, {5, 1000, 4}, {1000, 5, 4}} {
		hyp, ref := words(c.nh, c.vocab, 1), words(c.nr, c.vocab, 2)
		start := time.Now()
		s := terStats(t, TER{}, hyp, ref)
		d := time.Since(start)
		if s[1] != float64(c.nr) || s[0] < math.Abs(float64(c.nh-c.nr)) || s[0] > float64(c.nh+c.nr) {
			t.Errorf("%d vs %d words: stats %v", c.nh, c.nr, s)
		}
		if d > 5*time.Second {
			t.Errorf("%d vs %d words took %v", c.nh, c.nr, d)
		}
		t.Logf("%d vs %d words (vocabulary %d): %v edits in %v", c.nh, c.nr, c.vocab, s[0], d)
	}
}

// TestTERConcurrent scores one Segment from several goroutines at once.
func TestTERConcurrent(t *testing.T) {
	seg, err := TER{}.Segment([]string{"the quick brown fox jumps over the lazy dog", "a quick brown dog jumps over a lazy fox"})
	if err != nil {
		t.Fatal(err)
	}
	hyps := []string{"the lazy dog jumps over the quick brown fox", "quick fox", "", "dog dog dog the the"}
	want := make([][2]float64, len(hyps))
	for i, h := range hyps {
		fillTER(seg, want[i][:], h)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 200 {
				i := (g + k) % len(hyps)
				var s [2]float64
				fillTER(seg, s[:], hyps[i])
				if s != want[i] {
					t.Errorf("goroutine %d: %q: %v, want %v", g, hyps[i], s, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestTERAllocs checks that scoring allocates nothing once the pooled
// buffers have grown.
func TestTERAllocs(t *testing.T) {
	for _, m := range []TER{{}, {Normalized: true, NoPunct: true, AsianSupport: true}} {
		seg, err := m.Segment([]string{"Новый премьер-министр Индии, Нарендра Моди, встречает своего японского коллегу."})
		if err != nil {
			t.Fatal(err)
		}
		hyp := "Новый премьер-министр Индии, Нарендра Моди, встречает своим японским коллегой Синдзо Абэ."
		var s [2]float64
		fillTER(seg, s[:], hyp)
		if n := testing.AllocsPerRun(100, func() { fillTER(seg, s[:], hyp) }); n > 0 {
			t.Errorf("%+v: %v allocations per Stats", m, n)
		}
	}
}

// levenshtein is the plain word edit distance, for FuzzTER.
func levenshtein(a, b []string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		diag := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			c := diag
			if a[i-1] != b[j-1] {
				c++
			}
			diag = row[j]
			row[j] = min(c, row[j]+1, row[j-1]+1)
		}
	}
	return row[len(b)]
}

// FuzzTER checks that any hypothesis and reference score without a panic
// and with edit counts in their bounds: at least the difference in length
// (shifts keep the length), zero exactly when the token sequences are
// equal, and at most the plain Levenshtein distance when both are under 25
// tokens (the beam then covers the whole matrix, and a shift is made only
// when it saves more than the one edit it costs), else at most the sum of
// the lengths (every path through the beam costs at most one per step).
func FuzzTER(f *testing.F) {
	for _, s := range [][2]string{
		{"", ""}, {"a", ""}, {"", "a"}, {"d e f g h a b c", "a b c d e f g h"},
		{"Jim's car.", "jim 's car ."}, {"ΑΣ Σ ı İ", "ας σ i i"}, {"美众院公布对特", "美 众 院"},
		{"a a a a b b b b a a", "b b a a a a a b b"}, {"\xff\xfe x", "x \xff"},
	} {
		f.Add(s[0], s[1], uint8(0))
	}
	f.Fuzz(func(t *testing.T, hyp, ref string, opts uint8) {
		m := TER{Normalized: opts&1 != 0, NoPunct: opts&2 != 0, AsianSupport: opts&4 != 0, CaseSensitive: opts&8 != 0}
		seg, err := m.Segment([]string{ref})
		if err != nil {
			t.Fatal(err)
		}
		var s [2]float64
		fillTER(seg, s[:], hyp)
		h, r := terTokenList(m, hyp), terTokenList(m, ref)
		nh, nr := len(h), len(r)
		e := int(s[0])
		if float64(e) != s[0] || s[1] != float64(nr) {
			t.Fatalf("stats %v for %d and %d tokens", s, nh, nr)
		}
		if e < max(nh-nr, nr-nh) || e > nh+nr {
			t.Fatalf("%d edits for %d and %d tokens", e, nh, nr)
		}
		if (e == 0) != slices.Equal(h, r) {
			t.Fatalf("%d edits: %q vs %q", e, h, r)
		}
		if nh < 25 && nr < 25 {
			if l := levenshtein(h, r); e > l {
				t.Fatalf("%d edits, more than the Levenshtein distance %d: %q vs %q", e, l, h, r)
			}
		}
		if sc := terScore(s[:]); math.IsNaN(sc) || math.IsInf(sc, 0) || sc < 0 {
			t.Fatalf("score %v", sc)
		}
	})
}

// fillTER writes hyp's TER statistics by seg, a TER Segment, into dst.
func fillTER(seg Segment, dst []float64, hyp string) { seg.(*terSegment).fill(dst, hyp) }

// terSynthetic makes, as sacrebleu_ter.py's synthetic_hyps does, a
// hypothesis of each line from its reference and another translation: the
// first half of the other's words and the second half of the reference's,
// the last three words moved to the front on every third line (so that
// shifts are found). The text is made here from ../shared/data, not
// stored in testdata.
func terSynthetic(refs, other []string) []string {
	out := make([]string, len(refs))
	for i := range refs {
		rw, ow := strings.Fields(refs[i]), strings.Fields(other[i])
		w := append(append([]string(nil), ow[:len(ow)/2]...), rw[len(rw)/2:]...)
		if i%3 == 0 && len(w) > 4 {
			w = append(append([]string(nil), w[len(w)-3:]...), w[:len(w)-3]...)
		}
		out[i] = strings.Join(w, " ")
	}
	return out
}
