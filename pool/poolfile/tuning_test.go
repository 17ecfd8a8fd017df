package poolfile

import (
	"context"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/testfile"
)

// TestLoadTuning: the pool and its starting weights, from a weights file
// or 1/N on every dense feature; weights that name no feature of the
// lists, and lists without a hypothesis, are refused.
func TestLoadTuning(t *testing.T) {
	ctx := context.Background()
	write := testfile.Writer(t, t.TempDir())
	sc := loadScorer(t, write("ref", "a b\nc d\n"))
	nb := write("nb", "0 ||| a b ||| LM0= -1 TM0= 0 -2 ||| 0\n0 ||| a x ||| LM0= -3 TM0= 0 -1 ||| 0\n1 ||| c d ||| LM0= -2 TM0= -1 0 pp_c 1 ||| 0\n")
	for _, tc := range []struct {
		name, init string
		want       map[string]float64 // starting weights; nil: an error
		err        string
	}{
		{"1/N", "", map[string]float64{"LM0_0": 1.0 / 3, "TM0_0": 1.0 / 3, "TM0_1": 1.0 / 3, "pp_c": 0}, ""},
		{"init file", write("init", "LM0= 0.5\nTM0= 0.25 -0.25\n"), map[string]float64{"LM0_0": 0.5, "TM0_1": -0.25}, ""},
		{"init and sparse", write("init.json", `{"version":1,"dense":[{"label":"LM0","values":[1]}],"sparse":{"pp_c":0.5}}`), map[string]float64{"LM0_0": 1, "pp_c": 0.5}, ""},
		{"no shared feature", write("other", "WordPenalty0= 1\n"), nil, "no feature of the weights"},
		{"bad init", write("bad", "LM0= x\n"), nil, "bad:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LoadTuning(ctx, []string{nb}, tc.init, sc, Options{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Lists) != 2 || len(got.Lists[0].Hyps) != 2 || len(got.Weights) != got.Index.Len() {
				t.Fatalf("%d lists, weights over %d of %d features", len(got.Lists), len(got.Weights), got.Index.Len())
			}
			if len(got.Set.Groups) != 2 {
				t.Errorf("groups %v, want the lists' LM0 and TM0", got.Set.Groups)
			}
			for name, want := range tc.want {
				if x := got.Weights.At(got.Index.ID(name)); x != want {
					t.Errorf("%s = %v, want %v", name, x, want)
				}
			}
		})
	}
	if _, err := LoadTuning(ctx, []string{write("empty", "")}, "", sc, Options{}); err == nil || !strings.Contains(err.Error(), "hold no hypotheses") {
		t.Errorf("empty lists: %v", err)
	}
}
