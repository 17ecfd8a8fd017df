package nbest

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
)

// readSentences reads every sentence of r, failing on an error.
func readSentences(t *testing.T, r SentenceReader) (ids []int, hyps [][]Hypothesis) {
	t.Helper()
	for {
		id, hs, err := r.ReadSentence()
		if err == io.EOF {
			return ids, hyps
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.SentenceLine() != hs[0].Line {
			t.Errorf("SentenceLine %d, the sentence's first hypothesis is at line %d", r.SentenceLine(), hs[0].Line)
		}
		ids, hyps = append(ids, id), append(hyps, hs)
	}
}

// checkSentences checks that r reads the sentences want (by id; each
// hypothesis with its features by name) and has the groups groups.
func checkSentences(t *testing.T, r SentenceReader, idx *feature.Index, want map[int][]Hypothesis, feats map[int][]fv, groups []feature.Group) {
	t.Helper()
	ids, hyps := readSentences(t, r)
	if !slices.IsSorted(ids) || len(ids) != len(want) {
		t.Fatalf("sentences %v, want %d in increasing order", ids, len(want))
	}
	for k, id := range ids {
		w, ok := want[id]
		if !ok || len(hyps[k]) != len(w) {
			t.Fatalf("sentence %d: %d hypotheses, want %d", id, len(hyps[k]), len(w))
		}
		for i, h := range hyps[k] {
			w[i].Sentence = id
			if !sameRead(h, w[i]) {
				t.Errorf("sentence %d, hypothesis %d: %+v, want %+v", id, i, h, w[i])
			}
			if got := named(idx, h.Features); !equalFV(got, feats[id][i]) {
				t.Errorf("sentence %d, hypothesis %d: features %v, want %v", id, i, got, feats[id][i])
			}
		}
	}
	if !slices.Equal(r.Groups(), groups) {
		t.Errorf("Groups %v, want %v", r.Groups(), groups)
	}
}

// TestFairseqFiles reads the fairseq outputs of testdata/fairseq line by
// line: every H- line with its score and D- text, log and other lines
// skipped, sentences in id order.
func TestFairseqFiles(t *testing.T) {
	hyp := func(line int, score float64, target, detok string) Hypothesis {
		return Hypothesis{Target: target, Detok: detok, Score: score, HasScore: true, Line: line}
	}
	f := func(x float64) fv {
		if x == 0 {
			return fv{}
		}
		return fv{"fairseq_0": x}
	}
	for _, tc := range []struct {
		file  string
		want  map[int][]Hypothesis
		feats map[int][]fv
	}{
		{"generate.txt", map[int][]Hypothesis{
			0: {hyp(16, -0.11852085590362549, "thank you .", "Thank you."), hyp(20, -1, "thanks .", "Thanks.")},
			1: {hyp(6, -0.2896478772163391, "i am here .", "I am here."), hyp(10, -0.9523146152496338, "i &apos;m here .", "I'm here.")},
			2: {hyp(25, -3, "", "")},
		}, map[int][]fv{
			0: {f(-0.11852085590362549), f(-1)},
			1: {f(-0.2896478772163391), f(-0.9523146152496338)},
			2: {f(-3)},
		}},
		{"interactive.txt", map[int][]Hypothesis{
			0: {hyp(7, -1.5333266258239746, "Mach@@ ine trans@@ lation is hard to influence .", "Machine translation is hard to influence .")},
		}, map[int][]fv{0: {f(-1.5333266258239746)}}},
		{"interactive-old.txt", map[int][]Hypothesis{
			0: {hyp(6, -0.0643349438905716, "Pourquoi est-il rare de découvrir de nouvelles espèces de mammifères marins?", "")},
		}, map[int][]fv{0: {f(-0.0643349438905716)}}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "fairseq", tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			idx := feature.NewIndex()
			r := NewFairseqReader(strings.NewReader(string(data)), path, idx)
			checkSentences(t, r, idx, tc.want, tc.feats, []feature.Group{{Label: FairseqFeature, Len: 1}})
		})
	}
}

// TestFairseqErrors checks the error, line and column of malformed
// fairseq outputs.
func TestFairseqErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in  string
		kind      error
		line, col int
		msg       string
	}{
		{"no text field", "S-0\ta\nH-0\t-1\n", ErrNoHypothesis, 2, 7, "H-0 has no text field"},
		{"bad score", "H-0\t-1x\ta\n", ErrBadNumber, 1, 5, `score "-1x"`},
		{"non-finite score", "H-0\t-inf\ta\n", ErrBadNumber, 1, 5, `"-inf"`},
		{"spaces for tabs", "H-0 -1 a\n", ErrBadField, 1, 1, "H- line without"},
		{"bad id", "H-x\t-1\ta\n", ErrBadField, 1, 1, "H- line without"},
		{"D before H", "D-0\t-1\ta\n", ErrBadField, 1, 1, "D-0 does not follow an H-0 line"},
		{"D of another id", "H-0\t-1\ta\nD-1\t-1\ta\n", ErrBadField, 2, 1, "D-1 does not follow"},
		{"two D lines", "H-0\t-1\ta\nD-0\t-1\ta\nD-0\t-1\ta\n", ErrBadField, 3, 1, "D-0 does not follow"},
		{"bad D score", "H-0\t-1\ta\nD-0\tx\ta\n", ErrBadNumber, 2, 5, `"x"`},
		{"not grouped", "H-0\t-1\ta\nH-1\t-1\tb\nH-0\t-1\tc\n", ErrNotGrouped, 3, 1, "its first H- line is line 1"},
		{"invalid UTF-8", "H-0\t-1\ta\xff\n", ErrInvalidUTF8, 1, 9, ""},
		{"no H- line", "\nS-0\ta\nsome log line\n", ErrNoHypothesis, 2, 0, "no H- line in 2 lines"},
		{"a Moses list", "0 ||| a ||| LM0= -1 ||| -1\n", ErrNoHypothesis, 1, 0, "not the output of fairseq"},
		{"cut off", "H-0\t-1\ta\nH-1\t-1", ErrNoHypothesis, 2, 7, "cut off by the end of input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewFairseqReader(strings.NewReader(tc.in), "f.txt", feature.NewIndex())
			_, _, err := r.ReadSentence()
			checkAt(t, err, tc.kind, "f.txt", tc.line, tc.col, tc.msg)
			if _, _, again := r.ReadSentence(); again != err {
				t.Errorf("error not sticky: %v, then %v", err, again)
			}
		})
	}
}

// TestFairseqEmpty checks that an input of blank lines is an empty list.
func TestFairseqEmpty(t *testing.T) {
	r := NewFairseqReader(strings.NewReader("\n \n"), "f", feature.NewIndex())
	if _, _, err := r.ReadSentence(); err != io.EOF {
		t.Fatalf("got %v, want io.EOF", err)
	}
	if r.Groups() != nil {
		t.Fatalf("Groups %v", r.Groups())
	}
}
