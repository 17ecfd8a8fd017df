package pipelines

import (
	"context"
	"fmt"
	"github.com/mtune/mtune/rundir"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// batchEpoch is the tune.Epocher of --mode batch (runBatchEpoch).
type batchEpoch struct {
	o      *Options
	ranges *corpus.Index
	dev    *corpus.Index // nil without a dev set
	start  string        // the run's starting weights (init/weights.json)
}

// Epoch runs epoch n. The driver holds no sentence and no pool: the pool
// is written by parts on the workers and the optimizer reads it there.
func (e *batchEpoch) Epoch(ctx context.Context, n int, prev tune.Weights) (rundir.Metrics, tune.Weights, error) {
	t0 := time.Now()
	m, ww, err := runBatchEpoch(ctx, e.o, n, e.ranges, e.dev, e.start, prev)
	if err != nil {
		return rundir.Metrics{}, tune.Weights{}, err
	}
	m.NonZero = tune.NonZero(ww)
	if e.dev != nil && m.DevScore == nil {
		if m.DevScore, err = scoreDev(ctx, e.o, n, e.dev); err != nil {
			return rundir.Metrics{}, tune.Weights{}, err
		}
	}
	m.Seconds = time.Since(t0).Seconds()
	return m, tune.Weights{ByName: ww, File: e.o.layout().Epoch(n).JSON()}, nil
}

// scoreDev is the second launch of a batch MERT epoch n with a dev set
// (Moses' --return-best-dev): it decodes the dev set with the epoch's new
// weights (its trio, written once the MERT rounds made them after the
// first launch) and returns their dev BLEU, by which the best epoch is then
// chosen. Every other optimizer has its dev set decoded in the epoch's one
// launch.
func scoreDev(ctx context.Context, o *Options, n int, dev *corpus.Index) (*float64, error) {
	dir := o.layout().Epoch(n)
	o.startLaunch(n, "progress-dev")
	p, s := beam.NewPipelineWithRoot()
	o.oneBest(s, "dev", transforms.ReadSentences(s.Scope("dev"), dev.Ranges()), dev.Lines, transforms.ReadWeights(s, dir.JSON()), dir.DevStats())
	if _, _, err := executeWatched(ctx, o, p, fmt.Sprintf("epoch %d/%d, dev set", n, o.Epochs), dev.Lines); err != nil {
		return nil, &PipelineError{Epoch: n, Err: err}
	}
	return readDevBLEU(ctx, o, dir)
}

// readDevBLEU reads the dev BLEU of epoch folder dir.
func readDevBLEU(ctx context.Context, o *Options, dir rundir.EpochLayout) (*float64, error) {
	b, err := rundir.ReadScore(ctx, dir.DevStats(), o.metric)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// runBatchEpoch is epoch n of --mode batch. One pipeline launch decodes
// the tuning set with the previous epoch's weights, sums the 1-bests'
// statistics (work/decoded-stats.json, progressive BLEU) and writes the
// pool by parts (transforms.WritePool: each part's sentences pooled with
// the previous epoch's part, de-duplicated by target and features as
// tune-nbest does). The optimizer then runs on the parts: MERT's passes in
// launches of their own (runMERT); PRO samples each part's pairs where the
// part is written and fits them on one worker at the end of the same
// launch, which then re-ranks the pool by parts with the new weights for
// the tune BLEU (transforms.PoolStats); every other optimizer reads the
// whole pool on one worker at the end of the same launch
// (transforms.BatchLearn). Tune BLEU is the 1-best BLEU of the pool
// re-ranked by the new weights (no second decoding). With a dev set (dev
// not nil) and any optimizer but MERT, the same launch decodes the dev set
// with the new weights and the metrics hold its BLEU. It returns the
// epoch's metrics and new weights.
func runBatchEpoch(ctx context.Context, o *Options, n int, ranges, dev *corpus.Index, startPath string, prev tune.Weights) (rundir.Metrics, weights.ByName, error) {
	dir := o.layout().Epoch(n)
	o.startLaunch(n, "progress")
	prevPath := prev.File
	var prevDir rundir.EpochLayout
	if n > 1 {
		prevDir = o.layout().Epoch(n - 1)
	}
	decodedPath := dir.DecodedStats()
	step := tune.BatchStep{Algo: o.Algo, Config: o.AlgoConfig, Seed: o.Seed, KeepScale: o.KeepScale, Metric: o.Metric, Added: o.added()}
	parts := tune.PoolParts(ranges.Lines)
	learn := tune.BatchLearn{Step: &step, Epoch: n, Dir: dir, Prev: prevPath, Parts: parts, Dense: o.dense}
	if step.RunsRounds() {
		learn.Step = nil
	}
	p, s := beam.NewPipelineWithRoot()
	sents := transforms.ReadSentences(s, ranges.Ranges())
	w := transforms.ReadWeights(s, prevPath)
	lists := transforms.Decode(s, o.decodeFn("", ranges.Lines, o.NBest), sents, w)
	transforms.WriteStats(s, transforms.DecodedStats(s, lists), decodedPath)
	infos := transforms.WritePool(s, lists, &transforms.WritePoolFn{Prev: prevDir, Out: dir, Dense: o.dense, Step: &step, Epoch: n})
	learned := transforms.BatchLearn(s, infos, &transforms.BatchLearnFn{Learn: learn})
	pro := learn.Step != nil && step.SamplesPairs()
	if pro {
		transforms.WriteStats(s, transforms.PoolStats(s, beam.CreateList(s, partNumbers(parts)), dir, learned), dir.TuneStats())
	}
	total := ranges.Lines
	var devSents beam.PCollection
	if dev != nil && (learn.Step != nil || n == 1) {
		devSents = transforms.ReadSentences(s.Scope("dev"), dev.Ranges())
	}
	if dev != nil && learn.Step != nil {
		o.oneBest(s, "dev", devSents, dev.Lines, learned, dir.DevStats())
		total += dev.Lines
	}
	if dev != nil && n == 1 {
		total += o.startDev(s, devSents, dev, startPath)
	}
	counters, dists, err := executeWatched(ctx, o, p, fmt.Sprintf("epoch %d/%d", n, o.Epochs), total)
	if err != nil {
		return rundir.Metrics{}, weights.ByName{}, &PipelineError{Epoch: n, Err: err}
	}
	if dev != nil && n == 1 {
		o.printStartDev(ctx)
	}
	decoded, err := rundir.ReadScore(ctx, decodedPath, o.metric)
	if err != nil {
		return rundir.Metrics{}, weights.ByName{}, err
	}
	var res tune.BatchResult
	var ww weights.ByName
	if learn.Step == nil {
		if ww, res, err = runMERT(ctx, o, n, step, prev.ByName, parts); err != nil {
			return rundir.Metrics{}, weights.ByName{}, err
		}
		if err := weights.WriteTrioOf(ctx, dir.Dir, ww, o.dense); err != nil {
			return rundir.Metrics{}, weights.ByName{}, err
		}
	} else {
		if err := rundir.ReadJSON(ctx, dir.BatchResult(), &res); err != nil {
			return rundir.Metrics{}, weights.ByName{}, err
		}
		if ww, err = weights.ReadByName(ctx, dir.JSON()); err != nil {
			return rundir.Metrics{}, weights.ByName{}, err
		}
		if pro {
			if res.TuneScore, err = rundir.ReadScore(ctx, dir.TuneStats(), o.metric); err != nil {
				return rundir.Metrics{}, weights.ByName{}, err
			}
		}
	}
	m := rundir.Metrics{Epoch: n, Sentences: res.Sentences, Pool: res.Pool, MERTRounds: res.Rounds, TuneScore: res.TuneScore, ProgressiveScore: decoded}
	m.SetMetric(o.metric)
	if dev != nil && learn.Step != nil {
		if m.DevScore, err = readDevBLEU(ctx, o, dir); err != nil {
			return rundir.Metrics{}, weights.ByName{}, err
		}
	}
	m.Counters, m.Distributions = counters, dists
	return m, ww, nil
}

// runMERT runs epoch n's MERT over the pool's parts (tune.MERTRun): one
// launch a round, in which every part's share is computed where the part
// is read and every line is swept where its envelopes meet
// (transforms.MERTRound); the driver holds only the runs' points.
func runMERT(ctx context.Context, o *Options, n int, step tune.BatchStep, prev weights.ByName, parts int) (weights.ByName, tune.BatchResult, error) {
	dir := o.layout().Epoch(n)
	var sum tune.PoolSummary
	if err := rundir.ReadJSON(ctx, dir.PoolSummary(), &sum); err != nil {
		return weights.ByName{}, tune.BatchResult{}, err
	}
	run, err := step.NewMERT(n, prev, sum)
	if err != nil {
		return weights.ByName{}, tune.BatchResult{}, err
	}
	numbers := partNumbers(parts)
	for {
		round, ok := run.Next()
		if !ok {
			break
		}
		path := dir.MERTRound(round.Pass.N)
		p, s := beam.NewPipelineWithRoot()
		transforms.MERTRound(s, beam.CreateList(s, numbers), &transforms.MERTShareFn{Round: round, Dir: dir}, path)
		if _, _, err := execute(ctx, o, p); err != nil {
			return weights.ByName{}, tune.BatchResult{}, &PipelineError{Epoch: n, Err: err}
		}
		if err := run.Update(ctx, path); err != nil {
			return weights.ByName{}, tune.BatchResult{}, err
		}
	}
	return run.Finish(ctx, dir.LearnerState())
}

// partNumbers returns 0, 1, …, parts−1.
func partNumbers(parts int) []int {
	numbers := make([]int, parts)
	for p := range numbers {
		numbers[p] = p
	}
	return numbers
}
