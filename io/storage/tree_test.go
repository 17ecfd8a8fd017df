package storage

import (
	"os"
	"slices"
	"testing"
)

func TestRemoveFiles(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		lists := Join(b.dir, "lists")
		for _, name := range []string{"a.gob.gz", "b.gob.gz"} {
			b.put(t, Join(lists, name), []byte("x"))
		}
		b.put(t, Join(lists, "keep", "deep.txt"), []byte("x"))
		b.put(t, Join(b.dir, "beside.txt"), []byte("x"))
		if err := b.fs.RemoveFiles(ctx, lists); err != nil {
			t.Fatal(err)
		}
		want := []string{"beside.txt", "lists/keep/deep.txt"}
		if got := b.stored(t); !slices.Equal(got, want) {
			t.Fatalf("left %q, want %q", got, want)
		}
		if err := b.fs.RemoveFiles(ctx, Join(b.dir, "missing")); err != nil {
			t.Errorf("missing folder: %v", err)
		}
	})
	t.Run("emptied folder removed", func(t *testing.T) {
		dir := Join(t.TempDir(), "lists")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(Join(dir, "a"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := RemoveFiles(ctx, dir); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("folder still there: %v", err)
		}
	})
}
