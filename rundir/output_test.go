package rundir

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutput: a command's --out records its manifest (running, then done
// or failed), refuses an earlier output without Overwrite, and with it
// removes only the files the command wrote, keeping the user's (an input
// among them); an input at a name the command writes is refused.
func TestOutput(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "out")
	owns := func(rel string) bool { return rel == "model.txt" }
	o := OutputOptions{Command: "build", CommandLine: []string{"mtune", "build", "--out", root}, Owns: owns}
	manifest := func() Manifest {
		t.Helper()
		var m Manifest
		b, err := os.ReadFile(filepath.Join(root, "manifest.json"))
		if err != nil || json.Unmarshal(b, &m) != nil {
			t.Fatalf("manifest.json: %s (%v)", b, err)
		}
		return m
	}
	write := func(name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte("x\n"), 0o666); err != nil {
			t.Fatal(err)
		}
	}

	f, err := OpenOutput(ctx, root, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Start(ctx, 7); err != nil {
		t.Fatal(err)
	}
	if m := manifest(); m.Status != "running" || m.Seed != 7 || len(m.CommandLine) != 4 {
		t.Errorf("started: manifest %+v", m)
	}
	write("model.txt")
	write("input.txt")
	write("notes.txt") // the user's
	if err := f.Close(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if m := manifest(); m.Status != "done" || m.End == nil {
		t.Errorf("closed: manifest %+v", m)
	}

	if _, err := OpenOutput(ctx, root, o); err == nil || !strings.Contains(err.Error(), "holds the output of an earlier run: give --overwrite") {
		t.Fatalf("reopened without Overwrite: %v", err)
	}
	o.Overwrite = true
	f, err = OpenOutput(ctx, root, o)
	if err != nil {
		t.Fatal(err)
	}
	in, err := Checksum(ctx, "input", filepath.Join(root, "input.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// An input at a name the command writes is refused, and nothing goes.
	if err := f.Start(ctx, 1, InputFile{Role: "src", Path: filepath.Join(root, "model.txt")}); err == nil || !strings.Contains(err.Error(), "lies in the output folder") {
		t.Fatalf("an input the command writes: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "model.txt")); err != nil {
		t.Fatalf("a refused Start removed the earlier output: %v", err)
	}
	if err := f.Start(ctx, 1, in); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"model.txt": false, "input.txt": true, "notes.txt": true} {
		if _, err := os.Stat(filepath.Join(root, name)); (err == nil) != want {
			t.Errorf("after Start with Overwrite: %s there: %v, want %v", name, err == nil, want)
		}
	}
	failure := errors.New("out of memory")
	if err := f.Close(ctx, failure); !errors.Is(err, failure) {
		t.Errorf("Close returned %v, want the run's error", err)
	}
	if m := manifest(); m.Status != "failed" || m.Error != "out of memory" || len(m.Inputs) != 1 {
		t.Errorf("failed: manifest %+v", m)
	}
}
