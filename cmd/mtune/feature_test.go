package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/pool/poolfile"
	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/tune"
)

// TestFeatureRefused: --feature values that cannot be paired with the
// lists are refused before any work, and tune and retrain refuse
// --feature with the reason.
func TestFeatureRefused(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	checkRefused(t, []refusal{
		{"two lists, one file", []string{"rerank", "--weights", "w", "--nbest", "a", "b", "--feature", "rev=a.rev"}, "--feature rev: 1 score files for 2 n-best files"},
		{"no file", []string{"extract", "--nbest", "a", "-r", "r", "--out", out, "--feature", "rev"}, `--feature "rev": want NAME=FILE`},
		{"underscore", []string{"tune-nbest", "--nbest", "a", "-r", "r", "--out", out, "--feature", "rev_lm=x"}, `--feature feature name "rev_lm"`},
		{"tune", []string{"tune", "--feature", "rev=x", "--out", out}, poolfile.FeatureInTune},
		{"retrain", []string{"retrain", "--registry", out, "--feature", "rev=x"}, poolfile.FeatureInTune},
		{"tune points to --feature-command", []string{"tune", "--feature", "rev=x", "--out", out}, "--feature-command NAME=CMD"},
		{"command in ipm mode", []string{"tune", "--feature-command", "rev=awk 1", "--out", out}, tune.FeatureInBatchOnly},
		{"command in stale mode", []string{"tune", "--mode", "stale", "--feature-command", "rev=awk 1", "--out", out}, tune.FeatureInBatchOnly},
		{"command in retrain", []string{"retrain", "--registry", out, "--mode", "batch", "--feature-command", "rev=awk 1"}, "--feature-command: retrain's gate"},
		{"command without a name", []string{"tune", "--mode", "batch", "--feature-command", "awk 1", "--out", out}, `"awk 1": want NAME=COMMAND`},
		{"command with an underscore", []string{"tune", "--mode", "batch", "--feature-command", "rev_lm=awk 1", "--out", out}, `feature name "rev_lm"`},
		{"command badly quoted", []string{"tune", "--mode", "batch", "--feature-command", "rev=awk '1", "--out", out}, "unterminated '"},
	})
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused command made %s", out)
	}
}

// europarl100Lengths writes a score file of europarl100's hypotheses'
// lengths in bytes, one a line, and returns its path.
func europarl100Lengths(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.Open(shared.Path(t, "nbest", "europarl100", "nbest.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "|||")
		fmt.Fprintf(&b, "%d\n", len(strings.TrimSpace(fields[1])))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "len.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFeatureTuneNbestRerank adds a length feature to europarl100: MERT
// toward chrF tunes its weight (best/weights has a "len=" line, the
// manifest the score file), rerank with the tuned weights and the
// feature gives tune-nbest's chrF2, --out-nbest writes the re-scored list,
// which re-ranks to the same 1-best without the feature file; extract
// writes the feature into FEATURES_TXT.
func TestFeatureTuneNbestRerank(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	tmp := t.TempDir()
	nb, ref, init := filepath.Join(dir, "nbest.gz"), filepath.Join(dir, "reference"), filepath.Join(dir, "init.weights")
	lens := europarl100Lengths(t, tmp)
	run := filepath.Join(tmp, "run")
	code, stdout, errOut := mtune(t, "", "tune-nbest", "--algo", "mert", "--metric", "chrf", "--init", init, "--nbest", nb,
		"--feature", "len="+lens, "-r", ref, "--out", run)
	if code != 0 || !strings.Contains(errOut, "16 features; start: chrF2 = 37.54") {
		t.Fatalf("tune-nbest: exit %d: %s", code, errOut)
	}
	tuned := strings.TrimSpace(stdout)
	weights := filepath.Join(run, "best", "weights")
	for file, want := range map[string]string{weights: "\nlen= ", filepath.Join(run, "manifest.json"): `"role":"feature len"`} {
		if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: %v; want it to hold %q:\n%s", file, err, want, b)
		}
	}
	rescored := filepath.Join(tmp, "rescored.nbest.gz")
	code, best, errOut := mtune(t, "", "rerank", "--weights", weights, "--nbest", nb, "--feature", "len="+lens,
		"--metric", "chrf", "-r", ref, "--out-nbest", rescored)
	if code != 0 || strings.TrimSpace(errOut) != tuned {
		t.Fatalf("rerank: exit %d, %q; tune-nbest printed %q", code, errOut, tuned)
	}
	code, again, errOut := mtune(t, "", "rerank", "--weights", weights, "--nbest", rescored)
	if code != 0 || again != best {
		t.Fatalf("rerank of the re-scored list: exit %d: %s", code, errOut)
	}
	// Without the feature the tuned weights' len= is a weight for a
	// feature the list lacks: a warning, another ranking.
	code, without, errOut := mtune(t, "", "rerank", "--weights", weights, "--nbest", nb)
	if code != 0 || without == best || !strings.Contains(errOut, "len_0") {
		t.Errorf("rerank without the feature: exit %d, same 1-best %v: %s", code, without == best, errOut)
	}
	extracted := filepath.Join(tmp, "extract")
	code, _, errOut = mtune(t, "", "extract", "--nbest", nb, "--feature", "len="+lens, "-r", ref, "--out", extracted)
	if code != 0 || !strings.Contains(errOut, ", 16 features,") {
		t.Fatalf("extract: exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(extracted, "features.dat")); err != nil || !strings.HasPrefix(string(b), "FEATURES_TXT_BEGIN_0 0 100 16 d_0 d_1 d_2 d_3 d_4 d_5 d_6 lm_0 lm_1 tm_0 tm_1 tm_2 tm_3 tm_4 w_0 len_0 \n") {
		t.Errorf("features.dat: %v\n%.200s", err, b)
	}
}

// TestRerankDetokCLI prints fairseq's D- text with --detok; a Moses list
// has none.
func TestRerankDetokCLI(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fq := write("fairseq.txt", "S-1\tx\nH-1\t-2\tc@@ d\nD-1\t-2\tcd\nS-0\ty\nH-0\t-1\ta b ,\nD-0\t-1\tA b,\nH-0\t-3\ta\nD-0\t-3\tA\n")
	w := write("w", "fairseq= 1\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "a b ,\nc@@ d\n"},
		{[]string{"--detok"}, "A b,\ncd\n"},
	} {
		code, out, errOut := mtune(t, "", append([]string{"rerank", "--weights", w, "--nbest", fq}, tc.args...)...)
		if code != 0 || out != tc.want {
			t.Errorf("%v: exit %d, %q, %s; want %q", tc.args, code, out, errOut, tc.want)
		}
	}
	moses := write("moses.nbest", "0 ||| a ||| LM0= -1 ||| -1\n")
	code, _, errOut := mtune(t, "", "rerank", "--weights", write("lm", "LM0= 1\n"), "--nbest", moses, "--detok")
	if want := "mtune rerank: " + moses + ": a moses list has no detokenized text for --detok"; code != 1 || !strings.HasPrefix(errOut, want) {
		t.Errorf("--detok on a Moses list: exit %d, %q; want %q", code, errOut, want)
	}
}
