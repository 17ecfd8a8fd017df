package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// TestWeightsMatchList checks rerank --weights and tune-nbest --init
// against the features of europarl100's lists (old labels d, lm, tm, w):
// weights for none of them are an error (every hypothesis would score 0),
// weights for some of them a warning naming the others.
func TestWeightsMatchList(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	list, ref := filepath.Join(dir, "nbest.gz"), filepath.Join(dir, "reference")
	init, err := os.ReadFile(filepath.Join(dir, "init.weights"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cases := []struct {
		name    string
		weights string
		fail    bool   // exit status non-zero
		want    string // in stderr
	}{
		{"current Moses labels", "LM0= 0.5\nWordPenalty0= -1\n", true, "(weights for LM0_0 WordPenalty0_0)"},
		{"sparse names", "pp_a~b 1\nOOVPenalty 1\n", true, "(weights for OOVPenalty pp_a~b)"},
		{"some match", string(init) + "LM0= 0.5\nd= 1\n", false, "names=\"LM0_0 d_7\""},
		{"all match, d_0 always zero in the lists", string(init), false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := filepath.Join(tmp, strings.ReplaceAll(tc.name, " ", "-")+".weights")
			if err := os.WriteFile(w, []byte(tc.weights), 0o666); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"rerank", "--weights", w, "--nbest", list, "-r", ref},
				{"tune-nbest", "--algo", "kbmira", "--passes", "2", "--init", w, "--nbest", list, "-r", ref, "--out", t.TempDir()},
			} {
				code, _, errOut := mtune(t, "", args...)
				if (code != 0) != tc.fail || !strings.Contains(errOut, tc.want) {
					t.Errorf("%s: exit %d, stderr %q; want failure %v and %q", args[0], code, errOut, tc.fail, tc.want)
				}
				if tc.want == "" && strings.Contains(errOut, "WARN") {
					t.Errorf("%s: warning %q", args[0], errOut)
				}
			}
		})
	}
}
