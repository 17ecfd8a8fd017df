package poolfile

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/testsupport/testfile"
)

// The same two-sentence pool (sentence 0: "a b", "a"; sentence 1: "c") in
// the formats of neural systems.
var formatLists = []struct {
	format nbest.Format
	list   string
	feat   string // the feature the lists give the model's score
}{
	{nbest.FormatMarian, "1 ||| a b ||| 0-0 1-1 ||| F0= -1 ||| -0.5\n1 ||| a ||| 0-0 ||| F0= -3 ||| -1.5\n2 ||| c ||| 0-0 ||| F0= -2 ||| -1\n", "F0_0"},
	// fairseq-generate's order: sentence 1 first.
	{nbest.FormatFairseq, "S-1\tx\nH-1\t-2\tc\nD-1\t-2\tC\nS-0\ty\nH-0\t-1\ta b\nD-0\t-1\tA b\nH-0\t-3\ta\nD-0\t-3\tA\n", "fairseq_0"},
	{nbest.FormatSockeye, `{"scores": [[-1], [-3]], "sentence_id": 1, "translations": ["a b", "a"]}` + "\n" +
		`{"score": -2, "sentence_id": 2, "translation": "c"}` + "\n", "sockeye_0"},
}

// TestLoadFormats pools each list, named and detected, against two
// references: the sentences are 0 and 1 whatever ids the list uses, each
// hypothesis with the list's score as its feature; Rerank picks the best
// of each sentence.
func TestLoadFormats(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sc := loadScorer(t, testfile.Write(t, dir, "ref", "a b\nc\n"))
	for _, tc := range formatLists {
		for _, f := range []nbest.Format{tc.format, nbest.FormatAuto} {
			t.Run(tc.format.String()+"/"+f.String(), func(t *testing.T) {
				nb := testfile.Write(t, dir, tc.format.String(), tc.list)
				idx := feature.NewIndex()
				lists, groups, err := Load(ctx, []string{nb}, idx, sc, Options{Format: f})
				if err != nil {
					t.Fatal(err)
				}
				label, _, _ := feature.SplitDenseName(tc.feat)
				if !slices.Equal(groups, []feature.Group{{Label: label, Len: 1}}) {
					t.Errorf("groups %v", groups)
				}
				if len(lists) != 2 || lists[0].Sent != 0 || lists[1].Sent != 1 || len(lists[0].Hyps) != 2 || len(lists[1].Hyps) != 1 {
					t.Fatalf("pool %+v", lists)
				}
				id, _ := idx.Lookup(tc.feat)
				for k, want := range []float64{-1, -3} {
					v := lists[0].Hyps[k].Features
					if !slices.Equal(v.IDs, []feature.ID{id}) || v.Vals[0] != want {
						t.Errorf("sentence 0, hypothesis %d: %+v, want %s = %v", k, v, tc.feat, want)
					}
				}
				w := feature.Weights{}
				w.Grow(idx.Len())
				w[id] = 1
				var best []string
				_, err = Rerank(ctx, []string{nb}, Options{Format: f}, idx, 2, w, "w", func(sent int, h nbest.Hypothesis) error {
					best = append(best, h.Target)
					return nil
				})
				if err != nil || !slices.Equal(best, []string{"a b", "c"}) {
					t.Errorf("Rerank: %v, %v", best, err)
				}
			})
		}
	}
}

// TestFormatRefused reads a list in a format it is not in: an error at
// its first line.
func TestFormatRefused(t *testing.T) {
	dir := t.TempDir()
	nb := testfile.Write(t, dir, "marian", formatLists[0].list)
	_, err := Walk(context.Background(), []string{nb}, Options{Format: nbest.FormatMoses}, feature.NewIndex(), 0, func(int, []nbest.Hypothesis) error { return nil })
	var pe *nbest.ParseError
	if !errors.As(err, &pe) || pe.File != nb || pe.Line != 1 || pe.Column == 0 {
		t.Fatalf("error %v, want one at %s:1:col", err, nb)
	}
	nb = testfile.Write(t, dir, "moses", "0 ||| a ||| LM0= -1 ||| -1\n")
	_, err = Walk(context.Background(), []string{nb}, Options{Format: nbest.FormatFairseq}, feature.NewIndex(), 0, func(int, []nbest.Hypothesis) error { return nil })
	if !errors.Is(err, nbest.ErrNoHypothesis) || !strings.Contains(err.Error(), nb+":1:") {
		t.Fatalf("error %v", err)
	}
}

// TestExternalScoresFormats gives the hypotheses of the fairseq list
// scores in its line order (the H- lines'), and refuses Sockeye's lines
// of several hypotheses.
func TestExternalScoresFormats(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	nb := testfile.Write(t, dir, "fairseq", formatLists[1].list)
	sc := testfile.Write(t, dir, "scores", "0.1\n0.2\n0.3\n")
	e, err := ReadExternalScores(ctx, []string{nb}, []string{sc}, nbest.FormatFairseq)
	if err != nil {
		t.Fatal(err)
	}
	for line, want := range map[int]float64{2: 0.1, 5: 0.2, 7: 0.3} {
		if got, err := e.Score(nb, line); err != nil || got != want {
			t.Errorf("line %d: %v, %v; want %v", line, got, err, want)
		}
	}
	indexed := testfile.Write(t, dir, "indexed", "0 ||| 1 ||| 0.3\n1 ||| 0 ||| 0.1\n0 ||| 0 ||| 0.2\n")
	if e, err = ReadExternalScores(ctx, []string{nb}, []string{indexed}, nbest.FormatAuto); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.Score(nb, 7); got != 0.3 {
		t.Errorf("indexed: line 7 scores %v, want 0.3", got)
	}
	sock := testfile.Write(t, dir, "sockeye", formatLists[2].list)
	_, err = ReadExternalScores(ctx, []string{sock}, []string{sc}, nbest.FormatAuto)
	if err == nil || !strings.Contains(err.Error(), sock+":1: several hypotheses on one line (Sockeye's lists)") {
		t.Fatalf("Sockeye: %v", err)
	}
}
