package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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

// readmeBlock is a shell block of README.md marked "<!-- tested -->":
// its commands, and the texts ("# → TEXT" lines) their output must hold.
type readmeBlock struct {
	line    int // of the opening fence
	script  string
	expects []string
}

// testedBlocks returns README.md's tested blocks.
func testedBlocks(t *testing.T, readme []byte) []readmeBlock {
	t.Helper()
	var out []readmeBlock
	sc := bufio.NewScanner(bytes.NewReader(readme))
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
			cur, marked = &readmeBlock{line: n}, false
		case marked && strings.TrimSpace(line) != "":
			t.Fatalf("README.md:%d: a tested mark not followed by a ```sh block", n)
		}
	}
	if cur != nil {
		t.Fatalf("README.md:%d: block not closed", cur.line)
	}
	return out
}

// TestREADME runs the README's tested blocks exactly as written, in order,
// from a fresh folder with ../shared beside it (as a clone is), with mtune
// on PATH, and checks the output each block promises: the Europarl splits,
// score, rerank, decode on Moses' 8k model with a relative MODEL_PATH, and
// one epoch of tune on the demo.
func TestREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes the Europarl test split and tunes the demo")
	}
	data := shared.Path(t, ".")
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := testedBlocks(t, readme)
	if len(blocks) < 5 {
		t.Fatalf("README.md has %d tested blocks, want at least 5", len(blocks))
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
			t.Fatalf("README.md:%d: %v\n%s\noutput:\n%s", b.line, err, b.script, out)
		}
		for _, e := range b.expects {
			if !strings.Contains(string(out), e) {
				t.Errorf("README.md:%d: the output does not hold %q:\n%s", b.line, e, out)
			}
		}
		t.Logf("README.md:%d: ok\n%s", b.line, b.script)
	}
}

// TestGitignoreCoversREADME: every file or folder the README's commands
// create in the clone (--out, --registry, "> FILE" of its sh blocks) is
// ignored by .gitignore, so that following the README leaves git status
// clean.
func TestGitignoreCoversREADME(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
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
	inSh, checked := false, 0
	for n, line := range strings.Split(string(readme), "\n") {
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
					t.Errorf("README.md:%d: %s (%s) is not in .gitignore", n+1, first, strings.TrimSpace(line))
				}
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d paths found in the README's commands", checked)
	}
}

// TestREADMESplit: the README's commands cut Europarl into one split,
// tune 8001-9000, dev 9001-9200 and test 9201-10000, and no other.
func TestREADMESplit(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"8001,9000": false, "9001,9200": false, "9201,10000": false}
	for _, m := range regexp.MustCompile(`sed -n (\d+,\d+)p`).FindAllStringSubmatch(string(readme), -1) {
		if _, ok := want[m[1]]; !ok {
			t.Errorf("README cuts lines %s, not one of the split's", m[1])
		}
		want[m[1]] = true
	}
	for r, seen := range want {
		if !seen {
			t.Errorf("README does not cut lines %s", r)
		}
	}
}
