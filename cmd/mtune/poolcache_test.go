package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// TestTuneNbestPoolCache: tune-nbest with --pool-cache writes the cache,
// then reads it, and both runs write the weights a run without it writes
// (kb-MIRA and MERT on europarl100).
func TestTuneNbestPoolCache(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	cache := filepath.Join(t.TempDir(), "pool.cache")
	run := func(algo string, args ...string) (weights []byte, errOut string) {
		t.Helper()
		out := t.TempDir()
		code, _, errOut := mtune(t, "", append([]string{"tune-nbest", "--algo", algo,
			"--init", filepath.Join(dir, "init.weights"), "--nbest", filepath.Join(dir, "nbest.gz"),
			"-r", filepath.Join(dir, "reference"), "--out", out}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		w, err := os.ReadFile(filepath.Join(out, "best", "weights.json"))
		if err != nil {
			t.Fatal(err)
		}
		return w, errOut
	}
	for _, algo := range []string{"kbmira", "mert"} {
		want, _ := run(algo)
		for _, note := range []string{"pool cache: wrote", "pool cache: read"} {
			if algo == "mert" && note == "pool cache: wrote" {
				note = "pool cache: read" // kb-MIRA's run wrote it
			}
			got, errOut := run(algo, "--pool-cache", cache)
			if !strings.Contains(errOut, note) {
				t.Errorf("%s: no %q in %q", algo, note, errOut)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s with %s: weights %s, want %s", algo, note, got, want)
			}
		}
	}
}
