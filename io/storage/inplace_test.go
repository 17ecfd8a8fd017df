package storage

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOverwriteInPlace: content that fits in the file's allocated blocks
// replaces the old, shorter or longer, with nothing of the old left; more
// than those blocks, a missing file and a gs:// name are refused, the file
// unchanged.
func TestOverwriteInPlace(t *testing.T) {
	p := filepath.Join(t.TempDir(), "manifest.json")
	if err := os.WriteFile(p, []byte(strings.Repeat("r", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(p); err == nil {
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Blocks == 0 {
			t.Skipf("%s keeps a small file's data out of blocks (inline): nothing to overwrite in place", filepath.Dir(p))
		}
	}
	for _, want := range []string{strings.Repeat("f", 150), "short\n"} {
		if err := OverwriteInPlace(p, []byte(want)); err != nil {
			t.Fatalf("overwrite with %d bytes: %v", len(want), err)
		}
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Fatalf("after the overwrite: %q, want %q", got, want)
		}
	}
	if err := OverwriteInPlace(p, make([]byte, 1<<20)); !errors.Is(err, ErrNoRoom) {
		t.Errorf("1 MiB into a file of one block: %v, want ErrNoRoom", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "short\n" {
		t.Errorf("a refused overwrite changed the file: %q", got)
	}
	if err := OverwriteInPlace(filepath.Join(t.TempDir(), "none"), []byte("x")); err == nil {
		t.Error("a missing file: no error")
	}
	if err := OverwriteInPlace("gs://b/manifest.json", []byte("x")); err == nil {
		t.Error("a gs:// name: no error")
	}
}
