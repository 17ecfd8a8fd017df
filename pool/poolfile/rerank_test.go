package poolfile

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/testsupport/testfile"
)

// rerankOut runs RerankTo on paths with the weights text and returns the
// 1-best lines.
func rerankOut(t *testing.T, paths []string, weightsText string, o RerankOptions) (string, RerankResult, error) {
	t.Helper()
	idx := feature.NewIndex()
	set, err := weights.ReadMoses(strings.NewReader(weightsText), idx)
	if err != nil {
		t.Fatal(err)
	}
	o.Weights, o.WeightsPath = set, "w"
	var out bytes.Buffer
	res, err := RerankTo(context.Background(), paths, idx, o, &out)
	return out.String(), res, err
}

// TestRerankOutNbest writes the re-scored lists of a Moses, a Marian and a
// fairseq list with an added feature: every hypothesis, best first, with
// its features (the added one too) and the new total w·φ; the written
// list reads back with those totals (in the input's format for Moses and
// Marian, as a Moses list for fairseq), and re-ranking it with the same
// weights, without the feature file, gives the same 1-best.
func TestRerankOutNbest(t *testing.T) {
	w := testfile.Writer(t, t.TempDir())
	for _, tc := range []struct {
		name, list, weights string
		written             nbest.Format
		firstLine, another  string
	}{
		{"moses", "0 ||| a b ||| LM0= -1 TM0= -2 0 pp_a~b= 1 ||| -3 ||| 0-0 1-1\n0 ||| a ||| LM0= -3 TM0= 0 -1 ||| -4\n1 ||| c ||| LM0= -2 TM0= -1 0 ||| -3\n",
			"LM0= 1\nTM0= 0.5 0.5\nrev= 1\n", nbest.FormatMoses, "0 ||| a ||| LM0= -3 TM0= 0 -1 rev= 5 ||| 1.5\n",
			"\n0 ||| a b ||| LM0= -1 TM0= -2 0 rev= 1 pp_a~b= 1 ||| -1 ||| 0-0 1-1\n"},
		{"marian", "1 ||| a b ||| 0-0 1-1 ||| WordScores= -1 -2 ||| F0= -1 ||| -0.5\n1 ||| a ||| 0-0 ||| F0= -3 ||| -1.5\n2 ||| c ||| 0-0 ||| F0= -2 ||| -1\n",
			"F0= 1\nrev= 1\n", nbest.FormatMarian, "0 ||| a ||| 0-0 ||| F0= -3 rev= 5 ||| 2\n",
			"\n0 ||| a b ||| 0-0 1-1 ||| F0= -1 rev= 1 ||| 0\n"},
		{"fairseq", formatLists[1].list, "fairseq= 1\nrev= 1\n", nbest.FormatMoses, "0 ||| a ||| fairseq= -3 rev= 5 ||| 2\n",
			"\n1 ||| c ||| fairseq= -2 rev= 0.5 ||| -1.5\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb := w(tc.name, tc.list)
			rev := "1\n5\n0.5\n"
			if tc.name == "fairseq" { // its H- lines: sentence 1's first
				rev = "0.5\n1\n5\n"
			}
			out := w(tc.name+".out.gz", "")
			best, res, err := rerankOut(t, []string{nb}, tc.weights, RerankOptions{
				Options: Options{Features: []FeatureFile{{"rev", []string{w("rev", rev)}}}}, Nbest: out})
			if err != nil {
				t.Fatal(err)
			}
			if best != "a\nc\n" || res.Sentences != 2 || res.Missing != 0 {
				t.Errorf("1-best %q, %+v; want a, c", best, res)
			}
			text := string(testfile.GunzipFile(t, out))
			if !strings.HasPrefix(text, tc.firstLine) || !strings.Contains(text, tc.another) {
				t.Errorf("written list:\n%s\nwant it to start with %q and hold %q", text, tc.firstLine, tc.another)
			}
			idx := feature.NewIndex()
			set, err := weights.ReadMoses(strings.NewReader(tc.weights), idx)
			if err != nil {
				t.Fatal(err)
			}
			var n int
			_, err = Walk(context.Background(), []string{out}, Options{Format: tc.written}, idx, 0, func(sent int, hyps []nbest.Hypothesis) error {
				for k, h := range hyps {
					n++
					if s := h.Features.Dot(set.Weights); !h.HasScore || math.Abs(h.Score-s) > 1e-12 {
						t.Errorf("%s: total %v, w·φ = %v", h.Pos(), h.Score, s)
					}
					if k > 0 && h.Score > hyps[k-1].Score {
						t.Errorf("%s: not best first", h.Pos())
					}
				}
				return nil
			})
			if err != nil || n != 3 {
				t.Fatalf("reading %s back: %d hypotheses, %v", out, n, err)
			}
			again, _, err := rerankOut(t, []string{out}, tc.weights, RerankOptions{})
			if err != nil || again != best {
				t.Errorf("re-ranking the written list: %q, %v; want %q", again, err, best)
			}
		})
	}
}

// TestRerankDetok prints fairseq's D- text with Detok and refuses lists
// without one.
func TestRerankDetok(t *testing.T) {
	w := testfile.Writer(t, t.TempDir())
	fq := w("fairseq", formatLists[1].list)
	for _, tc := range []struct {
		weights string
		detok   bool
		want    string
	}{
		{"fairseq= 1\n", false, "a b\nc\n"},
		{"fairseq= 1\n", true, "A b\nC\n"},
		{"fairseq= -1\n", true, "A\nC\n"},
	} {
		got, _, err := rerankOut(t, []string{fq}, tc.weights, RerankOptions{Detok: tc.detok})
		if err != nil || got != tc.want {
			t.Errorf("%q, detok %v: %q, %v; want %q", tc.weights, tc.detok, got, err, tc.want)
		}
	}
	moses := w("moses", "0 ||| a ||| LM0= -1 ||| -1\n")
	_, _, err := rerankOut(t, []string{moses}, "LM0= 1\n", RerankOptions{Detok: true})
	if err == nil || !strings.Contains(err.Error(), moses+": a moses list has no detokenized text for --detok") {
		t.Errorf("detok on a Moses list: %v", err)
	}
	noD := w("noD", "H-0\t-1\ta b\nD-0\t-1\tA b\nH-0\t-2\tc\n")
	_, _, err = rerankOut(t, []string{noD}, "fairseq= -1\n", RerankOptions{Detok: true})
	if err == nil || !strings.Contains(err.Error(), noD+":3: no detokenized text (D- line)") {
		t.Errorf("a hypothesis without its D- line: %v", err)
	}
}

// TestRerankMissing: with references, a sentence the lists lack is an
// empty line, counted, and the lines stay aligned with the references;
// without them a gap is an error that says to give them.
func TestRerankMissing(t *testing.T) {
	w := testfile.Writer(t, t.TempDir())
	nb := w("nb", "1 ||| b ||| LM0= -1 ||| -1\n3 ||| d ||| LM0= -1 ||| -1\n")
	sc := loadScorer(t, w("ref", "a\nb\nc\nd\ne\n"))
	got, res, err := rerankOut(t, []string{nb}, "LM0= 1\n", RerankOptions{Scorer: sc})
	if err != nil || got != "\nb\n\nd\n\n" || res.Missing != 3 || res.Sentences != 5 {
		t.Errorf("%q, %+v, %v", got, res, err)
	}
	if _, _, err := rerankOut(t, []string{nb}, "LM0= 1\n", RerankOptions{}); err == nil || !strings.Contains(err.Error(), "give the references with -r") {
		t.Errorf("without references: %v", err)
	}
}
