package metric

import (
	"strings"
	"testing"
)

// FuzzTokenize13a checks Tokenize13a against sacreBLEU's regular expressions.
func FuzzTokenize13a(f *testing.F) {
	for _, s := range []string{
		"The dog bit the man.", "3.14, 1,000 and 5-6", "&quot;a&amp;b&lt;&gt;", "<skipped>x-\ny\n",
		"U.S.A.", "zahăr alb;", "a\u00a0b\u3000c", ".,.,", "5-.-5", "\xe4\xb8.\xff,", "a\x1c.b\u0085,",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Tokenize13a(s), regexpTokenize13a(s); got != want {
			t.Errorf("Tokenize13a(%q) = %q, regexp %q", s, got, want)
		}
		got := TokenizeChar(s)
		if want := strings.Join(pyFields(strings.Join(splitRunes(s), " ")), " "); got != want {
			t.Errorf("TokenizeChar(%q) = %q, want %q", s, got, want)
		}
	})
}

// splitRunes splits s into characters, invalid bytes on their own, as
// Python iterates over a decoded string.
func splitRunes(s string) []string {
	var out []string
	prev := -1
	for i := range s {
		if prev >= 0 {
			out = append(out, s[prev:i])
		}
		prev = i
	}
	if prev >= 0 {
		out = append(out, s[prev:])
	}
	return out
}

// FuzzStatsString checks Reference against naiveStats on hypotheses and
// references cut from the fuzzed text.
func FuzzStatsString(f *testing.F) {
	f.Add("the cat is on the mat", "the cat the cat on mat", uint8(4))
	f.Add("a b a b a b", "a b a b x|b a b a", uint8(6))
	f.Add("", "x y|", uint8(1))
	f.Fuzz(func(t *testing.T, hyp, refs string, order uint8) {
		n := int(order)%MaxOrder + 1
		refLines := strings.Split(refs, "|")
		var refToks [][]string
		for _, r := range refLines {
			refToks = append(refToks, AppendFields(nil, r))
		}
		ref, err := NewReferenceText(n, refLines...)
		if err != nil {
			t.Fatal(err)
		}
		got := ref.StatsString(hyp)
		if want := naiveStats(n, AppendFields(nil, hyp), refToks...); got != want {
			t.Errorf("StatsString(%q) against %q:\n got %v\nwant %v", hyp, refLines, got, want)
		}
		if err := got.Validate(); err != nil {
			t.Error(err)
		}
	})
}

// FuzzParseMoses checks that ParseMoses never panics and that what it accepts
// prints and parses back to the same Stats.
func FuzzParseMoses(f *testing.F) {
	for _, s := range []string{"6 14 1 13 0 12 0 11 18 ", "0.5 1 2", "1e+06 2e+06 3", "1 2", "x", "", "NaN 1 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseMoses(s)
		if err != nil {
			return
		}
		back, err := ParseMoses(st.String())
		if err != nil || back != st {
			t.Errorf("ParseMoses(%q) = %v; printed %q parses to %v, %v", s, st, st.String(), back, err)
		}
		if f, err := st.ToMoses(); err == nil {
			if again, err := FromMoses(f); err != nil || again != st {
				t.Errorf("FromMoses(ToMoses(%v)) = %v, %v", st, again, err)
			}
		}
	})
}
