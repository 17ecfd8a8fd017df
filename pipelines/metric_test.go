package pipelines_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pipelines"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// metricRun is one mode of a run toward a metric other than BLEU.
type metricRun struct {
	name   string
	mode   tune.Mode
	algo   string
	metric string
	mix    string // "" is options' (average)
}

// TestMetricModes tunes the small demo toward chrF (and TER, lower being
// better, and BLEU−TER) in each mode: batch MERT (its rounds sweep lines
// under the metric), batch PRO (pairs sampled by part), batch optimizers
// that read the pool on one worker (svm, kbmira), ipm with line-search
// mixing (α chosen by the metric) and with averaging, stale. For each: metrics.jsonl names the metric;
// every epoch's dev figure is the metric's corpus score of the dev set
// decoded with that epoch's weights, as the retraining gate's scorer
// computes it (pipelines.DevScorer); best/ holds the epoch with the best
// figure (the lowest for TER); the pool's scores files are the metric's;
// and a run of one epoch resumed to two gives the same bits as the run of
// two.
func TestMetricModes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two-epoch runs of the demo in several modes")
	}
	runs := []metricRun{
		{"batch-mert-chrf", tune.Batch, "mert", "chrf", ""},
		{"batch-pro-ter", tune.Batch, "pro", "ter", ""},
		{"batch-svm-chrf++", tune.Batch, "svm", "chrf++", ""},
		{"batch-kbmira-chrf", tune.Batch, "kbmira", "chrf", ""},
		{"ipm-adagrad-linesearch-chrf", tune.IPM, "adagrad", "chrf", "linesearch"},
		{"ipm-mira-average-ter", tune.IPM, "mira", "ter", ""},
		{"stale-adagrad-bleu-ter", tune.Stale, "adagrad", "bleu:0.5,ter:0.5", "linesearch"},
	}
	// Under the race detector one run a mode: the races are the modes'
	// (the metrics run the same code of a mode); go test ./... runs all.
	raceRuns := map[string]bool{"batch-pro-ter": true, "ipm-adagrad-linesearch-chrf": true, "stale-adagrad-bleu-ter": true}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			if raceEnabled && !raceRuns[r.name] {
				t.Skip("-race: one run a mode races it; go test ./... runs this one")
			}
			checkMetricRun(t, r)
		})
	}
}

func checkMetricRun(t *testing.T, r metricRun) {
	ctx := context.Background()
	d := smallDemo(t)
	dir := t.TempDir()
	o := options(d, filepath.Join(dir, "full"))
	o.Mode, o.Algo, o.Epochs, o.Metric = r.mode, r.algo, 2, r.metric
	o.DevSrc, o.DevRefs = d.devSrc, []string{d.devRef}
	if r.algo == "mert" {
		o.AlgoConfig.Restarts = 2
	}
	if r.mode == tune.Stale {
		o.Stale.Threads = 1 // more threads apply gradients in the order of their timing
	}
	if r.mix != "" {
		var err error
		if o.Mix, err = transforms.ParseMixer(r.mix); err != nil {
			t.Fatal(err)
		}
	}
	res := mustRun(t, ctx, o)
	m, err := metric.Parse(r.metric, metric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := rundir.Layout{Root: o.Out}
	best := 0
	for _, e := range res.Epochs {
		if e.Metric != m.Name() || e.LowerIsBetter == m.HigherIsBetter() || e.DevScore == nil {
			t.Fatalf("epoch %d: metric %q (lower is better %v), dev %v; want %s", e.Epoch, e.Metric, e.LowerIsBetter, e.DevScore, m.Name())
		}
		want := devFigure(t, ctx, o, m, l.Epoch(e.Epoch).JSON())
		t.Logf("epoch %d: tune %s %.2f, dev %.2f (recomputed %.2f), decoded %.2f", e.Epoch, e.Metric, e.TuneScore, *e.DevScore, want, e.ProgressiveScore)
		if math.Abs(*e.DevScore-want) > 1e-9 {
			t.Errorf("epoch %d: dev %s %v, the dev set decoded with its weights %v", e.Epoch, e.Metric, *e.DevScore, want)
		}
		if best == 0 || better(m, *e.DevScore, *res.Epochs[best-1].DevScore) {
			best = e.Epoch
		}
	}
	if res.Best != best {
		t.Errorf("best epoch %d, want %d (%s, lower is better: %v)", res.Best, best, m.Name(), !m.HigherIsBetter())
	}
	var lines []rundir.Metrics
	if lines, err = rundir.ReadMetrics(ctx, l.Metrics()); err != nil || len(lines) != 2 || lines[0].Metric != m.Name() {
		t.Errorf("metrics.jsonl: %+v, %v", lines, err)
	}
	if r.mode == tune.Batch {
		f, err := os.Open(l.Epoch(2).PoolPart(0).Scores)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		first, err := bufio.NewReader(z).ReadString('\n')
		if err != nil || !strings.HasSuffix(first, " "+m.Name()+"\n") {
			t.Errorf("pool part 0's scores are not %s's: %q (%v)", m.Name(), first, err)
		}
	}
	if o.Mix != nil && o.Mix.UsesLists() {
		var mr tune.MixReport
		if err := rundir.ReadJSON(ctx, l.Epoch(1).MixReport(), &mr); err != nil || mr.LineSearch == nil || mr.LineSearch.Metric != m.Name() {
			t.Errorf("epoch 1's line search: %+v (%v), want one under %s", mr.LineSearch, err, m.Name())
		}
	}
	checkResumed(t, ctx, o, filepath.Join(dir, "resumed"))
}

// devFigure returns m's corpus score of o's dev set decoded with the
// weights file at path, as the retraining gate's scorer computes it
// (pipelines.DevScorer, which scores under o.Metric).
func devFigure(t *testing.T, ctx context.Context, o pipelines.Options, m metric.Metric, path string) float64 {
	t.Helper()
	score, err := pipelines.DevScorer(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := score(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	return m.Score(metric.Sum(stats))
}

// better reports whether figure a of metric m beats b.
func better(m metric.Metric, a, b float64) bool {
	if m.HigherIsBetter() {
		return a > b
	}
	return a < b
}

// TestMetricSpecOptions tunes the small demo toward BLEU with options of
// its own (13a tokenisation, order 3, spelt in mixed case): every
// epoch's dev figure is that metric's score of the dev set decoded with
// the epoch's weights, not default BLEU's, so the options reach the
// workers; the manifest records the canonical spec; --resume honours
// another spelling of it and refuses the metric's defaults.
func TestMetricSpecOptions(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs of the demo")
	}
	ctx := context.Background()
	d := smallDemo(t)
	o := options(d, filepath.Join(t.TempDir(), "run"))
	o.Epochs, o.Metric = 1, "BLEU:Tokenize=13a:order=3"
	o.DevSrc, o.DevRefs = d.devSrc, []string{d.devRef}
	res := mustRun(t, ctx, o)
	m, err := metric.Parse("bleu:tokenize=13a:order=3", metric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := rundir.Layout{Root: o.Out}
	want := devFigure(t, ctx, o, m, l.Epoch(1).JSON())
	e := res.Epochs[0]
	if e.DevScore == nil || math.Abs(*e.DevScore-want) > 1e-9 {
		t.Fatalf("dev %v, want %v (BLEU, 13a, order 3)", e.DevScore, want)
	}
	plain := o
	plain.Metric = ""
	if d := devFigure(t, ctx, plain, metric.DefaultBLEU(), l.Epoch(1).JSON()); math.Abs(d-want) < 1e-6 {
		t.Fatalf("default BLEU %v equals BLEU with 13a and order 3 (%v): the test cannot tell the options apart", d, want)
	}
	var man rundir.Manifest
	if err := rundir.ReadJSON(ctx, l.Manifest(), &man); err != nil {
		t.Fatal(err)
	}
	if got := man.Options.MetricSpec; got != "bleu:order=3:tokenize=13a" {
		t.Errorf("manifest's metric spec %q, want bleu:order=3:tokenize=13a", got)
	}
	o.Resume, o.Epochs, o.Metric = true, 2, "bleu"
	if _, err := pipelines.Run(ctx, o); err == nil || !strings.Contains(err.Error(), "--metric: bleu:order=3:tokenize=13a in the run, BLEU now") {
		t.Errorf("resume with the metric's defaults: %v", err)
	}
	o.Metric = "bleu:order=3:tokenize=13a:lowercase=false"
	if res = mustRun(t, ctx, o); len(res.Epochs) != 2 || res.Resumed != 1 {
		t.Errorf("resumed: %d epochs, %d of them resumed", len(res.Epochs), res.Resumed)
	}
}
