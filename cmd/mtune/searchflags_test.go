package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// TestBatchSearchFlagsBad: --random-directions, --restart-range, --mira-c,
// --mira-decay (and tune's --restarts) with a bad value, or for a learner
// that does not use them, are refused with exit 2 before any work.
func TestBatchSearchFlagsBad(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	nb := []string{"tune-nbest", "--nbest", "x", "-r", "y", "--out", out}
	tn := []string{"tune", "--out", out, "--mode", "batch"}
	checkRefused(t, []refusal{
		{"zero random directions", withArgs(nb, "--random-directions", "0"), `"0"`},
		{"negative random directions", withArgs(nb, "--random-directions", "-2"), `"-2"`},
		{"fractional random directions", withArgs(nb, "--random-directions", "1.5"), `"1.5"`},
		{"random directions for kbmira", withArgs(nb, "--algo", "kbmira", "--random-directions", "3"), "--random-directions applies to mert"},
		{"range without comma", withArgs(nb, "--restart-range", "1"), "MIN,MAX"},
		{"range reversed", withArgs(nb, "--restart-range", "1,0"), "less than"},
		{"range empty", withArgs(nb, "--restart-range", "0.5,0.5"), "less than"},
		{"range not a number", withArgs(nb, "--restart-range", "a,1"), "finite"},
		{"range infinite", withArgs(nb, "--restart-range", "0,Inf"), "finite"},
		{"range NaN", withArgs(nb, "--restart-range", "NaN,1"), "finite"},
		{"range for pro", withArgs(nb, "--algo", "pro", "--restart-range", "-1,1"), "--restart-range applies to mert"},
		{"zero C", withArgs(nb, "--algo", "kbmira", "--mira-c", "0"), `"0"`},
		{"negative C", withArgs(nb, "--algo", "kbmira", "--mira-c", "-1"), `"-1"`},
		{"C not a number", withArgs(nb, "--algo", "kbmira", "--mira-c", "x"), `"x"`},
		{"C for mert", withArgs(nb, "--mira-c", "0.1"), "--mira-c applies to kbmira"},
		{"zero decay", withArgs(nb, "--algo", "kbmira", "--mira-decay", "0"), "(0, 1]"},
		{"decay above 1", withArgs(nb, "--algo", "kbmira", "--mira-decay", "1.01"), "(0, 1]"},
		{"decay for online mira", withArgs(nb, "--algo", "mira", "--mira-decay", "0.9"), "--mira-decay applies to kbmira"},
		{"tune zero restarts", withArgs(tn, "--restarts", "0"), `"0"`},
		{"tune restarts for kbmira", withArgs(tn, "--algo", "kbmira", "--restarts", "5"), "--restarts applies to mert"},
		{"tune restarts in ipm mode", []string{"tune", "--out", out, "--restarts", "5"}, "--restarts applies to mert"},
		{"tune bad range", withArgs(tn, "--restart-range", "2,1"), "less than"},
		{"tune random directions for kbmira", withArgs(tn, "--algo", "kbmira", "--random-directions", "2"), "--random-directions applies to mert"},
		{"tune C for mert", withArgs(tn, "--mira-c", "0.1"), "--mira-c applies to kbmira"},
		{"tune bad decay", withArgs(tn, "--algo", "kbmira", "--mira-decay", "2"), "(0, 1]"},
	})
}

// TestBatchSearchFlagsTuneNbest runs tune-nbest on europarl100 with each
// flag given a good value: it runs, and the setting changes the result
// (the weights differ from those of the defaults).
func TestBatchSearchFlagsTuneNbest(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	run := func(args ...string) string {
		t.Helper()
		out := t.TempDir()
		args = append([]string{"tune-nbest", "--init", filepath.Join(dir, "init.weights"), "--nbest", filepath.Join(dir, "nbest.gz"),
			"-r", filepath.Join(dir, "reference"), "--out", out}, args...)
		code, _, errOut := mtune(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		b, err := os.ReadFile(filepath.Join(out, "weights.json"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct {
		name       string
		base, args []string
	}{
		{"random directions", []string{"--restarts", "2"}, []string{"--restarts", "2", "--random-directions", "3"}},
		{"restart range", nil, []string{"--restart-range", "-1,1"}},
		{"mira C", []string{"--algo", "kbmira", "--passes", "3"}, []string{"--algo", "kbmira", "--passes", "3", "--mira-c", "0.001"}},
		{"mira decay", []string{"--algo", "kbmira", "--passes", "3"}, []string{"--algo", "kbmira", "--passes", "3", "--mira-decay", "0.5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if run(tc.base...) == run(tc.args...) {
				t.Errorf("%v gives the weights of %v", tc.args, tc.base)
			}
		})
	}
}
