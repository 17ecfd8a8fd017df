package poolfile

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/testsupport/testfile"
)

// TestRerankAndCheckWeights reranks two sentences' lists, checks weights
// that share features with the lists, none, or some, and refuses a score
// that overflows.
func TestRerankAndCheckWeights(t *testing.T) {
	ctx := context.Background()
	write := testfile.Writer(t, t.TempDir())
	nb := write("nb", "0 ||| a ||| LM0= -1 d= 0 ||| 0\n0 ||| b ||| LM0= -3 d= 0 ||| 0\n1 ||| c ||| LM0= -2 d= 0 ||| 0\n1 ||| e ||| LM0= -1 d= 0 ||| 0\n")
	idx := feature.NewIndex()
	read := func(text string) *weights.Set {
		set, err := weights.ReadMoses(strings.NewReader(text), idx)
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	set := read("LM0= -1\n")
	var got []string
	f, err := Rerank(ctx, []string{nb}, Options{}, idx, 0, set.Weights, "w", func(sent int, best nbest.Hypothesis) error {
		got = append(got, best.Target)
		return nil
	})
	if err != nil || !slices.Equal(got, []string{"b", "c"}) {
		t.Fatalf("Rerank: %v, %v; want [b c]", got, err)
	}
	if err := CheckWeights("w", read("d= 1\n"), f, []string{nb}); err != nil {
		t.Errorf("the lists' zero dense feature d_0: %v", err)
	}
	if err := CheckWeights("w", read("LM0= 1\nTM0= 1\n"), f, []string{nb}); err != nil {
		t.Errorf("some features matching: %v, want a warning only", err)
	}
	if err := CheckWeights("w", read("TM0= 1 1\n"), f, []string{nb}); err == nil || !strings.Contains(err.Error(), "no feature of the weights in w") {
		t.Errorf("no feature matching: %v", err)
	}
	nb2 := write("nb2", "0 ||| a ||| TM0= -1 -2 LM0= -1 ||| 0\n0 ||| b ||| TM0= -2 -1 LM0= -1 ||| 0\n")
	f2, err := Rerank(ctx, []string{nb2}, Options{}, idx, 0, read("LM0= 1\n").Weights, "w", func(int, nbest.Hypothesis) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ text, err string }{
		{"# weights\nLM0= 1\n\nTM0= 0.5\n", "w:4: TM0 has 1 weights, but the n-best lists [" + nb2 + "] have 2 values of it: give it 2 weights"},
		{"[weight]\nLM0= 1 TM0= 0.5\n", "w:2: TM0 has 1 weights"},
		{"LM0= 1\nTM0= 0.5 0.5\n", ""},
		{"LM0= 1\nTM0= 0.5 0.5 0.5\n", ""}, // longer: a warning for TM0_2
	} {
		if err := CheckWeights("w", read(tc.text), f2, []string{nb2}); tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("weights %q: %v, want %q", tc.text, err, tc.err)
		}
	}
	empty := write("empty", "")
	fe, err := Rerank(ctx, []string{empty}, Options{}, idx, 0, read("LM0= 1\n").Weights, "w", func(int, nbest.Hypothesis) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckWeights("w", read("LM0= 1\n"), fe, []string{empty}); err == nil || !strings.Contains(err.Error(), "hold no hypothesis") {
		t.Errorf("an empty n-best file: %v, want \"hold no hypothesis\"", err)
	}
	huge := read("LM0= 1\n")
	huge.Weights.Set(idx.ID("LM0_0"), math.Inf(1))
	_, err = Rerank(ctx, []string{nb}, Options{}, idx, 0, huge.Weights, "w", func(int, nbest.Hypothesis) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "nb:1: the model score of this hypothesis under the weights of w is -Inf") {
		t.Errorf("infinite weight: %v", err)
	}
}
