package rundir

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/mtune/mtune/io/storage"
)

// writeRun writes files as a run of d does and records them.
func writeRun(t *testing.T, d *RunDir, rels ...string) {
	t.Helper()
	ctx := context.Background()
	for _, rel := range rels {
		if err := storage.WriteFile(ctx, storage.Join(d.Root, rel), []byte(rel+" of the run\n")); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.WriteManifest(ctx, Manifest{Status: "done"}); err != nil {
		t.Fatal(err)
	}
}

// walkRel lists the files under dir, relative to it, the lease left out.
func walkRel(t *testing.T, dir string) []string {
	t.Helper()
	files, err := storage.Walk(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		rel := strings.TrimPrefix(strings.TrimPrefix(f, dir), "/")
		if rel != LeaseName {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

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
			writeRun(t, d, "epochs/001/weights")
			if err := d.Close(ctx); err != nil {
				t.Fatal(err)
			}

			_, err = Open(ctx, dir, OpenOptions{})
			if !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), "--resume") || !strings.Contains(err.Error(), "--overwrite") {
				t.Fatalf("open a used folder without resume: %v, want ErrNotEmpty naming --resume and --overwrite", err)
			}
			if _, err := Open(ctx, dir, OpenOptions{Command: "build", Resume: true}); !errors.Is(err, ErrNoRun) {
				t.Fatalf("another command's open: %v, want ErrNoRun", err)
			}
			d, err = Open(ctx, dir, OpenOptions{Resume: true})
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if ok, _ := storage.Exists(ctx, d.Manifest()); !ok {
				t.Fatal("resume removed the run's files")
			}
			writeRun(t, d, "init/weights.json", "best/weights.json", "best/weights")
			d.Close(ctx)

			d, err = Open(ctx, dir, OpenOptions{Overwrite: true})
			if err != nil {
				t.Fatalf("overwrite: %v", err)
			}
			if ok, _ := storage.Exists(ctx, d.Manifest()); !ok {
				t.Fatal("opening with overwrite removed files before Clear")
			}
			// The user's model inside the folder; an input among the run's
			// files is kept by Clear (CheckInputs refuses it first in a run).
			for _, f := range []string{"model/moses.ini", "model/corpus/tune.src"} {
				if err := storage.WriteFile(ctx, storage.Join(dir, f), []byte("x\n")); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.Clear(ctx, storage.Join(dir, "best", "weights.json")); err != nil {
				t.Fatal(err)
			}
			want := []string{"best/weights.json", "manifest.json", "model/corpus/tune.src", "model/moses.ini"}
			if got := walkRel(t, dir); !slices.Equal(got, want) {
				t.Fatalf("after Clear the folder holds %v, want %v", got, want)
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

// TestOverwriteByRecord (issue 33): --overwrite removes exactly the files
// the run's record lists whose bytes are still those written; a file the
// user added anywhere (best/DEPLOYED.txt), or a run's file changed since,
// stays and is named on stderr, and is never taken into the next run's
// record while unchanged.
func TestOverwriteByRecord(t *testing.T) {
	ctx := context.Background()
	for name, dir := range folders(t) {
		t.Run(name, func(t *testing.T) {
			d, err := Open(ctx, dir, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			writeRun(t, d, "best/weights", "best/weights.json", "epochs/001/weights", "epochs/001/state/shard-000.json", "metrics.jsonl")
			d.Close(ctx)
			user := map[string]string{
				"best/DEPLOYED.txt":   "deployed\n",       // the user's, in a run's folder
				"epochs/001/weights":  "edited by hand\n", // the run's, changed since
				"epochs/002/NOTES.md": "notes\n",          // under a run's name pattern folder
				"replicas/README":     "mine\n",           // a folder of the run's names
			}
			for rel, text := range user {
				if err := storage.WriteFile(ctx, storage.Join(dir, rel), []byte(text)); err != nil {
					t.Fatal(err)
				}
			}
			var log strings.Builder
			prev := slog.Default()
			slog.SetDefault(slog.New(slog.NewTextHandler(&log, nil)))
			defer slog.SetDefault(prev)
			d, err = Open(ctx, dir, OpenOptions{Overwrite: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Clear(ctx); err != nil {
				t.Fatal(err)
			}
			want := []string{"best/DEPLOYED.txt", "epochs/001/weights", "epochs/002/NOTES.md", "manifest.json", "replicas/README"}
			if got := walkRel(t, dir); !slices.Equal(got, want) {
				t.Fatalf("after --overwrite the folder holds %v, want %v", got, want)
			}
			for rel, text := range user {
				if got := string(read(t, storage.Join(dir, rel))); got != text {
					t.Errorf("%s holds %q, want the user's %q", rel, got, text)
				}
				if !strings.Contains(log.String(), rel) {
					t.Errorf("the kept %s is not named: %s", rel, log.String())
				}
			}
			// The next run's record does not take them in (but the file it
			// writes anew at a kept name is its own).
			writeRun(t, d, "best/weights")
			d.Close(ctx)
			var m Manifest
			if err := ReadJSON(ctx, d.Manifest(), &m); err != nil {
				t.Fatal(err)
			}
			var files, kept []string
			for _, f := range m.Files {
				files = append(files, f.Path)
			}
			for _, f := range m.Kept {
				kept = append(kept, f.Path)
			}
			if !slices.Equal(files, []string{"best/weights"}) || !slices.Equal(kept, []string{"best/DEPLOYED.txt", "epochs/001/weights", "epochs/002/NOTES.md", "replicas/README"}) {
				t.Fatalf("the next run records %v and keeps %v", files, kept)
			}
			d, err = Open(ctx, dir, OpenOptions{Overwrite: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Clear(ctx); err != nil {
				t.Fatal(err)
			}
			d.Close(ctx)
			if got := walkRel(t, dir); !slices.Equal(got, want) {
				t.Fatalf("after a second --overwrite the folder holds %v, want %v", got, want)
			}
		})
	}
}

// read returns the content of p.
func read(t *testing.T, p string) []byte {
	t.Helper()
	b, err := storage.ReadFile(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRunDirNotStarted: a folder that was empty when opened and in which
// no run started (its manifest still Open's: the run's inputs were
// refused) is emptied on Close, so the next run's open is not refused; a
// folder opened to resume keeps its files.
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
			if got := walkRel(t, dir); len(got) != 0 {
				t.Fatalf("a folder whose run never started holds %v", got)
			}
			d, err = Open(ctx, dir, OpenOptions{})
			if err != nil {
				t.Fatalf("open after a run that never started: %v", err)
			}
			writeRun(t, d, "run.log")
			d.Close(ctx)
			if d, err = Open(ctx, dir, OpenOptions{Resume: true}); err != nil {
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
// killed write left behind, and nothing else; a run killed before its own
// manifest (the folder's record alone) resumes.
func TestOpenRunDirRemovesTemps(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := Open(ctx, dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.lease.Release(ctx) // killed: no Close
	keep := filepath.Join(dir, "epochs", "001", "weights")
	temp := filepath.Join(dir, "epochs", "001", ".weights.json.mtune-tmp-abc123")
	for _, f := range []string{keep, temp} {
		os.MkdirAll(filepath.Dir(f), 0o777)
		if err := os.WriteFile(f, []byte("x"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	d, err = Open(ctx, dir, OpenOptions{Resume: true})
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

// TestOpenRunDirForeign (issue 33): a folder holding files but no
// manifest.json of mtune's recording a run — none, another program's
// ({"name":"my-package"}), or one of an mtune before the record — is
// refused whatever the options, and left as it was, even when every file
// has a run's name.
func TestOpenRunDirForeign(t *testing.T) {
	ctx := context.Background()
	for name, dir := range folders(t) {
		for _, tc := range []struct {
			name  string
			files map[string]string
		}{
			{"the user's thesis", map[string]string{"docs/thesis.tex": "t\n"}},
			{"run-like names, no manifest", map[string]string{"best/weights": "w\n", "epochs/001/complete": "{}\n"}},
			{"another program's manifest", map[string]string{"manifest.json": `{"name":"my-package"}` + "\n", "index.js": "x\n"}},
			{"an older mtune's manifest", map[string]string{"manifest.json": `{"command_line":["mtune","tune"],"version":"v0","status":"done"}` + "\n", "best/weights": "w\n"}},
			{"a manifest of another schema", map[string]string{"manifest.json": `{"schema":"mtune.manifest","schema_version":9,"command":"tune"}` + "\n"}},
		} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				sub := storage.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
				for rel, text := range tc.files {
					if err := storage.WriteFile(ctx, storage.Join(sub, rel), []byte(text)); err != nil {
						t.Fatal(err)
					}
				}
				before := walkRel(t, sub)
				for _, o := range []OpenOptions{{}, {Overwrite: true}, {Resume: true}} {
					if _, err := Open(ctx, sub, o); !errors.Is(err, ErrNoRun) {
						t.Errorf("open %+v: %v, want ErrNoRun", o, err)
					}
				}
				if got := walkRel(t, sub); !slices.Equal(got, before) {
					t.Fatalf("the refused folder holds %v, want %v", got, before)
				}
			})
		}
	}
}

// TestOneSpelling (issue 33): every spelling of a gs:// folder
// (gs://b//d2, gs://b/./d2, gs://b/d2/./) and a link to a local one open
// the one folder: an earlier run in it is seen (refused without a flag,
// resumed with --resume), never taken for an empty folder.
func TestOneSpelling(t *testing.T) {
	ctx := context.Background()
	for name, dir := range folders(t) {
		t.Run(name, func(t *testing.T) {
			d, err := Open(ctx, storage.Join(dir, "d2"), OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			writeRun(t, d, "epochs/001/complete")
			d.Close(ctx)
			var spellings []string
			if storage.IsGCS(dir) {
				bucket, prefix, _ := strings.Cut(strings.TrimPrefix(dir, "gs://"), "/")
				spellings = []string{"gs://" + bucket + "//" + prefix + "/d2", "gs://" + bucket + "/./" + prefix + "/d2", dir + "/d2/./", dir + "//d2/"}
			} else {
				link := filepath.Join(t.TempDir(), "link")
				if err := os.Symlink(filepath.Join(dir, "d2"), link); err != nil {
					t.Fatal(err)
				}
				spellings = []string{link, dir + "//d2/", dir + "/./d2"}
			}
			for _, sp := range spellings {
				if _, err := Open(ctx, sp, OpenOptions{}); !errors.Is(err, ErrNotEmpty) {
					t.Errorf("open %s: %v, want the earlier run seen (ErrNotEmpty)", sp, err)
				}
				d, err := Open(ctx, sp, OpenOptions{Resume: true})
				if err != nil {
					t.Errorf("resume %s: %v", sp, err)
					continue
				}
				if d.Root != d.Layout.Root || strings.Contains(strings.TrimPrefix(d.Root, "gs://"), "//") || strings.Contains(d.Root, "/./") {
					t.Errorf("open %s: root %s is not cleaned", sp, d.Root)
				}
				d.Close(ctx)
			}
		})
	}
}

// TestCheckInputs (issue 33): an input at a name the run writes in its
// folder (tune --init OUT/best/weights.json --out OUT) is refused, by any
// spelling; one of the user's in the folder, or outside it, is not.
func TestCheckInputs(t *testing.T) {
	ctx := context.Background()
	for name, dir := range folders(t) {
		t.Run(name, func(t *testing.T) {
			d, err := Open(ctx, dir, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close(ctx)
			for _, tc := range []struct {
				path string
				ok   bool
			}{
				{storage.Join(dir, "best", "weights.json"), false},
				{dir + "/./best/weights.json", false},
				{storage.Join(dir, "epochs", "002", "weights"), false},
				{storage.Join(dir, "manifest.json"), false},
				{dir, false},
				{storage.Join(dir, "data", "dev.fr"), true},
				{storage.Join(dir, "best", "DEPLOYED.txt"), true},
				{storage.Join(dir+"-other", "best", "weights.json"), true},
			} {
				err := d.CheckInputs(InputFile{Role: "init", Path: tc.path})
				if (err == nil) != tc.ok {
					t.Errorf("input %s: %v, want ok %v", tc.path, err, tc.ok)
				}
			}
		})
	}
}

// TestClearTemps: Clear removes a killed write's temporary file with the
// run's file it is for, and keeps the user's and its temporary file; a
// kept input folder (the demo model) stays whole.
func TestClearTemps(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	t.Chdir(base)
	d, err := Open(ctx, "out", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	writeRun(t, d, "demo-model/moses.ini", "demo-model/phrase-table.gz", "demo-model/corpus/test.src", "epochs/001/weights", "metrics.jsonl")
	d.Close(ctx)
	for _, f := range []string{".metrics.jsonl.mtune-tmp-1x", ".notes.txt.mtune-tmp-2y", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(base, "out", f), []byte("x"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(base, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	if d, err = Open(ctx, "out", OpenOptions{Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	defer d.Close(ctx)
	// The demo model whole, named through a link.
	if err := d.Clear(ctx, filepath.Join(base, "link", "out", "demo-model")); err != nil {
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
	want := []string{"." + LeaseName + ".mtune-lock", ".notes.txt.mtune-tmp-2y", "demo-model/corpus/test.src", "demo-model/moses.ini", "demo-model/phrase-table.gz", LeaseName, "manifest.json", "notes.txt"}
	if !slices.Equal(left, want) {
		t.Fatalf("after Clear: %v, want %v", left, want)
	}
}

// TestOverwriteKeepsLinks: a link of the user's in a run folder (to a
// folder, or dangling) is kept by --overwrite, never read or followed.
func TestOverwriteKeepsLinks(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "run")
	d, err := Open(ctx, dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	writeRun(t, d, "best/weights")
	d.Close(ctx)
	for name, target := range map[string]string{"data": t.TempDir(), "gone": filepath.Join(dir, "nowhere")} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if d, err = Open(ctx, dir, OpenOptions{Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	defer d.Close(ctx)
	if err := d.Clear(ctx); err != nil {
		t.Fatalf("clear a folder with links: %v", err)
	}
	for _, name := range []string{"data", "gone"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Errorf("the link %s went: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "best", "weights")); !os.IsNotExist(err) {
		t.Errorf("the run's best/weights is still there (%v)", err)
	}
}

// TestFinishOnFullDisk (issue 33): when the disk is full, so that the
// manifest cannot be written anew (a new file, then a rename), Finish
// still records the failure, in the blocks the manifest already holds,
// instead of leaving it saying "running".
func TestFinishOnFullDisk(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "run")
	d, err := Open(ctx, dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(ctx)
	if err := d.WriteManifest(ctx, Manifest{Status: "running"}); err != nil {
		t.Fatal(err)
	}
	full := fmt.Errorf("write %s.tmp: %w", d.Manifest(), syscall.ENOSPC)
	writeJSON = func(context.Context, string, any) error { return full }
	defer func() { writeJSON = WriteJSON }()
	err = Finish(ctx, d, Report{Dir: d.Layout}, Manifest{Status: "running"}, full)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Finish: %v, want the run's error", err)
	}
	var m Manifest
	if err := ReadJSON(ctx, d.Manifest(), &m); err != nil {
		t.Fatal(err)
	}
	if m.Status != "failed" || !strings.Contains(m.Error, "no space left on device") || m.Schema != ManifestSchema {
		t.Errorf("manifest after Finish on a full disk: status %q, error %q, schema %q; want failed, the error, mtune's schema", m.Status, m.Error, m.Schema)
	}
}
