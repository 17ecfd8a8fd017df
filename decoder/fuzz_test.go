package decoder

import (
	"context"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecode decodes arbitrary input with the tiny system and every sparse
// template, with the stack search or with cube pruning (pops the limit
// byte's low bits select): no panic, and when it decodes, the scores are
// the features times the weights, the segments cover the input once and
// the target has as many words as the segments say.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"le chat noir dort", "", "dort le", "chien chat chien", "le\tchat\nnoir", "\xff", "le le le le le le le le le le"} {
		f.Add(s, uint8(3), true)
		f.Add(s, uint8(0x93), false)
	}
	all, _ := ParseTemplates("all")
	m := loadSmall(f, LoadOptions{Sparse: all, SparseWeightsFile: writeFile(f, "lb_s1 0.1\npp_le~the 0.2\nlo_fd_chat~cat -0.3\n")})
	f.Fuzz(func(t *testing.T, in string, limit uint8, distinct bool) {
		if len(strings.Fields(in)) > 12 {
			return
		}
		lim := int(limit&0xf)%6 - 1
		so := SearchOptions{DistortionLimit: &lim}
		if pops := int(limit >> 4); pops > 0 {
			so.Algorithm, so.CubePruningPopLimit, so.CubePruningDiversity = CubePruning, pops, pops%3
		}
		res, err := Decode(context.Background(), m, in, DecodeOptions{NBest: 5, AllDerivations: !distinct, Search: so})
		if err != nil {
			if utf8.ValidString(in) {
				t.Fatalf("%q: %v", in, err)
			}
			return
		}
		n := len(strings.Fields(in))
		w := m.Weights()
		for _, h := range append([]Hypothesis{res.Best}, res.NBest...) {
			if got := h.Features.Dot(w); math.Abs(got-h.Score) > 1e-6*max(1, math.Abs(h.Score)) {
				t.Errorf("%q: score %g, features·weights %g", h.Target, h.Score, got)
			}
			covered := make([]bool, n)
			words := 0
			for _, s := range h.Segments {
				for i := s.SrcStart; i <= s.SrcEnd; i++ {
					if covered[i] {
						t.Fatalf("%q: word %d covered twice", in, i)
					}
					covered[i] = true
				}
				words += s.TgtEnd - s.TgtStart + 1
			}
			for i, c := range covered {
				if !c {
					t.Fatalf("%q: word %d not covered", in, i)
				}
			}
			if got := len(strings.Fields(h.Target)); got != words {
				t.Fatalf("%q: %d target words, segments say %d", h.Target, got, words)
			}
		}
	})
}

// FuzzParseTemplates parses template lists: no panic, and the names of the
// result parse back to it.
func FuzzParseTemplates(f *testing.F) {
	for _, s := range []string{"pt", "al,lo", "all", "xx", ",,tu, cb ,lb", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := ParseTemplates(s)
		if err != nil {
			return
		}
		back, err := ParseTemplates(strings.Join(tm.Names(), ","))
		if err != nil || back != tm {
			t.Fatalf("%q: %+v reads back as %+v, %v", s, tm, back, err)
		}
	})
}
