package rundir

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/testsupport/storagetest"
)

// TestAdopt (issue 33): a run folder an mtune before the record wrote is
// refused by every option until adopted; mtune adopt records the files of
// a run's names as the run's, with their bytes now, and keeps the user's;
// --resume then takes the run (its seed and inputs as recorded before) and
// --overwrite removes the run's files only. Local and gs://.
func TestAdopt(t *testing.T) {
	ctx := context.Background()
	for name, dir := range folders(t) {
		t.Run(name, func(t *testing.T) {
			root := storage.Join(dir, "old")
			d, err := Open(ctx, root, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			writeRun(t, d, "best/weights", "epochs/001/weights", "epochs/001/complete", "metrics.jsonl")
			if err := d.WriteManifest(ctx, Manifest{Seed: 7, Status: "done", Inputs: []InputFile{{Role: "src", Path: "tune.fr", SHA256: "00ff"}}}); err != nil {
				t.Fatal(err)
			}
			d.Close(ctx)
			if err := storage.WriteFile(ctx, storage.Join(root, "best/DEPLOYED.txt"), []byte("deployed\n")); err != nil {
				t.Fatal(err)
			}
			storagetest.EarlierManifest(t, storage.Join(root, "manifest.json"), "tune")
			for _, o := range []OpenOptions{{Resume: true}, {Overwrite: true}, {}} {
				if _, err := Open(ctx, root, o); !errors.Is(err, ErrNoRun) {
					t.Fatalf("Open %+v of the earlier run before adopting: %v, want ErrNoRun", o, err)
				}
			}
			if cmd, err := EarlierCommand(ctx, root); err != nil || cmd != "tune" {
				t.Fatalf("EarlierCommand = %q, %v; want tune", cmd, err)
			}
			a, err := Adopt(ctx, root, AdoptOptions{Command: "tune", Owns: Layout{}.Owns})
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"best/weights", "epochs/001/complete", "epochs/001/weights", "metrics.jsonl"}; !slices.Equal(a.Files, want) ||
				!slices.Equal(a.Kept, []string{"best/DEPLOYED.txt"}) {
				t.Fatalf("adopted files %v, kept %v", a.Files, a.Kept)
			}
			if s := a.String(); !strings.Contains(s, "recorded 4 files") || !strings.Contains(s, "best/DEPLOYED.txt") {
				t.Errorf("Adoption.String() = %q", s)
			}
			rec := &Record{Root: a.Root, Command: "tune", Owns: Layout{}.Owns}
			m, err := rec.Load(ctx)
			if err != nil {
				t.Fatalf("the adopted manifest: %v", err)
			}
			if m.Seed != 7 || len(m.Inputs) != 1 || m.Inputs[0].SHA256 != "00ff" || m.Status != "done" || len(m.CommandLine) < 2 {
				t.Errorf("the adopted manifest lost the earlier one's fields: %+v", m)
			}
			if _, err := Adopt(ctx, root, AdoptOptions{Command: "tune", Owns: Layout{}.Owns}); !errors.Is(err, ErrRecorded) {
				t.Errorf("a second adoption: %v, want ErrRecorded", err)
			}
			d, err = Open(ctx, root, OpenOptions{Resume: true})
			if err != nil {
				t.Fatalf("--resume after adopting: %v", err)
			}
			d.Close(ctx)
			d, err = Open(ctx, root, OpenOptions{Overwrite: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Clear(ctx); err != nil {
				t.Fatal(err)
			}
			d.Close(ctx)
			if got := walkRel(t, root); !slices.Equal(got, []string{"best/DEPLOYED.txt", "manifest.json"}) {
				t.Errorf("after --overwrite of the adopted run the folder holds %v", got)
			}
		})
	}
}

// TestAdoptRefuses: what is not an earlier mtune's folder of the command
// is never adopted, and the folder is left as it was.
func TestAdoptRefuses(t *testing.T) {
	ctx := context.Background()
	earlier := `{"command_line":["mtune","tune","--out","x"],"version":"v0.9.0","status":"done"}`
	tests := []struct {
		name     string
		files    map[string]string
		as       string
		want     error  // errors.Is, if not nil
		wantText string // in the error
	}{
		{"another program's manifest", map[string]string{"manifest.json": `{"name":"my-package"}`, "best/weights": "x"}, "tune", ErrNotMtune, "no \"command_line\""},
		{"not JSON", map[string]string{"manifest.json": `{"command_line":`, "best/weights": "x"}, "tune", ErrNotMtune, "manifest.json"},
		{"another schema", map[string]string{"manifest.json": `{"schema":"mtune.manifest","schema_version":9}`, "best/weights": "x"}, "tune", ErrNotMtune, "version 9"},
		{"no manifest", map[string]string{"best/weights": "x"}, "tune", fs.ErrNotExist, ""},
		{"another command's", map[string]string{"manifest.json": earlier, "moses.ini": "x"}, "build", nil, "records a run of mtune tune, not build"},
		{"nothing of the command's", map[string]string{"manifest.json": earlier, "notes.txt": "x"}, "tune", nil, "holds no file mtune tune writes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for rel, text := range tc.files {
				if err := storage.WriteFile(ctx, storage.Join(root, rel), []byte(text)); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Adopt(ctx, root, AdoptOptions{Command: tc.as, Owns: Layout{}.Owns})
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("Adopt: %v, want %v with %q", err, tc.want, tc.wantText)
			}
			if want, ok := tc.files["manifest.json"]; ok {
				if got := string(read(t, storage.Join(root, "manifest.json"))); got != want {
					t.Errorf("a refused adoption rewrote manifest.json: %s", got)
				}
			}
		})
	}
}
