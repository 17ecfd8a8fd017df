package main

import (
	"path/filepath"
	"strings"
	"testing"
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
