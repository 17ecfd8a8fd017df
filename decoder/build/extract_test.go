package build

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// sentenceBitext returns a bitext of one sentence pair of nF and nE tokens
// with the given alignment points.
func sentenceBitext(t testing.TB, nF, nE int, pts []point) *bitext {
	t.Helper()
	words := func(n int, p string) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprint(p, i)
		}
		return strings.Join(w, " ")
	}
	var al []string
	for _, p := range pts {
		al = append(al, fmt.Sprintf("%d-%d", p.f, p.e))
	}
	b := newBitext()
	var ap alignParser
	if err := b.add(1, []byte(words(nF, "f")), []byte(words(nE, "e")), []byte(strings.Join(al, " ")), "f", "e", "a", &ap); err != nil {
		t.Fatal(err)
	}
	return b
}

type span struct{ fs, fe, es, ee int }

// refExtract enumerates the phrase pairs consistent with the alignment by
// the definition (Och and Ney 2004; Koehn et al. 2003): both sides at most
// maxLen words, at least one alignment point inside, and no point linking a
// word inside to a word outside.
func refExtract(nF, nE int, pts []point, maxLen int) []span {
	var out []span
	for fs := range nF {
		for fe := fs; fe < nF && fe-fs < maxLen; fe++ {
			for es := range nE {
				for ee := es; ee < nE && ee-es < maxLen; ee++ {
					inside, ok := false, true
					for _, p := range pts {
						fIn := int(p.f) >= fs && int(p.f) <= fe
						eIn := int(p.e) >= es && int(p.e) <= ee
						if fIn != eIn {
							ok = false
						}
						inside = inside || fIn && eIn
					}
					if ok && inside {
						out = append(out, span{fs, fe, es, ee})
					}
				}
			}
		}
	}
	return out
}

func spansOf(occs []occ) []span {
	out := make([]span, len(occs))
	for i, o := range occs {
		out[i] = span{int(o.fs), int(o.fs) + int(o.fl) - 1, int(o.es), int(o.es) + int(o.el) - 1}
	}
	return out
}

func cmpSpan(a, b span) int {
	return slices.Compare([]int{a.fs, a.fe, a.es, a.ee}, []int{b.fs, b.fe, b.es, b.ee})
}

// checkExtract compares extractSentence with refExtract.
func checkExtract(t testing.TB, nF, nE int, pts []point, maxLen int) {
	t.Helper()
	b := sentenceBitext(t, nF, nE, pts)
	var sc extractScratch
	got := spansOf(extractSentence(nil, b, 0, maxLen, &sc))
	want := refExtract(nF, nE, pts, maxLen)
	slices.SortFunc(got, cmpSpan)
	slices.SortFunc(want, cmpSpan)
	if !slices.Equal(got, want) {
		t.Fatalf("%dx%d %v max %d:\ngot  %v\nwant %v", nF, nE, pts, maxLen, got, want)
	}
}

func randomAlignment(rng *rand.Rand, nF, nE int) []point {
	var pts []point
	density := rng.IntN(4)
	for f := range nF {
		for e := range nE {
			if rng.IntN(nF+density) == 0 {
				pts = append(pts, point{uint16(f), uint16(e)})
			}
		}
	}
	rng.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
	return pts
}

func TestExtractMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 800 {
		nF, nE := 1+rng.IntN(9), 1+rng.IntN(9)
		checkExtract(t, nF, nE, randomAlignment(rng, nF, nE), 1+rng.IntN(7))
	}
}

func TestExtractEmptySide(t *testing.T) {
	b := newBitext()
	var ap alignParser
	for _, p := range [][2]string{{"", "x"}, {"a", ""}, {"", ""}} {
		if err := b.add(1, []byte(p[0]), []byte(p[1]), nil, "f", "e", "a", &ap); err != nil {
			t.Fatal(err)
		}
	}
	var sc extractScratch
	for s := range b.len() {
		if got := extractSentence(nil, b, s, 7, &sc); len(got) != 0 {
			t.Errorf("sentence %d: %v", s, got)
		}
	}
}

// TestOrientations checks the word-based msd orientations of Moses'
// extract on small alignments worked out by hand.
func TestOrientations(t *testing.T) {
	names := [3]string{"mono", "swap", "other"}
	tests := []struct {
		name   string
		nF, nE int
		pts    []point
		want   map[span]string // "prev next"
	}{
		{"diagonal", 3, 3, []point{{0, 0}, {1, 1}, {2, 2}}, map[span]string{
			{0, 0, 0, 0}: "mono mono", {1, 1, 1, 1}: "mono mono", {2, 2, 2, 2}: "mono mono",
			{0, 1, 0, 1}: "mono mono", {1, 2, 1, 2}: "mono mono", {0, 2, 0, 2}: "mono mono",
		}},
		{"swap", 2, 2, []point{{0, 1}, {1, 0}}, map[span]string{
			// "b y" first in the target but not at the source start: other;
			// followed by "a x" on its left: swap.
			{1, 1, 0, 0}: "other swap",
			{0, 0, 1, 1}: "swap other",
			{0, 1, 0, 1}: "mono mono",
		}},
		{"unaligned target word", 1, 2, []point{{0, 0}}, map[span]string{
			// (f0, e0) is followed by unaligned e1: no corner at (1, 1).
			{0, 0, 0, 0}: "mono other",
			{0, 0, 0, 1}: "mono mono",
		}},
		{"discontinuous", 3, 3, []point{{0, 0}, {2, 1}, {1, 2}}, map[span]string{
			{0, 0, 0, 0}: "mono other",
			{2, 2, 1, 1}: "other swap",
			{1, 1, 2, 2}: "swap other",
			{1, 2, 1, 2}: "mono mono",
			{0, 2, 0, 2}: "mono mono",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := sentenceBitext(t, tc.nF, tc.nE, tc.pts)
			var sc extractScratch
			occs := extractSentence(nil, b, 0, 7, &sc)
			if len(occs) != len(tc.want) {
				t.Errorf("%d phrase pairs, want %d: %v", len(occs), len(tc.want), spansOf(occs))
			}
			for i, sp := range spansOf(occs) {
				got := names[occs[i].ori/3] + " " + names[occs[i].ori%3]
				if want, ok := tc.want[sp]; !ok || got != want {
					t.Errorf("%v: %s, want %q", sp, got, want)
				}
			}
		})
	}
}
