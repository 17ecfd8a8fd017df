package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// marianEuroparl100 writes europarl100's Moses lists and init.weights in
// Marian's layout into dir: ids from 1, a hard alignment and a
// WordScores= field before the features, every dense value of the Moses
// line a feature F0=, F1=, … in order, and as total a normalised score
// (the Moses total over the words and end of sentence) that is no feature
// sum. It returns the list, the weights (F0= w …, init.weights' values in
// order) and the references.
func marianEuroparl100(t *testing.T, dir string) (nbest, weights, ref string) {
	t.Helper()
	src := shared.Path(t, "nbest", "europarl100")
	f, err := os.Open(filepath.Join(src, "nbest.gz"))
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
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "|||")
		id, err := strconv.Atoi(strings.TrimSpace(fields[0]))
		if err != nil || len(fields) != 4 {
			t.Fatalf("europarl100 line %q", sc.Text())
		}
		text := strings.TrimSpace(fields[1])
		var feats []string
		for _, tok := range strings.Fields(fields[2]) {
			if !strings.HasSuffix(tok, ":") {
				feats = append(feats, fmt.Sprintf("F%d= %s", len(feats), tok))
			}
		}
		total, err := strconv.ParseFloat(strings.TrimSpace(fields[3]), 64)
		if err != nil {
			t.Fatal(err)
		}
		words := len(strings.Fields(text))
		fmt.Fprintf(&b, "%d ||| %s ||| 0-0 ||| WordScores=%s ||| %s ||| %g\n", id+1, text,
			strings.Repeat(" -0.50000", words+1), strings.Join(feats, " "), total/float64(words+1))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	init, err := os.ReadFile(filepath.Join(src, "init.weights"))
	if err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	for k, line := range strings.Fields(strings.ReplaceAll(string(init), "= ", "=")) {
		_, v, _ := strings.Cut(line, "=")
		fmt.Fprintf(&w, "F%d= %s\n", k, v)
	}
	nbest, weights = filepath.Join(dir, "marian.nbest"), filepath.Join(dir, "marian.weights")
	for path, text := range map[string]string{nbest: b.String(), weights: w.String()} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return nbest, weights, filepath.Join(src, "reference")
}

// TestRerankMarian re-ranks europarl100 written as a Marian list (ids from
// 1, alignments, word scores, a normalised total) and checks that it gives
// the translations and the 13.68 BLEU of the Moses list, with
// --nbest-format marian and detected; read as a Moses list it is refused
// at its first line.
func TestRerankMarian(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	nb, w, ref := marianEuroparl100(t, t.TempDir())
	code, mosesOut, errOut := mtune(t, "", "rerank", "--weights", filepath.Join(dir, "init.weights"),
		"--nbest", filepath.Join(dir, "nbest.gz"), "-r", ref)
	if code != 0 || !strings.HasPrefix(errOut, "BLEU = 13.68, ") {
		t.Fatalf("the Moses list: exit %d: %s", code, errOut)
	}
	for _, format := range []string{"marian", "auto"} {
		code, out, errOut := mtune(t, "", "rerank", "--nbest-format", format, "--weights", w, "--nbest", nb, "-r", ref)
		if code != 0 || !strings.HasPrefix(errOut, "BLEU = 13.68, ") {
			t.Fatalf("--nbest-format %s: exit %d: %s", format, code, errOut)
		}
		if out != mosesOut {
			t.Fatalf("--nbest-format %s: the 1-best differ from the Moses list's", format)
		}
	}
	// Without references the ids from 1 still give 100 lines.
	code, out, errOut := mtune(t, "", "rerank", "--weights", w, "--nbest", nb)
	if code != 0 || out != mosesOut {
		t.Fatalf("without -r: exit %d: %s", code, errOut)
	}
	code, _, errOut = mtune(t, "", "rerank", "--nbest-format", "moses", "--weights", w, "--nbest", nb, "-r", ref)
	if want := "mtune rerank: " + nb + ":1:"; code != 1 || !strings.HasPrefix(errOut, want) {
		t.Fatalf("--nbest-format moses: exit %d, %q; want %q…", code, errOut, want)
	}
	code, _, errOut = mtune(t, "", "rerank", "--nbest-format", "nematus", "--weights", w, "--nbest", nb)
	if code != 2 || !strings.Contains(errOut, `unknown n-best format "nematus": choose from auto, fairseq, marian, moses, sockeye`) {
		t.Fatalf("--nbest-format nematus: exit %d, %q", code, errOut)
	}
}

// TestTuneNbestMarian tunes europarl100 with MERT as a Moses list and as
// a Marian list: the same features in the same order give the same
// weights, so the same BLEU, and the tuned weights (F0= … lines) re-rank
// the Marian list to it. extract reads the Marian list too.
func TestTuneNbestMarian(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	tmp := t.TempDir()
	nb, w, ref := marianEuroparl100(t, tmp)
	last := func(args ...string) string {
		t.Helper()
		out := t.TempDir()
		code, stdout, errOut := mtune(t, "", append([]string{"tune-nbest", "--algo", "mert", "--out", out, "-r", ref}, args...)...)
		if code != 0 {
			t.Fatalf("tune-nbest %v: exit %d: %s", args, code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		return lines[len(lines)-1] + "\t" + out
	}
	moses, _, _ := strings.Cut(last("--init", filepath.Join(dir, "init.weights"), "--nbest", filepath.Join(dir, "nbest.gz")), "\t")
	marian, out, _ := strings.Cut(last("--nbest-format", "marian", "--init", w, "--nbest", nb), "\t")
	if !strings.HasPrefix(moses, "BLEU = ") || marian != moses {
		t.Fatalf("MERT on the Marian list: %q, on the Moses list: %q", marian, moses)
	}
	best, err := os.ReadFile(filepath.Join(out, "best", "weights"))
	if err != nil || !strings.Contains(string(best), "F14= ") {
		t.Fatalf("best/weights %q: %v", best, err)
	}
	code, _, errOut := mtune(t, "", "rerank", "--weights", filepath.Join(out, "best", "weights"), "--nbest", nb, "-r", ref)
	if code != 0 || strings.TrimSpace(errOut) != moses {
		t.Fatalf("rerank with the tuned weights: exit %d, %q; tune-nbest printed %q", code, errOut, moses)
	}
	code, _, errOut = mtune(t, "", "extract", "--nbest-format", "marian", "--nbest", nb, "-r", ref, "--out", filepath.Join(tmp, "extract"))
	if code != 0 || !strings.Contains(errOut, "100 sentences, 10000 hypotheses read") {
		t.Fatalf("extract: exit %d: %s", code, errOut)
	}
}
