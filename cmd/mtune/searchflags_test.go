package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

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
		b, err := os.ReadFile(filepath.Join(out, "best", "weights.json"))
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
