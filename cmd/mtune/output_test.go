package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// TestBuildOutput: build refuses an --out holding an earlier build
// without --overwrite; --overwrite replaces only what build wrote; the
// model's moses.ini names its files relative to itself, so the folder
// moves; another command's output is refused before any work.
func TestBuildOutput(t *testing.T) {
	base := t.TempDir()
	model := filepath.Join(base, "model")
	if code, _, errOut := mtune(t, "", "build", "--demo", "--out", model); code != 0 {
		t.Fatalf("build: exit %d: %s", code, errOut)
	}
	notes := filepath.Join(model, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := mtune(t, "", "build", "--demo", "--out", model)
	if code != 1 || !strings.Contains(errOut, "--overwrite") {
		t.Fatalf("build into an earlier build: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := mtune(t, "", "build", "--demo", "--out", model, "--overwrite"); code != 0 {
		t.Fatalf("build --overwrite: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(notes); err != nil {
		t.Fatalf("build --overwrite removed the user's file: %v", err)
	}
	var man struct {
		CommandLine []string `json:"command_line"`
		Status      string   `json:"status"`
	}
	data, err := os.ReadFile(filepath.Join(model, "manifest.json"))
	if err != nil || json.Unmarshal(data, &man) != nil || man.Status != "done" || len(man.CommandLine) < 2 || man.CommandLine[1] != "build" {
		t.Fatalf("manifest.json %s (%v)", data, err)
	}

	moved := filepath.Join(base, "moved")
	if err := os.Rename(model, moved); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(moved, "corpus", "test.src"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(src), "\n")
	if code, out, errOut := mtune(t, first+"\n", "decode", "--config", filepath.Join(moved, "moses.ini")); code != 0 || strings.TrimSpace(out) == "" {
		t.Fatalf("decode with the moved model: exit %d, output %q: %s", code, out, errOut)
	}

	code, _, errOut = mtune(t, "", "tune", "--epochs", "1", "--out", moved, "--overwrite")
	if code != 1 || !strings.Contains(errOut, "output of mtune build") {
		t.Fatalf("tune --overwrite into a built model: exit %d, stderr %q", code, errOut)
	}

}

// TestTuneNbestOutput: tune-nbest refuses an --out holding its earlier
// weights without --overwrite, and --overwrite replaces only its files.
func TestTuneNbestOutput(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	out := t.TempDir()
	args := []string{"tune-nbest", "--algo", "kbmira", "--passes", "2", "--nbest", filepath.Join(dir, "nbest.gz"),
		"-r", filepath.Join(dir, "reference"), "--out", out}
	if code, _, errOut := mtune(t, "", args...); code != 0 {
		t.Fatalf("tune-nbest: exit %d: %s", code, errOut)
	}
	notes := filepath.Join(out, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := mtune(t, "", args...)
	if code != 1 || !strings.Contains(errOut, "--overwrite") {
		t.Fatalf("tune-nbest into its earlier output: exit %d, stderr %q", code, errOut)
	}
	// Files at the top of --out that no tune-nbest recorded (an earlier
	// mtune's layout, or the user's copy of the weights): --overwrite keeps
	// them (issue 33: `tune-nbest --out w --overwrite` deleted the user's
	// weights).
	for _, f := range []string{"weights", "weights.sparse", "weights.json"} {
		if err := os.WriteFile(filepath.Join(out, f), []byte(readFile(t, filepath.Join(out, "best", f))), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errOut := mtune(t, "", append(args, "--overwrite")...); code != 0 {
		t.Fatalf("tune-nbest --overwrite: exit %d: %s", code, errOut)
	}
	for _, f := range []string{notes, filepath.Join(out, "best", "weights.json"), filepath.Join(out, "manifest.json"),
		filepath.Join(out, "metrics.jsonl"), filepath.Join(out, "report.html"), filepath.Join(out, "epochs", "001", "weights.json")} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	for _, f := range []string{"weights", "weights.sparse", "weights.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("--overwrite removed %s, which tune-nbest's record does not list: %v", f, err)
		}
	}
}

// TestUserFolderRefused: an output folder (or registry) that holds files
// but no run of mtune is refused by every command that writes one, with
// every option, before any work, and left as it was.
func TestUserFolderRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "--epochs", "1", "--overwrite", "--out"}, "no run of mtune"},
		{[]string{"tune", "--epochs", "1", "--resume", "--out"}, "no run of mtune"},
		{[]string{"build", "--demo", "--overwrite", "--out"}, "no run of mtune"},
		{[]string{"tune-nbest", "--nbest", "x", "-r", "y", "--overwrite", "--out"}, "no run of mtune"},
		{[]string{"retrain", "--epochs", "1", "--registry"}, "no registry"},
	} {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			home := t.TempDir()
			thesis := filepath.Join(home, "docs", "thesis.tex")
			os.MkdirAll(filepath.Dir(thesis), 0o777)
			if err := os.WriteFile(thesis, []byte("t\n"), 0o666); err != nil {
				t.Fatal(err)
			}
			code, _, errOut := mtune(t, "", append(tc.args, home)...)
			if code != 1 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "docs/thesis.tex") {
				t.Errorf("exit %d, stderr %q; want 1 and %q naming docs/thesis.tex", code, errOut, tc.want)
			}
			if entries, _ := os.ReadDir(home); len(entries) != 1 || entries[0].Name() != "docs" {
				t.Errorf("the refused folder now holds %v", entries)
			}
			if data, err := os.ReadFile(thesis); err != nil || string(data) != "t\n" {
				t.Errorf("thesis.tex: %q, %v", data, err)
			}
		})
	}
}

// TestBuildPathFlags: --relative-paths=false, as older scripts may give,
// writes absolute paths as --absolute-paths does; both at once is a usage
// error before any work.
func TestBuildPathFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "model")
	if code, _, errOut := mtune(t, "", "build", "--demo", "--out", out, "--relative-paths", "--absolute-paths"); code != 2 || !strings.Contains(errOut, "contradict") {
		t.Fatalf("both path flags: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a refused command line made the folder")
	}
	if code, _, errOut := mtune(t, "", "build", "--demo", "--out", out, "--relative-paths=false"); code != 0 {
		t.Fatalf("build --relative-paths=false: exit %d: %s", code, errOut)
	}
	ini, err := os.ReadFile(filepath.Join(out, "moses.ini"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ini), "path="+out) {
		t.Fatalf("--relative-paths=false wrote relative paths:\n%s", ini)
	}
}
