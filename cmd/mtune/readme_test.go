package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/long"
	"github.com/mtune/mtune/testsupport/shared"
)

// asMTune makes the test binary run as mtune itself when set: the README
// test puts a script named mtune on PATH that runs it so.
const asMTune = "MTUNE_TEST_RUN_AS_MTUNE"

func TestMain(m *testing.M) {
	if os.Getenv(asMTune) == "1" {
		main() // exits
	}
	os.Exit(m.Run())
}

// docPages returns the pages whose commands the tests below check, as
// paths from the repository's root: README.md, then docs/*.md in name
// order (the order TestREADME runs their blocks in).
func docPages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md")
	}
	pages := []string{"README.md"}
	for _, d := range docs { // Glob sorts
		pages = append(pages, path.Join("docs", filepath.Base(d)))
	}
	return pages
}

// readPage returns the text of page, a path from the repository's root.
func readPage(t *testing.T, page string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readmeBlock is a shell block of README.md or docs/*.md marked
// "<!-- tested -->": its commands, and the texts ("# → TEXT" lines) their
// output must hold.
type readmeBlock struct {
	page    string // README.md or docs/NAME.md
	line    int    // of the opening fence
	script  string
	expects []string
}

// where returns "page:line" of b's opening fence.
func (b readmeBlock) where() string { return fmt.Sprintf("%s:%d", b.page, b.line) }

// testedBlocks returns the tested blocks of text, the page named page.
func testedBlocks(t *testing.T, page string, text []byte) []readmeBlock {
	t.Helper()
	var out []readmeBlock
	sc := bufio.NewScanner(bytes.NewReader(text))
	n, marked := 0, false
	var cur *readmeBlock
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case cur != nil && strings.HasPrefix(line, "```"):
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			if exp, ok := strings.CutPrefix(line, "# → "); ok {
				cur.expects = append(cur.expects, exp)
			} else {
				cur.script += line + "\n"
			}
		case strings.TrimSpace(line) == "<!-- tested -->":
			marked = true
		case marked && line == "```sh":
			cur, marked = &readmeBlock{page: page, line: n}, false
		case marked && strings.TrimSpace(line) != "":
			t.Fatalf("%s:%d: a tested mark not followed by a ```sh block", page, n)
		}
	}
	if cur != nil {
		t.Fatalf("%s: block not closed", cur.where())
	}
	return out
}

// TestREADME runs the tested blocks of README.md and then of docs/*.md
// (in name order) exactly as written, one after another in one fresh
// folder with ../shared beside it (as a clone is), with mtune on PATH, and checks the output each block promises: the Europarl splits
// (README.md), score, rerank, decode on Moses' 8k model with a relative
// MODEL_PATH (docs/commands.md), the external decoder (docs/moses.md), a
// night of retraining (docs/retrain.md), and one epoch of tune on the demo,
// with and without --eval-tune and with replicas (docs/tune.md).
func TestREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes the Europarl test split and tunes the demo")
	}
	long.Test(t, "runs every tested block of README.md and docs/, 144 s on a loaded machine")
	data := shared.Path(t, ".")
	var blocks []readmeBlock
	for _, page := range docPages(t) {
		blocks = append(blocks, testedBlocks(t, page, readPage(t, page))...)
	}
	if len(blocks) == 0 || blocks[0].page != "README.md" {
		t.Fatal("README.md has no tested block: its split block comes first")
	}
	if len(blocks) < 8 {
		t.Fatalf("README.md and docs/ have %d tested blocks, want at least 8", len(blocks))
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	clone, bin := filepath.Join(root, "clone"), filepath.Join(root, "bin")
	for _, d := range []string{clone, bin} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	// ../shared beside the folder the commands run in.
	if err := os.Symlink(filepath.Dir(data), filepath.Join(root, "shared")); err != nil {
		t.Fatal(err)
	}
	wrapper := "#!/bin/sh\n" + asMTune + "=1 exec '" + self + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "mtune"), []byte(wrapper), 0o777); err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", b.script)
		cmd.Dir = clone
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s\noutput:\n%s", b.where(), err, b.script, out)
		}
		for _, e := range b.expects {
			if !strings.Contains(string(out), e) {
				t.Errorf("%s: the output does not hold %q:\n%s", b.where(), e, out)
			}
		}
		t.Logf("%s: ok\n%s", b.where(), b.script)
	}
}

// TestGitignoreCoversREADME: every file or folder the commands of README.md
// and docs/*.md create in the clone (--out, --registry, "> FILE" of their
// sh blocks) is ignored by .gitignore, so that following them leaves git
// status clean.
func TestGitignoreCoversREADME(t *testing.T) {
	ignore, err := os.ReadFile(filepath.Join("..", "..", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, line := range strings.Split(string(ignore), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, strings.Trim(line, "/"))
		}
	}
	ignored := func(name string) bool {
		for _, p := range patterns {
			if ok, _ := path.Match(p, name); ok {
				return true
			}
		}
		return false
	}
	made := regexp.MustCompile(`(?:--out|--registry|--nbest-out|>) +([^ )\x60]+)`)
	checked := 0
	for _, page := range docPages(t) {
		checked += gitignoreCovers(t, page, readPage(t, page), made, ignored)
	}
	if checked < 10 {
		t.Errorf("only %d paths found in the commands of README.md and docs/", checked)
	}
}

// gitignoreCovers checks the paths made (the pattern's first group) in
// the sh blocks of text, the page named page, with ignored; it returns the
// number of paths checked.
func gitignoreCovers(t *testing.T, page string, text []byte, made *regexp.Regexp, ignored func(string) bool) int {
	t.Helper()
	inSh, checked := false, 0
	for n, line := range strings.Split(string(text), "\n") {
		switch {
		case line == "```sh":
			inSh = true
		case strings.HasPrefix(line, "```"):
			inSh = false
		case inSh:
			for _, m := range made.FindAllStringSubmatch(line, -1) {
				p := m[1]
				if p == strings.ToUpper(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "$") || strings.HasPrefix(p, "..") || strings.Contains(p, "://") {
					continue // a placeholder (DIR, R, F), an absolute path, a variable, elsewhere
				}
				first := strings.Split(strings.TrimSuffix(p, "]"), "/")[0]
				checked++
				if !ignored(first) {
					t.Errorf("%s:%d: %s (%s) is not in .gitignore", page, n+1, first, strings.TrimSpace(line))
				}
			}
		}
	}
	return checked
}

// TestREADMESplit: the commands of README.md and docs/*.md cut Europarl
// into one split, tune 8001-9000, dev 9001-9200 and test 9201-10000, and
// no other.
func TestREADMESplit(t *testing.T) {
	want := map[string]bool{"8001,9000": false, "9001,9200": false, "9201,10000": false}
	cut := regexp.MustCompile(`sed -n (\d+,\d+)p`)
	for _, page := range docPages(t) {
		for _, m := range cut.FindAllStringSubmatch(string(readPage(t, page)), -1) {
			if _, ok := want[m[1]]; !ok {
				t.Errorf("%s cuts lines %s, not one of the split's", page, m[1])
			}
			want[m[1]] = true
		}
	}
	for r, seen := range want {
		if !seen {
			t.Errorf("neither README.md nor docs/ cuts lines %s", r)
		}
	}
}
