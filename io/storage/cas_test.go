package storage

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestReadVersionTime: the time of a version is the store's: a local
// file's modification time, a GCS object's "updated" (never before the
// write); a missing file has none.
func TestReadVersionTime(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		p := Join(b.dir, "lease")
		if _, v, mod, err := b.fs.ReadVersionTime(ctx, p); err != nil || v != 0 || !mod.IsZero() {
			t.Fatalf("missing file: version %d, time %v, %v", v, mod, err)
		}
		before := time.Now().Truncate(time.Second)
		v, err := b.fs.WriteIfVersion(ctx, p, []byte("a\n"), 0)
		if err != nil {
			t.Fatal(err)
		}
		data, rv, mod, err := b.fs.ReadVersionTime(ctx, p)
		if err != nil || rv != v || string(data) != "a\n" {
			t.Fatalf("read %q version %d (wrote %d): %v", data, rv, v, err)
		}
		if mod.Before(before) {
			t.Errorf("modification time %v, before the write at %v", mod, before)
		}
		if !IsGCS(p) {
			st, err := os.Stat(p)
			if err != nil || !st.ModTime().Equal(mod) {
				t.Errorf("modification time %v, the file's %v (%v)", mod, st.ModTime(), err)
			}
		}
	})
}

// TestLockFileRemoved: a local conditional write and remove leave no lock
// file once their file is gone (a released lease leaves its folder as it
// found it), and the lock still orders writers racing with removals: of
// writers creating the file, one at a time holds it.
func TestLockFileRemoved(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "lease")
	v, err := WriteIfVersion(ctx, p, []byte("x"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteIfVersion(ctx, p, []byte("y"), 0); err == nil {
		t.Fatal("a create over an existing file succeeded")
	}
	if err := RemoveIfVersion(ctx, p, v); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteIfVersion(ctx, p, []byte("z"), 12345); err == nil {
		t.Fatal("a write of a missing file at a version succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("left behind: %v", names)
	}

	var holders, peak, wins atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				v, err := WriteIfVersion(ctx, p, []byte("held"), 0)
				if err != nil {
					continue // held by another: try again
				}
				wins.Add(1)
				n := holders.Add(1)
				for m := peak.Load(); n > m && !peak.CompareAndSwap(m, n); m = peak.Load() {
				}
				holders.Add(-1)
				if err := RemoveIfVersion(ctx, p, v); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if peak.Load() != 1 || wins.Load() == 0 {
		t.Errorf("%d holders at once (%d wins), want 1", peak.Load(), wins.Load())
	}
}

// TestStaleTempsRemoved: a conditional write removes the temporary files
// killed writes of its file left (it holds the lock every write of the
// file holds); RemoveTempsOf removes those of one file and no other.
func TestStaleTempsRemoved(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "promoted.json")
	other := filepath.Join(dir, ".history.jsonl"+tempMarker+"abc")
	for _, f := range []string{filepath.Join(dir, ".promoted.json"+tempMarker+"1"), filepath.Join(dir, ".promoted.json"+tempMarker+"2"), other} {
		if err := os.WriteFile(f, []byte("torn"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := WriteIfVersion(ctx, p, []byte("{}"), 0); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := []string{filepath.Base(other), ".promoted.json" + lockMarker, "promoted.json"}; !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	if n, err := RemoveTempsOf(filepath.Join(dir, "history.jsonl")); err != nil || n != 1 {
		t.Errorf("RemoveTempsOf: %d, %v; want 1 removed", n, err)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("%s still there (%v)", other, err)
	}
}
