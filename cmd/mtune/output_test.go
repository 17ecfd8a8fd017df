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
// moves; a folder of the user's, or another command's output, is refused
// before any work.
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

	home := filepath.Join(base, "home")
	thesis := filepath.Join(home, "docs", "thesis.tex")
	os.MkdirAll(filepath.Dir(thesis), 0o777)
	if err := os.WriteFile(thesis, []byte("t\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = mtune(t, "", "build", "--demo", "--out", home, "--overwrite")
	if code != 1 || !strings.Contains(errOut, "no run of mtune") {
		t.Fatalf("build --overwrite into a folder of the user's: exit %d, stderr %q", code, errOut)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 1 {
		t.Fatalf("the refused folder now holds %v", entries)
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
	if code, _, errOut := mtune(t, "", append(args, "--overwrite")...); code != 0 {
		t.Fatalf("tune-nbest --overwrite: exit %d: %s", code, errOut)
	}
	for _, f := range []string{notes, filepath.Join(out, "weights.json"), filepath.Join(out, "manifest.json")} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
}
