package tune

import (
	"context"
	"fmt"
	"time"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/rundir"
)

// PoolEpocher is the Epocher of `mtune tune-nbest`: n-best lists decoded
// once, before the run (no decoder in the loop), and a learner that each
// epoch runs over them: an online learner one pass, a batch optimizer its
// whole optimisation (a run of one epoch). Its metrics are those of batch
// mode on the pool: TuneScore the score (BLEU, or the metric the lists'
// statistics are of) of the lists' 1-bests under the epoch's weights,
// ProgressiveScore under the weights it started from, Pool the hypotheses.
//
// The learner keeps its state (AdaGrad's accumulators, an average) in
// memory from one epoch to the next, so its weights are the prev the
// Driver passes back: a PoolEpocher runs a new run only (tune-nbest has no
// --resume), and refuses a prev it did not return.
type PoolEpocher struct {
	metric  metric.Metric
	dir     rundir.Layout
	lists   []pool.List
	set     *weights.Set
	learner PoolLearner
	last    poolEpoch
}

// PoolLearner is what a PoolEpocher needs of its learner (a
// learner.Learner has it): a pass over the pool, or a batch optimizer's
// optimisation, and the weights that result.
type PoolLearner interface {
	Learn(ctx context.Context, lists []pool.List) error
	Weights() feature.Weights
}

var _ PoolLearner = learner.Learner(nil)

// poolEpoch is what an epoch of a PoolEpocher returned (the starting
// weights before the first): its weights' file and BLEU (0–100).
type poolEpoch struct {
	file string
	bleu float64
}

// NewPoolEpocher returns the PoolEpocher of the run folder dir over lists,
// whose features set's Index names and whose statistics are m's (nil:
// BLEU), learning with l, which starts from
// set's weights (the run's starting weights). It writes them as the trio
// in dir's init/ (rundir.Layout.InitTrio) and returns them as the
// Driver's Start, and their metrics as epoch 0 (Driver.Baseline, for an
// online learner whose best epoch may be none); but starting weights
// that are all zero without a dense group (a cdec or Joshua list without
// --init) make no weights file, and no epoch 0: then base is nil and
// start's File empty.
func NewPoolEpocher(ctx context.Context, dir rundir.Layout, lists []pool.List, m metric.Metric, set *weights.Set, l PoolLearner) (e *PoolEpocher, start Weights, base *rundir.Metrics, err error) {
	if m == nil {
		m = metric.DefaultBLEU()
	}
	e = &PoolEpocher{metric: m, dir: dir, lists: lists, set: set, learner: l}
	bleu := m.Score(pool.OneBest(lists, set.Weights))
	if len(set.Groups) == 0 && set.Weights.NonZero() == 0 {
		start = Weights{ByName: weights.NewByName(set.Index, set.Weights)}
	} else {
		if start, err = e.write(ctx, dir.InitTrio(), set.Weights); err != nil {
			return nil, Weights{}, nil, err
		}
		m := e.metrics(0, bleu, bleu, set.Weights, 0)
		base = &m
	}
	e.last = poolEpoch{file: start.File, bleu: bleu}
	return e, start, base, nil
}

// Epoch runs the learner over the lists once and writes its weights as
// the trio of epoch n.
func (e *PoolEpocher) Epoch(ctx context.Context, n int, prev Weights) (rundir.Metrics, Weights, error) {
	if prev.File != e.last.file {
		return rundir.Metrics{}, Weights{}, fmt.Errorf("tune: epoch %d of the pool starts from %s, not from the weights its learner holds (%s)", n, prev.File, e.last.file)
	}
	t0 := time.Now()
	if err := e.learner.Learn(ctx, e.lists); err != nil {
		return rundir.Metrics{}, Weights{}, fmt.Errorf("tune: epoch %d: %w", n, err)
	}
	w := e.learner.Weights()
	next, err := e.write(ctx, e.dir.Epoch(n).Trio, w)
	if err != nil {
		return rundir.Metrics{}, Weights{}, err
	}
	bleu := e.metric.Score(pool.OneBest(e.lists, w))
	m := e.metrics(n, bleu, e.last.bleu, w, time.Since(t0).Seconds())
	e.last = poolEpoch{file: next.File, bleu: bleu}
	return m, next, nil
}

// write writes w, over the set's index, as the trio in t.
func (e *PoolEpocher) write(ctx context.Context, t rundir.Trio, w feature.Weights) (Weights, error) {
	s := *e.set
	s.Weights = w
	if err := weights.WriteTrio(ctx, t.Dir, &s); err != nil {
		return Weights{}, fmt.Errorf("tune: %w", err)
	}
	return Weights{ByName: weights.NewByName(s.Index, w), File: t.JSON()}, nil
}

func (e *PoolEpocher) metrics(n int, bleu, before float64, w feature.Weights, secs float64) rundir.Metrics {
	m := rundir.Metrics{Epoch: n, TuneScore: bleu, ProgressiveScore: before, NonZero: w.NonZero(),
		Pool: pool.Size(e.lists), Sentences: len(e.lists), Seconds: secs}
	m.SetMetric(e.metric)
	return m
}
