package transforms

import (
	"errors"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// Average mixes the shards' weights by their mean (iterative parameter
// mixing, McDonald et al. 2010), as mix.Average does: uniform, or weighted
// by each shard's Updates this epoch when weighted is set (uniform if no
// shard made an update). It takes a PCollection<ShardResult> and returns a
// singleton PCollection<WireWeights> over the union of the shards' feature
// names (a feature a shard lacks counts as zero there).
func Average(s beam.Scope, results beam.PCollection, weighted bool) beam.PCollection {
	s = s.Scope("transforms.Average")
	return beam.Combine(s, &AverageFn{Weighted: weighted}, results)
}

// AverageAccum is AverageFn's accumulator: the sums over the shards seen,
// by feature name.
type AverageAccum struct {
	Names []string
	// Sum holds Σ_s w_s and Weighted Σ_s updates_s·w_s, by name.
	Sum, Weighted []float64
	// Shards and Updates count the shards and their updates.
	Shards, Updates int
}

// AverageFn is the CombineFn of Average: PCollection<ShardResult> to
// WireWeights.
type AverageFn struct {
	// Weighted weights each shard by its updates; false means uniform.
	Weighted bool
}

// CreateAccumulator returns an empty accumulator.
func (f *AverageFn) CreateAccumulator() AverageAccum { return AverageAccum{} }

// AddInput adds a shard's weights.
func (f *AverageFn) AddInput(a AverageAccum, r ShardResult) (AverageAccum, error) {
	if err := r.Weights.Validate(); err != nil {
		return a, fmt.Errorf("transforms: shard %d: %w", r.Shard, err)
	}
	if r.Updates < 0 {
		return a, fmt.Errorf("transforms: shard %d made %d updates", r.Shard, r.Updates)
	}
	weighted := make([]float64, len(r.Weights.Vals))
	for i, x := range r.Weights.Vals {
		weighted[i] = float64(r.Updates) * x
	}
	a = addNamed(a, r.Weights.Names, r.Weights.Vals, weighted)
	a.Shards++
	a.Updates += r.Updates
	return a, nil
}

// MergeAccumulators adds b's sums to a's.
func (f *AverageFn) MergeAccumulators(a, b AverageAccum) (AverageAccum, error) {
	if len(b.Names) != len(b.Sum) || len(b.Names) != len(b.Weighted) {
		return a, errors.New("transforms: malformed average accumulator")
	}
	a = addNamed(a, b.Names, b.Sum, b.Weighted)
	a.Shards += b.Shards
	a.Updates += b.Updates
	return a, nil
}

// ExtractOutput returns the mean.
func (f *AverageFn) ExtractOutput(a AverageAccum) (WireWeights, error) {
	if a.Shards == 0 {
		return WireWeights{}, errors.New("transforms: averaging no shard results")
	}
	out := WireWeights{Names: slices.Clone(a.Names), Vals: make([]float64, len(a.Names))}
	sums, d := a.Sum, float64(a.Shards)
	if f.Weighted && a.Updates > 0 {
		sums, d = a.Weighted, float64(a.Updates)
	}
	for i, x := range sums {
		out.Vals[i] = x / d
	}
	return out, nil
}

// addNamed adds the values sum and weighted, by the names, to a's sums,
// appending the names a lacks.
func addNamed(a AverageAccum, names []string, sum, weighted []float64) AverageAccum {
	if slices.Equal(a.Names, names) {
		for i := range names {
			a.Sum[i] += sum[i]
			a.Weighted[i] += weighted[i]
		}
		return a
	}
	pos := make(map[string]int, len(a.Names)+len(names))
	for i, n := range a.Names {
		pos[n] = i
	}
	for i, n := range names {
		p, ok := pos[n]
		if !ok {
			p = len(a.Names)
			pos[n] = p
			a.Names = append(a.Names, n)
			a.Sum = append(a.Sum, 0)
			a.Weighted = append(a.Weighted, 0)
		}
		a.Sum[p] += sum[i]
		a.Weighted[p] += weighted[i]
	}
	return a
}
