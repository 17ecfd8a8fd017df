package pipelines_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/mtune/mtune/decoder/build"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/pipelines"
	"github.com/mtune/mtune/run"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/testsupport/gobuild"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// The tests run their pipelines on prism (ptest's default runner).
func TestMain(m *testing.M) {
	code := ptest.MainRet(m)
	gobuild.RemoveShared()
	if demoDir != "" {
		os.RemoveAll(demoDir)
	}
	os.Exit(code)
}

type demo struct {
	ini, tuneSrc, tuneRef, devSrc, devRef string
}

var (
	demoOnce sync.Once
	demoSys  demo
	demoErr  error
	demoDir  string
)

// smallDemo builds a small demo system once for the package's tests.
func smallDemo(t *testing.T) demo {
	t.Helper()
	demoOnce.Do(func() {
		ctx := context.Background()
		demoDir, demoErr = os.MkdirTemp("", "pipelines-demo")
		if demoErr != nil {
			return
		}
		files, err := build.Demo(build.DemoOptions{Seed: 1, Train: 1500, Tune: 40, Test: 30}).Write(ctx, filepath.Join(demoDir, "corpus"))
		if err != nil {
			demoErr = err
			return
		}
		// Absolute paths in the moses.ini, so that tests may copy it
		// elsewhere.
		bo := files.BuildOptions(demoDir)
		bo.AbsolutePaths = true
		res, err := build.Run(ctx, bo)
		if err != nil {
			demoErr = err
			return
		}
		demoSys = demo{ini: res.Config, tuneSrc: files.TuneSrc, tuneRef: files.TuneRef, devSrc: files.TestSrc, devRef: files.TestRef}
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoSys
}

func execute(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error) {
	return ptest.RunWithMetrics(p)
}

// mustRun runs o and fails the test on an error.
func mustRun(t *testing.T, ctx context.Context, o pipelines.Options) pipelines.Result {
	t.Helper()
	res, err := pipelines.Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// oneEpoch runs one epoch of the small demo, on its dev set too if dev,
// into a new folder, and returns the demo and the run's options (o.Out the
// folder).
func oneEpoch(t *testing.T, dev bool) (demo, pipelines.Options) {
	t.Helper()
	d := smallDemo(t)
	o := options(d, t.TempDir())
	o.Epochs = 1
	if dev {
		o.DevSrc, o.DevRefs = d.devSrc, []string{d.devRef}
	}
	mustRun(t, context.Background(), o)
	return d, o
}

// countLaunches makes o count its pipeline launches in the counter it
// returns.
func countLaunches(o *pipelines.Options) *int {
	n := new(int)
	o.Execute = func(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error) { *n++; return execute(ctx, p) }
	return n
}

func options(d demo, out string) pipelines.Options {
	return pipelines.Options{Problem: run.Problem{Config: d.ini, Src: d.tuneSrc, Refs: []string{d.tuneRef}},
		Settings:     run.Settings{Out: out, Epochs: 3, Seed: 7},
		ShardOptions: pipelines.ShardOptions{Shards: 2}, NBest: 20, Execute: execute,
		ProgressEvery: time.Hour} // no in-epoch progress line in the tests that count lines (TestEpochProgress sets its own)
}

// TestResume runs 3 epochs, and 2 epochs then --resume to 3: the final
// weights must be identical, byte for byte, and every epoch launches one
// pipeline, after the one that checks the model on a worker.
func TestResume(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	dir := t.TempDir()
	o := options(d, filepath.Join(dir, "full"))
	launches := countLaunches(&o)
	var progress bytes.Buffer
	o.Progress = &progress
	full := mustRun(t, ctx, o)
	if *launches != 1+3 {
		t.Errorf("%d pipeline launches for a model check and 3 epochs", *launches)
	}
	t.Logf("progress:\n%s", progress.String())
	if n := strings.Count(progress.String(), "\n"); n != 1+3 || !strings.HasPrefix(progress.String(), "model: loaded on ") {
		t.Errorf("%d progress lines, want the model's and 3 epochs'", n)
	}

	o = options(d, filepath.Join(dir, "resumed"))
	o.Epochs = 2
	mustRun(t, ctx, o)
	o.Epochs, o.Resume = 3, true
	launches = countLaunches(&o)
	resumed := mustRun(t, ctx, o)
	if *launches != 1+1 {
		t.Errorf("resume launched %d pipelines, want a model check and 1 epoch", *launches)
	}
	if len(resumed.Epochs) != 3 {
		t.Fatalf("resumed run reports %d epochs", len(resumed.Epochs))
	}
	for _, name := range []string{"weights.json", "weights", "weights.sparse"} {
		a, err := os.ReadFile(filepath.Join(rundir.Layout{Root: filepath.Join(dir, "full")}.Epoch(3).Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(rundir.Layout{Root: filepath.Join(dir, "resumed")}.Epoch(3).Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("epoch 3 %s differs:\n%s\nvs resumed\n%s", name, a, b)
		}
	}
	for i := range full.Epochs {
		if full.Epochs[i].TuneScore != resumed.Epochs[i].TuneScore {
			t.Errorf("epoch %d: tune BLEU %v, resumed %v", i+1, full.Epochs[i].TuneScore, resumed.Epochs[i].TuneScore)
		}
	}
	// The best weights read back with io/weights.
	set, err := weights.Read(ctx, full.BestWeights, nil)
	if err != nil {
		t.Fatal(err)
	}
	if set.Index.Len() == 0 {
		t.Fatal("best weights are empty")
	}
}

// TestResumeOtherOptions refuses to resume a run with other options.
func TestResumeOtherOptions(t *testing.T) {
	d, o := oneEpoch(t, false)
	ctx, out := context.Background(), o.Out
	l1 := 0.05
	tests := []struct {
		name   string
		change func(*pipelines.Options)
	}{
		{"shards", func(o *pipelines.Options) { o.Shards = 3 }},
		{"sparse templates", func(o *pipelines.Options) { o.Sparse = []string{"lb"} }},
		{"l1", func(o *pipelines.Options) { o.AlgoConfig.L1 = &l1 }},
		{"noise", func(o *pipelines.Options) { o.AlgoConfig.Noise = 0.1 }},
		{"mode stale", func(o *pipelines.Options) { o.Mode = tune.Stale }},
		{"eval-tune", func(o *pipelines.Options) { o.EvalTune = true }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := options(d, out)
			r.Epochs, r.Resume = 2, true
			tt.change(&r)
			if _, err := pipelines.Run(ctx, r); err == nil || !strings.Contains(err.Error(), "other options") {
				t.Fatalf("resume with another %s: error %v", tt.name, err)
			}
		})
	}
}

// TestEvalTune runs one epoch with a dev set without and with EvalTune:
// the weights and the dev BLEU are the same, bit for bit; without it the
// tune BLEU is the progressive BLEU and the epoch decodes each tuning
// sentence once, with it the tuning set is decoded a second time for the
// tune BLEU. The pipeline's Beam metrics, in metrics.jsonl, count both.
func TestEvalTune(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	dir := t.TempDir()
	run := func(name string, eval bool) (rundir.Metrics, []byte) {
		o := options(d, filepath.Join(dir, name))
		o.Epochs, o.EvalTune = 1, eval
		o.DevSrc, o.DevRefs = d.devSrc, []string{d.devRef}
		var progress bytes.Buffer
		o.Progress = &progress
		res := mustRun(t, ctx, o)
		t.Logf("%s: %s", name, progress.String())
		w, err := os.ReadFile(rundir.Layout{Root: o.Out}.Epoch(1).JSON())
		if err != nil {
			t.Fatal(err)
		}
		ms, err := rundir.ReadMetrics(ctx, rundir.Layout{Root: o.Out}.Metrics())
		if err != nil || len(ms) != 1 {
			t.Fatalf("metrics.jsonl: %v, %v", ms, err)
		}
		if m := ms[0]; m.TuneScore != res.Epochs[0].TuneScore || m.Counters["learn_sentences"] != res.Epochs[0].Counters["learn_sentences"] {
			t.Errorf("metrics.jsonl %+v, Run returned %+v", m, res.Epochs[0])
		}
		_, statErr := os.Stat(rundir.Layout{Root: o.Out}.Epoch(1).TuneStats())
		if (statErr == nil) != eval {
			t.Errorf("%s: tune-stats.json: %v", name, statErr)
		}
		return res.Epochs[0], w
	}
	once, onceW := run("once", false)
	eval, evalW := run("eval", true)
	if !bytes.Equal(onceW, evalW) || *once.DevScore != *eval.DevScore || once.ProgressiveScore != eval.ProgressiveScore {
		t.Errorf("the extra pass changed the learning: dev BLEU %v vs %v, weights\n%s\n%s", *once.DevScore, *eval.DevScore, onceW, evalW)
	}
	if !once.TuneDecoded || once.TuneScore != once.ProgressiveScore {
		t.Errorf("without EvalTune: tune BLEU %v (as decoded: %v), progressive %v", once.TuneScore, once.TuneDecoded, once.ProgressiveScore)
	}
	if eval.TuneDecoded || eval.TuneScore == eval.ProgressiveScore {
		t.Errorf("with EvalTune: tune BLEU %v (as decoded: %v), progressive %v", eval.TuneScore, eval.TuneDecoded, eval.ProgressiveScore)
	}
	// The demo has 40 tuning and 30 dev sentences, 2 shards.
	for _, tc := range []struct {
		m                     rundir.Metrics
		learn, tuneAgain, dev int64
	}{{once, 40, 0, 30}, {eval, 40, 40, 30}} {
		c := tc.m.Counters
		if c["learn_sentences"] != tc.learn || c["tune_sentences"] != tc.tuneAgain || c["dev_sentences"] != tc.dev ||
			c["learn_updates"] != int64(tc.m.Updates) || c["learn_hypotheses"] < tc.learn || c["dev_hypotheses"] != tc.dev ||
			c["learn_pairs"] < int64(tc.m.Updates) {
			t.Errorf("counters %v: want %d sentences learnt from, %d decoded again, %d dev sentences (1-best), %d updates and AdaGrad's pairs",
				c, tc.learn, tc.tuneAgain, tc.dev, tc.m.Updates)
		}
		if d := tc.m.Distributions["learn_shard_ms"]; d.Count != 2 {
			t.Errorf("%d shards timed, want 2 (distributions %v)", d.Count, tc.m.Distributions)
		}
		if d := tc.m.Distributions["dev_batch_ms"]; d.Count != 1 {
			t.Errorf("%d dev batches, want 1 (30 sentences)", d.Count)
		}
	}
}

// TestFilterModel: with FilterModel every shard and decoding batch decodes
// with the model filtered to its sentences, which translates them as the
// whole model does: the weights of every epoch, and the BLEU scores, are
// those of the run with the whole model, and the second run hits the
// filter's cache.
func TestFilterModel(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	var runs [2]pipelines.Result
	var outs [2]string
	for i, filter := range []bool{false, true} {
		outs[i] = t.TempDir()
		o := options(d, outs[i])
		o.Epochs, o.Mix, o.FilterModel = 2, transforms.LineSearchMixer{}, filter
		o.DevSrc, o.DevRefs = d.devSrc, []string{d.devRef}
		runs[i] = mustRun(t, ctx, o)
	}
	for e := range runs[0].Epochs {
		full, filtered := runs[0].Epochs[e], runs[1].Epochs[e]
		if full.DevScore == nil || filtered.DevScore == nil {
			t.Fatalf("epoch %d: no dev BLEU", e+1)
		}
		if full.TuneScore != filtered.TuneScore || *full.DevScore != *filtered.DevScore {
			t.Errorf("epoch %d: tune/dev BLEU %.4f/%.4f with the whole model, %.4f/%.4f filtered",
				e+1, full.TuneScore, *full.DevScore, filtered.TuneScore, *filtered.DevScore)
		}
		a, err := os.ReadFile(filepath.Join(outs[0], "epochs", fmt.Sprintf("%03d", e+1), "weights.json"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(outs[1], "epochs", fmt.Sprintf("%03d", e+1), "weights.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("epoch %d: weights differ:\n%s\n%s", e+1, a, b)
		}
	}
	entries, err := filepath.Glob(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "mtune", "filtered", "*"))
	if err != nil || len(entries) == 0 {
		t.Errorf("no filtered tables cached (%v)", err)
	}
	t.Logf("%d filtered models cached", len(entries))

	o := options(d, t.TempDir())
	o.FilterModel, o.Decoder = true, failingDecoder
	if _, err := pipelines.Run(ctx, o); err == nil || !strings.Contains(err.Error(), "--filter-model") {
		t.Errorf("filtering another decoder's model: %v", err)
	}
}

// TestSearchAlgorithm: SearchAlgorithm "cube" decodes as a moses.ini that
// sets [search-algorithm] 1 does (identical weights), which is not how the
// stack search decodes.
func TestSearchAlgorithm(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	ini, err := os.ReadFile(d.ini)
	if err != nil {
		t.Fatal(err)
	}
	// A small pop limit, so that cube pruning's search differs from the
	// stack search's on the demo's short sentences.
	ini = append(ini, "\n[cube-pruning-pop-limit]\n3\n"...)
	baseIni := filepath.Join(filepath.Dir(d.ini), "moses-pop3.ini")
	cubeIni := filepath.Join(filepath.Dir(d.ini), "moses-pop3-cube.ini")
	if err := os.WriteFile(baseIni, ini, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cubeIni, append(ini, "[search-algorithm]\n1\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(baseIni); os.Remove(cubeIni) })
	run := func(config, search string) []byte {
		o := options(d, t.TempDir())
		o.Config, o.SearchAlgorithm = config, search
		mustRun(t, ctx, o)
		b, err := os.ReadFile(rundir.Layout{Root: o.Out}.Epoch(o.Epochs).JSON())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	flag, fromIni, stack := run(baseIni, "cube"), run(cubeIni, ""), run(baseIni, "")
	if !bytes.Equal(flag, fromIni) {
		t.Errorf("--search-algorithm cube and [search-algorithm] 1 differ:\n%s\n%s", flag, fromIni)
	}
	if bytes.Equal(flag, stack) {
		t.Error("cube pruning and the stack search gave the same weights: the test cannot tell them apart")
	}
	o := options(d, t.TempDir())
	o.SearchAlgorithm = "beam"
	if _, err := pipelines.Run(ctx, o); err == nil || !strings.Contains(err.Error(), "search algorithm") {
		t.Errorf("--search-algorithm beam: %v", err)
	}
}

// TestEpochProgress: while an epoch's launch runs in this process, a line
// every ProgressEvery says how many of the epoch's sentences (the tuning
// set's 40, the dev set's 30, and in the first epoch the dev set's 30 again
// with the starting weights) have been decoded and the time left; the
// count only grows and reaches some. The epoch 0 line follows.
func TestEpochProgress(t *testing.T) {
	d := smallDemo(t)
	for _, tc := range []struct {
		name  string
		mode  tune.Mode
		total int
	}{
		{"ipm", tune.IPM, 40 + 30 + 30},
		{"batch", tune.Batch, 40 + 30 + 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := options(d, t.TempDir())
			o.Epochs, o.Mode, o.DevSrc, o.DevRefs = 1, tc.mode, d.devSrc, []string{d.devRef}
			if tc.mode == tune.Batch {
				o.Shards, o.Algo = 0, "kbmira" // kb-MIRA: the dev set in the epoch's one launch
			}
			var progress bytes.Buffer
			o.Progress, o.ProgressEvery = &progress, 5*time.Millisecond
			mustRun(t, context.Background(), o)
			// The lines while the launch runs, then its closing line.
			line := regexp.MustCompile(`(?m)^epoch 1/1: (\d+)/(\d+) sentences decoded(?:, \d+ s in, about \d+ s left| in \d+ s)$`)
			prev, most := 0, 0
			for _, m := range line.FindAllStringSubmatch(progress.String(), -1) {
				n, _ := strconv.Atoi(m[1])
				total, _ := strconv.Atoi(m[2])
				if total != tc.total || n < prev || n > total {
					t.Errorf("line %q: want a count that grows, of %d", m[0], tc.total)
				}
				prev, most = n, max(most, n)
			}
			if most == 0 {
				t.Errorf("no progress line with sentences decoded:\n%s", progress.String())
			}
			if !regexp.MustCompile(`(?m)^epoch 0: dev BLEU +\d+\.\d\d \(the starting weights\)$`).MatchString(progress.String()) {
				t.Errorf("no epoch 0 line:\n%s", progress.String())
			}
		})
	}
}
