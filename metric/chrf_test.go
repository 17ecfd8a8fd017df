package metric

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// chrfSettings are a ChrF's fields as the JSON files of testdata/ name
// them, sacreBLEU's defaults where absent.
type chrfSettings struct {
	CharOrder    *int `json:"char_order"`
	WordOrder    *int `json:"word_order"`
	Beta         *int `json:"beta"`
	Lowercase    bool `json:"lowercase"`
	Whitespace   bool `json:"whitespace"`
	EpsSmoothing bool `json:"eps_smoothing"`
}

func (s chrfSettings) chrF() ChrF {
	c := NewChrF(false)
	if s.CharOrder != nil {
		c.CharOrder = *s.CharOrder
	}
	if s.WordOrder != nil {
		c.WordOrder = *s.WordOrder
	}
	if s.Beta != nil {
		c.Beta = *s.Beta
	}
	c.Lowercase, c.Whitespace, c.EpsSmoothing = s.Lowercase, s.Whitespace, s.EpsSmoothing
	return c
}

// chrfResult is what testdata/sacrebleu_chrf.py records of one run of
// sacreBLEU's CHRF over a corpus.
type chrfResult struct {
	Settings       chrfSettings `json:"settings"`
	Name           string       `json:"name"`
	Signature      string       `json:"signature"`
	Printed        string       `json:"printed"`
	CorpusScore    float64      `json:"corpus_score"`
	Stats          [][]float64  `json:"stats"`
	SentenceScores []float64    `json:"sentence_scores"`
}

func readChrfJSON(t *testing.T, name string, v any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("testdata/%s: %v", name, err)
	}
}

// readChrfLines reads a file of the shared data as sacreBLEU's command line
// does: one segment a line, trailing white space stripped.
func readChrfLines(t *testing.T, rel string) []string {
	t.Helper()
	lines := readLines(t, shared.Path(t, strings.Split(rel, "/")...))
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, isPySpace)
	}
	return lines
}

// chrfCorpus scores hyps against the reference streams refs (refs[k][i] is
// the k-th reference of sentence i): each sentence's statistics, and their
// sum.
func chrfCorpus(t *testing.T, c ChrF, hyps []string, refs [][]string) (stats [][]float64, sum []float64) {
	t.Helper()
	sum = make([]float64, c.Len())
	for i, h := range hyps {
		var sentRefs []string
		for _, stream := range refs {
			sentRefs = append(sentRefs, stream[i])
		}
		seg, err := c.Segment(sentRefs)
		if err != nil {
			t.Fatal(err)
		}
		st := make([]float64, c.Len())
		fillChrF(seg, st, h)
		stats = append(stats, st)
		for k, v := range st {
			sum[k] += v
		}
	}
	return stats, sum
}

// checkChrfResult checks mtune's chrF of hyps against sacreBLEU's recorded
// run: name, signature and printed line exactly, every sentence's
// statistics exactly, sentence scores and the corpus score (the score of
// the summed statistics) within 1e-9.
func checkChrfResult(t *testing.T, want chrfResult, hyps []string, refs [][]string) {
	t.Helper()
	c := want.Settings.chrF()
	if got := c.Name(); got != want.Name {
		t.Errorf("Name() = %q, sacreBLEU %q", got, want.Name)
	}
	if got := c.Signature(len(refs)); got != want.Signature {
		t.Errorf("Signature(%d) = %q, sacreBLEU %q", len(refs), got, want.Signature)
	}
	if len(want.Stats) != len(hyps) || len(want.SentenceScores) != len(hyps) {
		t.Fatalf("%d hypotheses, sacreBLEU's record has %d statistics and %d sentence scores", len(hyps), len(want.Stats), len(want.SentenceScores))
	}
	stats, sum := chrfCorpus(t, c, hyps, refs)
	bad := 0
	for i, st := range stats {
		if fmt.Sprint(st) != fmt.Sprint(want.Stats[i]) {
			t.Errorf("sentence %d: statistics\n %v, sacreBLEU\n %v", i+1, st, want.Stats[i])
			bad++
		}
		if got := c.score(st); math.Abs(got-want.SentenceScores[i]) > 1e-9 {
			t.Errorf("sentence %d: SentenceScore = %.17g, sacreBLEU %.17g", i+1, got, want.SentenceScores[i])
			bad++
		}
		if bad > 10 {
			t.Fatal("too many differences")
		}
	}
	got := c.score(sum)
	if math.Abs(got-want.CorpusScore) > 1e-9 {
		t.Errorf("corpus Score = %.17g, sacreBLEU %.17g", got, want.CorpusScore)
	}
	if printed := fmt.Sprintf("%s|%s = %.2f", c.Name(), c.Signature(len(refs)), got); printed != want.Printed {
		t.Errorf("printed %q, sacreBLEU %q", printed, want.Printed)
	}
}

// TestChrFWMT15 compares corpus chrF2 and chrF2++ of the wmt15-en-ru-100
// Google output, and each sentence's statistics and score, with sacreBLEU's
// (testdata/sacrebleu-chrf-wmt15.json). The corpus score is computed from
// the sum of the sentences' statistics, so this also shows that they add.
func TestChrFWMT15(t *testing.T) {
	var rec struct {
		Hypothesis string     `json:"hypothesis"`
		Reference  string     `json:"reference"`
		ChrF       chrfResult `json:"chrF"`
		ChrFPP     chrfResult `json:"chrF++"`
	}
	readChrfJSON(t, "sacrebleu-chrf-wmt15.json", &rec)
	hyps := readChrfLines(t, rec.Hypothesis)
	refs := [][]string{readChrfLines(t, rec.Reference)}
	for _, r := range []chrfResult{rec.ChrF, rec.ChrFPP} {
		t.Run(r.Name, func(t *testing.T) { checkChrfResult(t, r, hyps, refs) })
	}
	// The defaults are NewChrF's.
	if rec.ChrF.Settings.chrF() != NewChrF(false) || rec.ChrFPP.Settings.chrF() != NewChrF(true) {
		t.Errorf("sacreBLEU's defaults %+v, %+v; NewChrF's %+v, %+v",
			rec.ChrF.Settings.chrF(), rec.ChrFPP.Settings.chrF(), NewChrF(false), NewChrF(true))
	}
}

// TestChrFGenerated compares mtune's chrF with sacreBLEU's on the edge cases
// of testdata/sacrebleu-chrf-generated.json: empty and white-space-only
// text, Python's white space, non-ASCII text, punctuation, lower-casing,
// several references and their ties, other settings; inline or on files of
// the shared data.
func TestChrFGenerated(t *testing.T) {
	var rec struct {
		Cases []struct {
			Case     string     `json:"case"`
			Hyps     []string   `json:"hyps"`
			Refs     [][]string `json:"refs"`
			HypFile  string     `json:"hyp_file"`
			RefFiles []string   `json:"ref_files"`
			chrfResult
		} `json:"cases"`
	}
	readChrfJSON(t, "sacrebleu-chrf-generated.json", &rec)
	if len(rec.Cases) < 50 {
		t.Fatalf("only %d cases", len(rec.Cases))
	}
	for _, tc := range rec.Cases {
		t.Run(tc.Case, func(t *testing.T) {
			hyps, refs := tc.Hyps, tc.Refs
			if tc.HypFile != "" {
				hyps, refs = readChrfLines(t, tc.HypFile), nil
				for _, f := range tc.RefFiles {
					refs = append(refs, readChrfLines(t, f))
				}
			}
			checkChrfResult(t, tc.chrfResult, hyps, refs)
		})
	}
}

// TestChrFSacreBLEUVectors checks sacreBLEU's own chrF tests
// (testdata/sacrebleu-chrf-vectors.json, from test/test_chrf.py and
// test.sh): each score within the tolerance sacreBLEU's test allows, and
// within 1e-9 of the full-precision score sacreBLEU computes. test.sh's
// vectors need the WMT17 system outputs (wmt17-submitted-data/txt from
// data.statmt.org), read from $MTUNE_WMT17_TXT; they are skipped without it.
func TestChrFSacreBLEUVectors(t *testing.T) {
	type vector struct {
		Test     string          `json:"test"`
		Settings chrfSettings    `json:"settings"`
		Hyps     []string        `json:"hyps"`
		Hyp      string          `json:"hyp"`
		Refs     json.RawMessage `json:"refs"`
		Expected json.RawMessage `json:"expected"`
		Sacre    *float64        `json:"sacrebleu_score"`
		Command  string          `json:"command"`
	}
	var rec struct {
		Epsilon  float64  `json:"test_chrf_py_epsilon"`
		Corpus   []vector `json:"corpus_chrf"`
		Sentence []vector `json:"sentence_chrf"`
		TestSh   []vector `json:"test_sh"`
	}
	readChrfJSON(t, "sacrebleu-chrf-vectors.json", &rec)
	if rec.Epsilon != 1e-4 || len(rec.Corpus) != 22 || len(rec.Sentence) != 3 || len(rec.TestSh) != 35 {
		t.Fatalf("vectors: epsilon %g, %d corpus, %d sentence, %d test.sh; want 1e-4, 22, 3, 35",
			rec.Epsilon, len(rec.Corpus), len(rec.Sentence), len(rec.TestSh))
	}
	check := func(t *testing.T, v vector, got float64) {
		t.Helper()
		var want float64
		if err := json.Unmarshal(v.Expected, &want); err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) >= rec.Epsilon {
			t.Errorf("score %.10g, sacreBLEU's test expects %g ± %g", got, want, rec.Epsilon)
		}
		if v.Sacre == nil || math.Abs(got-*v.Sacre) > 1e-9 {
			t.Errorf("score %.17g, sacreBLEU computes %v", got, v.Sacre)
		}
	}
	for i, v := range rec.Corpus {
		t.Run(fmt.Sprintf("%s/%d", v.Test, i), func(t *testing.T) {
			var refs [][]string
			if err := json.Unmarshal(v.Refs, &refs); err != nil {
				t.Fatal(err)
			}
			c := v.Settings.chrF()
			_, sum := chrfCorpus(t, c, v.Hyps, refs)
			check(t, v, c.score(sum))
		})
	}
	for i, v := range rec.Sentence {
		t.Run(fmt.Sprintf("%s/%d", v.Test, i), func(t *testing.T) {
			var refs []string
			if err := json.Unmarshal(v.Refs, &refs); err != nil {
				t.Fatal(err)
			}
			c := v.Settings.chrF()
			seg, err := c.Segment(refs)
			if err != nil {
				t.Fatal(err)
			}
			st := make([]float64, c.Len())
			fillChrF(seg, st, v.Hyp)
			check(t, v, c.score(st))
		})
	}
	dir := os.Getenv("MTUNE_WMT17_TXT")
	for i, v := range rec.TestSh {
		t.Run(fmt.Sprintf("test.sh/%d", i), func(t *testing.T) {
			var refFiles []string
			if err := json.Unmarshal(v.Refs, &refFiles); err != nil {
				t.Fatal(err)
			}
			var want string
			if err := json.Unmarshal(v.Expected, &want); err != nil {
				t.Fatal(err)
			}
			if dir == "" {
				t.Skipf("%s: needs wmt17-submitted-data/txt in $MTUNE_WMT17_TXT", v.Command)
			}
			read := func(rel string) []string {
				p := filepath.Join(dir, rel)
				if _, err := os.Stat(p); err != nil {
					t.Skipf("%s: %v", v.Command, err)
				}
				lines := readLines(t, p)
				for i, l := range lines {
					lines[i] = strings.TrimRightFunc(l, isPySpace)
				}
				return lines
			}
			hyps := read(v.Hyp)
			var refs [][]string
			for _, f := range refFiles {
				refs = append(refs, read(f))
			}
			c := v.Settings.chrF()
			_, sum := chrfCorpus(t, c, hyps, refs)
			got := c.score(sum)
			if s := fmt.Sprintf("%.4f", got); s != want {
				t.Errorf("%s: %s, test.sh expects %s", v.Command, s, want)
			}
			if v.Sacre != nil && math.Abs(got-*v.Sacre) > 1e-9 {
				t.Errorf("%s: %.17g, sacreBLEU computes %.17g", v.Command, got, *v.Sacre)
			}
		})
	}
}

// TestChrFEdges checks statistics worked out by hand from sacreBLEU's rules.
func TestChrFEdges(t *testing.T) {
	chrf, chrfpp := NewChrF(false), NewChrF(true)
	tests := []struct {
		name  string
		c     ChrF
		hyp   string
		refs  []string
		stats []float64 // nil: all zero
		score float64
	}{
		{"empty hypothesis", chrf, "", []string{"abc"},
			[]float64{0, 3, 0, 0, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0},
		{"empty reference: no hypothesis n-grams counted", chrf, "abc", []string{""}, nil, 0},
		{"white-space-only reference", chrfpp, "a b", []string{" \t\u3000\x1c "}, nil, 0},
		{"white space removed", chrf, "a b", []string{"ab"},
			[]float64{2, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 100},
		{"code points, not bytes", chrf, "жж", []string{"жё"},
			// P = R = (1/2 + 0/1)/2 over 2 effective orders
			[]float64{2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 25},
		{"reference shorter than an order: its hypothesis n-grams not counted", chrf, "abcd", []string{"ab"},
			[]float64{4, 2, 2, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
			// P = (2/4 + 1/3)/2, R = 1
			100 * 5 * (5.0 / 12) / (4*(5.0/12) + 1)},
		{"punctuation split from a word's end, else its start", chrfpp, "(hi) .a", []string{"(hi ) . a"},
			// hypothesis words "(hi" ")" "." "a", reference words "(" "hi" ")" "." "a"
			[]float64{6, 6, 6, 5, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1, 4, 5, 3, 3, 4, 2},
			chrfF(2, (6+3.0/4+2.0/3)/8, (6+3.0/5+2.0/4)/8)},
		{"best reference, first of equals", chrf, "a", []string{"b", "cc", "a"},
			[]float64{1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 100},
		{"ties: the first reference", chrf, "a", []string{"cc", "b"},
			[]float64{1, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seg, err := tt.c.Segment(tt.refs)
			if err != nil {
				t.Fatal(err)
			}
			st := make([]float64, tt.c.Len())
			fillChrF(seg, st, tt.hyp)
			want := tt.stats
			if want == nil {
				want = make([]float64, tt.c.Len())
			}
			if fmt.Sprint(st) != fmt.Sprint(want) {
				t.Errorf("stats %v, want %v", st, want)
			}
			if got := tt.c.score(st); math.Abs(got-tt.score) > 1e-12 {
				t.Errorf("score %.17g, want %.17g", got, tt.score)
			}
		})
	}
}

// chrfF is 100 × the F_β score of precision p and recall r.
func chrfF(beta, p, r float64) float64 { return 100 * (1 + beta*beta) * p * r / (beta*beta*p + r) }

func TestChrFSettings(t *testing.T) {
	tests := []struct {
		c         ChrF
		name, sig string
		nrefs     int
		len       int
	}{
		{NewChrF(false), "chrF2", "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:" + SacreBLEUVersion, 1, 18},
		{NewChrF(true), "chrF2++", "nrefs:4|case:mixed|eff:yes|nc:6|nw:2|space:no|version:" + SacreBLEUVersion, 4, 24},
		{ChrF{CharOrder: 4, WordOrder: 1, Beta: 3, Lowercase: true, Whitespace: true, EpsSmoothing: true},
			"chrF3+", "nrefs:var|case:lc|eff:no|nc:4|nw:1|space:yes|version:" + SacreBLEUVersion, -1, 15},
	}
	for _, tt := range tests {
		if got := tt.c.Name(); got != tt.name {
			t.Errorf("%+v: Name() = %q, want %q", tt.c, got, tt.name)
		}
		if got := tt.c.Signature(tt.nrefs); got != tt.sig {
			t.Errorf("%+v: Signature(%d) = %q, want %q", tt.c, tt.nrefs, got, tt.sig)
		}
		if got := tt.c.Len(); got != tt.len {
			t.Errorf("%+v: Len() = %d, want %d", tt.c, got, tt.len)
		}
		if !tt.c.HigherIsBetter() {
			t.Errorf("%+v: HigherIsBetter() = false", tt.c)
		}
	}
	for _, bad := range []struct {
		c    ChrF
		refs []string
	}{
		{NewChrF(false), nil},
		{ChrF{Beta: 2}, []string{"a"}},
		{ChrF{CharOrder: -1, WordOrder: 2}, []string{"a"}},
		{ChrF{CharOrder: 9, WordOrder: 2}, []string{"a"}},
	} {
		if _, err := bad.c.Segment(bad.refs); err == nil {
			t.Errorf("%+v.Segment(%q): no error", bad.c, bad.refs)
		}
	}
}

// TestPyLower checks appendPyLower against Python 3.11's str.lower.
func TestPyLower(t *testing.T) {
	for in, want := range map[string]string{
		"İstanbul":  "i\u0307stanbul",
		"ΟΔΥΣΣΕΥΣ":  "οδυσσευς",
		"Σ":         "σ",
		"ΑΣ ΣΑ":     "ας σα",
		"ΑΣ.":       "ας.",
		"Α'Σ":       "α'ς",
		"ΑΣ'":       "ας'",
		"ΑΣ.Α":      "ασ.α",
		"ΑΣ\u0301Α": "ασ\u0301α",
		".Σ":        ".σ",
		"1Σ":        "1σ",
		"ÀÉ DŽ Ǉ ẞ": "àé dž ǉ ß",
		"\xffA":     "\ufffda",
	} {
		if got := string(appendPyLower(nil, in)); got != want {
			t.Errorf("appendPyLower(%q) = %q, Python %q", in, got, want)
		}
	}
}

// TestChrFConcurrent scores from several goroutines sharing Segments.
func TestChrFConcurrent(t *testing.T) {
	c := NewChrF(true)
	refs := []string{"the cat sat on the mat", "a cat was sitting on the mat", "Кошка сидела"}
	hyps := []string{"the cat is on the mat", "", "a cat sat", "Кошка сидит на коврике", "mat mat mat"}
	seg, err := c.Segment(refs)
	if err != nil {
		t.Fatal(err)
	}
	want := make([][]float64, len(hyps))
	for i, h := range hyps {
		want[i] = make([]float64, c.Len())
		fillChrF(seg, want[i], h)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			st := make([]float64, c.Len())
			for k := 0; k < 500; k++ {
				i := (g + k) % len(hyps)
				fillChrF(seg, st, hyps[i])
				if fmt.Sprint(st) != fmt.Sprint(want[i]) {
					errs <- fmt.Sprintf("goroutine %d: %q: %v, want %v", g, hyps[i], st, want[i])
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestChrFStatsAllocs checks that Stats allocates nothing once warm.
func TestChrFStatsAllocs(t *testing.T) {
	c := NewChrF(true)
	seg, err := c.Segment([]string{"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich.", "Obama und Netanjahu sind keine Freunde."})
	if err != nil {
		t.Fatal(err)
	}
	st := make([]float64, c.Len())
	hyp := "Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."
	if n := testing.AllocsPerRun(100, func() { fillChrF(seg, st, hyp) }); n > 0 {
		t.Errorf("Stats allocates %v times a call", n)
	}
}

// wmt15Segments prepares the wmt15-en-ru-100 references for c.
func wmt15Segments(b *testing.B, c ChrF) (segs []Segment, hyps []string) {
	b.Helper()
	dir := []string{"bleu", "wmt15-en-ru-100"}
	hyps = readLines(b, shared.Path(b, append(dir, "newstest-2015-100sents.en-ru.google.ru")...))
	refs := readLines(b, shared.Path(b, append(dir, "newstest-2015-100sents.en-ru.ref.ru")...))
	for _, r := range refs {
		seg, err := c.Segment([]string{r})
		if err != nil {
			b.Fatal(err)
		}
		segs = append(segs, seg)
	}
	return segs, hyps
}

// BenchmarkChrFSegment scores the 100 wmt15-en-ru-100 Google translations
// (about 120 characters each) against their prepared references, as
// extracting chrF statistics from an n-best list does; ns/hyp is the cost
// of one hypothesis.
func BenchmarkChrFSegment(b *testing.B) {
	for _, pp := range []bool{false, true} {
		c := NewChrF(pp)
		b.Run(c.Name(), func(b *testing.B) {
			segs, hyps := wmt15Segments(b, c)
			st := make([]float64, c.Len())
			b.ReportAllocs()
			b.ResetTimer()
			cpu := shared.CPUTime()
			for i := 0; i < b.N; i++ {
				for j, h := range hyps {
					fillChrF(segs[j], st, h)
				}
			}
			reportPerHyp(b, cpu, len(hyps))
		})
	}
}

// BenchmarkChrFNewSegment prepares the 100 wmt15-en-ru-100 references.
func BenchmarkChrFNewSegment(b *testing.B) {
	refs := readLines(b, shared.Path(b, "bleu", "wmt15-en-ru-100", "newstest-2015-100sents.en-ru.ref.ru"))
	for _, pp := range []bool{false, true} {
		c := NewChrF(pp)
		b.Run(c.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, r := range refs {
					if _, err := c.Segment([]string{r}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(refs)), "ns/ref")
		})
	}
}

// fillChrF writes hyp's chrF statistics by seg, a chrF Segment, into dst.
func fillChrF(seg Segment, dst []float64, hyp string) { seg.(*chrfSegment).fill(dst, hyp) }
