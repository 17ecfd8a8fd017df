package transforms

import (
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/tune"
)

// SumStats sums statistics (any metric's): it takes a
// PCollection<metric.Stats> and returns a singleton
// PCollection<metric.Stats>, their sum, whose corpus score is the metric's
// (the zero Stats for an empty input).
func SumStats(s beam.Scope, stats beam.PCollection) beam.PCollection {
	s = s.Scope("transforms.SumStats")
	return beam.Combine(s, &SumStatsFn{}, stats)
}

// SumStatsFn is the CombineFn of SumStats. Its accumulator is a
// metric.Stats; invalid statistics, or statistics of different lengths
// (metrics), are an error.
type SumStatsFn struct{}

// CreateAccumulator returns the zero Stats.
func (f *SumStatsFn) CreateAccumulator() metric.Stats { return metric.Stats{} }

// AddInput adds the statistics of one hypothesis (or one partial sum).
func (f *SumStatsFn) AddInput(a, x metric.Stats) (metric.Stats, error) {
	return f.MergeAccumulators(a, x)
}

// MergeAccumulators adds b to a.
func (f *SumStatsFn) MergeAccumulators(a, b metric.Stats) (metric.Stats, error) {
	if err := a.AddChecked(b); err != nil {
		return a, fmt.Errorf("transforms: summing statistics: %w", err)
	}
	return a, nil
}

// OneBest sums the statistics of each list's 1-best under weights: it
// takes a PCollection<tune.NBest> and a singleton PCollection<weights.ByName> and
// returns a singleton PCollection<metric.Stats>, the summed statistics of
// the lists re-ranked with the weights (pool.OneBest).
func OneBest(s beam.Scope, lists, weights beam.PCollection) beam.PCollection {
	s = s.Scope("transforms.OneBest")
	best := beam.ParDo(s, &OneBestFn{}, lists, beam.SideInput{Input: weights})
	return SumStats(s, best)
}

// OneBestFn returns the statistics of a tune.NBest's 1-best under the weights
// of its side input (ties to the earlier hypothesis), the zero Stats for
// an empty list: PCollection<tune.NBest> to PCollection<metric.Stats>.
type OneBestFn struct {
	// Per bundle: the side input over idx.
	idx *feature.Index
	w   feature.Weights
}

// StartBundle maps the bundle's weights to an index.
func (f *OneBestFn) StartBundle(w weights.ByName) error {
	idx := feature.NewIndexOf(w.Names...)
	ws, err := w.Over(idx)
	if err != nil {
		return err
	}
	f.idx, f.w = idx, ws
	return nil
}

// ProcessElement returns one list's 1-best statistics.
func (f *OneBestFn) ProcessElement(n tune.NBest, _ weights.ByName) (metric.Stats, error) {
	l, err := n.List(f.idx)
	if err != nil {
		return metric.Stats{}, err
	}
	if k := pool.Best(l, f.w); k >= 0 {
		return l.Hyps[k].Stats(), nil
	}
	return metric.Stats{}, nil
}

// DecodedStats sums the statistics of each list's first hypothesis, the
// 1-best as decoded: it takes a PCollection<tune.NBest> and returns a singleton
// PCollection<metric.Stats> whose corpus score is the progressive score.
func DecodedStats(s beam.Scope, lists beam.PCollection) beam.PCollection {
	s = s.Scope("transforms.DecodedStats")
	return SumStats(s, beam.ParDo(s, firstStats, lists))
}

// firstStats returns the statistics of n's first hypothesis, the zero Stats
// for an empty list.
func firstStats(n tune.NBest) metric.Stats {
	if len(n.Hyps) == 0 {
		return metric.Stats{}
	}
	return n.Hyps[0].Stats
}
