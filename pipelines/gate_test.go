package pipelines_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pipelines"
	"github.com/mtune/mtune/run"
	"github.com/mtune/mtune/tune"
)

// TestDevScorer: the gate's scorer gives the dev BLEU the pipeline
// measured for the same weights, in ipm mode and for a batch run's options
// (which take no dev set in the pipeline).
func TestDevScorer(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	o := pipelines.Options{Problem: run.Problem{Config: d.ini, Src: d.tuneSrc, Refs: []string{d.tuneRef}, DevSrc: d.devSrc, DevRefs: []string{d.devRef}},
		Settings: run.Settings{Epochs: 1, Seed: 1, Out: filepath.Join(t.TempDir(), "run")}, Execute: execute}
	res := mustRun(t, ctx, o)
	want := *res.Epochs[0].DevScore
	for _, mode := range []tune.Mode{tune.IPM, tune.Batch} {
		o.Mode = mode
		score, err := pipelines.DevScorer(ctx, o)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		stats, err := score(ctx, res.BestWeights)
		if err != nil {
			t.Fatal(err)
		}
		var sum metric.Stats
		for _, s := range stats {
			sum.Add(s)
		}
		if got := 100 * metric.BLEUStats(sum).BLEU(); math.Abs(got-want) > 1e-9 || len(stats) != 30 {
			t.Errorf("%s: %d sentences, BLEU %v; the pipeline's dev BLEU %v", mode, len(stats), got, want)
		}
		untuned, err := score(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		var u metric.Stats
		for _, s := range untuned {
			u.Add(s)
		}
		if metric.BLEUStats(u).BLEU() == metric.BLEUStats(sum).BLEU() {
			t.Errorf("%s: the model's own weights score as the tuned ones", mode)
		}
	}
	o.DevSrc = ""
	if _, err := pipelines.DevScorer(ctx, o); err == nil {
		t.Error("no dev set: no error")
	}
}
