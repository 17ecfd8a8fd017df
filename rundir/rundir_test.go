package rundir

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
			d, err := Open(ctx, dir, OpenOptions{})
			if err != nil {
				t.Fatalf("open an empty folder: %v", err)
			}
			if _, err := Open(ctx, dir, OpenOptions{Resume: true}); !errors.Is(err, ErrBusy) {
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

			_, err = Open(ctx, dir, OpenOptions{})
			if !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), "--resume") || !strings.Contains(err.Error(), "--overwrite") {
				t.Fatalf("open a used folder without resume: %v, want ErrNotEmpty naming --resume and --overwrite", err)
			}
			d, err = Open(ctx, dir, OpenOptions{Resume: true})
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if ok, _ := storage.Exists(ctx, d.Manifest()); !ok {
				t.Fatal("resume removed the run's files")
			}
			d.Close(ctx)

			d, err = Open(ctx, dir, OpenOptions{Overwrite: true})
			if err != nil {
				t.Fatalf("overwrite: %v", err)
			}
			if ok, _ := storage.Exists(ctx, d.Manifest()); !ok {
				t.Fatal("opening with overwrite removed files before Clear")
			}
			// The user's model inside the folder, files of the run, and
			// an input among them (--init OUT/best/weights.json).
			for _, f := range []string{"model/moses.ini", "model/corpus/tune.src", "init/weights.json", "best/weights.json", "best/weights"} {
				if err := storage.WriteFile(ctx, storage.Join(dir, f), []byte("x\n")); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.Clear(ctx, storage.Join(dir, "best", "weights.json")); err != nil {
				t.Fatal(err)
			}
			files, err := storage.Walk(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{storage.Join(dir, "best", "weights.json"), storage.Join(dir, LeaseName),
				storage.Join(dir, "model", "corpus", "tune.src"), storage.Join(dir, "model", "moses.ini")}
			if !slices.Equal(files, want) {
				t.Fatalf("after Clear the folder holds %v, want %v", files, want)
			}
			if _, err := os.Stat(storage.Join(dir, "epochs")); !storage.IsGCS(dir) && !os.IsNotExist(err) {
				t.Errorf("the emptied epochs folder is still there (%v)", err)
			}
			d.Close(ctx)
			if _, err := Open(ctx, dir, OpenOptions{Resume: true, Overwrite: true}); err == nil {
				t.Fatal("resume with overwrite accepted")
			}
		})
	}
}

// TestRunDirNotStarted: a folder that was empty when opened and in which
// no run started (no manifest.json: the run's inputs were refused) is
// emptied on Close, so the next run's open is not refused; a folder opened
// to resume keeps its files.
func TestRunDirNotStarted(t *testing.T) {
	ctx := context.Background()
	for name, dir := range folders(t) {
		t.Run(name, func(t *testing.T) {
			d, err := Open(ctx, dir, OpenOptions{})
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
			d, err = Open(ctx, dir, OpenOptions{})
			if err != nil {
				t.Fatalf("open after a run that never started: %v", err)
			}
			d.Close(ctx)
			if d, err = Open(ctx, dir, OpenOptions{Resume: true}); err != nil {
				t.Fatal(err)
			}
			if err := storage.WriteFile(ctx, d.Log(), []byte("x\n")); err != nil {
				t.Fatal(err)
			}
			if err := d.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := Open(ctx, dir, OpenOptions{}); !errors.Is(err, ErrNotEmpty) {
				t.Fatalf("a resumed folder's run.log was removed: %v", err)
			}
		})
	}
}

// TestOpenRunDirRemovesTemps: resuming removes the temporary files a
// killed write left behind, and nothing else.
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
	d, err := Open(ctx, dir, OpenOptions{Resume: true})
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

// TestOpenRunDirForeign: a folder holding files but no run (no
// manifest.json) is refused whatever the options, and left as it was; a
// folder that holds only what a run writes, killed before its manifest,
// is a run's.
func TestOpenRunDirForeign(t *testing.T) {
	ctx := context.Background()
	for name, dir := range folders(t) {
		t.Run(name, func(t *testing.T) {
			thesis := storage.Join(dir, "docs", "thesis.tex")
			if err := storage.WriteFile(ctx, thesis, []byte("t\n")); err != nil {
				t.Fatal(err)
			}
			for _, o := range []OpenOptions{{}, {Overwrite: true}, {Resume: true}} {
				if _, err := Open(ctx, dir, o); !errors.Is(err, ErrNoRun) || !strings.Contains(err.Error(), "docs/thesis.tex") {
					t.Errorf("open %+v: %v, want ErrNoRun naming docs/thesis.tex", o, err)
				}
			}
			files, err := storage.Walk(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(files, []string{thesis}) {
				t.Fatalf("the refused folder holds %v, want only %s", files, thesis)
			}
			if err := storage.Remove(ctx, thesis); err != nil {
				t.Fatal(err)
			}
			// A run killed while building the demo: only the run's names.
			if err := storage.WriteFile(ctx, storage.Join(dir, "demo-model", "moses.ini"), []byte("x\n")); err != nil {
				t.Fatal(err)
			}
			d, err := Open(ctx, dir, OpenOptions{Resume: true})
			if err != nil {
				t.Fatalf("resume a run killed before its manifest: %v", err)
			}
			d.Close(ctx)
		})
	}
}

// TestClearResolvesPaths: Clear compares inputs with the folder's files by
// resolved absolute path, so a relative folder and an absolute input (or
// a link to the folder) keep the input; a temporary file goes with the
// file it is for.
func TestClearResolvesPaths(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	t.Chdir(base)
	if err := os.Symlink(base, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	write := func(rel string) {
		t.Helper()
		p := filepath.Join(base, "out", rel)
		os.MkdirAll(filepath.Dir(p), 0o777)
		if err := os.WriteFile(p, []byte("x"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"manifest.json", "demo-model/moses.ini", "demo-model/phrase-table.gz", "demo-model/corpus/test.src",
		"epochs/001/weights", ".metrics.jsonl.mtune-tmp-1x", ".notes.txt.mtune-tmp-2y", "notes.txt"} {
		write(f)
	}
	d, err := Open(ctx, "out", OpenOptions{Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(ctx)
	// The demo model whole, named through a link; the ini by an absolute
	// path.
	if err := d.Clear(ctx, filepath.Join(base, "link", "out", "demo-model"), filepath.Join(base, "out", "demo-model", "moses.ini")); err != nil {
		t.Fatal(err)
	}
	var left []string
	filepath.WalkDir(filepath.Join(base, "out"), func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			r, _ := filepath.Rel(filepath.Join(base, "out"), p)
			left = append(left, filepath.ToSlash(r))
		}
		return nil
	})
	want := []string{"." + LeaseName + ".mtune-lock", ".notes.txt.mtune-tmp-2y", "demo-model/corpus/test.src", "demo-model/moses.ini", "demo-model/phrase-table.gz", LeaseName, "notes.txt"}
	if !slices.Equal(left, want) {
		t.Fatalf("after Clear: %v, want %v", left, want)
	}
}
