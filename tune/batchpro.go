package tune

import (
	"context"
	"fmt"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/learner/batch"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/rundir"
)

// PartResult is what writing a part of the pool hands the optimizer step:
// the part's summary and, for PRO, the part's sample of pairs as
// difference vectors whose ids index Names (SamplePart).
type PartResult struct {
	Info  PoolPartInfo
	Names []string
	Pairs []feature.Vector
}

// SamplesPairs reports whether the optimizer samples pairs by part (PRO):
// its pool then never meets on one machine, only the pairs do.
func (b BatchStep) SamplesPairs() bool { in, _ := algo.Lookup(b.Algo); return in.Pairs }

// RunsRounds reports whether the optimizer runs its passes as rounds over
// the pool's parts, one launch each (MERT: MERTRun).
func (b BatchStep) RunsRounds() bool { in, _ := algo.Lookup(b.Algo); return in.Rounds }

// WritePart writes part p of epoch n's pool to out (MergePoolPart of prev,
// the part after the previous epoch, and lists, this epoch's decoding of
// the part's sentences), scored with the run's metric, and samples PRO's
// pairs from it when the optimizer samples pairs (SamplePart): what a
// worker does with a part of batch mode's pool. The lists get the added
// features first (b.Added: one run of each command a part).
func (b BatchStep) WritePart(ctx context.Context, n, p int, prev, out rundir.PoolPart, lists []NBest, dense []string) (PartResult, error) {
	m, err := b.metric()
	if err != nil {
		return PartResult{}, err
	}
	first := p * PoolPartSentences
	lists, err = b.Added.Add(ctx, lists, fmt.Sprintf("epoch %d, pool part %d (sentences %d-%d)", n, p, first, first+PoolPartSentences-1))
	if err != nil {
		return PartResult{}, err
	}
	info, err := MergePoolPart(ctx, p, prev, lists, dense, out, m)
	if err != nil {
		return PartResult{}, err
	}
	res := PartResult{Info: info}
	if b.SamplesPairs() {
		if res, err = b.SamplePart(ctx, n, p, out); err != nil {
			return PartResult{}, err
		}
		res.Info = info
	}
	return res, nil
}

// SamplePart reads part p of epoch n's pool and samples PRO's pairs from
// it (batch.SamplePRO with the epoch's seed and the part's number as the
// generator's stream, so that a part's sample does not depend on where or
// when it is drawn).
func (b BatchStep) SamplePart(ctx context.Context, n, p int, part rundir.PoolPart) (PartResult, error) {
	idx := feature.NewIndex()
	lists, err := ReadPoolPart(ctx, part, idx)
	if err != nil {
		return PartResult{}, err
	}
	cfg, err := b.config(n)
	if err != nil {
		return PartResult{}, err
	}
	xs, err := batch.SamplePRO(lists, algo.PROOptions(cfg), cfg.Seed, uint64(p))
	if err != nil {
		return PartResult{}, fmt.Errorf("tune: %s: %w", part.NBest, err)
	}
	return PartResult{Names: idx.Names(), Pairs: xs}, nil
}

// FitPRO is epoch n's PRO fitted to the parts' samples (PartResult.Pairs)
// from prev, over the features of the pool sum describes; it saves the
// learner's state at statePath. Its result has no tune BLEU: that needs
// the pool again (PartOneBest).
func (b BatchStep) FitPRO(ctx context.Context, n int, parts []PartResult, sum PoolSummary, prev weights.ByName, statePath string) (weights.ByName, BatchResult, error) {
	idx := feature.NewIndexOf(prev.Names...)
	active := make([]feature.ID, len(sum.Names))
	for i, name := range sum.Names {
		active[i] = idx.ID(name)
	}
	var xs []feature.Vector
	var fb feature.Builder
	for _, p := range parts {
		ids := make([]feature.ID, len(p.Names))
		for k, name := range p.Names {
			ids[k] = idx.ID(name)
		}
		for i, x := range p.Pairs {
			for k, id := range x.IDs {
				if int(id) >= len(ids) || id < 0 {
					return weights.ByName{}, BatchResult{}, fmt.Errorf("tune: epoch %d: part %d pair %d: feature %d beyond its %d names", n, p.Info.Part, i, id, len(ids))
				}
				fb.Add(ids[id], x.Vals[k])
			}
			xs = append(xs, fb.Vector())
		}
	}
	w0, err := prev.Over(idx)
	if err != nil {
		return weights.ByName{}, BatchResult{}, fmt.Errorf("tune: %w", err)
	}
	cfg, err := b.config(n)
	if err != nil {
		return weights.ByName{}, BatchResult{}, err
	}
	pro, err := batch.NewPRO(w0, algo.PROOptions(cfg))
	if err != nil {
		return weights.ByName{}, BatchResult{}, fmt.Errorf("tune: %w", err)
	}
	if err := pro.LearnPairs(ctx, active, xs); err != nil {
		return weights.ByName{}, BatchResult{}, fmt.Errorf("tune: epoch %d: pro: %w", n, err)
	}
	nw, err := b.finish(n, pro.Weights())
	if err != nil {
		return weights.ByName{}, BatchResult{}, err
	}
	if err := saveState(ctx, statePath, pro); err != nil {
		return weights.ByName{}, BatchResult{}, err
	}
	return weights.NewByName(idx, nw), BatchResult{Sentences: sum.Sentences, Pool: sum.Hyps, Pairs: len(xs)}, nil
}

// PartOneBest returns the summed statistics of the 1-bests of a part of the
// pool under w: summed over the parts, the tune BLEU of batch mode.
func PartOneBest(ctx context.Context, part rundir.PoolPart, w weights.ByName) (metric.Stats, error) {
	idx := feature.NewIndexOf(w.Names...)
	lists, err := ReadPoolPart(ctx, part, idx)
	if err != nil {
		return metric.Stats{}, err
	}
	wv, err := w.Over(idx)
	if err != nil {
		return metric.Stats{}, fmt.Errorf("tune: %w", err)
	}
	return pool.OneBest(lists, wv), nil
}
