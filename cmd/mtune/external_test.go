package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/testsupport/testfile"
)

// writeExternalScores writes, for europarl100's n-best list, each
// hypothesis' sentence chrF2 against its reference as a fraction (a
// stand-in for COMET) in both score file formats: one score a line, and
// "id ||| index ||| score" lines in a shuffled order. It returns their
// paths and the number of hypotheses.
func writeExternalScores(t *testing.T, dir, tmp string) (plain, indexed string, n int) {
	t.Helper()
	refs := strings.Split(strings.TrimRight(readFile(t, filepath.Join(dir, "reference")), "\n"), "\n")
	chrf := metric.NewChrF(false)
	var lines, triples []string
	index := map[int]int{}
	for _, line := range strings.Split(strings.TrimRight(string(testfile.GunzipFile(t, filepath.Join(dir, "nbest.gz"))), "\n"), "\n") {
		f := strings.Split(line, "|||")
		var id int
		if _, err := fmt.Sscan(f[0], &id); err != nil || id >= len(refs) {
			t.Fatalf("n-best line %q: %v", line, err)
		}
		seg, err := chrf.Segment([]string{refs[id]})
		if err != nil {
			t.Fatal(err)
		}
		x := chrf.SentenceScore(seg.Stats(strings.TrimSpace(f[1]))) / 100
		lines = append(lines, fmt.Sprintf("%.6f", x))
		triples = append(triples, fmt.Sprintf("%d ||| %d ||| %.6f", id, index[id], x))
		index[id]++
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(triples), func(i, j int) { triples[i], triples[j] = triples[j], triples[i] })
	plain = testfile.Write(t, tmp, "scores.txt", strings.Join(lines, "\n")+"\n")
	indexed = testfile.Write(t, tmp, "scores-indexed.txt", "\n"+strings.Join(triples, "\n")+"\n")
	return plain, indexed, len(lines)
}

// TestTuneNbestExternal: tune-nbest --metric external on europarl100 with
// each hypothesis' sentence chrF as its external score: MERT and PRO raise
// the mean from init.weights, MERT's weights are byte-identical whichever
// format the score file has, rerank with them prints the mean tune-nbest
// printed, and extract writes the scores as SCORESTAT.
func TestTuneNbestExternal(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	tmp := t.TempDir()
	plain, indexed, n := writeExternalScores(t, dir, tmp)
	if n != 10000 {
		t.Fatalf("%d hypotheses, want 10000", n)
	}
	nb := filepath.Join(dir, "nbest.gz")
	base := []string{"tune-nbest", "--init", filepath.Join(dir, "init.weights"), "--nbest", nb, "--metric", "external"}
	tune := func(name, scores string, args ...string) (start, end float64, stdout string) {
		t.Helper()
		code, stdout, errOut := mtune(t, "", append(append(base, "--scores", scores, "--out", filepath.Join(tmp, name)), args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		_, startLine, _ := strings.Cut(errOut, "start: ")
		_, startLine, _ = strings.Cut(startLine, " = ")
		_, endLine, _ := strings.Cut(stdout, " = ")
		if _, err := fmt.Sscanf(startLine, "%f", &start); err != nil {
			t.Fatalf("%s: no start in %q", name, errOut)
		}
		if _, err := fmt.Sscanf(endLine, "%f\n", &end); err != nil || !strings.Contains(errOut+stdout, "external = ") && !strings.Contains(name, "label") {
			t.Fatalf("%s: stdout %q (%s)", name, stdout, errOut)
		}
		return start, end, stdout
	}
	for _, tc := range []struct{ name, scores, algo string }{
		{"mert-plain", plain, "mert"},
		{"mert-indexed", indexed, "mert"},
		{"pro-plain", plain, "pro"},
	} {
		start, end, _ := tune(tc.name, tc.scores, "--algo", tc.algo)
		if !(end > start) {
			t.Errorf("%s: external %.4f from %.4f, want higher", tc.name, end, start)
		}
		t.Logf("%s: external %.4f from %.4f", tc.name, end, start)
	}
	weights := func(name string) string { return readFile(t, filepath.Join(tmp, name, "best", "weights.json")) }
	if a, b := weights("mert-plain"), weights("mert-indexed"); a != b {
		t.Errorf("best/weights.json differs between the score file formats:\n%s\n%s", a, b)
	}
	// rerank prints the mean tune-nbest printed; the label names it.
	_, _, want := tune("mert-label", plain, "--algo", "mert", "--scores-label", "chrF-stand-in")
	code, _, errOut := mtune(t, "", "rerank", "--metric", "external", "--scores-label", "chrF-stand-in", "--scores", plain,
		"--weights", filepath.Join(tmp, "mert-label", "best", "weights"), "--nbest", nb)
	if code != 0 || !strings.HasPrefix(want, "chrF-stand-in = ") || errOut != want {
		t.Errorf("rerank: exit %d, %q; want %q", code, errOut, want)
	}
	code, _, errOut = mtune(t, "", "extract", "--metric", "external", "--scores", plain, "--nbest", nb, "--out", filepath.Join(tmp, "extract"))
	if s := readFile(t, filepath.Join(tmp, "extract", "scores.dat")); code != 0 || !strings.HasPrefix(s, "SCORES_TXT_BEGIN_0 0 100 2 external\n") {
		t.Errorf("extract: exit %d (%s), scores.dat begins %q", code, errOut, s[:min(len(s), 80)])
	}
}

// TestExternalErrors: --metric external without --scores, with -r, or with
// a score file a --nbest short, and --scores with another metric, are
// refused before any work (exit 2, --out not created); a score file of the
// wrong length or with a value that is not a number fails naming its
// file and line.
func TestExternalErrors(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	tmp := t.TempDir()
	plain, _, _ := writeExternalScores(t, dir, tmp)
	lines := strings.SplitAfter(readFile(t, plain), "\n")
	short := testfile.Write(t, tmp, "short.txt", strings.Join(lines[:9999], ""))
	lines[41] = "0.5x\n"
	bad := testfile.Write(t, tmp, "bad.txt", strings.Join(lines, ""))
	nb, ref := filepath.Join(dir, "nbest.gz"), filepath.Join(dir, "reference")
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no --scores", []string{"--metric", "external", "-r", ref}, 2, "one --scores a --nbest (0 for 1) and no -r"},
		{"-r", []string{"--metric", "external", "--scores", plain, "-r", ref}, 2, "no -r"},
		{"two n-best, one score file", []string{"--metric", "external", "--nbest", nb, "--scores", plain}, 2, "(1 for 2)"},
		{"--scores with bleu", []string{"--metric", "bleu", "--scores", plain, "-r", ref}, 2, "--scores: only with --metric external"},
		{"short", []string{"--metric", "external", "--scores", short}, 1, short + ":9999: 9999 scores for the 10000 hypotheses of " + nb + " (" + nb + ":10000 has none)"},
		{"bad value", []string{"--metric", "external", "--scores", bad}, 1, bad + `:42: score "0.5x": want a finite number`},
	} {
		out := filepath.Join(tmp, strings.ReplaceAll(tc.name, " ", "-"))
		code, _, errOut := mtune(t, "", append([]string{"tune-nbest", "--algo", "mert", "--nbest", nb, "--out", out}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("tune-nbest %s: exit %d, %q; want %d and %q", tc.name, code, errOut, tc.code, tc.msg)
		}
		if _, err := os.Stat(out); tc.code == 2 && err == nil {
			t.Errorf("tune-nbest %s created %s", tc.name, out)
		}
	}
	code, _, errOut := mtune(t, "", "rerank", "--metric", "external", "--weights", filepath.Join(dir, "init.weights"), "--nbest", nb)
	if code != 2 || !strings.Contains(errOut, "score files aligned with n-best lists") {
		t.Errorf("rerank --metric external without --scores: exit %d, %q", code, errOut)
	}
}
