package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/testsupport/testfile"
)

// TestTuneDemo runs "mtune tune" with the demo defaults (no --config) for
// two epochs on prism, resumes it for a third, and checks the output
// folder: the manifest, one metrics line per epoch, best/weights readable
// by io/weights, and a dev (demo test set) BLEU above the untuned weights'
// BLEU measured with mtune decode and mtune score.
func TestTuneDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("tunes the demo system")
	}
	// A blank in the output folder must not split the paths of the demo
	// model's moses.ini.
	out := filepath.Join(t.TempDir(), "my run")
	code, stdout, errOut := mtune(t, "", "tune", "--epochs", "2", "--out", out)
	if code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errOut)
	}
	t.Logf("%s%s", errOut, stdout)
	if !strings.Contains(stdout, out) {
		t.Errorf("stdout %q does not say where the output is", stdout)
	}
	// (an epoch longer than 10 s prints in-epoch lines besides: "sentences decoded")
	firstErr := errOut
	if n := strings.Count("\n"+errOut, "\nepoch ") - strings.Count(errOut, "sentences decoded") - strings.Count(errOut, "epoch 0: "); n != 2 {
		t.Errorf("%d epochs' progress lines, want 2:\n%s", n, errOut)
	}
	// The last lines name the report, the complete weights and the
	// decode command that uses them.
	best := filepath.Join(out, "best", "weights.json")
	ini := filepath.Join(out, "demo-model", "moses.ini")
	wantEnd := []string{"report:  " + filepath.Join(out, "report.html"), "weights: " + best + " (dense and sparse",
		"decode:  " + rundir.ShellJoin([]string{"mtune", "decode", "--config", ini, "--weights", best}) + " INPUT > OUTPUT"}
	if lines := strings.Split(strings.TrimSpace(stdout), "\n"); len(lines) != len(wantEnd) {
		t.Errorf("stdout %q, want %d lines", stdout, len(wantEnd))
	} else {
		for i, want := range wantEnd {
			if !strings.HasPrefix(lines[i], want) {
				t.Errorf("stdout line %d %q, want %q", i+1, lines[i], want)
			}
		}
	}
	if !strings.Contains(errOut, "tune: 2 epochs in ") {
		t.Errorf("stderr does not say 2 epochs ran:\n%s", errOut)
	}
	// Resume for one more epoch.
	code, _, errOut = mtune(t, "", "tune", "--epochs", "3", "--out", out, "--resume")
	if code != 0 {
		t.Fatalf("tune --resume: exit %d: %s", code, errOut)
	}
	if strings.Contains(errOut, "epoch 1/") || !strings.Contains(errOut, "epoch 3/3") {
		t.Errorf("resume ran other epochs than the third:\n%s", errOut)
	}
	if !strings.Contains(errOut, "tune: 1 epoch in ") || !strings.Contains(errOut, "(epochs 1-2 resumed)") {
		t.Errorf("the resumed run's end does not say it ran 1 epoch and resumed 2:\n%s", errOut)
	}

	var man rundir.Manifest
	data, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &man); err != nil {
		t.Fatal(err)
	}
	// moses.ini, its phrase table, reordering table and LM, the tuning
	// set and the dev set (the demo's test set).
	if man.Status != "done" || man.End == nil || len(man.Inputs) != 8 || man.Options.Mix != "linesearch" {
		t.Errorf("manifest %s", data)
	}
	for _, in := range man.Inputs {
		if len(in.SHA256) != 64 {
			t.Errorf("input %s: checksum %q", in.Path, in.SHA256)
		}
	}

	f, err := os.Open(filepath.Join(out, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ms []rundir.Metrics
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m rundir.Metrics
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("metrics line %d: %v", len(ms)+1, err)
		}
		ms = append(ms, m)
	}
	if len(ms) != 3 {
		t.Fatalf("%d metrics lines, want 3", len(ms))
	}
	for i, m := range ms {
		if m.Epoch != i+1 || m.DevScore == nil || m.Sentences != 300 || m.Updates == 0 || m.NonZero == 0 {
			t.Errorf("metrics line %d: %+v", i+1, m)
		}
	}

	ctx := context.Background()
	if _, err := weights.Read(ctx, best, nil); err != nil {
		t.Fatal(err)
	}
	report, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "<svg") {
		t.Fatal("report.html has no learning-curve chart")
	}
	// The untuned and the tuned weights on the demo's test set.
	model := filepath.Join(out, "demo-model")
	bleu := func(args ...string) float64 {
		t.Helper()
		args = append([]string{"decode", "--config", filepath.Join(model, "moses.ini"), filepath.Join(model, "corpus", "test.src")}, args...)
		code, hyps, errOut := mtune(t, "", args...)
		if code != 0 {
			t.Fatalf("decode: exit %d: %s", code, errOut)
		}
		hyp := filepath.Join(t.TempDir(), "test.out")
		if err := os.WriteFile(hyp, []byte(hyps), 0o666); err != nil {
			t.Fatal(err)
		}
		_, line, _ := mtune(t, "", "score", "-r", filepath.Join(model, "corpus", "test.ref"), hyp)
		var b float64
		if _, err := fmt.Sscanf(line, "BLEU = %f,", &b); err != nil {
			t.Fatalf("score printed %q", line)
		}
		return b
	}
	untuned, tuned := bleu(), bleu("--weights", best)
	// Epoch 0 is the dev set decoded with the starting weights, in the
	// first epoch's launch.
	if want := fmt.Sprintf("epoch 0: dev BLEU %6.2f (the starting weights)", untuned); !strings.Contains(firstErr, want) {
		t.Errorf("no %q in\n%s", want, firstErr)
	}
	t.Logf("demo test BLEU: untuned %.2f, tuned %.2f; dev BLEU per epoch %.2f %.2f %.2f",
		untuned, tuned, *ms[0].DevScore, *ms[1].DevScore, *ms[2].DevScore)
	if tuned < untuned+5 {
		t.Errorf("tuned BLEU %.2f, untuned %.2f", tuned, untuned)
	}
	// The epoch's dev BLEU is the BLEU of the demo's test set decoded with
	// that epoch's weights: it must agree with decode + score.
	bestDev := 0.0
	for _, m := range ms {
		bestDev = max(bestDev, *m.DevScore)
	}
	if d := tuned - bestDev; d > 0.01 || d < -0.01 {
		t.Errorf("best dev BLEU in metrics.jsonl %.4f, decode + score of best/weights %.4f", bestDev, tuned)
	}
}

// TestTuneBadInput checks that bad input stops "mtune tune" before any
// epoch starts.
func TestTuneBadInput(t *testing.T) {
	dir := t.TempDir()
	write := testfile.Writer(t, dir)
	src := write("src", "a b\nc d\n")
	ref := write("ref", "x y\n")
	// A demo model whose phrase table is cut in the middle.
	model := filepath.Join(dir, "model")
	code, stdout, errOut := mtune(t, "", "build", "--demo", "--out", model)
	if code != 0 {
		t.Fatalf("build: exit %d: %s", code, errOut)
	}
	ini := strings.TrimSpace(stdout)
	pt := filepath.Join(model, "phrase-table.gz")
	data, err := os.ReadFile(pt)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pt, data[:len(data)/2], 0o666); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int // 2: refused as a bad option, before anything is written
		want string
	}{
		{"negative max staleness", []string{"--mode", "stale", "--max-staleness", "-1"}, 2, "max-staleness"},
		{"zero max staleness", []string{"--mode", "stale", "--max-staleness", "0"}, 2, "--max-staleness 0: must be positive"},
		{"zero epochs", []string{"--epochs", "0"}, 2, "--epochs 0: must be positive"},
		{"zero shards", []string{"--shards", "0"}, 2, "--shards 0"},
		{"zero n-best", []string{"--nbest", "0"}, 2, "--nbest 0"},
		{"zero mini-batch", []string{"--minibatch", "0"}, 2, "--minibatch 0"},
		{"zero decode threads", []string{"--decode-threads", "0"}, 2, "--decode-threads 0"},
		{"zero decode batches", []string{"--decoder", "sh", "--decode-batches", "0"}, 2, "--decode-batches 0: must be positive"},
		{"decode batches in process", []string{"--decode-batches", "4"}, 2, "--decode-batches: the in-process decoder loads its model once per worker"},
		{"negative rate", []string{"--rate", "-1"}, 2, "--rate -1"},
		{"rate in batch mode", []string{"--mode", "batch", "--rate", "0.1"}, 2, "--rate applies to adagrad, sgd and oro, not mert"},
		{"shards in batch mode", []string{"--mode", "batch", "--shards", "4"}, 2, "--shards applies to --mode ipm and stale, not batch"},
		{"threads in ipm mode", []string{"--threads", "4"}, 2, "--threads applies to --mode stale, not ipm"},
		{"noise with mira", []string{"--algo", "mira", "--noise", "0.1"}, 2, "noising"},
		{"noise of 1", []string{"--noise", "1"}, 2, "[0, 1)"},
		{"negative gaussian noise", []string{"--noise-type", "gaussian", "--noise", "-1"}, 2, "finite number ≥ 0"},
		{"unknown noise type", []string{"--noise", "0.1", "--noise-type", "uniform"}, 2, "choose dropout or gaussian"},
		{"noise type without noise", []string{"--noise-type", "gaussian"}, 2, "--noise-type gaussian needs --noise"},
		{"unlabelled pairs without noise", []string{"--noise-unlabeled", "5"}, 2, "--noise-unlabeled 5 needs --noise"},
		{"zero unlabelled pairs", []string{"--noise", "0.1", "--noise-unlabeled", "0"}, 2, "--noise-unlabeled 0: must be positive"},
		{"negative unlabelled pairs", []string{"--noise", "0.1", "--noise-unlabeled", "-3"}, 2, "--noise-unlabeled -3"},
		{"gaussian noise with the hinge", []string{"--noise-type", "gaussian", "--noise", "0.5", "--loss", "hinge"}, 2, "not the hinge"},
		{"resume and overwrite", []string{"--resume", "--overwrite"}, 2, "give one"},
		{"unknown mix", []string{"--mix", "median"}, 2, "unknown mix"},
		{"unknown mix weights", []string{"--mix-weights", "median"}, 2, "unknown mix weights"},
		{"unknown search algorithm", []string{"--search-algorithm", "beam"}, 2, "unknown search algorithm"},
		{"mix weights in batch mode", []string{"--mode", "batch", "--mix-weights", "uniform"}, 2, "--mix-weights applies to --mode ipm and stale, not batch"},
		{"batch learner", []string{"--algo", "mert"}, 2, "batch learner"},
		{"reference count", []string{"--config", ini, "--src", src, "--ref", ref}, 1, "line counts differ"},
		{"missing config", []string{"--config", filepath.Join(dir, "none.ini"), "--src", src, "--ref", src}, 1, "none.ini"},
		{"truncated model file", []string{"--config", ini, "--src", src, "--ref", src}, 1, "phrase-table.gz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name)
			code, _, errOut := mtune(t, "", append([]string{"tune", "--out", out}, tc.args...)...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tc.code, tc.want)
			}
			if _, err := os.Stat(filepath.Join(out, "epochs")); err == nil {
				t.Errorf("an epoch started")
			}
			if _, err := os.Stat(out); tc.code == 2 && err == nil {
				t.Errorf("a refused option still made the output folder")
			}
		})
	}
}

// TestTuneRunFolder: a second run into a used --out is refused and names
// --resume and --overwrite; a run into a folder another process holds
// exits 1 naming the holder; -r is --ref.
func TestTuneRunFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("tunes the demo system")
	}
	out := filepath.Join(t.TempDir(), "run")
	if code, _, errOut := mtune(t, "", "tune", "--epochs", "1", "--out", out); code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errOut)
	}
	code, _, errOut := mtune(t, "", "tune", "--epochs", "1", "--out", out)
	if code != 1 || !strings.Contains(errOut, "--resume") || !strings.Contains(errOut, "--overwrite") {
		t.Fatalf("second run into %s: exit %d, stderr %q", out, code, errOut)
	}
	ctx := context.Background()
	held, err := rundir.Open(ctx, out, rundir.OpenOptions{Resume: true, Lease: rundir.LeaseOptions{Owner: "another run"}})
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut = mtune(t, "", "tune", "--epochs", "2", "--out", out, "--resume")
	held.Close(ctx)
	if code != 1 || !strings.Contains(errOut, "held by another run") {
		t.Fatalf("run into a held folder: exit %d, stderr %q", code, errOut)
	}
	demo := filepath.Join(out, "demo-model", "corpus")
	other := filepath.Join(t.TempDir(), "other")
	code, _, errOut = mtune(t, "", "tune", "--epochs", "1", "--out", other, "--config", filepath.Join(out, "demo-model", "moses.ini"),
		"--src", filepath.Join(demo, "tune.src"), "-r", filepath.Join(demo, "tune.ref"))
	if code != 0 {
		t.Fatalf("tune with -r: exit %d: %s", code, errOut)
	}
	model := func() []string {
		var files []string
		filepath.WalkDir(filepath.Join(out, "demo-model"), func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				files = append(files, p)
			}
			return nil
		})
		return files
	}
	before := model()
	code, _, errOut = mtune(t, "", "tune", "--epochs", "1", "--out", out, "--overwrite")
	if code != 0 {
		t.Fatalf("tune --overwrite: exit %d: %s", code, errOut)
	}
	// The demo model is the run's input: --overwrite keeps it whole, and
	// the run resumes from it.
	if after := model(); !slices.Equal(before, after) || len(after) < 5 {
		t.Fatalf("the demo model held %v before --overwrite, %v after", before, after)
	}
	if code, _, errOut = mtune(t, "", "tune", "--epochs", "2", "--out", out, "--resume"); code != 0 || !strings.Contains(errOut, "1 epoch in ") || !strings.Contains(errOut, "(epoch 1 resumed)") {
		t.Fatalf("tune --resume after --overwrite: exit %d: %s", code, errOut)
	}
}

// TestTuneHelp: mtune's own flags come under their headings, before the
// examples and the line that points to Beam's (mtune help beam), which are
// not listed here.
func TestTuneHelp(t *testing.T) {
	code, stdout, _ := mtune(t, "", "help", "tune")
	if code != 0 {
		t.Fatal("help tune failed")
	}
	beam := strings.Index(stdout, "Beam's flags (")
	pos := func(s string) int { return strings.Index(stdout, s) }
	for _, h := range []string{"data flags:", "learner flags:", "pipeline flags:", "output flags:", "examples:"} {
		if i := pos(h); i < 0 || i > beam {
			t.Errorf("%q missing or after the pointer to Beam's flags", h)
		}
	}
	for _, f := range []string{"-config ", "-algo ", "-epochs ", "-overwrite\n", "-runner "} {
		if i := pos("  " + f); i < 0 || i > beam {
			t.Errorf("flag %s missing or after the pointer to Beam's flags", f)
		}
	}
	if pos("  -project ") >= 0 {
		t.Errorf("Beam's -project is listed by help tune, not help beam")
	}
}

// TestTuneStaleDemo runs "mtune tune --mode stale --epochs 2" on the demo
// with a staleness bound: every epoch's metrics line holds the staleness
// of each update, none above the bound.
func TestTuneStaleDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("tunes the demo system")
	}
	out := filepath.Join(t.TempDir(), "run")
	code, _, errOut := mtune(t, "", "tune", "--mode", "stale", "--epochs", "2", "--threads", "3", "--max-staleness", "1", "--out", out)
	if code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(out, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d metrics lines, want 2", len(lines))
	}
	for i, line := range lines {
		var m rundir.Metrics
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m.Staleness == nil {
			t.Fatalf("epoch %d: no staleness: %s", i+1, line)
		}
		n := 0
		for _, c := range m.Staleness.Histogram {
			n += c
		}
		if n != m.Updates || m.Updates == 0 || m.Staleness.Max > 1 {
			t.Errorf("epoch %d: %d staleness records for %d updates, max %d: %s", i+1, n, m.Updates, m.Staleness.Max, line)
		}
		t.Logf("%s", line)
	}
}

// TestMixDefault: --mix has one default, linesearch (the better tuner in
// RESULTS.md), for the demo and for a system given with --config alike;
// batch mode, which mixes nothing, records the library's own.
func TestMixDefault(t *testing.T) {
	sys := []string{"--config", "moses.ini", "--src", "tune.fr", "--ref", "tune.en"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"demo", nil, "linesearch"},
		{"config", sys, "linesearch"},
		{"config, stale mode", withArgs(sys, "--mode", "stale"), "linesearch"},
		{"config, average asked for", withArgs(sys, "--mix", "average"), "average"},
		{"config, batch mode", withArgs(sys, "--mode", "batch"), ""}, // batch mode mixes nothing
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("tune", flag.ContinueOnError)
			args := &tuneArgs{}
			registerTuneFlags(fs, args)
			fs.StringVar(&args.o.Out, "out", filepath.Join(t.TempDir(), "out"), "")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if _, err := args.prepare(fs, &app{stderr: io.Discard}, "tune"); err != nil {
				t.Fatal(err)
			}
			if err := args.o.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := (mixFlag{&args.o.Mix}).String(); got != tc.want {
				t.Errorf("mix %q, want %q", got, tc.want)
			}
		})
	}
}
