package poolfile

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/testsupport/testfile"
)

// externalNbest is two sentences' lists: sentence 0 on lines 1–2,
// sentence 2 on lines 4–6 after a blank line.
const externalNbest = "0 ||| a ||| d= 1 ||| 1\n0 ||| b ||| d= 2 ||| 2\n\n2 ||| c ||| d= 1 ||| 1\n2 ||| d ||| d= 3 ||| 3\n2 ||| e ||| d= 2 ||| 2\n"

// TestReadExternalScores reads both formats of score files for
// externalNbest and refuses malformed ones with the file and line.
func TestReadExternalScores(t *testing.T) {
	dir := t.TempDir()
	nb := testfile.Write(t, dir, "nb", externalNbest)
	want := map[int]float64{1: 0.5, 2: -1.25, 4: 3, 5: 0, 6: 1e-3}
	for _, tc := range []struct{ name, text, err string }{
		{"plain", "0.5\n-1.25\n3\n0\n1e-3\n", ""},
		{"plain-blank-lines", "\n0.5\n-1.25\n\n3\n0\n1e-3\n\n", ""},
		{"plain-bom", "\xef\xbb\xbf0.5\n-1.25\n3\n0\n1e-3\n", ""},
		{"indexed-bom", "\xef\xbb\xbf0 ||| 0 ||| 0.5\n0 ||| 1 ||| -1.25\n2 ||| 0 ||| 3\n2 ||| 1 ||| 0\n2 ||| 2 ||| 1e-3\n", ""},
		{"bom-later", "0.5\n\xef\xbb\xbf-1.25\n3\n0\n1e-3\n", `sc:2: score "\ufeff-1.25": want a finite number`},
		{"underscore", "0.5\n1_0\n3\n0\n1\n", `sc:2: score "1_0": want a finite number`},
		{"hex", "0.5\n0x1p-2\n3\n0\n1\n", `sc:2: score "0x1p-2": want a finite number`},
		{"indexed", "0 ||| 0 ||| 0.5\n0 ||| 1 ||| -1.25\n2 ||| 0 ||| 3\n2 ||| 1 ||| 0\n2 ||| 2 ||| 1e-3\n", ""},
		{"indexed-any-order", "2 ||| 2 ||| 1e-3\n0|||1|||-1.25\n2 ||| 0 ||| 3\n0 ||| 0 ||| 0.5\n\n 2 ||| 1 ||| 0 \n", ""},
		{"too-few", "0.5\n-1.25\n3\n0\n", "sc:4: 4 scores for the 5 hypotheses of " + nb + " (" + nb + ":6 has none)"},
		{"too-many", "0.5\n-1.25\n3\n0\n1\n2\n", "sc:6: a score beyond the 5 hypotheses of " + nb},
		{"empty", "", "sc:1: no score (an empty file) for the 5 hypotheses of " + nb},
		{"blank", "\n\n", "sc:2: no score (an empty file)"},
		{"invalid-utf8", "0.5\n\xff\n", "sc:2: invalid UTF-8"},
		{"nan", "0.5\nNaN\n3\n0\n1\n", `sc:2: score "NaN": want a finite number`},
		{"inf", "0.5\n1\n+Inf\n0\n1\n", `sc:3: score "+Inf": want a finite number`},
		{"overflow", "0.5\n1\n1e400\n0\n1\n", `sc:3: score "1e400": want a finite number`},
		{"word", "0.5\nx\n3\n0\n1\n", `sc:2: score "x": want a finite number (the first line has one score a line)`},
		{"plain-then-indexed", "0.5\n0 ||| 1 ||| 2\n", `sc:2: score "0 ||| 1 ||| 2"`},
		{"indexed-then-plain", "0 ||| 0 ||| 0.5\n1\n", "sc:2: 1 fields: want id ||| index ||| score"},
		{"indexed-bad-value", "0 ||| 0 ||| inf\n", `sc:1: score "inf"`},
		{"indexed-bad-id", "x ||| 0 ||| 1\n", `sc:1: id "x", index "0": want non-negative integers`},
		{"indexed-negative", "0 ||| -1 ||| 1\n", `sc:1: id "0", index "-1"`},
		{"indexed-no-sentence", "1 ||| 0 ||| 1\n", "sc:1: sentence 1: " + nb + " has no hypothesis of it"},
		{"indexed-no-index", "0 ||| 0 ||| 1\n0 ||| 2 ||| 1\n", "sc:2: sentence 0, index 2: " + nb + " has 2 hypotheses of it (indices 0 to 1)"},
		{"indexed-duplicate", "0 ||| 0 ||| 1\n\n0 ||| 0 ||| 1\n", "sc:3: sentence 0, index 0 again (first at line 1)"},
		{"indexed-missing", "0 ||| 0 ||| 0.5\n0 ||| 1 ||| -1.25\n2 ||| 0 ||| 3\n2 ||| 2 ||| 1e-3\n", "sc: no score for sentence 2, index 1 (" + nb + ":5)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := testfile.Write(t, dir, "sc", tc.text)
			e, err := ReadExternalScores(context.Background(), []string{nb}, []string{sc}, nbest.FormatAuto)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), strings.ReplaceAll(tc.err, "sc:", sc+":")) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Sentences() != 3 {
				t.Errorf("%d sentences, want 3", e.Sentences())
			}
			for line := 0; line <= 7; line++ {
				x, err := e.Score(nb, line)
				if w, ok := want[line]; ok != (err == nil) || x != w {
					t.Errorf("line %d: %v, %v; want %v (%v)", line, x, err, w, ok)
				}
			}
		})
	}
	if _, err := ReadExternalScores(context.Background(), []string{nb, nb}, []string{nb, nb}, nbest.FormatAuto); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("one n-best file twice: %v", err)
	}
	if _, err := ReadExternalScores(context.Background(), []string{nb}, nil, nbest.FormatAuto); err == nil || !strings.Contains(err.Error(), "0 score files for 1 n-best files") {
		t.Errorf("no score file: %v", err)
	}
}

// TestLoadExternalDuplicates pools two files that share a hypothesis
// (same target and features) with different scores: the pooled copy has
// the first file's score, and each other hypothesis its own.
func TestLoadExternalDuplicates(t *testing.T) {
	dir := t.TempDir()
	w := testfile.Writer(t, dir)
	nb1 := w("nb1", "0 ||| a ||| d= 1\n0 ||| b ||| d= 2\n1 ||| c ||| d= 1\n")
	nb2 := w("nb2", "0 ||| x ||| d= 5\n0 ||| b ||| d= 2\n1 ||| c ||| d= 2\n")
	sc1, sc2 := w("sc1", "0.1\n0.2\n0.3\n"), w("sc2", "0 ||| 0 ||| 0.4\n0 ||| 1 ||| 0.9\n1 ||| 0 ||| 0.6\n")
	ctx := context.Background()
	sc, err := ExternalScorer(ctx, []string{nb1, nb2}, []string{sc1, sc2}, nbest.FormatAuto, metric.External{Label: "COMET"})
	if err != nil {
		t.Fatal(err)
	}
	lists, _, err := Load(ctx, []string{nb1, nb2}, feature.NewIndex(), sc, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]float64
	for _, l := range lists {
		var xs []float64
		for _, h := range l.Hyps {
			xs = append(xs, h.StatsValues()...)
		}
		got = append(got, xs)
	}
	// Sentence 0: a, b (0.2 from nb1, not nb2's 0.9), x; sentence 1: c with d 1 and d 2.
	want := [][]float64{{0.1, 1, 0.2, 1, 0.4, 1}, {0.3, 1, 0.6, 1}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("statistics %v, want %v", got, want)
	}
	if _, err := sc.Stats(0, "a"); err == nil {
		t.Error("Stats of an external scorer: no error")
	}
	// Extract writes the scores as SCORESTAT, named after the label.
	if _, err := Extract(ctx, []string{nb1, nb2}, sc, w("f", ""), w("s", ""), Options{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "s"))
	if s := string(b); err != nil || !strings.Contains(s, "SCORES_TXT_BEGIN_0 0 3 2 COMET") || !strings.Contains(s, "0.2 1 \n") {
		t.Errorf("scores.dat:\n%s", s)
	}
}

// FuzzScores parses arbitrary score files for externalNbest's five
// hypotheses: no panic; a file read without error gives every hypothesis
// a finite score, and writing them in either format reads them back.
func FuzzScores(f *testing.F) {
	for _, s := range []string{"0.5\n-1.25\n3\n0\n1e-3\n", "0 ||| 0 ||| 0.5\n0 ||| 1 ||| -1.25\n2 ||| 0 ||| 3\n2 ||| 1 ||| 0\n2 ||| 2 ||| 1\n",
		"\n\n1\n2\n", "0|||0|||1", "2 ||| 2 ||| 1\n2 ||| 2 ||| 1\n", "0x1p-2\n1_0\n.5\n-0\n1e308\n"} {
		f.Add(s)
	}
	hyps := []nbestLine{{0, 0, 1}, {0, 1, 2}, {2, 0, 4}, {2, 1, 5}, {2, 2, 6}}
	f.Fuzz(func(t *testing.T, text string) {
		scores, err := parseScores(strings.NewReader(text), "fuzz", "nb", hyps)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "poolfile: fuzz") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		if len(scores) != len(hyps) {
			t.Fatalf("%d scores", len(scores))
		}
		var plain, indexed strings.Builder
		for k, x := range scores {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("score %v", x)
			}
			fmt.Fprintf(&plain, "%v\n", x)
			fmt.Fprintf(&indexed, "%d ||| %d ||| %v\n", hyps[k].sent, hyps[k].index, x)
		}
		for _, s := range []string{plain.String(), indexed.String()} {
			again, err := parseScores(strings.NewReader(s), "again", "nb", hyps)
			if err != nil || !slices.Equal(again, scores) {
				t.Fatalf("%q read back as %v, %v; want %v", s, again, err, scores)
			}
		}
	})
}
