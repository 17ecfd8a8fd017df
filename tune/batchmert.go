package tune

import (
	"context"
	"fmt"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/learner/linesearch"
	"github.com/mtune/mtune/learner/mert"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/rundir"
)

// MERTRound is one round of batch MERT over the pool's parts (a
// mert.Pass) in a form that crosses process boundaries: the pass's feature
// ids are positions in Names.
type MERTRound struct {
	Names []string
	Pass  mert.Pass
	// Metric is the run's metric, a spec (BatchStep.Metric; "" is BLEU):
	// what each line's sweep maximises (SearchLine).
	Metric string
}

// SearchLine searches one line of a round, its merged envelopes
// (linesearch.Sweep with mert.SweepOptions), for the corpus score of the
// metric spec (MERTRound.Metric).
func SearchLine(e linesearch.Envelopes, spec string) (linesearch.Result, error) {
	m, err := DecodeOptions{Metric: spec}.ParseMetric()
	if err != nil {
		return linesearch.Result{}, err
	}
	r, err := linesearch.Sweep(e, mert.SweepOptions(m))
	if err != nil {
		return r, fmt.Errorf("tune: %w", err)
	}
	return r, nil
}

// MERTShare reads a part of the pool and returns its share of round r
// (mert.Pass.Share): what a worker computes, so that no machine holds the
// pool.
func MERTShare(ctx context.Context, part rundir.PoolPart, r MERTRound) (mert.Share, error) {
	idx := feature.NewIndexOf(r.Names...)
	lists, err := ReadPoolPart(ctx, part, idx)
	if err != nil {
		return mert.Share{}, err
	}
	m, err := DecodeOptions{Metric: r.Metric}.ParseMetric()
	if err != nil {
		return mert.Share{}, err
	}
	sh, err := r.Pass.Share(lists, m)
	if err != nil {
		return mert.Share{}, fmt.Errorf("tune: %s: %w", part.NBest, err)
	}
	return sh, nil
}

// LineKey numbers line d of a round's i-th run; stride is the most lines
// a run of the round searches (LineStride).
func LineKey(i, d, stride int) int { return i*stride + d }

// LineStride is the most lines a run of round p searches (at least 1).
func LineStride(p mert.Pass) int {
	n := 1
	for _, r := range p.Runs {
		n = max(n, r.Directions(len(p.Dims)))
	}
	return n
}

// RoundItem is one line's search (Line, keyed by LineKey) or one run's
// statistics (keyed by the run's index) of a round of MERT, on their way
// to the round's file (WriteRound).
type RoundItem struct {
	Key    int
	Line   bool
	Search linesearch.Result
	Stats  metric.Stats
}

// WriteRound gathers the items of round p, every line's search and every
// run's statistics, into a mert.PassResult and writes it to path (which
// MERTRun.Update reads).
func WriteRound(ctx context.Context, p mert.Pass, items []RoundItem, path string) error {
	runs := len(p.Runs)
	res := mert.PassResult{Stats: make([]metric.Stats, runs), Searches: make([][]linesearch.Result, runs)}
	seen := make([]bool, runs)
	for i, r := range p.Runs {
		res.Searches[i] = make([]linesearch.Result, r.Directions(len(p.Dims)))
	}
	lines, stride := 0, LineStride(p)
	for _, it := range items {
		i, d := it.Key, 0
		if it.Line {
			i, d = it.Key/stride, it.Key%stride
		}
		switch {
		case i < 0 || i >= runs || (it.Line && d >= len(res.Searches[i])):
			return fmt.Errorf("tune: MERT round %d: key %d out of range", p.N, it.Key)
		case it.Line:
			// What mert.Coordinator.Update reads: the bounds of the
			// interval (often infinite, which JSON cannot hold) stay out.
			res.Searches[i][d] = linesearch.Result{Gamma: it.Search.Gamma, Stats: it.Search.Stats, Breakpoints: it.Search.Breakpoints}
			lines++
		default:
			res.Stats[i], seen[i] = it.Stats, true
		}
	}
	want := 0
	for i := range res.Searches {
		want += len(res.Searches[i])
		if !seen[i] {
			return fmt.Errorf("tune: MERT round %d: no statistics for run %d (is the pool empty?)", p.N, p.Runs[i].Run)
		}
	}
	if lines != want {
		return fmt.Errorf("tune: MERT round %d: %d of %d lines searched (is the pool empty?)", p.N, lines, want)
	}
	return rundir.WriteJSON(ctx, path, res)
}

// MERTRun is epoch n's batch MERT on the driver: a mert.Coordinator over
// the features of the previous weights and of the pool (PoolSummary). It
// holds O(runs × features); the pool stays in its parts.
type MERTRun struct {
	step  BatchStep
	n     int
	names []string
	idx   *feature.Index
	opts  mert.Options
	c     *mert.Coordinator
	sum   PoolSummary
}

// NewMERT starts epoch n's MERT from prev over the pool sum describes. It
// optimises Config.Features when set (ids of prev's names), otherwise
// every feature the pool's hypotheses use, as MERT does on a pool it
// holds.
func (b BatchStep) NewMERT(n int, prev weights.ByName, sum PoolSummary) (*MERTRun, error) {
	idx := feature.NewIndexOf(prev.Names...)
	var dims []feature.ID
	for _, name := range sum.Names {
		dims = append(dims, idx.ID(name))
	}
	cfg, err := b.config(n)
	if err != nil {
		return nil, err
	}
	opts := algo.MERTOptions(cfg)
	if opts.Features != nil {
		dims = slices.Clone(opts.Features)
	}
	slices.Sort(dims)
	dims = slices.Compact(dims)
	w0, err := prev.Over(idx)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	c, err := mert.NewCoordinator(w0, dims, opts)
	if err != nil {
		return nil, fmt.Errorf("tune: epoch %d: %w", n, err)
	}
	return &MERTRun{step: b, n: n, names: idx.Names(), idx: idx, opts: opts, c: c, sum: sum}, nil
}

// Next returns the next round, false when MERT has ended.
func (m *MERTRun) Next() (MERTRound, bool) {
	p, ok := m.c.Next()
	if !ok {
		return MERTRound{}, false
	}
	return MERTRound{Names: m.names, Pass: p, Metric: m.step.Metric}, true
}

// Update takes the result of the round Next returned, from the file at
// path that WriteRound wrote.
func (m *MERTRun) Update(ctx context.Context, path string) error {
	var res mert.PassResult
	if err := rundir.ReadJSON(ctx, path, &res); err != nil {
		return err
	}
	if err := m.c.Update(res); err != nil {
		return fmt.Errorf("tune: epoch %d: %w", m.n, err)
	}
	return nil
}

// Finish returns the weights MERT found (scaled as BatchStep scales them)
// and the epoch's result, and saves the learner's state at statePath (a
// mert learner at those weights).
func (m *MERTRun) Finish(ctx context.Context, statePath string) (weights.ByName, BatchResult, error) {
	w, info, err := m.c.Result()
	if err != nil {
		return weights.ByName{}, BatchResult{}, fmt.Errorf("tune: epoch %d: %w", m.n, err)
	}
	if w, err = m.step.finish(m.n, w); err != nil {
		return weights.ByName{}, BatchResult{}, err
	}
	if err := saveState(ctx, statePath, mert.New(w, m.opts)); err != nil {
		return weights.ByName{}, BatchResult{}, err
	}
	res := BatchResult{Sentences: m.sum.Sentences, Pool: m.sum.Hyps, TuneScore: metric.CorpusScore(m.opts.Metric, info.Stats), Rounds: m.c.Rounds()}
	return weights.NewByName(m.idx, w), res, nil
}
