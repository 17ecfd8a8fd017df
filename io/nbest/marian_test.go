package nbest

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
)

// marianLine is what a line of a Marian list holds, split by an oracle
// independent of MarianReader: fields cut at " ||| ", as Marian writes
// them, and features read with strings.Fields and strconv.
type marianLine struct {
	id        int
	text      string
	alignment string
	features  fv
	total     float64
}

func splitMarian(t *testing.T, line string) marianLine {
	t.Helper()
	f := strings.Split(line, " ||| ")
	if len(f) < 4 {
		t.Fatalf("oracle: %q has %d fields", line, len(f))
	}
	var m marianLine
	var err error
	if m.id, err = strconv.Atoi(f[0]); err != nil {
		t.Fatalf("oracle: id %q", f[0])
	}
	m.text = f[1]
	for _, mid := range f[2 : len(f)-2] {
		if !strings.HasPrefix(mid, "WordScores=") {
			m.alignment = strings.TrimSpace(mid)
		}
	}
	m.features = fv{}
	toks := strings.Fields(f[len(f)-2])
	for i := 0; i < len(toks); i++ {
		name, val, _ := strings.Cut(toks[i], "=")
		if val == "" {
			i++
			val = toks[i]
		}
		x, err := strconv.ParseFloat(val, 64)
		if err != nil {
			t.Fatalf("oracle: value %q", val)
		}
		if x != 0 {
			m.features[name+"_0"] = x
		}
	}
	if m.total, err = strconv.ParseFloat(strings.TrimSpace(f[len(f)-1]), 64); err != nil {
		t.Fatalf("oracle: total %q", f[len(f)-1])
	}
	return m
}

// TestMarianFiles reads each Marian list of testdata/marian and checks
// every hypothesis against the line it was read from, split by the
// oracle, and the first hypothesis of each against values written out.
func TestMarianFiles(t *testing.T) {
	for _, tc := range []struct {
		file      string
		sentences int
		groups    []feature.Group
		first     Hypothesis // without Features and File
		firstFeat fv
	}{
		{"transformer.nbest", 2, []feature.Group{{Label: "F0", Len: 1}},
			Hypothesis{Target: "eine republi@@ kanische Strategie gegen die Wieder@@ wahl Ob@@ amas", Score: -0.486136, HasScore: true, Line: 1},
			fv{"F0_0": -2.04924}},
		{"align-hard.nbest", 2, []feature.Group{{Label: "F0", Len: 1}},
			Hypothesis{Target: "Indien und Japan Ministerpräsidenten treffen sich in Tokio", Score: -1.66408, HasScore: true,
				Alignment: "0-0 1-1 2-2 3-3 5-4 6-5 6-6 7-7 8-8", Line: 1},
			fv{"F0_0": -1.66408}},
		{"align-soft.nbest", 1, []feature.Group{{Label: "F0", Len: 1}},
			Hypothesis{Target: "Indien und Japan Ministerpräsidenten treffen sich in Tokio", Score: -1.66408, HasScore: true,
				Alignment: "0.727188,0.00945701,0.0841426,0.059379,0.010552,0.0378809,0.0314533,0.00577038,0.0341767 0.0232129,", Line: 1},
			fv{"F0_0": -1.66408}},
		{"wordscores.nbest", 2, []feature.Group{{Label: "F0", Len: 1}},
			Hypothesis{Target: "Indien und Japan Ministerpräsidenten treffen sich in Tokio", Score: -1.66407, HasScore: true, Line: 1},
			fv{"F0_0": -1.66407}},
		{"align-wordscores.nbest", 2, []feature.Group{{Label: "F0", Len: 1}},
			Hypothesis{Target: "Indien und Japan Ministerpräsidenten treffen sich in Tokio", Score: -0.184897, HasScore: true,
				Alignment: "0-0 1-1 2-2 3-3 5-4 6-5 6-6 7-7 8-8", Line: 1},
			fv{"F0_0": -1.66408}},
		{"scorer.nbest", 2, []feature.Group{{Label: "F0", Len: 1}, {Label: "Score", Len: 1}},
			Hypothesis{Target: "kein Wort konnte über die Schall@@ dämmung der riesigen Kab@@ ar@@ ett wie Blätter hinaus kommen .",
				Score: -9.14746, HasScore: true, Line: 1},
			fv{"F0_0": -9.14746, "Score_0": -13.1597}},
		{"scorer-align.nbest", 2, []feature.Group{{Label: "F0", Len: 1}, {Label: "Score", Len: 1}},
			Hypothesis{Target: "Indien und Japan Ministerpräsidenten treffen sich in Tokio", Score: -1.66407, HasScore: true,
				Alignment: "0-0 1-1 2-2 3-3 5-4 6-5 6-6 7-7 8-8", Line: 1},
			fv{"F0_0": -1.66407, "Score_0": -1.66408}},
		{"scorer-wordscores.nbest", 2, []feature.Group{{Label: "F0", Len: 1}, {Label: "Score", Len: 1}},
			Hypothesis{Target: "seine Methoden waren manchmal un@@ konvention@@ ell , aber sie basierten immer auf seinem Wunsch , die Erwachsenen im Kind zu sehen .",
				Score: -7.90277, HasScore: true, Line: 1},
			fv{"F0_0": -7.90277, "Score_0": -7.90277}},
		{"ensemble-1based.nbest", 2, []feature.Group{{Label: "F0", Len: 1}, {Label: "F1", Len: 1}},
			Hypothesis{Target: "das ist ein Test .", Score: -0.416667, HasScore: true, Line: 1},
			fv{"F0_0": -1.25, "F1_0": -2.5}},
		{"nobreakdown.nbest", 2, []feature.Group{{Label: "F0", Len: 1}},
			Hypothesis{Target: "Indien und Japan", Score: -0.554693, HasScore: true, Line: 1},
			fv{"F0_0": -1.66408}},
		{"align-threshold.nbest", 1, []feature.Group{{Label: "F0", Len: 1}},
			Hypothesis{Target: "Indien und Japan", Score: -0.554693, HasScore: true, Alignment: "0-0 1-1 2-2", Line: 1},
			fv{"F0_0": -1.66408}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "marian", tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			idx := feature.NewIndex()
			r := NewMarianReader(strings.NewReader(string(data)), path, idx)
			base := splitMarian(t, lines[0]).id
			n, sentences, prev := 0, 0, -1
			for {
				id, hyps, err := r.ReadSentence()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if id <= prev {
					t.Fatalf("sentence %d after %d", id, prev)
				}
				if r.SentenceLine() != hyps[0].Line {
					t.Errorf("SentenceLine %d, first hypothesis at line %d", r.SentenceLine(), hyps[0].Line)
				}
				prev = id
				sentences++
				for _, h := range hyps {
					want := splitMarian(t, lines[n])
					n++
					if h.Line != n || h.File != path || h.Sentence != id || id != want.id-base {
						t.Fatalf("line %d: read as line %d of %s, sentence %d of %d (list id %d, base %d)", n, h.Line, h.File, h.Sentence, id, want.id, base)
					}
					if h.Target != want.text || h.Alignment != want.alignment || !h.HasScore || h.Score != want.total {
						t.Errorf("line %d: %q %q %v %v, want %q %q %v", n, h.Target, h.Alignment, h.Score, h.HasScore, want.text, want.alignment, want.total)
					}
					if got := named(idx, h.Features); !equalFV(got, want.features) {
						t.Errorf("line %d: features %v, want %v", n, got, want.features)
					}
				}
			}
			if n != len(lines) || sentences != tc.sentences {
				t.Fatalf("read %d lines in %d sentences, want %d in %d", n, sentences, len(lines), tc.sentences)
			}
			if !slices.Equal(r.Groups(), tc.groups) {
				t.Errorf("Groups %v, want %v", r.Groups(), tc.groups)
			}
			// The first hypothesis, written out.
			r = NewMarianReader(strings.NewReader(string(data)), path, idx)
			h, err := r.Read()
			if err != nil {
				t.Fatal(err)
			}
			if got := named(idx, h.Features); !equalFV(got, tc.firstFeat) {
				t.Errorf("first features %v, want %v", got, tc.firstFeat)
			}
			if strings.HasPrefix(h.Alignment, tc.first.Alignment) { // a soft alignment's start
				h.Alignment = tc.first.Alignment
			}
			if !sameRead(h, tc.first) {
				t.Errorf("first hypothesis %+v, want %+v", h, tc.first)
			}
		})
	}
}

// TestMarianIDs checks that ids map to sentences by their distance to the
// first line's id, keeping gaps.
func TestMarianIDs(t *testing.T) {
	in := "1 ||| a ||| F0= -1 ||| -1\n1 ||| b ||| F0= -2 ||| -2\n2 ||| c ||| F0= -1 ||| -1\n4 ||| d ||| F0= -1 ||| -1\n"
	r := NewMarianReader(strings.NewReader(in), "ids", feature.NewIndex())
	var got []int
	for {
		id, hyps, err := r.ReadSentence()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, id, len(hyps))
	}
	if want := []int{0, 2, 1, 1, 3, 1}; !slices.Equal(got, want) {
		t.Fatalf("sentences and sizes %v, want %v", got, want)
	}
}

// TestMarianErrors checks the error, line and column of malformed lists.
func TestMarianErrors(t *testing.T) {
	const ok = "0 ||| a ||| F0= -1 Score= -2 ||| -1\n"
	for _, tc := range []struct {
		name, in  string
		kind      error
		line, col int
		msg       string // in the message
	}{
		{"too few fields", "0 ||| a ||| -1\n", ErrFieldCount, 1, 0, "3 of at least 4"},
		{"bad id", "x ||| a ||| F0= -1 ||| -1\n", ErrBadID, 1, 1, `"x"`},
		{"id below the first", "3 ||| a ||| F0= -1 ||| -1\n2 ||| a ||| F0= -1 ||| -1\n", ErrBadID, 2, 1, "below the list's first id 3"},
		{"field that is neither", "0 ||| a ||| b c ||| F0= -1 ||| -1\n", ErrBadField, 1, 13, "field 3 is neither"},
		{"two word scores", "0 ||| a ||| WordScores= -1 ||| WordScores= -1 ||| F0= -1 ||| -1\n", ErrBadField, 1, 32, "second WordScores"},
		{"alignment after word scores", "0 ||| a ||| WordScores= -1 ||| 0-0 ||| F0= -1 ||| -1\n", ErrBadField, 1, 32, "after WordScores"},
		{"two alignments", "0 ||| a ||| 0-0 ||| 0-0 ||| F0= -1 ||| -1\n", ErrBadField, 1, 21, "second alignment"},
		{"mixed alignment", "0 ||| a ||| 0-0 0.5,0.5 ||| F0= -1 ||| -1\n", ErrBadField, 1, 13, "neither"},
		{"a Moses line with its alignment", "0 ||| a ||| LM0= -1 ||| -1 ||| 0-0\n", ErrBadField, 1, 13, "field 3"},
		{"duplicate feature", "0 ||| a ||| F0= -1 F0= -2 ||| -1\n", ErrDuplicate, 1, 20, `"F0", first at column 13`},
		{"duplicate feature, no space", "0 ||| a ||| F0=-1 F0=-2 ||| -1\n", ErrDuplicate, 1, 19, `"F0"`},
		{"bad value", "0 ||| a ||| F0= x ||| -1\n", ErrBadNumber, 1, 17, `"x"`},
		{"bad value, no space", "0 ||| a ||| F0=1x ||| -1\n", ErrBadNumber, 1, 16, `"1x"`},
		{"non-finite value", "0 ||| a ||| F0= -inf ||| -1\n", ErrBadNumber, 1, 17, `"-inf"`},
		{"no value", "0 ||| a ||| F0= Score= ||| -1\n", ErrBadNumber, 1, 17, `"Score="`},
		{"no value at the end", "0 ||| a ||| F0= ||| -1\n", ErrNoValue, 1, 13, `"F0"`},
		{"value without a name", "0 ||| a ||| -1 ||| -1\n", ErrBadFeature, 1, 13, `"-1"`},
		{"empty name", "0 ||| a ||| =1 ||| -1\n", ErrBadFeature, 1, 13, "empty feature name"},
		{"no features", "0 ||| a |||  ||| -1\n", ErrBadFeature, 1, 12, "no features"},
		{"bad total", "0 ||| a ||| F0= -1 ||| F0= -1\n", ErrBadNumber, 1, 24, `total score "F0= -1"`},
		{"feature not on the first line", ok + "0 ||| b ||| F0= -1 Score= -2 F1= -3 ||| -1\n", ErrDenseLayout, 2, 30, `"F1" is not on line 1`},
		{"feature missing", ok + "0 ||| b ||| F0= -1 ||| -1\n", ErrDenseLayout, 2, 12, `"Score" is missing (line 1 has it)`},
		{"not grouped", ok + "1 ||| b ||| F0= -1 Score= -2 ||| -1\n0 ||| c ||| F0= -1 Score= -2 ||| -1\n", ErrNotGrouped, 3, 1, "sentence 0 (id 0)"},
		{"invalid UTF-8", "0 ||| a\xff ||| F0= -1 ||| -1\n", ErrInvalidUTF8, 1, 8, ""},
		{"cut off", ok + "0 ||| b ||| F0= -1 Score= -2 ||| ", ErrBadNumber, 2, 34, "cut off by the end of input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewMarianReader(strings.NewReader(tc.in), "m.nbest", feature.NewIndex())
			var err error
			for err == nil {
				_, _, err = r.ReadSentence()
			}
			checkAt(t, err, tc.kind, "m.nbest", tc.line, tc.col, tc.msg)
			if _, _, again := r.ReadSentence(); again != err {
				t.Errorf("error not sticky: %v, then %v", err, again)
			}
		})
	}
}

// sameRead reports whether a and b are equal but for their features and
// file.
func sameRead(a, b Hypothesis) bool {
	a.Features, a.File, b.Features, b.File = feature.Vector{}, "", feature.Vector{}, ""
	return a.Sentence == b.Sentence && a.Target == b.Target && a.Score == b.Score && a.HasScore == b.HasScore &&
		a.Alignment == b.Alignment && a.Detok == b.Detok && a.Line == b.Line
}

// checkAt fails unless err is a *ParseError of kind at file:line:col
// whose message holds msg.
func checkAt(t *testing.T, err, kind error, file string, line, col int, msg string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, kind) {
		t.Fatalf("error %v, want a *ParseError wrapping %v", err, kind)
	}
	if pe.File != file || pe.Line != line || pe.Column != col {
		t.Errorf("error at %s:%d:%d, want %s:%d:%d: %v", pe.File, pe.Line, pe.Column, file, line, col, err)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("message %q does not say %q", err, msg)
	}
}
