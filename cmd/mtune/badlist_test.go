package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/testsupport/testfile"
)

// europarl100Head returns the first n lines of the europarl100 n-best list.
func europarl100Head(t *testing.T, n int) []string {
	t.Helper()
	return testfile.GunzipLines(t, filepath.Join(shared.Path(t, "nbest", "europarl100"), "nbest.gz"), n)
}

// TestCutNbestList gives rerank, extract and tune-nbest Moses lists whose
// last hypothesis is cut off or lacks a dense group; each must fail naming
// the file and line, where the cut hypothesis used to score as if its
// missing features were zero.
func TestCutNbestList(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	ref := filepath.Join(dir, "reference")
	head := europarl100Head(t, 150) // sentence 0 and half of sentence 1
	last := head[len(head)-1]
	feats := strings.Index(last, "||| d:") + len("||| ")
	lm := strings.Index(last, " lm:")
	w := strings.Index(last, " w:")
	cases := []struct {
		name, last string
		newline    bool
	}{
		{"cut inside the feature field", last[:lm+10], false},
		{"cut at the start of the feature field", last[:feats], false},
		{"empty feature field", last[:feats] + " ||| -10", true},
		{"missing dense group", last[:w] + " ||| -10", true},
	}
	tmp := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Join(head[:len(head)-1], "\n") + "\n" + tc.last
			if tc.newline {
				text += "\n"
			}
			list := filepath.Join(tmp, strings.ReplaceAll(tc.name, " ", "-")+".nbest")
			if err := os.WriteFile(list, []byte(text), 0o666); err != nil {
				t.Fatal(err)
			}
			where := list + ":150:"
			for _, args := range [][]string{
				{"rerank", "--weights", filepath.Join(dir, "init.weights"), "--nbest", list},
				{"extract", "--nbest", list, "-r", ref, "--out", t.TempDir()},
				{"tune-nbest", "--algo", "kbmira", "--nbest", list, "-r", ref, "--out", t.TempDir()},
			} {
				code, _, errOut := mtune(t, "", args...)
				if code == 0 || !strings.Contains(errOut, where) || !strings.Contains(errOut, "dense features differ") {
					t.Errorf("%s: exit %d, stderr %q; want an error at %s", args[0], code, errOut, where)
				}
			}
		})
	}
	// Two files of one pool must have one dense layout.
	other := filepath.Join(tmp, "other.nbest")
	if err := os.WriteFile(other, []byte("0 ||| a ||| LM0= -1 WordPenalty0= -1 ||| -2\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	complete := filepath.Join(tmp, "complete.nbest")
	if err := os.WriteFile(complete, []byte(strings.Join(head, "\n")+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := mtune(t, "", "rerank", "--weights", filepath.Join(dir, "init.weights"), "--nbest", complete, other)
	if code == 0 || !strings.Contains(errOut, other) || !strings.Contains(errOut, "LM0 (1), WordPenalty0 (1)") {
		t.Errorf("lists with two layouts: exit %d, stderr %q", code, errOut)
	}
}

// TestRerankSentenceIDs checks rerank's bound on sentence ids: the
// references' count with -r, otherwise ids 0, 1, 2, … without gaps. A list
// whose only id was 2000000000 used to write 2 GB of blank lines.
func TestRerankSentenceIDs(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	tmp := t.TempDir()
	weights := filepath.Join(tmp, "w")
	if err := os.WriteFile(weights, []byte("LM0= 1\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(dir, "reference") // 100 sentences
	cases := []struct {
		name   string
		list   string
		ref    bool
		want   string // in stderr; "" means success
		outLen int    // lines of stdout on success
	}{
		{"huge id without -r", "2000000000 ||| a ||| LM0= -1 ||| -1\n", false, "huge-id-without--r:1: sentence id out of range: sentence 2000000000 follows 0 distinct sentences", 0},
		{"huge id with -r", "0 ||| a ||| LM0= -1 ||| -1\n\n2000000000 ||| a ||| LM0= -1 ||| -1\n", true, "huge-id-with--r:3: sentence id out of range: sentence 2000000000, but the references have 100 sentences", 0},
		{"id 100 with -r", "100 ||| a ||| LM0= -1 ||| -1\n", true, "id-100-with--r:1:", 0},
		{"gap without -r", "0 ||| a ||| LM0= -1 ||| -1\n2 ||| a ||| LM0= -1 ||| -1\n", false, "give the references with -r", 0},
		{"gap with -r", "0 ||| a ||| LM0= -1 ||| -1\n2 ||| a ||| LM0= -1 ||| -1\n", true, "", 100},
		{"no gap without -r", "0 ||| a ||| LM0= -1 ||| -1\n1 ||| a ||| LM0= -1 ||| -1\n", false, "", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			list := filepath.Join(tmp, strings.ReplaceAll(tc.name, " ", "-"))
			if err := os.WriteFile(list, []byte(tc.list), 0o666); err != nil {
				t.Fatal(err)
			}
			args := []string{"rerank", "--weights", weights, "--nbest", list}
			if tc.ref {
				args = append(args, "-r", ref)
			}
			code, out, errOut := mtune(t, "", args...)
			if tc.want == "" {
				if code != 0 || strings.Count(out, "\n") != tc.outLen {
					t.Fatalf("exit %d, %d lines, stderr %q; want %d lines", code, strings.Count(out, "\n"), errOut, tc.outLen)
				}
				return
			}
			if code == 0 || !strings.Contains(errOut, tc.want) || len(out) > 0 {
				t.Fatalf("exit %d, %d bytes of output, stderr %q; want an error with %q", code, len(out), errOut, tc.want)
			}
		})
	}
}

// TestWeightsMatchList checks rerank --weights and tune-nbest --init
// against the features of europarl100's lists (old labels d, lm, tm, w):
// weights for none of them are an error (every hypothesis would score 0),
// weights for some of them a warning naming the others.
func TestWeightsMatchList(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	list, ref := filepath.Join(dir, "nbest.gz"), filepath.Join(dir, "reference")
	init, err := os.ReadFile(filepath.Join(dir, "init.weights"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cases := []struct {
		name    string
		weights string
		fail    bool   // exit status non-zero
		want    string // in stderr
	}{
		{"current Moses labels", "LM0= 0.5\nWordPenalty0= -1\n", true, "(weights for LM0_0 WordPenalty0_0)"},
		{"sparse names", "pp_a~b 1\nOOVPenalty 1\n", true, "(weights for OOVPenalty pp_a~b)"},
		{"some match", string(init) + "LM0= 0.5\nd= 1\n", false, "names=\"LM0_0 d_7\""},
		{"all match, d_0 always zero in the lists", string(init), false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := filepath.Join(tmp, strings.ReplaceAll(tc.name, " ", "-")+".weights")
			if err := os.WriteFile(w, []byte(tc.weights), 0o666); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"rerank", "--weights", w, "--nbest", list, "-r", ref},
				{"tune-nbest", "--algo", "kbmira", "--passes", "2", "--init", w, "--nbest", list, "-r", ref, "--out", t.TempDir()},
			} {
				code, _, errOut := mtune(t, "", args...)
				if (code != 0) != tc.fail || !strings.Contains(errOut, tc.want) {
					t.Errorf("%s: exit %d, stderr %q; want failure %v and %q", args[0], code, errOut, tc.fail, tc.want)
				}
				if tc.want == "" && strings.Contains(errOut, "WARN") {
					t.Errorf("%s: warning %q", args[0], errOut)
				}
			}
		})
	}
}

// TestNonFiniteScore: a hypothesis whose model score overflows (lm: 1e308
// -1e308 under lm= 2 2 is Inf − Inf) is an error naming its file and line
// in rerank and tune-nbest, with any learner, where rerank used to pick it.
func TestNonFiniteScore(t *testing.T) {
	tmp := t.TempDir()
	list := filepath.Join(tmp, "nbest")
	text := "0 ||| a b ||| lm: 1 1 w: -2 ||| 0\n0 ||| c d ||| lm: 1e308 -1e308 w: -2 ||| 0\n1 ||| e ||| lm: 1 2 w: -1 ||| 0\n"
	ref, w := filepath.Join(tmp, "ref"), filepath.Join(tmp, "weights")
	for p, s := range map[string]string{list: text, ref: "a b\ne\n", w: "lm= 2 2\nw= 1\n"} {
		if err := os.WriteFile(p, []byte(s), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	where := list + ":2:"
	for _, args := range [][]string{
		{"rerank", "--weights", w, "--nbest", list},
		{"tune-nbest", "--algo", "mert", "--init", w, "--nbest", list, "-r", ref, "--out", filepath.Join(tmp, "mert")},
		{"tune-nbest", "--algo", "kbmira", "--init", w, "--nbest", list, "-r", ref, "--out", filepath.Join(tmp, "kbmira")},
		{"tune-nbest", "--algo", "pro", "--init", w, "--nbest", list, "-r", ref, "--out", filepath.Join(tmp, "pro")},
	} {
		code, stdout, errOut := mtune(t, "", args...)
		if code != 1 || !strings.Contains(errOut, where) || !strings.Contains(errOut, "model score") {
			t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want an error at %s", args[0], args[2], code, stdout, errOut, where)
		}
	}
}
