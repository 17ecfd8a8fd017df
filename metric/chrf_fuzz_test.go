package metric

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// naiveChrF computes hyp's chrF statistics against refs the way sacreBLEU's
// chrf.py and helpers.py spell it out: a map of n-gram strings per order
// for the hypothesis and each reference, summed and clipped, and the
// statistics of the reference with the highest sentence score, the first of
// equal ones. It shares only appendPyLower, isPySpace and isChrfPunct with
// ChrF's trie.
func naiveChrF(c ChrF, hyp string, refs []string) []float64 {
	prep := func(s string) (chars []string, words []string) {
		s = string([]rune(s)) // each invalid UTF-8 byte a U+FFFD, as ChrF reads text
		if c.Lowercase {
			s = string(appendPyLower(nil, s))
		}
		fields := strings.FieldsFunc(s, isPySpace)
		text := s
		if !c.Whitespace {
			text = strings.Join(fields, "")
		}
		for _, r := range text {
			chars = append(chars, string(r))
		}
		for _, w := range fields {
			r := []rune(w)
			switch {
			case len(r) == 1:
				words = append(words, w)
			case isChrfPunct(r[len(r)-1]):
				words = append(words, string(r[:len(r)-1]), string(r[len(r)-1]))
			case isChrfPunct(r[0]):
				words = append(words, string(r[0]), string(r[1:]))
			default:
				words = append(words, w)
			}
		}
		return chars, words
	}
	counts := func(chars, words []string) []map[string]int {
		var ms []map[string]int
		for n := 1; n <= c.CharOrder; n++ {
			m := map[string]int{}
			for i := 0; i+n <= len(chars); i++ {
				m[strings.Join(chars[i:i+n], "")]++
			}
			ms = append(ms, m)
		}
		for n := 1; n <= c.WordOrder; n++ {
			m := map[string]int{}
			for i := 0; i+n <= len(words); i++ {
				m[strings.Join(words[i:i+n], " ")]++
			}
			ms = append(ms, m)
		}
		return ms
	}
	h := counts(prep(hyp))
	var best []float64
	bestF := -1.0
	for _, ref := range refs {
		r := counts(prep(ref))
		var st []float64
		for k := range h {
			hypN, refN, match := 0, 0, 0
			for g, n := range h[k] {
				hypN += n
				match += min(n, r[k][g])
			}
			for _, n := range r[k] {
				refN += n
			}
			if len(r[k]) == 0 {
				hypN = 0
			}
			st = append(st, float64(hypN), float64(refN), float64(match))
		}
		if f := c.score(st); f > bestF {
			best, bestF = st, f
		}
	}
	return best
}

// FuzzChrF checks, for any text and settings, that ChrF's statistics equal
// naiveChrF's, are finite, non-negative and consistent (matches at most
// the hypothesis' and the reference's n-grams), and that the scores are in
// [0, 100]; it never panics.
func FuzzChrF(f *testing.F) {
	f.Add("Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich.",
		"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich.", "", uint8(0))
	f.Add("(hi) there, friend. ...ok", "(hi there) , friend . ok", "hi there", uint8(1|16))
	f.Add("İstanbul ΟΔΥΣΣΕΥΣ Σ", "istanbul οδυσσευς σ", "ΑΣ'Σ", uint8(1|2|16))
	f.Add("a  b\x1cc\u3000d", "ab cd", " ", uint8(4|8))
	f.Add("", "", "", uint8(255))
	f.Add("aaaa aaaa", "aa", "aaa", uint8(1|16|32))
	f.Add("\xff\xfe a", "\xff a", "\xef\xbf\xbd", uint8(16))
	f.Add("\xff", "0", "\xb1", uint8(1|16|32)) // invalid bytes in words: each a U+FFFD
	f.Fuzz(func(t *testing.T, hyp, ref1, ref2 string, flags uint8) {
		c := NewChrF(flags&1 != 0)
		c.Lowercase = flags&2 != 0
		c.Whitespace = flags&4 != 0
		c.EpsSmoothing = flags&8 != 0
		refs := []string{ref1}
		if flags&16 != 0 {
			refs = append(refs, ref2)
		}
		c.Beta = int(flags >> 5) // 0..7
		seg, err := c.Segment(refs)
		if err != nil {
			t.Fatal(err)
		}
		st := make([]float64, c.Len())
		fillChrF(seg, st, hyp)
		for k := 0; k < len(st); k += 3 {
			for _, v := range st[k : k+3] {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v != math.Trunc(v) {
					t.Fatalf("statistics %v: not counts", st)
				}
			}
			if st[k+2] > st[k] || st[k+2] > st[k+1] {
				t.Fatalf("statistics %v: order %d matches more than its n-grams", st, k/3+1)
			}
		}
		if want := naiveChrF(c, hyp, refs); fmt.Sprint(st) != fmt.Sprint(want) {
			t.Fatalf("%+v: statistics\n %v, sacreBLEU's way\n %v", c, st, want)
		}
		s, ss := c.score(st), c.score(st)
		if !(s >= 0 && s <= 100) || s != ss {
			t.Fatalf("Score %v, SentenceScore %v of %v", s, ss, st)
		}
	})
}
