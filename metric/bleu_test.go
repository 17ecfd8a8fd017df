package metric

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// naiveStats computes Stats the way multi-bleu.perl does, with maps keyed by
// the n-grams themselves: the independent check of Reference's hashing.
func naiveStats(order int, hyp []string, refs ...[]string) Stats {
	key := func(toks []string) string {
		var b strings.Builder
		for _, t := range toks {
			b.WriteString(strconv.Itoa(len(t)))
			b.WriteByte(':')
			b.WriteString(t)
		}
		return b.String()
	}
	count := func(toks []string) []map[string]int {
		c := make([]map[string]int, order)
		for n := range c {
			c[n] = map[string]int{}
			for i := 0; i+n < len(toks); i++ {
				c[n][key(toks[i:i+n+1])]++
			}
		}
		return c
	}
	s := NewBLEUStats(order, nil, nil, 0)
	maxRef := make([]map[string]int, order)
	for n := range maxRef {
		maxRef[n] = map[string]int{}
	}
	bestDiff := -1
	for _, ref := range refs {
		for n, c := range count(ref) {
			for k, v := range c {
				maxRef[n][k] = max(maxRef[n][k], v)
			}
		}
		d := len(ref) - len(hyp)
		if d < 0 {
			d = -d
		}
		if bestDiff < 0 || d < bestDiff || (d == bestDiff && float64(len(ref)) < BLEUStats(s).RefLen()) {
			bestDiff, s.V[2*BLEUStats(s).Order()] = d, float64(len(ref))
		}
	}
	for n, c := range count(hyp) {
		for k, v := range c {
			s.V[2*n+1] += float64(v)
			s.V[2*n] += float64(min(v, maxRef[n][k]))
		}
	}
	return s
}

func TestStatsAgainstNaive(t *testing.T) {
	tests := []struct {
		name  string
		order int
		hyp   string
		refs  []string
	}{
		{"sacrebleu statistics", 4, "am I am a character sequence", []string{"I am a symbol string sequence a a"}},
		{"clipping", 4, "the the the the the the the", []string{"the cat is on the mat", "there is a cat on the mat"}},
		{"repeated bigrams", 4, "a b a b a b", []string{"a b a b x", "b a b a"}},
		{"empty hypothesis", 4, "", []string{"a b c", "a b"}},
		{"empty reference", 4, "a b c", []string{""}},
		{"tie to shorter", 4, "a b c d", []string{"a b c d e", "a b c"}},
		{"order 1", 1, "a b a", []string{"a a c"}},
		{"order 6", 6, "a b c d e f g", []string{"a b c d e f g", "a b c d e f"}},
		{"white space", 4, "  a\tb \r\n c  ", []string{" a  b c "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var refToks [][]string
			for _, r := range tc.refs {
				refToks = append(refToks, strings.Fields(r))
			}
			ref, err := NewReferenceText(tc.order, tc.refs...)
			if err != nil {
				t.Fatal(err)
			}
			want := naiveStats(tc.order, strings.Fields(tc.hyp), refToks...)
			if got := ref.StatsString(tc.hyp); got != want {
				t.Errorf("StatsString:\n got %v\nwant %v", got, want)
			}
			if got := ref.Stats(strings.Fields(tc.hyp)); got != want {
				t.Errorf("Stats:\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestStatsRandom compares Reference with naiveStats on random sentences over
// a small vocabulary, where n-grams repeat and clipping matters.
func TestStatsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := strings.Fields("a b c d e the of , . xyzzy-long-token été 12345678 123456789")
	sentence := func() []string {
		s := make([]string, rng.IntN(20))
		for i := range s {
			s[i] = vocab[rng.IntN(len(vocab))]
		}
		return s
	}
	for trial := 0; trial < 500; trial++ {
		order := 1 + rng.IntN(MaxOrder)
		refs := make([][]string, 1+rng.IntN(4))
		for i := range refs {
			refs[i] = sentence()
		}
		ref, err := NewReference(order, refs...)
		if err != nil {
			t.Fatal(err)
		}
		for h := 0; h < 10; h++ {
			hyp := sentence()
			if got, want := ref.Stats(hyp), naiveStats(order, hyp, refs...); got != want {
				t.Fatalf("order %d hyp %q refs %q:\n got %v\nwant %v", order, hyp, refs, got, want)
			}
		}
	}
}

func TestNewReferenceErrors(t *testing.T) {
	if _, err := NewReference(7, []string{"a"}); err == nil {
		t.Error("order 7: no error")
	}
	if _, err := NewReference(-1, []string{"a"}); err == nil {
		t.Error("order -1: no error")
	}
	if _, err := NewReference(4); err == nil {
		t.Error("no references: no error")
	}
	r, err := NewReference(0, []string{"a"})
	if err != nil || r.Order() != DefaultOrder {
		t.Errorf("order 0: %v, order %d", err, r.Order())
	}
}

func TestClosestLength(t *testing.T) {
	r, err := NewReferenceText(4, "a b c d e f", "a b", "a b c d e f g h i j")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ hyp, want int }{{0, 2}, {4, 2}, {5, 6}, {8, 6}, {9, 10}, {30, 10}} {
		if got := r.ClosestLength(tc.hyp); got != tc.want {
			t.Errorf("ClosestLength(%d) = %d, want %d", tc.hyp, got, tc.want)
		}
	}
	if got := r.Lengths(); fmt.Sprint(got) != "[6 2 10]" {
		t.Errorf("Lengths() = %v", got)
	}
}

// TestCdec checks IBM BLEU against cdec's scorer test vectors (4 references,
// closest reference length).
func TestCdec(t *testing.T) {
	raw, err := os.ReadFile(shared.Path(t, "bleu", "cdec", "scorer_test_vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Segments []struct {
			ID       string   `json:"id"`
			Refs     []string `json:"refs"`
			Hyp      string   `json:"hyp"`
			Expected float64  `json:"expected_bleu"`
		} `json:"segments"`
		Corpus struct {
			Expected float64 `json:"expected_bleu"`
			Details  string  `json:"expected_details"`
		} `json:"corpus"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var sum Stats
	for _, seg := range v.Segments {
		ref, err := NewReferenceText(4, seg.Refs...)
		if err != nil {
			t.Fatal(err)
		}
		s := ref.StatsString(seg.Hyp)
		// cdec checks with BOOST_CHECK_CLOSE(…, 1e-4): 1e-4 percent, relative.
		// Its figures come from single-precision arithmetic: s1's exact BLEU,
		// (14/20 · 8/19 · 3/18 · 1/17)^(1/4) = 0.2318507812…, is 1.1e-8 above
		// the 0.23185077 it prints.
		got := BLEUStats(s).BLEU()
		if math.Abs(got-seg.Expected) > 1e-6*seg.Expected {
			t.Errorf("%s: BLEU %.10f, want %.8f", seg.ID, got, seg.Expected)
		}
		t.Logf("%s: BLEU %.10f, cdec %.8f, difference %.2g", seg.ID, got, seg.Expected, got-seg.Expected)
		sum.Add(s)
	}
	// The corpus figure is printed with 6 digits.
	if got := BLEUStats(sum).BLEU(); math.Abs(got-v.Corpus.Expected) > 5e-7 {
		t.Errorf("corpus BLEU %.8f, want %.6f", got, v.Corpus.Expected)
	}
	p := BLEUStats(sum).Precisions()
	details := fmt.Sprintf("BLEU = %.2f, %.1f|%.1f|%.1f|%.1f (brev=%.3f)", 100*BLEUStats(sum).BLEU(),
		100*p[0], 100*p[1], 100*p[2], 100*p[3], BLEUStats(sum).BrevityPenalty())
	if details != v.Corpus.Details {
		t.Errorf("details %q, want %q", details, v.Corpus.Details)
	}
}

// TestMultiBLEUWMT15 checks the line multi-bleu.perl printed for
// wmt15-en-ru-100 (data/bleu/wmt15-en-ru-100/README.txt).
func TestMultiBLEUWMT15(t *testing.T) {
	const want = "BLEU = 23.17, 53.8/29.6/17.6/10.3 (BP=1.000, ratio=1.074, hyp_len=1989, ref_len=1852)"
	refs := readReferences(t, 4, nil, shared.Path(t, "bleu", "wmt15-en-ru-100", "ref.ru"))
	hyps := readLines(t, shared.Path(t, "bleu", "wmt15-en-ru-100", "google.ru"))
	if len(hyps) != len(refs) {
		t.Fatalf("%d hypotheses, %d references", len(hyps), len(refs))
	}
	var sum Stats
	for i, h := range hyps {
		sum.Add(refs[i].StatsString(h))
	}
	if got := MultiBLEU(sum); got != want {
		t.Errorf("MultiBLEU:\n got %s\nwant %s", got, want)
	}
}

func TestMultiBLEU(t *testing.T) {
	st := func(order int, ref float64, mt ...float64) Stats {
		s := NewBLEUStats(order, nil, nil, ref)
		for n := 0; n < len(mt)/2; n++ {
			s.V[2*n], s.V[2*n+1] = mt[2*n], mt[2*n+1]
		}
		return s
	}
	tests := []struct {
		name string
		s    Stats
		want string
	}{
		// Figures worked by hand from multi-bleu.perl's formulas.
		{"perfect", st(4, 4, 4, 4, 3, 3, 2, 2, 1, 1),
			"BLEU = 100.00, 100.0/100.0/100.0/100.0 (BP=1.000, ratio=1.000, hyp_len=4, ref_len=4)"},
		{"zero 4-gram precision", st(4, 3, 3, 4, 1, 3, 1, 2, 0, 1),
			"BLEU = 0.00, 75.0/33.3/50.0/0.0 (BP=1.000, ratio=1.333, hyp_len=4, ref_len=3)"},
		{"no 4-grams", st(4, 3, 3, 3, 2, 2, 1, 1, 0, 0),
			"BLEU = 0.00, 100.0/100.0/100.0/0.0 (BP=1.000, ratio=1.000, hyp_len=3, ref_len=3)"},
		// exp(1 - 8/4) = 0.368
		{"short", st(4, 8, 4, 4, 3, 3, 2, 2, 1, 1),
			"BLEU = 36.79, 100.0/100.0/100.0/100.0 (BP=0.368, ratio=0.500, hyp_len=4, ref_len=8)"},
		{"no reference", st(4, 0, 2, 3, 1, 2, 0, 1, 0, 0),
			"BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)"},
		{"empty hypotheses", st(4, 5),
			"BLEU = 0.00, 0.0/0.0/0.0/0.0 (BP=0.000, ratio=0.000, hyp_len=0, ref_len=5)"},
		{"order 2", st(2, 2, 2, 2, 1, 1),
			"BLEU = 100.00, 100.0/100.0 (BP=1.000, ratio=1.000, hyp_len=2, ref_len=2)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := MultiBLEU(tc.s); got != tc.want {
				t.Errorf("MultiBLEU(%v):\n got %s\nwant %s", tc.s, got, tc.want)
			}
		})
	}
}

func TestStatsArithmetic(t *testing.T) {
	a, _ := FromMoses([]int{6, 14, 1, 13, 0, 12, 0, 11, 18})
	b, _ := FromMoses([]int{4, 13, 0, 12, 0, 11, 0, 10, 18})
	var sum Stats
	sum.Add(a)
	sum.Add(b)
	if want, _ := FromMoses([]int{10, 27, 1, 25, 0, 23, 0, 21, 36}); sum != want {
		t.Errorf("a+b = %v, want %v", sum, want)
	}
	if got := Sum([]Stats{a, b}); got != sum {
		t.Errorf("Sum = %v, want %v", got, sum)
	}
	sum.Sub(b)
	if sum != a {
		t.Errorf("a+b-b = %v, want %v", sum, a)
	}
	c := a
	c.Scale(0.5)
	if BLEUStats(c).Match(0) != 3 || BLEUStats(c).Total(3) != 5.5 || BLEUStats(c).RefLen() != 9 || BLEUStats(c).Order() != 4 {
		t.Errorf("Scale(0.5) = %v", c)
	}
	if got := a.Replace(a, b); got != b {
		t.Errorf("Replace = %v, want %v", got, b)
	}
	if BLEUStats(a).HypLen() != 14 || BLEUStats(a).Ratio() != 14.0/18 {
		t.Errorf("HypLen %v Ratio %v", BLEUStats(a).HypLen(), BLEUStats(a).Ratio())
	}
	if got, want := BLEUStats(a).BrevityPenalty(), math.Exp(1-18.0/14); math.Abs(got-want) > 1e-15 {
		t.Errorf("BP %v, want %v", got, want)
	}
	if BLEUStats(a).BLEU() != 0 || !math.IsInf(BLEUStats(a).LogBLEU(), -1) {
		t.Errorf("BLEU with a zero precision: %v (log %v)", BLEUStats(a).BLEU(), BLEUStats(a).LogBLEU())
	}
	var zero Stats
	if BLEUStats(zero).BLEU() != 0 || BLEUStats(zero).Ratio() != 0 || BLEUStats(zero).BrevityPenalty() != 1 {
		t.Errorf("zero Stats: BLEU %v ratio %v BP %v", BLEUStats(zero).BLEU(), BLEUStats(zero).Ratio(), BLEUStats(zero).BrevityPenalty())
	}
	defer func() {
		if recover() == nil {
			t.Error("adding orders 4 and 2 did not panic")
		}
	}()
	a.Add(NewBLEUStats(2, nil, nil, 0))
}

func TestScoreJSON(t *testing.T) {
	s, _ := FromMoses([]int{3, 4, 1, 3, 1, 2, 0, 1, 5})
	raw, err := json.Marshal(BLEUStats(s).Score())
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"bleu":0,"precisions":[0.75,0.3333333333333333,0.5,0],"bp":0.7788007830714049,"ratio":0.8,` +
		`"hyp_len":4,"ref_len":5,"matches":[3,1,1,0],"totals":[4,3,2,1],"order":4}`
	if string(raw) != want {
		t.Errorf("JSON:\n got %s\nwant %s", raw, want)
	}
}

// TestConcurrent scores from many goroutines at once; run with -race.
func TestConcurrent(t *testing.T) {
	ref, err := NewReferenceText(4, "the cat is on the mat", "there is a cat on the mat")
	if err != nil {
		t.Fatal(err)
	}
	hyps := []string{"the the the", "a cat on the mat", "", "there is a cat on the mat !"}
	want := make([]Stats, len(hyps))
	for i, h := range hyps {
		want[i] = ref.StatsString(h)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Go(func() {
			for k := 0; k < 2000; k++ {
				i := (g + k) % len(hyps)
				if got := ref.StatsString(hyps[i]); got != want[i] {
					t.Errorf("goroutine %d: %q: %v, want %v", g, hyps[i], got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestNoAllocation(t *testing.T) {
	ref, err := NewReferenceText(4, "the cat is on the mat", "there is a cat on the mat")
	if err != nil {
		t.Fatal(err)
	}
	toks := strings.Fields("there is the cat on a mat")
	ref.StatsString("warm up")
	if n := testing.AllocsPerRun(100, func() { ref.StatsString("there is the cat on a mat .") }); n != 0 {
		t.Errorf("StatsString: %v allocations per call", n)
	}
	if n := testing.AllocsPerRun(100, func() { ref.Stats(toks) }); n != 0 {
		t.Errorf("Stats: %v allocations per call", n)
	}
	dst := make([]string, 0, 16)
	if n := testing.AllocsPerRun(100, func() { dst = AppendFields(dst[:0], " a b\tc ") }); n != 0 {
		t.Errorf("AppendFields: %v allocations per call", n)
	}
}
