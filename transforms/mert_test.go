package transforms_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/learner/mert"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/rundir"
	data "github.com/mtune/mtune/testsupport/europarl100"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// TestMERTRoundsEqualLearn writes europarl100 as a pool of 30 parts
// (sentence i is sentence 77·i of a larger tuning set) and runs batch MERT
// over it as the pipeline does: a launch a round (MERTRound: each part's
// share on a worker, each line's envelopes merged and swept in MERTLineFn),
// the driver's MERTRun in between. Its weights are MERT's on the whole
// pool read back from the parts (Learn), to rounding, with the same
// number of passes.
func TestMERTRoundsEqualLearn(t *testing.T) {
	ctx := context.Background()
	lists, w0, idx := data.Load(t)
	dir := rundir.EpochLayout{Trio: rundir.Trio{Dir: t.TempDir()}, N: 1}
	byPart := map[int][]tune.NBest{}
	for i, l := range lists {
		l.Sent = 77 * i
		targets := make([]string, len(l.Hyps))
		for k := range targets {
			targets[k] = fmt.Sprintf("hypothesis %d", k)
		}
		p := tune.PoolPartOf(l.Sent)
		byPart[p] = append(byPart[p], tune.NBestOf(l, targets, idx))
	}
	parts := tune.PoolParts(77*len(lists) - 76)
	var sum tune.PoolSummary
	var numbers []int
	var pooled []pool.List
	readIdx := feature.NewIndexOf(idx.Names()...)
	for p := range parts {
		info, err := tune.MergePoolPart(ctx, p, rundir.PoolPart{}, byPart[p], idx.Names(), dir.PoolPart(p), nil)
		if err != nil {
			t.Fatal(err)
		}
		sum.Add(info)
		numbers = append(numbers, p)
		back, err := tune.ReadPoolPart(ctx, dir.PoolPart(p), readIdx)
		if err != nil {
			t.Fatal(err)
		}
		pooled = append(pooled, back...)
	}
	if parts != 30 || sum.Sentences != len(lists) || sum.Hyps != pool.Size(lists) {
		t.Fatalf("%d parts, pool %+v; want 30 parts, %d sentences, %d hypotheses", parts, sum, len(lists), pool.Size(lists))
	}

	prev := weights.NewByName(idx, w0)
	step := tune.BatchStep{Algo: "mert", Config: algo.Config{Restarts: 3}, Seed: 11}
	run, err := step.NewMERT(1, prev, sum)
	if err != nil {
		t.Fatal(err)
	}
	rounds := 0
	for {
		round, ok := run.Next()
		if !ok {
			break
		}
		rounds++
		path := dir.MERTRound(round.Pass.N)
		p, s := beam.NewPipelineWithRoot()
		transforms.MERTRound(s, beam.CreateList(s, numbers), &transforms.MERTShareFn{Round: round, Dir: dir}, path)
		if err := ptest.Run(p); err != nil {
			t.Fatal(err)
		}
		if err := run.Update(ctx, path); err != nil {
			t.Fatal(err)
		}
	}
	got, res, err := run.Finish(ctx, dir.LearnerState())
	if err != nil {
		t.Fatal(err)
	}

	cfg := step.Config
	cfg.Seed = tune.EpochSeed(step.Seed, 0)
	start, err := prev.Over(readIdx)
	if err != nil {
		t.Fatal(err)
	}
	m := mert.New(start, algo.MERTOptions(cfg))
	if err := m.Learn(ctx, pooled); err != nil {
		t.Fatal(err)
	}
	want := weights.NewByName(readIdx, m.Weights())
	t.Logf("%d rounds; tune BLEU %.4f, Learn %.4f in %d passes", rounds, res.TuneScore, 100*m.Info().BLEU, m.Info().Passes)
	if res.Rounds != rounds || math.Abs(res.TuneScore-100*m.Info().BLEU) > 1e-9 || res.Pool != pool.Size(lists) {
		t.Errorf("result %+v after %d rounds; Learn's BLEU %v", res, rounds, 100*m.Info().BLEU)
	}
	gm, wm := got.Map(), want.Map()
	if len(gm) != len(wm) {
		t.Fatalf("%d weights, Learn %d", len(gm), len(wm))
	}
	for name, x := range wm {
		if d := math.Abs(gm[name] - x); d > 1e-12*max(1, math.Abs(x)) {
			t.Errorf("%s = %v, Learn %v", name, gm[name], x)
		}
	}
}
