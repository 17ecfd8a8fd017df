package main

import (
	"bufio"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/internal/shared"
)

// europarl100Head returns the first n lines of the europarl100 n-best list.
func europarl100Head(t *testing.T, n int) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(shared.Path(t, "nbest", "europarl100"), "nbest.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	var lines []string
	for len(lines) < n && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
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
