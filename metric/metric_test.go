package metric

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// wmt15Text returns the Google translations and references of
// wmt15-en-ru-100: as released, or tokenised (google.ru, ref.ru: what
// multi-bleu.perl scored).
func wmt15Text(t *testing.T, tokenized bool) (hyps, refs []string) {
	dir := func(name string) string { return shared.Path(t, "bleu", "wmt15-en-ru-100", name) }
	if tokenized {
		return readLines(t, dir("google.ru")), readLines(t, dir("ref.ru"))
	}
	return readLines(t, dir("newstest-2015-100sents.en-ru.google.ru")), readLines(t, dir("newstest-2015-100sents.en-ru.ref.ru"))
}

// corpusStats sums m's statistics of hyps against refs (one each).
func corpusStats(t *testing.T, m Metric, hyps, refs []string) Stats {
	t.Helper()
	var sum Stats
	for i, h := range hyps {
		seg, err := m.Segment([]string{refs[i]})
		if err != nil {
			t.Fatal(err)
		}
		s := seg.Stats(h)
		if err := m.Check(s); err != nil {
			t.Fatalf("%s: sentence %d: %v", m.Name(), i, err)
		}
		sum.Add(s)
	}
	return sum
}

// TestBLEUMetric: BLEU as a Metric gives multi-bleu.perl's figure on
// wmt15-en-ru-100 (23.17, TestMultiBLEU's), its statistics those of
// Reference, and sacreBLEU's signature.
func TestBLEUMetric(t *testing.T) {
	hyps, refs := wmt15Text(t, true)
	b, err := NewBLEU(0, "", false)
	if err != nil {
		t.Fatal(err)
	}
	sum := corpusStats(t, b, hyps, refs)
	if got := MultiBLEU(sum); !strings.HasPrefix(got, "BLEU = 23.17,") {
		t.Errorf("MultiBLEU %s", got)
	}
	if got, want := b.Score(sum), 100*BLEUStats(sum).BLEU(); got != want || b.Len() != 9 || sum.N != 9 {
		t.Errorf("score %v, want %v; len %d, N %d", got, want, b.Len(), sum.N)
	}
	if got, want := b.Signature(1), "nrefs:1|case:mixed|eff:no|tok:none|smooth:none|version:"+SacreBLEUVersion; got != want {
		t.Errorf("signature %q, want %q", got, want)
	}
	bad := NewBLEUStats(4, []float64{3}, []float64{2}, 1)
	if err := b.Check(bad); !errors.Is(err, ErrStats) {
		t.Errorf("Check of more matches than n-grams: %v", err)
	}
	if _, err := NewBLEU(7, "", false); err == nil {
		t.Error("BLEU-7 made")
	}
	// 13a and lower-casing as the tokenizer does them.
	lc, err := NewBLEU(4, "13a", true)
	if err != nil {
		t.Fatal(err)
	}
	seg, err := lc.Segment([]string{"The cat, sat."})
	if err != nil {
		t.Fatal(err)
	}
	if s := seg.Stats("the cat , sat ."); BLEUStats(s).Match(0) != 5 || BLEUStats(s).Match(3) != 2 {
		t.Errorf("13a lower-cased statistics %v", s)
	}
}

// TestWeighted: a weighted sum's statistics are its parts' side by side and
// its score Σ w·gain, TER-like parts negated.
func TestWeighted(t *testing.T) {
	hyps, refs := wmt15Text(t, false)
	m, err := Parse("bleu:0.25, CHRF:0.75", Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewBLEU(4, "", false)
	c := NewChrF(false)
	sum, sb, sc := corpusStats(t, m, hyps, refs), corpusStats(t, b, hyps, refs), corpusStats(t, c, hyps, refs)
	if m.Len() != 9+18 || !m.HigherIsBetter() {
		t.Fatalf("len %d", m.Len())
	}
	for i := range 9 {
		if sum.V[i] != sb.V[i] {
			t.Fatalf("statistic %d: %v, BLEU's %v", i, sum.V[i], sb.V[i])
		}
	}
	for i := range 18 {
		if sum.V[9+i] != sc.V[i] {
			t.Fatalf("statistic %d: %v, chrF's %v", 9+i, sum.V[9+i], sc.V[i])
		}
	}
	if got, want := m.Score(sum), 0.25*b.Score(sb)+0.75*c.Score(sc); got != want {
		t.Errorf("score %v, want %v", got, want)
	}
	if got := m.Name(); got != "0.25·BLEU+0.75·chrF2" {
		t.Errorf("name %q", got)
	}
	// A part where lower is better counts negated.
	low := lowerBetter{}
	w, err := NewWeighted([]Metric{b, low}, []float64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	s := StatsOf(append(sb.Values(), 30, 100)...)
	if got, want := w.Score(s), b.Score(sb)-2*30; math.Abs(got-want) > 1e-12 || !strings.Contains(w.Name(), "2·−low") {
		t.Errorf("score %v, want %v (%s)", got, want, w.Name())
	}
	if err := w.Check(StatsOf(append(sb.Values(), 30)...)); !errors.Is(err, ErrStats) {
		t.Errorf("Check of too few statistics: %v", err)
	}
}

// lowerBetter is an error rate: 100·errors/length, two statistics as
// External's (whose methods it forwards, not its FileScored behaviour).
type lowerBetter struct{}

func (lowerBetter) Signature(nrefs int) string             { return External{}.Signature(nrefs) }
func (lowerBetter) Len() int                               { return 2 }
func (lowerBetter) Segment(refs []string) (Segment, error) { return External{}.Segment(refs) }
func (lowerBetter) Check(s Stats) error                    { return External{}.Check(s) }

func (lowerBetter) Name() string                    { return "low" }
func (lowerBetter) HigherIsBetter() bool            { return false }
func (l lowerBetter) Score(s Stats) float64         { return 100 * s.V[0] / s.V[1] }
func (l lowerBetter) SentenceScore(s Stats) float64 { return l.Score(s) }

// TestExternal: external scores' corpus score is their mean; text is
// refused.
func TestExternal(t *testing.T) {
	e := External{Label: "COMET"}
	var sum Stats
	for _, x := range []float64{0.5, 0.75, -0.25} {
		sum.Add(ExternalStats(x))
	}
	if got := e.Score(sum); got != 1.0/3 || e.Name() != "COMET" || (External{}).Name() != "external" {
		t.Errorf("mean %v, name %q", got, e.Name())
	}
	if e.Score(Stats{N: 2}) != 0 {
		t.Error("the mean of no score is not 0")
	}
	if _, err := e.Segment([]string{"a"}); !errors.Is(err, ErrExternalText) {
		t.Errorf("Segment: %v", err)
	}
	if err := e.Check(StatsOf(1, -1)); !errors.Is(err, ErrStats) {
		t.Errorf("Check of a negative count: %v", err)
	}
	if err := e.Check(StatsOf(math.NaN(), 1)); !errors.Is(err, ErrStats) {
		t.Errorf("Check of NaN: %v", err)
	}
}

// TestParse: --metric's names and weighted sums, and what it refuses.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		spec, name string
	}{
		{"bleu", "BLEU"}, {"chrf", "chrF2"}, {"chrF++", "chrF2++"}, {"external", "external"},
		{"bleu:2", "2·BLEU"}, {"bleu:1e-1,chrf:.5", "0.1·BLEU+0.5·chrF2"}, {"bleu: 2 ", "2·BLEU"}, {"bleu:0.5,chrf:0.5", "0.5·BLEU+0.5·chrF2"}, {"TER", "TER"}, {"bleu:0.5,ter:0.5", "0.5·BLEU+0.5·−TER"},
	} {
		m, err := Parse(tc.spec, Options{})
		if err != nil || m.Name() != tc.name {
			t.Errorf("Parse(%q): %v, %v; want %s", tc.spec, m, err, tc.name)
		}
	}
	for _, tc := range []struct{ spec, msg string }{
		{"blue", `unknown metric "blue"`}, {"", `unknown metric ""`}, {"bleu:0", "positive"}, {"bleu:x", "positive"},
		{"bleu:-1,chrf", "positive"}, {"chrf++,chrf++", "more than 32"},
		{"bleu:1_0", "positive number, in decimal"}, {"bleu:0x1p-1,chrf:1", "positive number, in decimal"}, {"bleu:+0.5,chrf:1", "positive number, in decimal"},
		{"bleu:inf", "positive number, in decimal"}, {"bleu:NaN", "positive number, in decimal"}, {"bleu:1e400", "positive number, in decimal"}, {"bleu:.", "positive number, in decimal"}, {"external:0.5,bleu:0.5", "weighted sum"},
	} {
		if _, err := Parse(tc.spec, Options{}); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Parse(%q): %v, want an error with %q", tc.spec, err, tc.msg)
		}
	}
	if _, err := Parse("bleu", Options{Order: 9}); err == nil {
		t.Error("BLEU-9 parsed")
	}
	m, err := Parse("bleu", Options{Order: 2, Tokenize: "13a", Lowercase: true})
	if err != nil || m.Len() != 5 || !strings.Contains(m.Signature(2), "nrefs:2|case:lc") {
		t.Errorf("Parse with options: %v, %v", m, err)
	}
}

// TestMetricOptions: each metric's options (Registry) reach the metric
// built, and Canonical writes one spec for one metric, defaults left out.
func TestMetricOptions(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		o     Options
		canon string
		check func(Metric) bool
	}{
		{"ter:case=true", Options{}, "ter:case=true", func(m Metric) bool { return m == TER{CaseSensitive: true} }},
		{"TER:Case=false", Options{}, "ter", func(m Metric) bool { return m == TER{} }},
		{"ter:normalized=true:no-punct=true:asian=true", Options{}, "ter:normalized=true:no-punct=true:asian=true",
			func(m Metric) bool { return m == TER{Normalized: true, NoPunct: true, AsianSupport: true} }},
		{"ter", Options{Tokenize: "13a", Lowercase: true}, "ter", func(m Metric) bool { return m == TER{} }},
		{"bleu:tokenize=13a", Options{}, "bleu:tokenize=13a", func(m Metric) bool { return strings.Contains(m.Signature(1), "tok:13a") }},
		{"bleu:order=4:tokenize=none", Options{}, "bleu", func(m Metric) bool { return m.Len() == 9 }},
		{"bleu:order=2:lowercase=true", Options{}, "bleu:order=2:lowercase=true", func(m Metric) bool { return m.Len() == 5 && strings.Contains(m.Signature(1), "case:lc") }},
		{"bleu", Options{Tokenize: "13a", Order: 3}, "bleu:order=3:tokenize=13a", func(m Metric) bool { return m.Len() == 7 }},
		{"bleu:tokenize=13a", Options{Tokenize: "13a"}, "bleu:tokenize=13a", func(m Metric) bool { return true }},
		{"chrf:beta=1", Options{}, "chrf:beta=1", func(m Metric) bool { return m.Name() == "chrF1" }},
		{"chrf++:word-order=0", Options{}, "chrf++:word-order=0", func(m Metric) bool { return m.Name() == "chrF2" }},
		{"chrf:whitespace=true:eps=true:lowercase=true", Options{}, "chrf:lowercase=true:whitespace=true:eps=true",
			func(m Metric) bool {
				return m.Signature(1) == "nrefs:1|case:lc|eff:no|nc:6|nw:0|space:yes|version:"+SacreBLEUVersion
			}},
		{"chrf", Options{Lowercase: true}, "chrf:lowercase=true", func(m Metric) bool { return m.(ChrF).Lowercase }},
		{"external:label=COMET", Options{}, "external:label=COMET", func(m Metric) bool { return m.Name() == "COMET" }},
		{"external", Options{ExternalLabel: "QE"}, "external:label=QE", func(m Metric) bool { return m.Name() == "QE" }},
		{"bleu:0.5:tokenize=13a,ter:case=true:0.5", Options{}, "bleu:tokenize=13a:0.5,ter:case=true:0.5",
			func(m Metric) bool { return m.Name() == "0.5·BLEU+0.5·−TER" }},
		{"bleu:1", Options{}, "bleu:1", func(m Metric) bool { return m.Name() == "1·BLEU" }},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			m, err := Parse(tc.spec, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(m) {
				t.Errorf("Parse(%q) = %#v (%s, %s)", tc.spec, m, m.Name(), m.Signature(1))
			}
			canon, err := Canonical(tc.spec, tc.o)
			if err != nil || canon != tc.canon {
				t.Fatalf("Canonical = %q, %v; want %q", canon, err, tc.canon)
			}
			again, err := Canonical(canon, Options{})
			if err != nil || again != canon {
				t.Errorf("Canonical(%q) = %q, %v", canon, again, err)
			}
		})
	}
	for _, tc := range []struct {
		spec string
		o    Options
		msg  string
	}{
		{"ter:tokenize=13a", Options{}, `ter takes no option "tokenize"`},
		{"bleu:order=9", Options{}, "order 9"},
		{"bleu:tokenize=14a", Options{}, `unknown tokenizer "14a"`},
		{"bleu:tokenize=none", Options{Tokenize: "13a"}, "tokenize=none contradicts tokenize=13a set by a flag"},
		{"bleu:lowercase=false", Options{Lowercase: true}, "set by a flag"},
		{"chrf:beta=-1", Options{}, "negative"},
		{"chrf:char-order=0", Options{}, "needs a character or word order"},
		{"chrf:char-order=40", Options{}, "more than"},
		{"bleu:0.5:0.5", Options{}, "two weights"},
		{"ter:case=yes", Options{}, "want true or false"},
		{"blue:order=2", Options{}, `metric "blue:order=2": unknown metric "blue"`},
	} {
		if _, err := Parse(tc.spec, tc.o); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Parse(%q, %+v): %v, want an error with %q", tc.spec, tc.o, err, tc.msg)
		}
	}
}

// TestDocsOptionsTable checks that docs/commands.md's table of the
// metrics' options is the registry's (metric.Registry.Table), so that the
// docs cannot disagree with what Parse takes.
func TestDocsOptionsTable(t *testing.T) {
	b, err := os.ReadFile("../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- metric options: begin -->\n", "<!-- metric options: end -->"
	_, rest, ok := strings.Cut(string(b), begin)
	got, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("docs/commands.md: no %q … %q block", begin, end)
	}
	if want := Registry.Table(); got != want {
		t.Errorf("docs/commands.md's table of metric options is not metric.Registry.Table(); paste this between the markers:\n%s", want)
	}
}
