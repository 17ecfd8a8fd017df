package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// TestTypedZeroRefused: a zero or negative count typed on the command line
// is refused before any work, in every command, rather than read as the
// default.
func TestTypedZeroRefused(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	checkRefused(t, []refusal{
		{"decode threads", []string{"decode", "--config", "x.ini", "--threads", "0"}, "--threads 0: must be positive"},
		{"decode n-best", []string{"decode", "--config", "x.ini", "--nbest", "-2"}, "--nbest -2"},
		{"extract threads", []string{"extract", "--nbest", "x", "-r", "y", "--out", out, "--threads", "0"}, "--threads 0"},
		{"build lm order", []string{"build", "--demo", "--out", out, "--lm-order", "0"}, "--lm-order 0"},
		{"build phrase length", []string{"build", "--demo", "--out", out, "--max-phrase", "-3"}, "--max-phrase -3"},
		{"build distortion limit", []string{"build", "--demo", "--out", out, "--distortion-limit", "0"}, "monotone"},
		{"tune-nbest restarts", []string{"tune-nbest", "--nbest", "x", "-r", "y", "--out", out, "--restarts", "-5"}, "--restarts -5"},
		{"tune-nbest rate", []string{"tune-nbest", "--algo", "adagrad", "--nbest", "x", "-r", "y", "--out", out, "--rate", "0"}, "--rate 0"},
		{"tune-nbest rate for mert", []string{"tune-nbest", "--nbest", "x", "-r", "y", "--out", out, "--rate", "0.1"}, "--rate applies"},
		{"tune-nbest passes for pro", []string{"tune-nbest", "--algo", "pro", "--nbest", "x", "-r", "y", "--out", out, "--passes", "3"}, "--passes applies to kbmira"},
	})
}

// TestDecodeAllCores: decode runs on every core unless --threads says
// otherwise (it ran on one).
func TestDecodeAllCores(t *testing.T) {
	dir := shared.Path(t, "moses-models", "lexicalized-reordering-fr-en")
	t.Setenv("MODEL_PATH", dir)
	code, _, errOut := mtune(t, "", "decode", "--config", filepath.Join(dir, "moses.ini"), filepath.Join(dir, "to-translate.txt"))
	if code != 0 {
		t.Fatalf("decode: exit %d: %s", code, errOut)
	}
	if want := fmt.Sprintf("threads=%d", runtime.NumCPU()); !strings.Contains(errOut, want) {
		t.Errorf("stderr %q does not say %s", errOut, want)
	}
}
