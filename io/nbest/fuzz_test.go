package nbest

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/testsupport/parsetest"
)

// checkParseError fails unless err is io.EOF or a *ParseError naming file
// and a line, or an error of the underlying reader (none here).
func checkParseError(t *testing.T, err error, file string) {
	t.Helper()
	if err == io.EOF {
		return
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
	if pe.File != file || pe.Line < 1 || pe.Column < 0 {
		t.Fatalf("error %v at %q:%d:%d", err, pe.File, pe.Line, pe.Column)
	}
	if !strings.HasPrefix(err.Error(), "nbest: "+file+":") {
		t.Fatalf("message %q", err)
	}
}

var nbestSeeds = []string{
	"0 ||| we are here .  ||| LM0= -41.3 TranslationModel0= -1.5 -2 0 WordPenalty0= -4 pp_we~nous= 1 ||| -14.6 ||| 0-0 1-1\n",
	"0||| this should .  ||| d: 0 -7.66174 0 lm: -41.3435 -40.3647 w: -9 ||| -14.6262\n1||| x ||| d: 1 ||| 2\n",
	"3 ||| a b ||| LanguageModel=-5.25 Glue=2 ||| -3\n7 ||| c ||| tm_pt_0=-1e-3\n",
	"1 ||| x ||| LM0= 2 sparse_name 3 foo -1 a=b=4 ||| 0\n",
	"0 ||| x ||| d: 1 2 lm: 3 d: 4 ||| 1 ||| a ||| b\r\n\n",
	"0 ||| a ||| w: 1x ||| nan\n",
	"0 ||| a ||| x_y= ||| 1",
	"0 ||| a\xff ||| = 5 ||| 1e400\n",
	"",
	"0 ||| a ||| d: 1 2 lm: 3 4 ||| 1\n0 ||| b ||| d: 1 2 lm: 3",
	"0 ||| a ||| LM0= 1 ||| 1\n0 ||| b |||  ||| 1\n1 ||| c ||| LM0= 1 w: 2 ||| 1\n",
	"0 ||| a ||| tm_pt_0=-1 OOVPenalty=-100 ||| 1\n0 ||| b ||| tm_pt_0=-0.000 ||| 1\n",
}

func FuzzReader(f *testing.F) {
	for _, s := range nbestSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		idx := feature.NewIndex()
		r := NewReader(bytes.NewReader(data), "fuzz", idx)
		hyps, err := parsetest.ReadAll(r.Read)
		for _, h := range hyps {
			if verr := h.Features.Validate(); verr != nil {
				t.Fatalf("invalid vector: %v", verr)
			}
		}
		checkParseError(t, err, "fuzz")
		if err != io.EOF {
			return
		}
		// What was read writes and reads back the same, in every style.
		for _, style := range []Style{Moses, Old, Cdec} {
			var buf bytes.Buffer
			w := NewWriter(&buf, idx)
			w.Style, w.Groups = style, r.Groups()
			for _, h := range hyps {
				if err := w.Write(h); err != nil {
					t.Fatalf("%s: writing %+v: %v", style, h, err)
				}
			}
			w.Flush()
			r2 := NewReader(&buf, "again", idx)
			for i, h := range hyps {
				got, err := r2.Read()
				if err != nil {
					t.Fatalf("%s: reading back %q: %v", style, buf.String(), err)
				}
				if !sameHyp(got, h) {
					t.Fatalf("%s: hypothesis %d: read back %+v, want %+v (%q)", style, i, got, h, buf.String())
				}
			}
			if _, err := r2.Read(); err != io.EOF {
				t.Fatalf("%s: extra output: %v", style, err)
			}
		}
		// ReadSentence must not panic either.
		r3 := NewReader(bytes.NewReader(data), "fuzz", feature.NewIndex())
		for {
			_, _, err := r3.ReadSentence()
			if err != nil {
				if !errors.Is(err, ErrNotGrouped) {
					checkParseError(t, err, "fuzz")
				}
				break
			}
		}
	})
}

func FuzzFeatStat(f *testing.F) {
	f.Add([]byte("FEATURES_TXT_BEGIN_0 0 2 3 d_0 lm_0 w_0 \n0 -47.2982 -14 pp_x=1 \n-3.3 -42.5518 -13 \nFEATURES_TXT_END_0\n"))
	f.Add([]byte("FEATURES_TXT_BEGIN_0 4 1 0 \na==1 b=c=2 \nFEATURES_TXT_END_0\n\nFEATURES_TXT_BEGIN_0 1 0 1 x\nFEATURES_TXT_END_0"))
	f.Add([]byte("FEATURES_TXT_BEGIN_0 0 9999999999 1 a\n1\n"))
	f.Add([]byte("FEATURES_BIN_BEGIN_0 0 1 1 a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		idx := feature.NewIndex()
		r := NewFeatStatReader(bytes.NewReader(data), "fuzz", idx)
		blocks, err := parsetest.ReadAll(r.Read)
		for _, b := range blocks {
			for _, v := range b.Vectors {
				if verr := v.Validate(); verr != nil {
					t.Fatal(verr)
				}
			}
		}
		checkParseError(t, err, "fuzz")
		if err != io.EOF {
			return
		}
		var buf bytes.Buffer
		w := NewFeatStatWriter(&buf, idx)
		w.Precision = -1
		for _, b := range blocks {
			if err := w.Write(b); err != nil {
				t.Fatalf("writing %+v: %v", b, err)
			}
		}
		w.Flush()
		r2 := NewFeatStatReader(&buf, "again", idx)
		for _, b := range blocks {
			got, err := r2.Read()
			if err != nil {
				t.Fatalf("reading back %q: %v", buf.String(), err)
			}
			if got.Sentence != b.Sentence || strings.Join(got.Dense, " ") != strings.Join(b.Dense, " ") || len(got.Vectors) != len(b.Vectors) {
				t.Fatalf("read back %+v, want %+v", got, b)
			}
			for k := range b.Vectors {
				if !got.Vectors[k].Equal(b.Vectors[k]) {
					t.Fatalf("row %d: %v, want %v", k, got.Vectors[k], b.Vectors[k])
				}
			}
		}
		if _, err := r2.Read(); err != io.EOF {
			t.Fatalf("extra output: %v", err)
		}
	})
}

func FuzzScoreStat(f *testing.F) {
	f.Add([]byte("SCORES_TXT_BEGIN_0 0 2 9 BLEU\n6 14 1 13 0 12 0 11 18 \n4 13 0 12 0 11 0 10 18 \nSCORES_TXT_END_0\n"))
	f.Add([]byte("SCORES_TXT_BEGIN_0 3 1 2 TER\n0.5 1e-3\nSCORES_TXT_END_0\nSCORES_TXT_BEGIN_0 1 0 0 TER\nSCORES_TXT_END_0\n"))
	f.Add([]byte("SCORES_TXT_BEGIN_0 0 1 99999999999 BLEU\n1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewScoreStatReader(bytes.NewReader(data), "fuzz")
		blocks, err := parsetest.ReadAll(r.Read)
		checkParseError(t, err, "fuzz")
		if err != io.EOF {
			return
		}
		var buf bytes.Buffer
		w := NewScoreStatWriter(&buf)
		w.Precision = -1
		for _, b := range blocks {
			if err := w.Write(b); err != nil {
				t.Fatalf("writing %+v: %v", b, err)
			}
		}
		w.Flush()
		r2 := NewScoreStatReader(&buf, "again")
		for _, b := range blocks {
			got, err := r2.Read()
			if err != nil {
				t.Fatalf("reading back %q: %v", buf.String(), err)
			}
			if got.Sentence != b.Sentence || got.Metric != b.Metric || len(got.Stats) != len(b.Stats) {
				t.Fatalf("read back %+v, want %+v", got, b)
			}
			for k := range b.Stats {
				if !slices.Equal(got.Stats[k], b.Stats[k]) {
					t.Fatalf("row %d: %v, want %v", k, got.Stats[k], b.Stats[k])
				}
			}
		}
	})
}
