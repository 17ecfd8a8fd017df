package transforms

import (
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/tune"
)

// Average mixes the shards' weights by their mean (iterative parameter
// mixing, McDonald et al. 2010; tune.AverageSums, mix.Average): uniform,
// or weighted by each shard's Updates this epoch when weighted is set
// (uniform if no shard made an update). It takes a PCollection<tune.ShardResult>
// and returns a singleton PCollection<weights.ByName> over the union of the
// shards' feature names (a feature a shard lacks counts as zero there).
func Average(s beam.Scope, results beam.PCollection, weighted bool) beam.PCollection {
	s = s.Scope("transforms.Average")
	return beam.Combine(s, &AverageFn{Weighted: weighted}, results)
}

// AverageFn is the CombineFn of Average: PCollection<tune.ShardResult> to
// weights.ByName, accumulating tune.AverageSums.
type AverageFn struct {
	// Weighted weights each shard by its updates; false means uniform.
	Weighted bool
}

// CreateAccumulator returns empty sums.
func (f *AverageFn) CreateAccumulator() tune.AverageSums { return tune.AverageSums{} }

// AddInput adds a shard's weights.
func (f *AverageFn) AddInput(a tune.AverageSums, r tune.ShardResult) (tune.AverageSums, error) {
	if err := r.Weights.Validate(); err != nil {
		return a, fmt.Errorf("transforms: shard %d: %w", r.Shard, err)
	}
	if err := a.Add(r.Weights.Names, r.Weights.Vals, r.Updates); err != nil {
		return a, fmt.Errorf("transforms: shard %d: %w", r.Shard, err)
	}
	return a, nil
}

// MergeAccumulators adds b's sums to a's.
func (f *AverageFn) MergeAccumulators(a, b tune.AverageSums) (tune.AverageSums, error) {
	err := a.Merge(b)
	return a, err
}

// ExtractOutput returns the mean.
func (f *AverageFn) ExtractOutput(a tune.AverageSums) (weights.ByName, error) {
	names, vals, err := a.Mean(f.Weighted)
	return weights.ByName{Names: names, Vals: vals}, err
}
