package metric

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// readLines returns the lines of a file (gunzipped if its name ends in .gz),
// without their newlines.
func readLines(tb testing.TB, path string) []string {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			tb.Fatal(err)
		}
		defer z.Close()
		r = z
	}
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return lines
}

// nbestEntry is one line of a Moses n-best list, parsed just enough for the
// tests: "id ||| target ||| features ||| score".
type nbestEntry struct {
	sent   int
	target string
}

func readNbest(tb testing.TB, path string) []nbestEntry {
	tb.Helper()
	var out []nbestEntry
	for i, line := range readLines(tb, path) {
		f := strings.Split(line, "|||")
		if len(f) < 4 {
			tb.Fatalf("%s:%d: %d fields", path, i+1, len(f))
		}
		var id int
		if _, err := fmt.Sscan(strings.TrimSpace(f[0]), &id); err != nil {
			tb.Fatalf("%s:%d: id: %v", path, i+1, err)
		}
		out = append(out, nbestEntry{id, f[1]})
	}
	return out
}

// block is one FEATURES_TXT or SCORES_TXT block of Moses' extractor output.
type block struct {
	sent  int
	count int
	rows  []string
}

// readBlocks returns the blocks whose header starts with kind (e.g.
// "SCORES_TXT_BEGIN_0"), with lines optionally prefixed "STDOUT_N=".
func readBlocks(tb testing.TB, path, kind string) []block {
	tb.Helper()
	var (
		out []block
		cur *block
	)
	for i, line := range readLines(tb, path) {
		if strings.HasPrefix(line, "STDOUT_") {
			_, line, _ = strings.Cut(line, "=")
		}
		switch {
		case strings.HasPrefix(line, kind+" "):
			var sent, count int
			if _, err := fmt.Sscan(line[len(kind):], &sent, &count); err != nil {
				tb.Fatalf("%s:%d: %v", path, i+1, err)
			}
			out = append(out, block{sent: sent, count: count})
			cur = &out[len(out)-1]
		case strings.Contains(line, "_TXT_END_"):
			cur = nil
		case cur != nil:
			cur.rows = append(cur.rows, line)
		}
	}
	return out
}

// readReferences returns a Reference for each line of the given parallel
// reference files, tokenised by tok (nil: none).
func readReferences(tb testing.TB, order int, tok Tokenizer, paths ...string) []*Reference {
	tb.Helper()
	var files [][]string
	for _, p := range paths {
		files = append(files, readLines(tb, p))
		if len(files[len(files)-1]) != len(files[0]) {
			tb.Fatalf("%s: %d lines, %s has %d", p, len(files[len(files)-1]), paths[0], len(files[0]))
		}
	}
	refs := make([]*Reference, len(files[0]))
	for i := range refs {
		var lines []string
		for _, f := range files {
			if tok != nil {
				lines = append(lines, tok(f[i]))
			} else {
				lines = append(lines, f[i])
			}
		}
		r, err := NewReferenceText(order, lines...)
		if err != nil {
			tb.Fatal(err)
		}
		refs[i] = r
	}
	return refs
}
