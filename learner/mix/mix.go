package mix

import (
	"errors"
	"fmt"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/linesearch"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// Shard is what one shard learned: its weights and the number of updates it
// made.
type Shard struct {
	Weights feature.Weights
	Updates int
}

// Average returns the mean of the shards' weights (McDonald et al. 2010,
// iterative parameter mixing): uniform, or weighted by each shard's Updates
// when weighted is set (a shard with no update then counts for nothing; if
// no shard made one, the mean is uniform). Weights of different lengths are
// padded with zeros. It returns nil for no shards and panics on a negative
// update count. It is Sums.Add over the shards, then Sums.Mean.
func Average(results []Shard, weighted bool) feature.Weights {
	var a Sums
	for _, s := range results {
		a.Add(s.Weights, s.Updates)
	}
	return a.Mean(weighted)
}

// Sums holds the sums Average divides, so that the mean of many shards can
// be computed in pieces (by a combiner) and merged. Its fields are exported
// so that it can be serialised; the zero value holds no shard.
type Sums struct {
	// Sum is Σ_s w_s and Weighted is Σ_s updates_s·w_s.
	Sum, Weighted feature.Weights
	// Shards and Updates count the shards added and their updates.
	Shards, Updates int
}

// Add adds a shard's weights w and its number of updates. It panics on a
// negative update count.
func (a *Sums) Add(w feature.Weights, updates int) {
	if updates < 0 {
		panic(fmt.Sprintf("mix: negative update count %d", updates))
	}
	a.grow(len(w))
	u := float64(updates)
	for j, x := range w {
		a.Sum[j] += x
		a.Weighted[j] += u * x
	}
	a.Shards++
	a.Updates += updates
}

// Merge adds b's sums to a's.
func (a *Sums) Merge(b Sums) {
	a.grow(max(len(b.Sum), len(b.Weighted)))
	for j, x := range b.Sum {
		a.Sum[j] += x
	}
	for j, x := range b.Weighted {
		a.Weighted[j] += x
	}
	a.Shards += b.Shards
	a.Updates += b.Updates
}

// grow pads the sums with zeros to n coordinates.
func (a *Sums) grow(n int) {
	a.Sum.Grow(n)
	a.Weighted.Grow(n)
}

// Mean returns the mean of the shards added, as Average does; nil for none.
func (a Sums) Mean(weighted bool) feature.Weights {
	if a.Shards == 0 {
		return nil
	}
	sums, d := a.Sum, float64(a.Shards)
	if weighted && a.Updates > 0 {
		sums, d = a.Weighted, float64(a.Updates)
	}
	avg := make(feature.Weights, len(sums))
	for j, x := range sums {
		avg[j] = x / d
	}
	return avg
}

// LineSearch returns w = prev + α·(avg − prev) with the α that maximises
// corpus BLEU of lists re-ranked with w (see the package documentation),
// and the statistics of the re-ranked lists. The result is never worse than
// avg (α = 1) or prev (α = 0). It fails for lists without hypotheses or with
// invalid statistics, and for non-finite weights.
func LineSearch(prev, avg feature.Weights, lists []pool.List) (w feature.Weights, alpha float64, stats metric.Stats, err error) {
	return LineSearchOptions(prev, avg, lists, DefaultOptions())
}

// DefaultOptions returns the options of LineSearch's line search: α = 1
// (the plain average) is preferred.
func DefaultOptions() linesearch.Options { return linesearch.Options{Prefer: 1} }

// LineSearchOptions is LineSearch with the line search's options (bounds on
// α, the preferred α; LineSearch prefers 1). It is Lines.Add over the
// lists, then Lines.Search.
func LineSearchOptions(prev, avg feature.Weights, lists []pool.List, opts linesearch.Options) (w feature.Weights, alpha float64, stats metric.Stats, err error) {
	if !prev.Finite() || !avg.Finite() {
		return nil, 0, metric.Stats{}, errors.New("mix: non-finite weights")
	}
	dir := Direction(prev, avg)
	var a Lines
	for _, l := range lists {
		if err := a.Add(l, prev, avg, dir); err != nil {
			return nil, 0, metric.Stats{}, err
		}
	}
	res, err := a.Search(opts)
	if err != nil {
		return nil, 0, metric.Stats{}, err
	}
	return Interpolate(prev, avg, res.Alpha), res.Alpha, res.Stats, nil
}

// Direction returns avg − prev, the direction of line-search mixing.
func Direction(prev, avg feature.Weights) feature.Weights {
	dir := make(feature.Weights, max(len(prev), len(avg)))
	for j := range dir {
		dir[j] = avg.At(feature.ID(j)) - prev.At(feature.ID(j))
	}
	return dir
}

// Interpolate returns (1−α)·prev + α·avg, exactly prev at α = 0 and avg at
// α = 1 (padded with zeros to the longer of the two).
func Interpolate(prev, avg feature.Weights, alpha float64) feature.Weights {
	w := make(feature.Weights, max(len(prev), len(avg)))
	for j := range w {
		w[j] = (1-alpha)*prev.At(feature.ID(j)) + alpha*avg.At(feature.ID(j))
	}
	return w
}

// Lines is line-search mixing split by n-best list, so that the lists'
// shares are computed in parallel (on other machines) and merged in any
// order: the lists' envelopes along prev + α·(avg − prev)
// (linesearch.SentenceEnvelope) and the summed statistics of their 1-best
// hypotheses at α = 0 and α = 1. Its fields are exported so that it can be
// serialised; the zero value holds no list.
type Lines struct {
	Envelopes linesearch.Envelopes
	// Prev and Avg sum the statistics of the lists' 1-best hypotheses
	// under prev and under avg (ties to the earlier, as pool.Best).
	Prev, Avg metric.Stats
}

// Add adds list l's share along the line from prev to avg; dir is
// Direction(prev, avg).
func (a *Lines) Add(l pool.List, prev, avg, dir feature.Weights) error {
	e, err := linesearch.SentenceEnvelope(l, prev, dir)
	if err != nil {
		return fmt.Errorf("mix: %w", err)
	}
	if e.Hyps == 0 {
		return nil
	}
	return a.Merge(Lines{
		Envelopes: linesearch.Envelopes{First: e.First, Points: e.Points, Lists: 1},
		Prev:      l.Hyps[pool.Best(l, prev)].Stats(),
		Avg:       l.Hyps[pool.Best(l, avg)].Stats(),
	})
}

// Merge adds b's lists to a's. It fails if their statistics have different
// BLEU orders.
func (a *Lines) Merge(b Lines) error {
	if b.Envelopes.Lists == 0 {
		return nil
	}
	if err := a.Envelopes.Merge(b.Envelopes); err != nil {
		return fmt.Errorf("mix: %w", err)
	}
	a.Prev.Add(b.Prev)
	a.Avg.Add(b.Avg)
	return nil
}

// Result is the outcome of line-search mixing.
type Result struct {
	// Alpha is the chosen α and Stats the summed statistics of the 1-best
	// hypotheses there.
	Alpha float64
	Stats metric.Stats
	// Line is the line search's own answer (γ = α inside the best
	// interval (Lo, Hi)), which the ends α = 0 and 1 may have overruled.
	Line linesearch.Result
}

// Search chooses α from the lists added (Watanabe 2012, §4.2): the line
// search (linesearch.Sweep with opts), then the ends of the segment, α = 1
// (the average, on equal BLEU too) and α = 0, when opts allow them. It
// fails if no list had hypotheses or the options are invalid.
func (a Lines) Search(opts linesearch.Options) (Result, error) {
	res, err := linesearch.Sweep(a.Envelopes, opts)
	if err != nil {
		return Result{}, fmt.Errorf("mix: %w", err)
	}
	r := Result{Alpha: res.Gamma, Stats: res.Stats, Line: res}
	// The line search returns a point inside an interval of α. The ends of
	// the segment, α = 1 (the average) and α = 0, may be points where
	// hypotheses tie, and better: take them then (1 on equal BLEU).
	obj := metric.Objective(opts.Metric)
	if opts.Min == 0 && opts.Max == 0 || opts.Min <= 1 && 1 <= opts.Max {
		if obj(a.Avg) >= obj(r.Stats) && r.Alpha != 1 {
			r.Alpha, r.Stats = 1, a.Avg
		}
	}
	if opts.Min == 0 && opts.Max == 0 || opts.Min <= 0 && 0 <= opts.Max {
		if obj(a.Prev) > obj(r.Stats) {
			r.Alpha, r.Stats = 0, a.Prev
		}
	}
	return r, nil
}
