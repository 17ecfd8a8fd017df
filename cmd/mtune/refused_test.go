package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// refusal is a command line that mtune must refuse as bad usage, exit 2,
// with want in its stderr. An empty name stands for the command line.
type refusal struct {
	name string
	args []string
	want string
}

// checkRefused runs each case's command line as a subtest and checks that
// mtune refuses it with exit 2 and the case's want in its stderr.
func checkRefused(t *testing.T, cases []refusal) {
	t.Helper()
	for _, tc := range cases {
		name := tc.name
		if name == "" {
			name = strings.Join(tc.args, " ")
		}
		t.Run(name, func(t *testing.T) {
			code, _, errOut := mtune(t, "", tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errOut, tc.want)
			}
		})
	}
}

// withArgs returns a new command line: base followed by more.
func withArgs(base []string, more ...string) []string {
	return append(append([]string(nil), base...), more...)
}

// TestTuneNbestNoiseFlags: bad feature-noising flags of tune-nbest are
// refused as bad options (exit 2) before any list is read.
func TestTuneNbestNoiseFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	base := []string{"tune-nbest", "--nbest", "x", "-r", "y", "--out", out}
	checkRefused(t, []refusal{
		{"dropout of 1", withArgs(base, "--algo", "adagrad", "--noise", "1"), "[0, 1)"},
		{"negative σ", withArgs(base, "--algo", "adagrad", "--noise-type", "gaussian", "--noise", "-0.5"), "finite number ≥ 0"},
		{"infinite σ", withArgs(base, "--algo", "adagrad", "--noise-type", "gaussian", "--noise", "+Inf"), "finite number ≥ 0"},
		{"unknown noise type", withArgs(base, "--algo", "adagrad", "--noise-type", "salt", "--noise", "0.1"), "choose dropout or gaussian"},
		{"noise type without noise", withArgs(base, "--algo", "adagrad", "--noise-type", "dropout"), "--noise-type dropout needs --noise"},
		{"unlabelled without noise", withArgs(base, "--algo", "adagrad", "--noise-unlabeled", "4"), "--noise-unlabeled 4 needs --noise"},
		{"zero unlabelled", withArgs(base, "--algo", "adagrad", "--noise", "0.1", "--noise-unlabeled", "0"), "--noise-unlabeled 0: must be positive"},
		{"negative unlabelled", withArgs(base, "--algo", "sgd", "--noise", "0.1", "--noise-unlabeled", "-1"), "--noise-unlabeled -1"},
		{"gaussian noise on mert", withArgs(base, "--noise-type", "gaussian", "--noise", "0.5"), "adagrad and sgd, not mert"},
		{"gaussian noise on the hinge", withArgs(base, "--algo", "adagrad", "--loss", "hinge", "--noise-type", "gaussian", "--noise", "0.5"), "not the hinge"},
	})
}
