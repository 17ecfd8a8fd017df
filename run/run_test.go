package run

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/tune"
)

// fakeMethod is a Method without a decoder: epoch n writes weights
// naming n, scored dev[n-1] on the dev set.
type fakeMethod struct {
	input    string    // the one input file, checksummed
	algo     string    // the manifest's learner
	dev      []float64 // dev score by epoch, 1-based
	refuse   error     // Validate's answer
	checkErr error     // CheckModel's answer
	failAt   int       // the epoch that fails with a detailed error
	ran      []int     // the epochs run
	checked  int       // CheckModel calls
}

type detailedErr struct{}

func (detailedErr) Error() string  { return "the launch failed" }
func (detailedErr) Detail() string { return "the runner's page of it" }

func (f *fakeMethod) Validate(p *Problem, s *Settings) error { return f.refuse }
func (f *fakeMethod) Metric() metric.Metric                  { return metric.DefaultBLEU() }
func (f *fakeMethod) Manifest() rundir.ManifestFlags {
	return rundir.ManifestFlags{Mode: "fake", Algo: f.algo}
}

func (f *fakeMethod) Prepare(ctx context.Context, dir *rundir.RunDir) (Prepared, error) {
	in, err := rundir.Checksum(ctx, "src", f.input)
	if err != nil {
		return Prepared{}, err
	}
	return Prepared{Inputs: []rundir.InputFile{in}}, nil
}

func (f *fakeMethod) Start(ctx context.Context) (*weights.ByName, error) {
	return &weights.ByName{Names: []string{"d_0", "n"}, Vals: []float64{1, 0}}, nil
}

func (f *fakeMethod) CheckModel(ctx context.Context, path string) error {
	f.checked++
	return f.checkErr
}

func (f *fakeMethod) Epocher(ctx context.Context, dir *rundir.RunDir, start tune.Weights) (Epocher, error) {
	if start.File != dir.Init() {
		return Epocher{}, errors.New("the start weights are not init/weights.json")
	}
	return Epocher{Epocher: fakeEpocher{f, dir.Layout}}, nil
}

type fakeEpocher struct {
	f   *fakeMethod
	dir rundir.Layout
}

func (e fakeEpocher) Epoch(ctx context.Context, n int, prev tune.Weights) (rundir.Metrics, tune.Weights, error) {
	e.f.ran = append(e.f.ran, n)
	if n == e.f.failAt {
		return rundir.Metrics{}, tune.Weights{}, detailedErr{}
	}
	if got := int(prev.Map()["n"]); got != n-1 {
		return rundir.Metrics{}, tune.Weights{}, errors.New("epoch starts from the wrong weights")
	}
	ep := e.dir.Epoch(n)
	ww := weights.ByName{Names: []string{"d_0", "n"}, Vals: []float64{1, float64(n)}}
	d := e.f.dev[n-1]
	return rundir.Metrics{Epoch: n, TuneScore: float64(n), DevScore: &d}, tune.Weights{ByName: ww, File: ep.JSON()},
		weights.WriteTrioOf(ctx, ep.Dir, ww, []string{"d_0"})
}

// fixture returns a fake method over an input file outside the run folder, and the folder.
func fixture(t *testing.T) (*fakeMethod, string) {
	base := t.TempDir()
	in := filepath.Join(base, "tune.src")
	if err := os.WriteFile(in, []byte("a b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &fakeMethod{input: in, algo: "adagrad", dev: []float64{20, 30, 25}}, filepath.Join(base, "out")
}

func bestEpoch(t *testing.T, out string) int {
	t.Helper()
	ww, err := weights.ReadByName(context.Background(), rundir.Layout{Root: out}.Best().JSON())
	if err != nil {
		t.Fatal(err)
	}
	return int(ww.Map()["n"])
}

// TestRun: a new run writes the folder of DESIGN §6 (manifest done, with
// its input and options, the start weights, metrics.jsonl, best/ of the
// best dev epoch), checks the model once, and reports what it ran.
func TestRun(t *testing.T) {
	ctx := context.Background()
	f, out := fixture(t)
	res, err := Run(ctx, Problem{}, Settings{Out: out, Epochs: 3, Seed: 4}, f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Best != 2 || len(res.Epochs) != 3 || res.Resumed != 0 || res.BestWeights != filepath.Join(out, "best", "weights.json") {
		t.Errorf("result %+v", res)
	}
	if got := bestEpoch(t, out); got != 2 {
		t.Errorf("best/ holds epoch %d, want 2", got)
	}
	var man rundir.Manifest
	if err := rundir.ReadJSON(ctx, filepath.Join(out, "manifest.json"), &man); err != nil {
		t.Fatal(err)
	}
	if man.Status != "done" || man.Seed != 4 || man.Options.Algo != "adagrad" || len(man.Inputs) != 1 || man.Inputs[0].SHA256 == "" {
		t.Errorf("manifest %+v", man)
	}
	if _, err := os.Stat(filepath.Join(out, "init", "weights.json")); err != nil {
		t.Error(err)
	}
	if f.checked != 1 {
		t.Errorf("model checked %d times", f.checked)
	}
}

// TestRunResume: 2 epochs then --resume to 3 give the uninterrupted
// run's best weights, byte for byte, running epoch 3 only; a resume with
// other options or another input is refused, naming what differs.
func TestRunResume(t *testing.T) {
	ctx := context.Background()
	f, out := fixture(t)
	if _, err := Run(ctx, Problem{}, Settings{Out: out, Epochs: 2}, f); err != nil {
		t.Fatal(err)
	}
	f.ran = nil
	res, err := Run(ctx, Problem{}, Settings{Out: out, Epochs: 3, Resume: true}, f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 2 || len(f.ran) != 1 || f.ran[0] != 3 || res.Best != 2 {
		t.Errorf("resumed %d, ran %v, best %d", res.Resumed, f.ran, res.Best)
	}
	g, whole := fixture(t)
	if _, err := Run(ctx, Problem{}, Settings{Out: whole, Epochs: 3}, g); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(out, "best", "weights.json"))
	b, _ := os.ReadFile(filepath.Join(whole, "best", "weights.json"))
	if !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("resumed best %q, uninterrupted %q", a, b)
	}

	f.algo = "pa"
	if _, err := Run(ctx, Problem{}, Settings{Out: out, Epochs: 4, Resume: true}, f); err == nil || !strings.Contains(err.Error(), "--algo: adagrad in the run, pa now") {
		t.Errorf("other learner: %v", err)
	}
	f.algo = "adagrad"
	if err := os.WriteFile(f.input, []byte("c d\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, Problem{}, Settings{Out: out, Epochs: 4, Resume: true}, f); err == nil || !strings.Contains(err.Error(), "input src") {
		t.Errorf("changed input: %v", err)
	}
}

// TestRunRefuses: bad options are refused before the folder is made; an
// input inside the folder, and a model that does not load, before
// --overwrite removes the earlier run.
func TestRunRefuses(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		s    Settings
		bad  error
		want string
	}{
		{"resume and overwrite", Settings{Resume: true, Overwrite: true}, nil, "give one"},
		{"negative epochs", Settings{Epochs: -1}, nil, "epochs -1"},
		{"negative replicas", Settings{Replicas: -1}, nil, "--replicas -1"},
		{"method's option", Settings{}, errors.New("--shards 0: must be positive"), "--shards 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, out := fixture(t)
			f.refuse = c.bad
			c.s.Out = out
			if _, err := Run(ctx, Problem{}, c.s, f); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused run made its folder: %v", err)
			}
		})
	}

	f, out := fixture(t)
	if _, err := Run(ctx, Problem{}, Settings{Out: out, Epochs: 1}, f); err != nil {
		t.Fatal(err)
	}
	f.checkErr = errors.New("the model does not load")
	if _, err := Run(ctx, Problem{}, Settings{Out: out, Epochs: 1, Overwrite: true}, f); err == nil || !strings.Contains(err.Error(), "does not load") {
		t.Errorf("model check: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "best", "weights.json")); err != nil {
		t.Errorf("a failed model check removed the earlier run: %v", err)
	}
	f.checkErr = nil
	f.input = filepath.Join(out, "best", "weights.json")
	if _, err := Run(ctx, Problem{}, Settings{Out: out, Epochs: 1, Overwrite: true}, f); err == nil || !strings.Contains(err.Error(), "lies in the output folder") {
		t.Errorf("input in the folder: %v", err)
	}
}

// TestRunLog: with RunLog, a failed epoch's detailed report is kept in
// run.log, its error names the file, and the manifest says failed.
func TestRunLog(t *testing.T) {
	ctx := context.Background()
	f, out := fixture(t)
	f.failAt = 2
	var progress bytes.Buffer
	_, err := Run(ctx, Problem{}, Settings{Out: out, Epochs: 3, RunLog: true, Progress: &progress}, f)
	if err == nil || !strings.Contains(err.Error(), "run.log") {
		t.Fatalf("error %v, want the run log named", err)
	}
	log, rerr := os.ReadFile(filepath.Join(out, "run.log"))
	if rerr != nil || !strings.Contains(string(log), "the runner's page of it") {
		t.Errorf("run.log %q (%v)", log, rerr)
	}
	var man rundir.Manifest
	if err := rundir.ReadJSON(ctx, filepath.Join(out, "manifest.json"), &man); err != nil || man.Status != "failed" {
		t.Errorf("manifest status %q (%v)", man.Status, err)
	}
	if got := bestEpoch(t, out); got != 1 {
		t.Errorf("best/ holds epoch %d, want the one complete epoch", got)
	}
}
