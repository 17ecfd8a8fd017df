package batch

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/sample"
	"github.com/mtune/mtune/pool"
)

// PRO in two halves, for a pool held by parts on other machines: each part
// samples its own pairs (SamplePRO, the first half of Learn, Hopkins & May
// 2011 §3.1: Γ candidate pairs a sentence, the Ξ with the largest BLEU+1
// difference kept) and only their difference vectors meet where the
// weights are fitted (LearnPairs, the second half: the regularised
// logistic regression of PRO's comment). The pairs of a sentence depend
// on the generator of its part, so the sample differs from Learn's on the
// whole pool but follows the same distribution.

// SamplePRO samples PRO's pairs from lists with opts' sampler (its
// defaults filled in as NewPRO fills them), drawing from a generator
// seeded by seed and stream, and returns their difference vectors
// φ(better) − φ(worse).
func SamplePRO(lists []pool.List, opts PROOptions, seed, stream uint64) ([]feature.Vector, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := learner.CheckLists(lists); err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	pairs := o.sampler().Sample(rand.New(rand.NewPCG(seed, stream)), lists, nil)
	return sample.Vectors(lists, pairs, nil), nil
}

// LearnPairs fits the weights to difference vectors xs sampled elsewhere
// (SamplePRO). active lists the features the pool the pairs come from uses:
// the dimensions of the regression, as Learn takes them from its lists
// (features of active that no pair holds are pulled to zero by the L2
// term; features outside active keep their weights). On error the learner
// is unchanged.
func (p *PRO) LearnPairs(ctx context.Context, active []feature.ID, xs []feature.Vector) error {
	return p.learnOn(ctx, func() (feature.Weights, PRORun, error) {
		ids := slices.Clone(active)
		slices.Sort(ids)
		ids = slices.Compact(ids)
		if len(ids) > 0 && ids[0] < 0 {
			return nil, PRORun{}, fmt.Errorf("batch: PRO: negative feature id %d", ids[0])
		}
		for i, x := range xs {
			if err := x.Validate(); err != nil {
				return nil, PRORun{}, fmt.Errorf("batch: PRO: pair %d: %w", i, err)
			}
		}
		return p.fit(ctx, ids, slices.Clone(xs))
	})
}
