package pipelines_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/decoder/build"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/pipelines"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/testsupport/testfile"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// TestResumeOtherInputs: --resume refuses inputs whose content changed
// since the run started (the tuning and dev sets swapped, an edited
// moses.ini, a changed model file the ini names), naming the input and
// both checksums; the same content under another path is accepted.
func TestResumeOtherInputs(t *testing.T) {
	d, o := oneEpoch(t, true)
	ctx := context.Background()
	// A copy of the model whose LM differs in one byte, and a copy of the
	// moses.ini with another weight.
	modelDir := filepath.Dir(d.ini)
	lmCopy := t.TempDir()
	iniText, err := os.ReadFile(d.ini)
	if err != nil {
		t.Fatal(err)
	}
	editedIni := filepath.Join(t.TempDir(), "moses.ini")
	if err := os.WriteFile(editedIni, []byte(strings.Replace(string(iniText), "WordPenalty0= -1", "WordPenalty0= -0.5", 1)), 0o666); err != nil {
		t.Fatal(err)
	}
	if string(iniText) == strings.Replace(string(iniText), "WordPenalty0= -1", "WordPenalty0= -0.5", 1) {
		t.Fatalf("the demo's moses.ini has no WordPenalty0= -1 line to edit:\n%s", iniText)
	}
	sameIni := filepath.Join(t.TempDir(), "moses.ini")
	os.WriteFile(sameIni, iniText, 0o666)
	otherLM := copyModel(t, modelDir, lmCopy, iniText)

	tests := []struct {
		name   string
		change func(*pipelines.Options)
		want   []string // in the error; "" for none
	}{
		{"tuning and dev sets swapped", func(o *pipelines.Options) {
			o.Src, o.DevSrc = d.devSrc, d.tuneSrc
			o.Refs, o.DevRefs = []string{d.devRef}, []string{d.tuneRef}
		}, []string{"input src", d.tuneSrc, d.devSrc, "sha256"}},
		{"edited moses.ini", func(o *pipelines.Options) { o.Config = editedIni }, []string{"input config", editedIni}},
		{"changed model file", func(o *pipelines.Options) { o.Config = otherLM }, []string{"input model LM0"}},
		{"seed", func(o *pipelines.Options) { o.Seed = 8 }, []string{"--seed: 7 in the run, 8 now"}},
		{"mix", func(o *pipelines.Options) { o.Mix = transforms.LineSearchMixer{} }, []string{"--mix: average in the run, linesearch now"}},
		{"the same moses.ini elsewhere", func(o *pipelines.Options) { o.Config = sameIni }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := o
			r.Epochs, r.Resume = 1, true // nothing to do if accepted
			tt.change(&r)
			_, err := pipelines.Run(ctx, r)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("resume refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("resume accepted")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}

// copyModel copies the model files of ini (read from dir) into to, with one
// byte of the LM changed, and returns the copy's moses.ini.
func copyModel(t *testing.T, dir, to string, ini []byte) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	text := string(ini)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(e.Name(), "lm") && strings.HasSuffix(e.Name(), ".arpa.gz") {
			// An LM with one more comment line: another checksum.
			b = testfile.Gzip(t, append([]byte("\n"), testfile.Gunzip(t, b)...))
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o666); err != nil {
			t.Fatal(err)
		}
		text = strings.ReplaceAll(text, filepath.Join(dir, e.Name()), filepath.Join(to, e.Name()))
	}
	p := filepath.Join(to, "moses.ini")
	if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunFolderLease: a run refuses a folder another process holds, and a
// used folder without --resume or --overwrite; --overwrite leaves nothing
// of the earlier run (its later epochs would otherwise be adopted by a
// --resume).
func TestRunFolderLease(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "run")
	held, err := rundir.Open(ctx, out, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o := options(d, out)
	o.Epochs = 2
	if _, err := pipelines.Run(ctx, o); !errors.Is(err, rundir.ErrBusy) {
		t.Fatalf("run into a held folder: %v, want busy", err)
	}
	held.Close(ctx)
	mustRun(t, ctx, o)
	if _, err := pipelines.Run(ctx, o); !errors.Is(err, rundir.ErrNotEmpty) {
		t.Fatalf("a second run into a used folder: %v, want ErrNotEmpty", err)
	}
	o.Epochs, o.Overwrite = 1, true
	o.Seed = 11
	if _, err := pipelines.Run(ctx, o); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	if _, err := os.Stat(rundir.Layout{Root: out}.Epoch(2).Dir); !os.IsNotExist(err) {
		t.Fatalf("epoch 2 of the earlier run is still there after --overwrite (%v)", err)
	}
	// Resuming to 2 epochs now runs epoch 2 afresh.
	o.Epochs, o.Overwrite, o.Resume = 2, false, true
	res := mustRun(t, ctx, o)
	if len(res.Epochs) != 2 {
		t.Fatalf("%d epochs", len(res.Epochs))
	}
	if _, err := os.Stat(filepath.Join(out, rundir.LeaseName)); !os.IsNotExist(err) {
		t.Errorf("the lease is still there after the run (%v)", err)
	}
}

// TestReportAtEnd: report.html of a finished run says done, with its end;
// of a failed run, failed.
func TestReportAtEnd(t *testing.T) {
	d, o := oneEpoch(t, false)
	ctx, out := context.Background(), o.Out
	page, err := os.ReadFile(filepath.Join(out, rundir.ReportName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), `<b class="status-running">`) || !strings.Contains(string(page), `<b class="status-done">done</b>`) {
		t.Fatalf("report of a finished run does not say done:\n%s", page)
	}

	if skipFailingJob(t) {
		return
	}
	o = options(d, filepath.Join(t.TempDir(), "failing"))
	o.Epochs, o.Decoder = 1, failingDecoder
	if _, err := pipelines.Run(ctx, o); err == nil {
		t.Fatal("the failing decoder's run succeeded")
	}
	page, err = os.ReadFile(filepath.Join(o.Out, rundir.ReportName))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `<b class="status-failed">failed</b>`) {
		t.Fatalf("report of a failed run does not say failed:\n%s", page)
	}
}

// skipFailingJob reports, and logs, that a job made to fail on a worker is
// not run under the race detector: Beam v2.77's SDK harness closes its
// response channel when the runner ends a failed job while other bundles
// may still send on it (harness.go, MainWithOptions: close(respc) against
// the check-then-send of a bundle's goroutine), a race in Beam that the
// detector reports against whichever test made the job fail. The tests run
// in full without -race.
func skipFailingJob(t *testing.T) bool {
	if raceEnabled {
		t.Log("not under -race: a failing job trips the race in Beam's SDK harness (see skipFailingJob)")
	}
	return raceEnabled
}

// failingDecoder names a decoder that fails on a worker: the real one,
// failing on sentence 3.
const failingDecoder = "failing-moses"

var errDecoderTest = errors.New("decoder test: sentence 3 could not be decoded")

func init() {
	tune.RegisterDecoder(failingDecoder, "a test decoder", func(ctx context.Context, config string, _ tune.Logf) (tune.Decoder, error) {
		m, err := decoder.Load(ctx, config, decoder.LoadOptions{})
		if err != nil {
			return nil, err
		}
		return failing{tune.NewMoses(m)}, nil
	})
}

type failing struct{ tune.Decoder }

func (f failing) NBest(ctx context.Context, id int, src string, w feature.Weights, n int) ([]decoder.Hypothesis, error) {
	if id == 3 {
		return nil, errDecoderTest
	}
	return f.Decoder.NBest(ctx, id, src, w, n)
}

// TestPipelineErrorCause: an error raised on a worker reaches the caller
// as one line holding the DoFn's own error, with the runner's whole report
// in Detail.
func TestPipelineErrorCause(t *testing.T) {
	if skipFailingJob(t) {
		return
	}
	d := smallDemo(t)
	o := options(d, t.TempDir())
	o.Epochs, o.Decoder = 1, failingDecoder
	_, err := pipelines.Run(context.Background(), o)
	var pe *pipelines.PipelineError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T), want a *PipelineError", err, err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, errDecoderTest.Error()) || !strings.HasPrefix(msg, "pipelines: epoch 1 failed: ") {
		t.Fatalf("error %q: want one line naming the epoch and the decoder's error", msg)
	}
	if len(msg) > 400 {
		t.Errorf("error is %d bytes long", len(msg))
	}
	if len(pe.Detail()) <= len(msg) || !strings.Contains(pe.Detail(), errDecoderTest.Error()) {
		t.Errorf("Detail (%d bytes) is not the runner's report", len(pe.Detail()))
	}
	t.Logf("error: %s\n(report: %d bytes)", msg, len(pe.Detail()))
}

func TestCause(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain error", "plain error"},
		{"job failed:\nstage x\n\tcaused by:\nsource failed\n\tcaused by:\nDoFn[UID:1, Name: a.B] failed:\ntransforms: shard 0: bad\n", "transforms: shard 0: bad"},
		{"x\n\tcaused by:\npanic: boom\ngoroutine 7 [running]:\nmain.f()", "panic: boom"},
		{"  \n\n", ""},
	} {
		if got := pipelines.Cause(fmt.Errorf("%s", tt.in)); got != tt.want {
			t.Errorf("Cause(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// A long line keeps its start and its end: a decoder's standard
	// error ends it, after its command line.
	long := "external: moses " + strings.Repeat("-x ", 300) + "(sentence 3): exit status 1; its standard error ends: out of memory"
	got := pipelines.Cause(fmt.Errorf("stage\n\tcaused by:\nDoFn[UID:1, Name: a.B] failed:\n%s\n", long))
	if !strings.HasPrefix(got, "external: moses -x -x") || !strings.HasSuffix(got, "(sentence 3): exit status 1; its standard error ends: out of memory") ||
		!strings.Contains(got, " … ") || len(got) > 610 {
		t.Errorf("Cause of a %d-byte line = %q (%d bytes), want its start and end, at most 610 bytes", len(long), got, len(got))
	}
}

// brokenDecoder names a decoder whose model does not load: the worker
// that checks the model fails.
const brokenDecoder = "broken-moses"

var errBrokenModel = errors.New("decoder test: phrase-table.gz:7: bad score")

// modelLoads counts the loads of brokenDecoder's model.
var modelLoads atomic.Int32

func init() {
	tune.RegisterDecoder(brokenDecoder, "a test decoder", func(ctx context.Context, config string, _ tune.Logf) (tune.Decoder, error) {
		modelLoads.Add(1)
		return nil, errBrokenModel
	})
}

// TestModelCheck: before the first epoch a worker loads the model and
// writes init/model.json, which the driver reads; a model that does not
// load stops the run there, with the loader's error on one line, and no
// epoch starts.
func TestModelCheck(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	out := t.TempDir()
	o := options(d, out)
	o.Epochs = 1
	mustRun(t, ctx, o)
	var mc tune.ModelCheck
	if err := rundir.ReadJSON(ctx, filepath.Join(out, "init", "model.json"), &mc); err != nil {
		t.Fatal(err)
	}
	if mc.Decoder != tune.MosesDecoderName || mc.Features < 10 || mc.Host == "" {
		t.Errorf("init/model.json holds %+v", mc)
	}

	if skipFailingJob(t) {
		return
	}
	out = t.TempDir()
	o = options(d, out)
	o.Decoder = brokenDecoder
	before := modelLoads.Load()
	_, err := pipelines.Run(ctx, o)
	var pe *pipelines.PipelineError
	if !errors.As(err, &pe) || pe.Epoch != 0 || !strings.HasPrefix(err.Error(), "pipelines: loading the model on a worker failed: ") ||
		!strings.Contains(err.Error(), errBrokenModel.Error()) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v, want the model check's naming the loader's error", err)
	}
	if n := modelLoads.Load() - before; n < 1 {
		t.Errorf("the model was loaded %d times", n)
	}
	if _, err := os.Stat(filepath.Join(out, "epochs")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an epoch started: %v", err)
	}
}

// TestModelVariablesReachWorkers: a moses.ini whose paths use ${NAME}
// loads on workers whose environment lacks NAME (Dataflow's, prism's
// PROCESS workers): the driver passes the values it has with the
// decoder's configuration.
func TestModelVariablesReachWorkers(t *testing.T) {
	d := smallDemo(t)
	dir := filepath.Dir(d.ini)
	ini, err := os.ReadFile(d.ini)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(ini, []byte(dir)) {
		t.Skipf("the demo's moses.ini does not name %s", dir)
	}
	withVar := filepath.Join(t.TempDir(), "moses.ini")
	if err := os.WriteFile(withVar, bytes.ReplaceAll(ini, []byte(dir), []byte("${MTUNE_TEST_MODEL_DIR}")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MTUNE_TEST_MODEL_DIR", dir)
	o := options(d, t.TempDir())
	o.Config, o.Epochs = withVar, 1
	o.Execute = func(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error) {
		// The workers run in this process: hide the variable from them.
		os.Unsetenv("MTUNE_TEST_MODEL_DIR")
		defer os.Setenv("MTUNE_TEST_MODEL_DIR", dir)
		return execute(ctx, p)
	}
	mustRun(t, context.Background(), o)
}

// TestRefusedRunLeavesNoFile: a run the driver's own checks refuse (a
// malformed --init) writes nothing into its folder, not even the model
// check's init/model.json, so the same command with a good --init then
// runs without --overwrite.
func TestRefusedRunLeavesNoFile(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	bad := filepath.Join(t.TempDir(), "bad.weights")
	if err := os.WriteFile(bad, []byte("LM0= x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := options(d, filepath.Join(t.TempDir(), "run"))
	o.Epochs, o.Init = 1, bad
	if _, err := pipelines.Run(ctx, o); err == nil || !strings.Contains(err.Error(), "bad.weights") {
		t.Fatalf("malformed --init: %v", err)
	}
	o.Init = ""
	mustRun(t, ctx, o)
}

// TestOverwriteKeepsInputs: --overwrite removes the earlier run's files
// and nothing else: a user's model inside the output folder (named by an
// absolute --config while --out is relative), its corpus, and a file of
// the user's all stay, and the run then resumes.
func TestOverwriteKeepsInputs(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	base := t.TempDir()
	t.Chdir(base)
	o := options(d, "run")
	o.Epochs = 2
	mustRun(t, ctx, o)

	// The user builds a model inside the run folder and keeps notes there.
	files, err := build.Demo(build.DemoOptions{Seed: 1, Train: 300, Tune: 12, Test: 2}).Write(ctx, filepath.Join(base, "run", "model", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	bres, err := build.Run(ctx, files.BuildOptions(filepath.Join("run", "model")))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "run", "notes.txt"), []byte("mine\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	user := func() map[string]string {
		got := map[string]string{}
		for _, dir := range []string{"model", "notes.txt"} {
			filepath.WalkDir(filepath.Join(base, "run", dir), func(p string, e os.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					data, _ := os.ReadFile(p)
					got[p] = string(data)
				}
				return nil
			})
		}
		return got
	}
	before := user()
	if len(before) < 8 {
		t.Fatalf("the user's files: %v", before)
	}

	o.Config = filepath.Join(base, bres.Config) // absolute, --out relative
	o.Src, o.Refs = files.TuneSrc, []string{files.TuneRef}
	o.Epochs, o.Overwrite = 1, true
	mustRun(t, ctx, o)
	if after := user(); !maps.Equal(before, after) {
		t.Fatalf("--overwrite changed the user's files: %d before, %d after", len(before), len(after))
	}
	if _, err := os.Stat(filepath.Join(base, "run", "epochs", "002")); !os.IsNotExist(err) {
		t.Fatalf("epoch 2 of the earlier run is still there after --overwrite (%v)", err)
	}
	o.Epochs, o.Overwrite, o.Resume = 2, false, true
	if res := mustRun(t, ctx, o); len(res.Epochs) != 2 {
		t.Fatalf("resumed to %d epochs", len(res.Epochs))
	}
}

// TestResumeChangedEpoch: --resume refuses an epoch whose weights changed
// after it completed (a digit edited), naming the file, and resumes once
// the file is put back.
func TestResumeChangedEpoch(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	o := options(d, t.TempDir())
	o.Epochs = 2
	mustRun(t, ctx, o)
	p := rundir.Layout{Root: o.Out}.Epoch(2).JSON()
	orig, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.IndexAny(orig, "123456789")
	edited := bytes.Clone(orig)
	edited[i] = '1' + (edited[i]-'0')%9
	if err := os.WriteFile(p, edited, 0o666); err != nil {
		t.Fatal(err)
	}
	o.Epochs, o.Resume = 3, true
	if _, err := pipelines.Run(ctx, o); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "changed after epoch 2 completed") {
		t.Fatalf("resume on an edited epoch: %v", err)
	}
	if err := os.WriteFile(p, orig, 0o666); err != nil {
		t.Fatal(err)
	}
	if res := mustRun(t, ctx, o); len(res.Epochs) != 3 {
		t.Fatalf("%d epochs after the resume", len(res.Epochs))
	}
}
