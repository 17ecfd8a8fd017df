package main

import (
	"os"
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

// TestTuneMetricRefused: tune's and retrain's --metric is parsed before
// any work: an unknown metric, a bad weight and external scores (which
// score given n-best lists, not a decoder's new translations) exit 2
// without creating the output folder or the registry.
func TestTuneMetricRefused(t *testing.T) {
	dir := t.TempDir()
	out, reg := filepath.Join(dir, "out"), filepath.Join(dir, "registry")
	tuneArgs := []string{"tune", "--out", out}
	retrain := []string{"retrain", "--registry", reg}
	checkRefused(t, []refusal{
		{"unknown", withArgs(tuneArgs, "--metric", "blue"), `unknown metric "blue"`},
		{"bad weight", withArgs(tuneArgs, "--metric", "bleu:-1,ter:1"), "want a positive number"},
		{"external", withArgs(tuneArgs, "--metric", "external"), "not a decoder's new translations"},
		{"retrain external", withArgs(retrain, "--metric", "external"), "not a decoder's new translations"},
	})
	for _, p := range []string{out, reg} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
}
