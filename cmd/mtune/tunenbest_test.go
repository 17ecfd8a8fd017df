package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// TestTuneNbestNoiseFlags: bad feature-noising flags of tune-nbest are
// refused as bad options (exit 2) before any list is read.
func TestTuneNbestNoiseFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	base := []string{"tune-nbest", "--nbest", "x", "-r", "y", "--out", out}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"dropout of 1", []string{"--algo", "adagrad", "--noise", "1"}, "[0, 1)"},
		{"negative σ", []string{"--algo", "adagrad", "--noise-type", "gaussian", "--noise", "-0.5"}, "finite number ≥ 0"},
		{"infinite σ", []string{"--algo", "adagrad", "--noise-type", "gaussian", "--noise", "+Inf"}, "finite number ≥ 0"},
		{"unknown noise type", []string{"--algo", "adagrad", "--noise-type", "salt", "--noise", "0.1"}, "choose dropout or gaussian"},
		{"noise type without noise", []string{"--algo", "adagrad", "--noise-type", "dropout"}, "--noise-type dropout needs --noise"},
		{"unlabelled without noise", []string{"--algo", "adagrad", "--noise-unlabeled", "4"}, "--noise-unlabeled 4 needs --noise"},
		{"zero unlabelled", []string{"--algo", "adagrad", "--noise", "0.1", "--noise-unlabeled", "0"}, "--noise-unlabeled 0: must be positive"},
		{"negative unlabelled", []string{"--algo", "sgd", "--noise", "0.1", "--noise-unlabeled", "-1"}, "--noise-unlabeled -1"},
		{"gaussian noise on mert", []string{"--noise-type", "gaussian", "--noise", "0.5"}, "adagrad and sgd, not mert"},
		{"gaussian noise on the hinge", []string{"--algo", "adagrad", "--loss", "hinge", "--noise-type", "gaussian", "--noise", "0.5"}, "not the hinge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := mtune(t, "", append(base, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errOut, tc.want)
			}
		})
	}
}

// TestTuneNbestGaussianNoise tunes europarl100 with AdaGrad and Gaussian
// feature noising estimated on labelled and unlabelled pairs: the BLEU
// printed last reaches PRO's 13.35 and the weights written re-rank the
// lists to it.
func TestTuneNbestGaussianNoise(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	out := t.TempDir()
	code, stdout, errOut := mtune(t, "", "tune-nbest", "--algo", "adagrad", "--epochs", "3",
		"--noise-type", "gaussian", "--noise", "1", "--noise-unlabeled", "5",
		"--init", filepath.Join(dir, "init.weights"), "--nbest", filepath.Join(dir, "nbest.gz"),
		"-r", filepath.Join(dir, "reference"), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	last := lines[len(lines)-1]
	var bleu float64
	if _, err := fmt.Sscanf(last, "BLEU = %f,", &bleu); err != nil {
		t.Fatalf("last line %q is not a BLEU line", last)
	}
	if bleu < 13.35 {
		t.Fatalf("BLEU %.2f, want at least 13.35", bleu)
	}
	code, _, rerankErr := mtune(t, "", "rerank", "--weights", filepath.Join(out, "weights"),
		"--nbest", filepath.Join(dir, "nbest.gz"), "-r", filepath.Join(dir, "reference"))
	if code != 0 || strings.TrimSpace(rerankErr) != last {
		t.Fatalf("rerank: exit %d, %q; tune-nbest printed %q", code, rerankErr, last)
	}
}
