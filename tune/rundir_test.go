package tune

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/io/storage"
)

func TestOpenRunDir(t *testing.T) {
	ctx := context.Background()
	for name, dir := range folders(t) {
		t.Run(name, func(t *testing.T) {
			d, err := OpenRunDir(ctx, dir, OpenOptions{})
			if err != nil {
				t.Fatalf("open an empty folder: %v", err)
			}
			if _, err := OpenRunDir(ctx, dir, OpenOptions{Resume: true}); !errors.Is(err, ErrBusy) {
				t.Fatalf("second open while held: %v, want busy", err)
			}
			for _, f := range []string{d.Manifest(), d.Epoch(1).Moses()} {
				if err := storage.WriteFile(ctx, f, []byte("x\n")); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.Close(ctx); err != nil {
				t.Fatal(err)
			}

			_, err = OpenRunDir(ctx, dir, OpenOptions{})
			if !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), "--resume") || !strings.Contains(err.Error(), "--overwrite") {
				t.Fatalf("open a used folder without resume: %v, want ErrNotEmpty naming --resume and --overwrite", err)
			}
			d, err = OpenRunDir(ctx, dir, OpenOptions{Resume: true})
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if ok, _ := storage.Exists(ctx, d.Manifest()); !ok {
				t.Fatal("resume removed the run's files")
			}
			d.Close(ctx)

			d, err = OpenRunDir(ctx, dir, OpenOptions{Overwrite: true})
			if err != nil {
				t.Fatalf("overwrite: %v", err)
			}
			if ok, _ := storage.Exists(ctx, d.Manifest()); !ok {
				t.Fatal("opening with overwrite removed files before Clear")
			}
			for _, f := range []string{"model/moses.ini", "model/corpus/tune.src", "model/corpus/tune.ref", "model/other"} {
				if err := storage.WriteFile(ctx, storage.Join(dir, f), []byte("x\n")); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.Clear(ctx, "model/moses.ini", "model/corpus/tune.src"); err != nil {
				t.Fatal(err)
			}
			files, err := storage.Walk(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{storage.Join(dir, LeaseName), storage.Join(dir, "model", "corpus", "tune.src"), storage.Join(dir, "model", "moses.ini")}
			if !slices.Equal(files, want) {
				t.Fatalf("after Clear the folder holds %v, want %v", files, want)
			}
			if _, err := os.Stat(storage.Join(dir, "epochs")); !storage.IsGCS(dir) && !os.IsNotExist(err) {
				t.Errorf("the emptied epochs folder is still there (%v)", err)
			}
			d.Close(ctx)
			if _, err := OpenRunDir(ctx, dir, OpenOptions{Resume: true, Overwrite: true}); err == nil {
				t.Fatal("resume with overwrite accepted")
			}
		})
	}
}

// TestOpenRunDirRemovesTemps: resuming removes the temporary files a
// killed write left behind, and nothing else.
// TestRunDirNotStarted: a folder that was empty when opened and in which
// no run started (no manifest.json: the run's inputs were refused) is
// emptied on Close, so the next run's open is not refused; a folder opened
// to resume keeps its files.
func TestRunDirNotStarted(t *testing.T) {
	ctx := context.Background()
	for name, dir := range folders(t) {
		t.Run(name, func(t *testing.T) {
			d, err := OpenRunDir(ctx, dir, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{d.Log(), storage.Join(dir, "demo-model", "moses.ini")} {
				if err := storage.WriteFile(ctx, f, []byte("x\n")); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.Close(ctx); err != nil {
				t.Fatal(err)
			}
			d, err = OpenRunDir(ctx, dir, OpenOptions{})
			if err != nil {
				t.Fatalf("open after a run that never started: %v", err)
			}
			d.Close(ctx)
			if d, err = OpenRunDir(ctx, dir, OpenOptions{Resume: true}); err != nil {
				t.Fatal(err)
			}
			if err := storage.WriteFile(ctx, d.Log(), []byte("x\n")); err != nil {
				t.Fatal(err)
			}
			if err := d.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := OpenRunDir(ctx, dir, OpenOptions{}); !errors.Is(err, ErrNotEmpty) {
				t.Fatalf("a resumed folder's run.log was removed: %v", err)
			}
		})
	}
}

func TestOpenRunDirRemovesTemps(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	keep := filepath.Join(dir, "epochs", "001", "weights")
	temp := filepath.Join(dir, "epochs", "001", ".weights.json.mtune-tmp-abc123")
	for _, f := range []string{keep, temp} {
		os.MkdirAll(filepath.Dir(f), 0o777)
		if err := os.WriteFile(f, []byte("x"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	d, err := OpenRunDir(ctx, dir, OpenOptions{Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(ctx)
	if _, err := os.Stat(temp); !os.IsNotExist(err) {
		t.Errorf("the temporary file is still there (%v)", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("a real file was removed: %v", err)
	}
}
