package decoder

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/decoder/build"
	"github.com/mtune/mtune/decoder/lm"
	"github.com/mtune/mtune/decoder/model"
	"github.com/mtune/mtune/feature"
)

// A tiny French-English system written by hand.
const smallPhraseTable = `le ||| the ||| 0.6 0.5 0.7 0.4 ||| 0-0 ||| 10 8 6
le ||| it ||| 0.2 0.1 0.1 0.1 ||| 0-0 ||| 5 8 1
chat ||| cat ||| 0.8 0.7 0.9 0.8 ||| 0-0 ||| 4 4 3
le chat ||| the cat ||| 0.7 0.6 0.8 0.5 ||| 0-0 1-1 ||| 3 3 2
noir ||| black ||| 0.9 0.8 0.9 0.9 ||| 0-0 ||| 2 2 2
chat noir ||| black cat ||| 0.6 0.5 0.6 0.5 ||| 0-1 1-0 ||| 2 2 1
dort ||| sleeps ||| 0.9 0.9 0.9 0.9 ||| 0-0 ||| 3 3 3
dort ||| is sleeping ||| 0.3 0.2 0.3 0.2 ||| 0-1 ||| 1 3 1
noir dort ||| black sleeps ||| 0.1 0.1 0.1 0.1 ||| 0-0 1-1 ||| 1 1 1
`

const smallReordering = `le ||| the ||| 0.7 0.1 0.2 0.6 0.2 0.2
le ||| it ||| 0.5 0.2 0.3 0.5 0.2 0.3
chat ||| cat ||| 0.5 0.3 0.2 0.3 0.5 0.2
le chat ||| the cat ||| 0.8 0.1 0.1 0.7 0.1 0.2
noir ||| black ||| 0.3 0.6 0.1 0.2 0.6 0.2
chat noir ||| black cat ||| 0.6 0.2 0.2 0.6 0.2 0.2
dort ||| sleeps ||| 0.8 0.1 0.1 0.8 0.1 0.1
`

const smallLM = `\data\
ngram 1=10
ngram 2=8

\1-grams:
-1.5	<unk>	0
-99	<s>	-0.5
-1.0	</s>
-1.2	the	-0.3
-1.8	it	-0.3
-1.4	cat	-0.3
-1.6	black	-0.3
-1.5	sleeps	-0.3
-1.9	is	-0.3
-2.0	sleeping	-0.3

\2-grams:
-0.3	<s> the
-0.4	the cat
-0.5	the black
-0.3	black cat
-0.4	cat sleeps
-0.3	sleeps </s>
-0.5	is sleeping
-0.6	cat is

\end\
`

// smallINI is the small system's moses.ini, as mtune build writes it: an LM
// of order 2 and a distortion limit of 3.
var smallINI = build.MosesINI(build.INIPaths{PhraseTable: "phrase-table", Reordering: "reordering-table", LM: "lm.arpa"}, 2, 3)

// writeSmall writes the tiny system to a new folder, with the moses.ini's
// text changed by edit if not nil, and returns the moses.ini's path.
func writeSmall(t testing.TB, edit func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	ini := smallINI
	if edit != nil {
		ini = edit(ini)
	}
	for name, text := range map[string]string{
		"phrase-table": smallPhraseTable, "reordering-table": smallReordering,
		"lm.arpa": smallLM, "moses.ini": ini,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "moses.ini")
}

func loadSmall(t testing.TB, opts LoadOptions) *Model {
	t.Helper()
	m, err := Load(context.Background(), writeSmall(t, nil), opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkScore checks that a hypothesis' score is its features times the
// weights.
func checkScore(t *testing.T, what string, h *Hypothesis, w feature.Weights) {
	t.Helper()
	if got := h.Features.Dot(w); math.Abs(got-h.Score) > 1e-6*max(1, math.Abs(h.Score)) {
		t.Errorf("%s %q: score %.9g, features·weights %.9g", what, h.Target, h.Score, got)
	}
}

func TestDecodeSmall(t *testing.T) {
	m := loadSmall(t, LoadOptions{})
	w := m.Weights()
	tests := []struct {
		name, in, want string
	}{
		{"phrases", "le chat noir dort", "the black cat sleeps"},
		{"one word", "dort", "sleeps"},
		{"unknown word", "le chien dort", "the chien sleeps"},
		{"spaces", "  le\tchat  ", "the cat"},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Decode(context.Background(), m, tc.in, DecodeOptions{NBest: 10})
			if err != nil {
				t.Fatal(err)
			}
			if res.Best.Target != tc.want {
				t.Errorf("1-best %q, want %q", res.Best.Target, tc.want)
			}
			checkScore(t, "1-best", &res.Best, w)
			if len(res.NBest) == 0 || res.NBest[0].Target != res.Best.Target || res.NBest[0].Score != res.Best.Score {
				t.Fatalf("n-best list does not start with the 1-best: %d entries", len(res.NBest))
			}
			seen := map[string]bool{}
			for i := range res.NBest {
				h := &res.NBest[i]
				checkScore(t, "n-best", h, w)
				if seen[h.Target] {
					t.Errorf("target %q twice in a distinct list", h.Target)
				}
				seen[h.Target] = true
				if i > 0 && h.Score > res.NBest[i-1].Score {
					t.Errorf("entry %d scores %g, above entry %d (%g)", i, h.Score, i-1, res.NBest[i-1].Score)
				}
			}
		})
	}
}

func TestUnknownWordFeatures(t *testing.T) {
	m := loadSmall(t, LoadOptions{})
	res, err := Decode(context.Background(), m, "le chien dort", DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	idx := m.Index()
	uwp, _ := idx.Lookup("UnknownWordPenalty0_0")
	if got := res.Best.Features.At(uwp); got != -100 {
		t.Errorf("UnknownWordPenalty0 = %g, want -100", got)
	}
	seg := res.Best.Segments[1]
	if !seg.Unknown || seg.SrcStart != 1 || seg.TgtStart != 1 {
		t.Errorf("segment of the unknown word: %+v", seg)
	}
	e := m.NBestEntry(3, &res.Best)
	if e.Features.At(uwp) != 0 {
		t.Errorf("n-best entry holds UnknownWordPenalty0 (Moses leaves it out)")
	}
	want := []feature.Group{{Label: "LexicalReordering0", Len: 6}, {Label: "Distortion0", Len: 1}, {Label: "LM0", Len: 1},
		{Label: "WordPenalty0", Len: 1}, {Label: "PhrasePenalty0", Len: 1}, {Label: "TranslationModel0", Len: 4}}
	if !slices.Equal(m.Groups(), want) {
		t.Errorf("Groups() = %v, want %v", m.Groups(), want)
	}
	// The LM scores the unknown word as <unk>.
	lmID, _ := idx.Lookup("LM0_0")
	l, err := lm.Read(context.Background(), strings.NewReader(smallLM), "lm", nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := l.IDs(nil, strings.Fields(res.Best.Target))
	if got, want := res.Best.Features.At(lmID), l.MosesScore(ids); math.Abs(got-want) > 1e-4 {
		t.Errorf("LM0 = %g, sentence score %g", got, want)
	}
}

// derivation is a brute-force translation: phrases in target order.
type derivation []struct {
	s, e int
	opt  int32 // -1: unknown word
}

// bruteForce enumerates every derivation of words that Moses' search may
// build under the distortion limit and scores each independently of the
// decoder (whole-sentence LM, explicit orientations); it returns the best
// score and its target.
func bruteForce(t *testing.T, m *Model, words []string, limit int) (float64, string) {
	pt := m.pt
	l := m.lm
	w := m.Weights()
	wt := func(name string) float64 { id, _ := m.Index().Lookup(name); return w.At(id) }
	n := len(words)
	type opt struct {
		s, e int
		o    int32
	}
	var opts []opt
	for s := 0; s < n; s++ {
		for e := s; e < n; e++ {
			a, b := pt.LookupWords(words[s : e+1]...)
			for o := a; o < b; o++ {
				opts = append(opts, opt{s, e, o})
			}
			if e == s && a == b {
				opts = append(opts, opt{s, s, -1})
			}
		}
	}
	best, bestTarget := math.Inf(-1), ""
	var rec func(cov []bool, d []opt)
	score := func(d []opt) (float64, string) {
		var tgt []string
		var sc float64
		for i, p := range d {
			if p.o < 0 {
				tgt = append(tgt, words[p.s])
				sc += wt("UnknownWordPenalty0_0") * -100
			} else {
				for _, id := range pt.Target(p.o) {
					tgt = append(tgt, pt.TargetVocab().Word(id))
				}
				for j, x := range pt.Scores(p.o) {
					sc += wt(feature.DenseName("TranslationModel0", j)) * float64(model.LogScore(x))
				}
			}
			sc += wt("PhrasePenalty0_0")
			pe, ps := -1, -1
			if i > 0 {
				ps, pe = d[i-1].s, d[i-1].e
			}
			jump := p.s
			if i > 0 {
				jump = int(math.Abs(float64(pe - p.s + 1)))
			}
			sc -= wt("Distortion0_0") * float64(jump)
			ori := 2
			switch {
			case i == 0 && p.s == 0, i > 0 && p.s == pe+1:
				ori = 0
			case i > 0 && ps == p.e+1:
				ori = 1
			}
			if p.o >= 0 {
				if r, ok := pt.Reordering(p.o); ok {
					sc += wt(feature.DenseName("LexicalReordering0", ori)) * float64(model.LogScore(r[ori]))
				}
			}
			if i > 0 && d[i-1].o >= 0 {
				if r, ok := pt.Reordering(d[i-1].o); ok {
					sc += wt(feature.DenseName("LexicalReordering0", 3+ori)) * float64(model.LogScore(r[3+ori]))
				}
			}
		}
		sc -= wt("WordPenalty0_0") * float64(len(tgt))
		sc += wt("LM0_0") * l.MosesScore(l.IDs(nil, tgt))
		return sc, strings.Join(tgt, " ")
	}
	rec = func(cov []bool, d []opt) {
		gap := slices.Index(cov, false)
		if gap < 0 {
			if sc, tgt := score(d); sc > best {
				best, bestTarget = sc, tgt
			}
			return
		}
		pe := -1
		if len(d) > 0 {
			pe = d[len(d)-1].e
		}
		for _, p := range opts {
			if slices.Contains(cov[p.s:p.e+1], true) {
				continue
			}
			if limit >= 0 && (jump(pe, p.s) > limit || p.s != gap && jump(p.e, gap) > limit) {
				continue
			}
			c := slices.Clone(cov)
			for i := p.s; i <= p.e; i++ {
				c[i] = true
			}
			rec(c, append(slices.Clone(d), p))
		}
	}
	rec(make([]bool, n), nil)
	return best, bestTarget
}

// TestExactSearch checks that with no pruning the search finds the best of
// all derivations, scored independently of the decoder.
func TestExactSearch(t *testing.T) {
	m := loadSmall(t, LoadOptions{})
	for _, in := range []string{"le chat noir dort", "noir le chat", "dort le chat noir", "chat le chien noir dort"} {
		for _, limit := range []int{0, 1, 2, 3, -1} {
			res, err := Decode(context.Background(), m, in, DecodeOptions{Search: SearchOptions{
				StackSize: 100000, BeamThreshold: -1, DistortionLimit: &limit}})
			if err != nil {
				t.Fatal(err)
			}
			want, target := bruteForce(t, m, strings.Fields(in), limit)
			if math.Abs(res.Best.Score-want) > 1e-4 {
				t.Errorf("%q limit %d: best %q %.5f, exhaustive %q %.5f", in, limit, res.Best.Target, res.Best.Score, target, want)
			}
		}
	}
}

func TestMonotone(t *testing.T) {
	m := loadSmall(t, LoadOptions{})
	zero := 0
	res, err := Decode(context.Background(), m, "le chat noir dort", DecodeOptions{NBest: 20, Search: SearchOptions{DistortionLimit: &zero}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.NBest {
		next := 0
		for _, s := range h.Segments {
			if s.SrcStart != next {
				t.Errorf("%q: not monotone: %s", h.Target, h.SegmentationString())
			}
			next = s.SrcEnd + 1
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	m := loadSmall(t, LoadOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	long := strings.Repeat("le ", MaxSentenceLength+1)
	tests := []struct {
		name string
		ctx  context.Context
		in   string
		opts DecodeOptions
		want error
	}{
		{"invalid UTF-8", context.Background(), "le \xff", DecodeOptions{}, ErrInput},
		{"too long", context.Background(), long, DecodeOptions{}, ErrInput},
		{"canceled", ctx, "le chat", DecodeOptions{}, context.Canceled},
		{"negative n-best", context.Background(), "le", DecodeOptions{NBest: -1}, nil},
		{"negative stack", context.Background(), "le", DecodeOptions{Search: SearchOptions{StackSize: -1}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.ctx, m, tc.in, tc.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
}
