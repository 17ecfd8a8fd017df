package nbest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
)

// vec makes a vector from names and values, interning the names in idx.
func vec(idx *feature.Index, kv ...any) feature.Vector {
	var ents []entry
	for i := 0; i < len(kv); i += 2 {
		x := kv[i+1]
		var f float64
		switch x := x.(type) {
		case int:
			f = float64(x)
		case float64:
			f = x
		}
		ents = append(ents, entry{idx.ID(kv[i].(string)), f})
	}
	var keys []uint64
	return makeVector(&ents, &keys)
}

func TestWrite(t *testing.T) {
	idx := feature.NewIndex()
	groups := []feature.Group{{Label: "LM0", Len: 1}, {Label: "TranslationModel0", Len: 3}}
	h := Hypothesis{
		Sentence: 12,
		Target:   "we are here .",
		Features: vec(idx, "TranslationModel0_0", -1.5, "LM0_0", -41.25, "pp_we~nous", 1, "plain", 2.5e-7, "x:", 3, "WordPenalty0_0", -4),
		Score:    -14.6, HasScore: true,
		Alignment: "0-0 1-1",
	}
	tests := []struct {
		name   string
		style  Style
		groups []feature.Group
		h      Hypothesis
		want   string
	}{{
		name: "moses", style: Moses, groups: groups, h: h,
		want: "12 ||| we are here . ||| LM0= -41.25 TranslationModel0= -1.5 0 0 pp_we~nous= 1 plain=2.5e-07 x:=3 WordPenalty0_0= -4 ||| -14.6 ||| 0-0 1-1\n",
	}, {
		name: "old", style: Old, groups: groups, h: h,
		want: "12 ||| we are here . ||| LM0: -41.25 TranslationModel0: -1.5 0 0 pp_we~nous: 1 plain=2.5e-07 x:=3 WordPenalty0_0: -4 ||| -14.6 ||| 0-0 1-1\n",
	}, {
		name: "cdec ignores groups", style: Cdec, groups: groups, h: h,
		want: "12 ||| we are here . ||| TranslationModel0_0=-1.5 LM0_0=-41.25 pp_we~nous=1 plain=2.5e-07 x:=3 WordPenalty0_0=-4 ||| -14.6 ||| 0-0 1-1\n",
	}, {
		name: "no groups: everything sparse", style: Moses, h: h,
		want: "12 ||| we are here . ||| TranslationModel0_0= -1.5 LM0_0= -41.25 pp_we~nous= 1 plain=2.5e-07 x:=3 WordPenalty0_0= -4 ||| -14.6 ||| 0-0 1-1\n",
	}, {
		name: "no score, no features", style: Moses, groups: []feature.Group{{Label: "w", Len: 1}},
		h:    Hypothesis{Sentence: 0, Target: "a"},
		want: "0 ||| a ||| w= 0\n",
	}, {
		name: "group name not in the index", style: Old, groups: []feature.Group{{Label: "unseen", Len: 2}},
		h:    Hypothesis{Sentence: 1, Target: "", Score: 0, HasScore: true},
		want: "1 |||  ||| unseen: 0 0 ||| 0\n",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, idx)
			w.Style, w.Groups = tc.style, tc.groups
			if err := w.Write(tc.h); err != nil {
				t.Fatal(err)
			}
			w.Flush()
			if err := w.Error(); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.want {
				t.Errorf("got  %q\nwant %q", buf.String(), tc.want)
			}
			// And it reads back.
			r := NewReader(&buf, "w", idx)
			got, err := r.Read()
			if err != nil {
				t.Fatal(err)
			}
			if !sameHyp(got, tc.h) {
				t.Errorf("read back %+v\nwant      %+v", got, tc.h)
			}
		})
	}
}

func sameHyp(a, b Hypothesis) bool {
	return a.Sentence == b.Sentence && a.Target == strings.TrimSpace(b.Target) && a.Features.Equal(b.Features) &&
		a.HasScore == b.HasScore && a.Score == b.Score && a.Alignment == strings.TrimSpace(b.Alignment)
}

func TestWriteErrors(t *testing.T) {
	idx := feature.NewIndex()
	ok := Hypothesis{Sentence: 1, Target: "a", Score: 1, HasScore: true}
	with := func(f func(*Hypothesis)) Hypothesis { h := ok; f(&h); return h }
	tests := []struct {
		name   string
		groups []feature.Group
		h      Hypothesis
		err    error
	}{
		{name: "negative id", h: with(func(h *Hypothesis) { h.Sentence = -1 })},
		{name: "separator in target", h: with(func(h *Hypothesis) { h.Target = "a ||| b" }), err: ErrBadName},
		{name: "newline in target", h: with(func(h *Hypothesis) { h.Target = "a\nb" }), err: ErrBadName},
		{name: "invalid UTF-8 target", h: with(func(h *Hypothesis) { h.Target = "a\xffb" }), err: ErrBadName},
		{name: "alignment without score", h: Hypothesis{Target: "a", Alignment: "0-0"}, err: ErrBadName},
		{name: "NaN score", h: with(func(h *Hypothesis) { h.Score = math.NaN() })},
		{name: "infinite feature", h: with(func(h *Hypothesis) {
			h.Features = feature.Vector{IDs: []feature.ID{idx.ID("f_x")}, Vals: []float64{math.Inf(1)}}
		})},
		{name: "feature name with a space", h: with(func(h *Hypothesis) { h.Features = vec(idx, "a b", 1) }), err: ErrBadName},
		{name: "feature id not in index", h: with(func(h *Hypothesis) { h.Features = feature.Vector{IDs: []feature.ID{999}, Vals: []float64{1}} })},
		{name: "mismatched vector", h: with(func(h *Hypothesis) { h.Features = feature.Vector{IDs: []feature.ID{0}} })},
		{name: "label with underscore", groups: []feature.Group{{Label: "my_lm", Len: 1}}, h: ok, err: ErrBadName},
		{name: "negative group length", groups: []feature.Group{{Label: "lm", Len: -1}}, h: ok},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, idx)
			w.Groups = tc.groups
			err := w.Write(tc.h)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.err != nil && !errors.Is(err, tc.err) {
				t.Errorf("error %v, want %v", err, tc.err)
			}
			if !strings.HasPrefix(err.Error(), "nbest: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			w.Flush()
			if buf.Len() != 0 {
				t.Errorf("wrote %q", buf.String())
			}
		})
	}
}

// TestWriteLateNames checks that dense names added to the index after the
// first Write are then written densely.
func TestWriteLateNames(t *testing.T) {
	idx := feature.NewIndex()
	var buf bytes.Buffer
	w := NewWriter(&buf, idx)
	w.Groups = []feature.Group{{Label: "lm", Len: 1}}
	if err := w.Write(Hypothesis{Target: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(Hypothesis{Target: "b", Features: vec(idx, "lm_0", 2)}); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if want := "0 ||| a ||| lm= 0\n0 ||| b ||| lm= 2\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteFlushError(t *testing.T) {
	w := NewWriter(failWriter{}, feature.NewIndex())
	if err := w.Write(Hypothesis{Target: "a"}); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if err := w.Error(); err == nil {
		t.Error("no error after a failed flush")
	}
}

// TestRoundTripData reads the real lists, writes them in every style and
// reads them back.
func TestRoundTripData(t *testing.T) {
	files := [][]string{
		{"nbest", "europarl100", "nbest.gz"},
		{"nbest", "mert-extractor", "nbest.3.gz"},
		{"moses-models", "europarl-fr-en-8k", "expected-moses-test20.nbest.gz"},
	}
	for _, f := range files {
		data := readGz(t, f...)
		idx := feature.NewIndex()
		hyps, r := readAll(t, data, f[len(f)-1], idx)
		for _, style := range []Style{Moses, Old, Cdec} {
			t.Run(fmt.Sprintf("%s/%s", f[len(f)-2], style), func(t *testing.T) {
				var buf bytes.Buffer
				w := NewWriter(&buf, idx)
				w.Style, w.Groups = style, r.Groups()
				for _, h := range hyps {
					if err := w.Write(h); err != nil {
						t.Fatal(err)
					}
				}
				w.Flush()
				back, r2 := readAll(t, buf.Bytes(), "back", idx)
				if len(back) != len(hyps) {
					t.Fatalf("%d hypotheses back, want %d", len(back), len(hyps))
				}
				for i := range hyps {
					if !sameHyp(back[i], hyps[i]) {
						t.Fatalf("hypothesis %d: %+v, want %+v", i, back[i], hyps[i])
					}
				}
				if style != Cdec && fmt.Sprint(r2.Groups()) != fmt.Sprint(r.Groups()) {
					t.Errorf("groups %v, want %v", r2.Groups(), r.Groups())
				}
			})
		}
	}
}

// TestWriteAsMoses checks that the Moses style reproduces Moses' own lines
// except for the spaces Moses leaves after the target (and, for the old
// file, before the first separator).
func TestWriteAsMoses(t *testing.T) {
	for _, tc := range []struct {
		file  []string
		style Style
	}{
		{[]string{"moses-models", "europarl-fr-en-8k", "expected-moses-test20.nbest.gz"}, Moses},
		{[]string{"nbest", "europarl100", "nbest.gz"}, Old},
		{[]string{"nbest", "mert-extractor", "nbest.1.gz"}, Moses},
	} {
		t.Run(tc.file[len(tc.file)-2], func(t *testing.T) {
			data := readGz(t, tc.file...)
			idx := feature.NewIndex()
			hyps, r := readAll(t, data, "in", idx)
			var buf bytes.Buffer
			w := NewWriter(&buf, idx)
			w.Style, w.Groups = tc.style, r.Groups()
			for _, h := range hyps {
				if err := w.Write(h); err != nil {
					t.Fatal(err)
				}
			}
			w.Flush()
			want := separator.ReplaceAllString(string(data), " ||| ")
			got := buf.String()
			if got != want {
				gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
				for i := range min(len(gl), len(wl)) {
					if gl[i] != wl[i] {
						t.Fatalf("line %d:\n got %q\nwant %q", i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("%d lines, want %d", len(gl), len(wl))
			}
		})
	}
}

var _ io.Writer = failWriter{}

// separator matches a field separator with the spaces around it.
var separator = regexp.MustCompile(` *\|\|\| *`)

// TestWriteMarian reads each Marian list of testdata/marian, writes it in
// the Marian style and reads it back: the same hypotheses (the alignment
// before the features, word scores dropped, ids from 0), detected as
// Marian's.
func TestWriteMarian(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "marian", "*.nbest"))
	if err != nil || len(files) < 5 {
		t.Fatalf("testdata/marian: %v, %v", files, err)
	}
	readMarian := func(t *testing.T, r *MarianReader) []Hypothesis {
		var out []Hypothesis
		for {
			_, hyps, err := r.ReadSentence()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, hyps...)
		}
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			idx := feature.NewIndex()
			r := NewMarianReader(bytes.NewReader(data), path, idx)
			hyps := readMarian(t, r)
			var buf bytes.Buffer
			w := NewWriter(&buf, idx)
			w.Style, w.Groups = Marian, r.Groups()
			for _, h := range hyps {
				if err := w.Write(h); err != nil {
					t.Fatal(err)
				}
			}
			w.Flush()
			if f, ok := DetectLine(buf.Bytes()[:bytes.IndexByte(buf.Bytes(), '\n')+1]); !ok || f != FormatMarian {
				t.Errorf("the first line written is detected as %v", f)
			}
			back := readMarian(t, NewMarianReader(bytes.NewReader(buf.Bytes()), "back", idx))
			if len(back) != len(hyps) {
				t.Fatalf("%d hypotheses back, want %d", len(back), len(hyps))
			}
			for i := range hyps {
				if !sameHyp(back[i], hyps[i]) {
					t.Fatalf("hypothesis %d: %+v, want %+v", i, back[i], hyps[i])
				}
			}
		})
	}
}

// TestWriteMarianErrors: what a Marian line cannot hold.
func TestWriteMarianErrors(t *testing.T) {
	idx := feature.NewIndex()
	ok := Hypothesis{Sentence: 1, Target: "a", Features: vec(idx, "F0_0", -1), Score: 1, HasScore: true}
	for _, tc := range []struct {
		name   string
		groups []feature.Group
		h      Hypothesis
		msg    string
	}{
		{"group of two", []feature.Group{{Label: "F0", Len: 2}}, ok, `group "F0" has length 2 (marian lists: 1)`},
		{"sparse feature", []feature.Group{{Label: "F0", Len: 1}}, Hypothesis{Target: "a", Features: vec(idx, "pp_a~b", 1), Score: 1, HasScore: true}, "sparse feature pp_a~b"},
		{"no total", []feature.Group{{Label: "F0", Len: 1}}, Hypothesis{Target: "a"}, "needs a total score"},
		{"separator in the alignment", []feature.Group{{Label: "F0", Len: 1}}, Hypothesis{Target: "a", Alignment: "0-0 ||| 1-1", Score: 1, HasScore: true}, "alignment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, idx)
			w.Style, w.Groups = Marian, tc.groups
			if err := w.Write(tc.h); err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want %q", err, tc.msg)
			}
			w.Flush()
			if buf.Len() != 0 {
				t.Errorf("wrote %q", buf.String())
			}
		})
	}
	var buf bytes.Buffer
	w := NewWriter(&buf, idx)
	w.Style, w.Groups = Marian, []feature.Group{{Label: "F0", Len: 1}, {Label: "rev", Len: 1}}
	h := ok
	h.Alignment = "0-0"
	if err := w.Write(h); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if want := "1 ||| a ||| 0-0 ||| F0= -1 rev= 0 ||| 1\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}
