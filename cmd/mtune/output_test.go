package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/testsupport/storagetest"
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

// TestUserFolderRefused (issue 33): an output folder (or registry) that
// holds files but no manifest.json of mtune's recording its command — the
// user's thesis, another program's manifest.json, files with a run's names
// and no manifest, a lone report.html — is refused by every command that
// writes one, with every option, before any work, and left as it was.
func TestUserFolderRefused(t *testing.T) {
	contents := map[string]map[string]string{
		"thesis":            {"docs/thesis.tex": "t\n"},
		"package manifest":  {"manifest.json": `{"name":"my-package"}` + "\n", "docs/thesis.tex": "t\n"},
		"run-like names":    {"best/weights": "LM0= 1\n", "epochs/001/complete": "{}\n", "docs/thesis.tex": "t\n"},
		"a user's report":   {"report.html": "<p>mine</p>\n", "docs/thesis.tex": "t\n"},
		"a model's corpus/": {"corpus/dev.fr": "bonjour\n", "docs/thesis.tex": "t\n"},
	}
	lists := t.TempDir()
	nb, ref := filepath.Join(lists, "nbest.txt"), filepath.Join(lists, "ref.txt")
	for p, text := range map[string]string{nb: "0 ||| a b ||| LM0= -1 ||| -1\n", ref: "a b\n"} {
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "--epochs", "1", "--overwrite", "--out"}, "no run of mtune"},
		{[]string{"tune", "--epochs", "1", "--resume", "--out"}, "no run of mtune"},
		{[]string{"build", "--demo", "--overwrite", "--out"}, "no run of mtune"},
		{[]string{"tune-nbest", "--nbest", "x", "-r", "y", "--overwrite", "--out"}, "no run of mtune"},
		{[]string{"extract", "--nbest", nb, "-r", ref, "--overwrite", "--out"}, "no run of mtune"},
		{[]string{"retrain", "--epochs", "1", "--registry"}, "no registry"},
	} {
		for what, files := range contents {
			t.Run(strings.Join(tc.args[:2], " ")+"/"+what, func(t *testing.T) {
				home := t.TempDir()
				for rel, text := range files {
					p := filepath.Join(home, rel)
					os.MkdirAll(filepath.Dir(p), 0o777)
					if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
						t.Fatal(err)
					}
				}
				code, _, errOut := mtune(t, "", append(tc.args, home)...)
				if code != 1 || !strings.Contains(errOut, tc.want) {
					t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, tc.want)
				}
				var got []string
				filepath.WalkDir(home, func(p string, e os.DirEntry, err error) error {
					if err == nil && !e.IsDir() {
						rel, _ := filepath.Rel(home, p)
						got = append(got, filepath.ToSlash(rel))
						if data, err := os.ReadFile(p); err != nil || string(data) != files[filepath.ToSlash(rel)] {
							t.Errorf("%s: %q, %v", rel, data, err)
						}
					}
					return nil
				})
				if len(got) != len(files) {
					t.Errorf("the refused folder now holds %v", got)
				}
			})
		}
	}
}

// TestInputNeverOutput (issue 33): an input the run would write over is
// refused before any work: tune --init OUT/best/weights.json --out OUT
// --overwrite, and tune-nbest --pool-cache naming its own n-best list or a
// file that is not a pool cache; the files are left as they were.
func TestInputNeverOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "d5")
	// A run folder of tune's, with its record (as a finished run leaves it).
	ctx := context.Background()
	d, err := rundir.Open(ctx, out, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	best := filepath.Join(out, "best", "weights.json")
	if err := os.MkdirAll(filepath.Dir(best), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(best, []byte(`{"LM0":0.5}`+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(d.WriteManifest(ctx, rundir.Manifest{Status: "done"}), d.Close(ctx)); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, best)
	code, _, errOut := mtune(t, "", "tune", "--epochs", "1", "--init", best, "--out", out, "--overwrite")
	if code == 0 || !strings.Contains(errOut, "lies in the output folder") {
		t.Fatalf("tune --init OUT/best/weights.json --overwrite: exit %d, stderr %q", code, errOut)
	}
	if readFile(t, best) != before {
		t.Fatal("the refused run changed its input")
	}
	nb := filepath.Join(dir, "nbest.txt")
	ref := filepath.Join(dir, "ref.txt")
	notCache := filepath.Join(dir, "notes.bin")
	for p, text := range map[string]string{nb: "0 ||| a b ||| LM0= -1 ||| -1\n", ref: "a b\n", notCache: "my notes\n"} {
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for _, cache := range []string{nb, notCache} {
		code, _, errOut := mtune(t, "", "tune-nbest", "--nbest", nb, "-r", ref, "--out", filepath.Join(dir, "w"), "--pool-cache", cache)
		if code != 2 || !strings.Contains(errOut, "pool cache") {
			t.Errorf("--pool-cache %s: exit %d, stderr %q", cache, code, errOut)
		}
	}
	if readFile(t, nb) != "0 ||| a b ||| LM0= -1 ||| -1\n" || readFile(t, notCache) != "my notes\n" {
		t.Fatal("a refused --pool-cache was written")
	}
	if _, err := os.Stat(filepath.Join(dir, "w")); err == nil {
		t.Error("a refused tune-nbest made its --out")
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

// TestAdoptCommand (issue 33): mtune adopt gives a run folder and a model
// folder an mtune before the record wrote their record: the run, refused
// by --resume before, resumes; the model's notes stay the user's; a
// folder that is not mtune's is refused with exit 1.
func TestAdoptCommand(t *testing.T) {
	base := t.TempDir()
	run, model := filepath.Join(base, "run"), filepath.Join(base, "model")
	if code, _, errOut := mtune(t, "", "tune", "--epochs", "1", "--out", run); code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errOut)
	}
	if code, _, errOut := mtune(t, "", "build", "--demo", "--out", model); code != 0 {
		t.Fatalf("build: exit %d: %s", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(model, "notes.txt"), []byte("mine\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	storagetest.EarlierManifest(t, filepath.Join(run, "manifest.json"), "tune")
	storagetest.EarlierManifest(t, filepath.Join(model, "manifest.json"), "build")
	if code, _, errOut := mtune(t, "", "tune", "--epochs", "2", "--resume", "--out", run); code != 1 || !strings.Contains(errOut, "no run of mtune") {
		t.Fatalf("--resume of the earlier run before adopting: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut := mtune(t, "", "adopt", run, model)
	if code != 0 || !strings.Contains(out, run+": recorded") || !strings.Contains(out, "kept 1 as yours (notes.txt)") {
		t.Fatalf("adopt: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, errOut := mtune(t, "", "tune", "--epochs", "2", "--resume", "--out", run); code != 0 || !strings.Contains(errOut, "resum") {
		t.Fatalf("--resume after adopting: exit %d: %s", code, errOut)
	}
	if code, _, errOut := mtune(t, "", "adopt", run); code != 1 || !strings.Contains(errOut, "already holds a record") {
		t.Errorf("adopt of an adopted run: exit %d, stderr %q", code, errOut)
	}
	mine := t.TempDir()
	if err := os.WriteFile(filepath.Join(mine, "manifest.json"), []byte(`{"name":"my-package"}`), 0o666); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := mtune(t, "", "adopt", mine); code != 1 || !strings.Contains(errOut, "not a manifest of mtune's") {
		t.Errorf("adopt of another program's folder: exit %d, stderr %q", code, errOut)
	}
}
