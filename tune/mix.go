package tune

import (
	"errors"
	"fmt"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/mix"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// The end of an ipm epoch mixes the shards' weights (DESIGN.md §1, §3
// "Mixing"), in pieces that workers compute and a combiner merges in any
// order:
//
//   - averaging (McDonald et al. 2010, iterative parameter mixing): the mean
//     of the shards' weights, uniform or weighted by their updates, is
//     learner/mix.Average; AverageSums holds its sums by feature name,
//     since each shard names its own features;
//   - line-search mixing (Watanabe 2012, §4.2, Algorithm 3 line 6):
//     w = (1 − α)·prev + α·avg with the α that maximises corpus BLEU of the
//     epoch's n-best lists, is learner/mix.LineSearch: LineSearchList is
//     one list's share (its envelope along the line, Och 2003 §4, and its
//     1-best statistics at α = 0 and 1), mix.Lines.Merge merges shares and
//     LineSearch sweeps them and chooses α.

// AverageSums is the sums of averaging (mix.Sums) over named features:
// Names[j] is coordinate j of Sums. Its fields are exported so that it can
// be serialised; the zero value holds no shard.
type AverageSums struct {
	Names []string
	Sums  mix.Sums
}

// Add adds a shard's weights, vals[i] for names[i], made by updates
// updates. A feature the shard lacks counts as zero there.
func (a *AverageSums) Add(names []string, vals []float64, updates int) error {
	if len(names) != len(vals) {
		return fmt.Errorf("tune: %d weights for %d names", len(vals), len(names))
	}
	if updates < 0 {
		return fmt.Errorf("tune: %d updates", updates)
	}
	if !feature.Weights(vals).Finite() {
		return errors.New("tune: non-finite weights")
	}
	a.Sums.Add(a.align(names, vals), updates)
	return nil
}

// Merge adds b's sums to a's.
func (a *AverageSums) Merge(b AverageSums) error {
	if len(b.Sums.Sum) != len(b.Names) || len(b.Sums.Weighted) != len(b.Names) {
		return errors.New("tune: malformed average sums")
	}
	b.Sums.Sum = a.align(b.Names, b.Sums.Sum)
	b.Sums.Weighted = a.align(b.Names, b.Sums.Weighted)
	a.Sums.Merge(b.Sums)
	return nil
}

// align returns vals, the values of names, in the order of a.Names,
// appending the names a lacks.
func (a *AverageSums) align(names []string, vals []float64) feature.Weights {
	if slices.Equal(a.Names, names) {
		return vals
	}
	pos := make(map[string]int, len(a.Names)+len(names))
	for j, n := range a.Names {
		pos[n] = j
	}
	for _, n := range names {
		if _, ok := pos[n]; !ok {
			pos[n] = len(a.Names)
			a.Names = append(a.Names, n)
		}
	}
	w := make(feature.Weights, len(a.Names))
	for i, n := range names {
		w[pos[n]] = vals[i]
	}
	return w
}

// Mean returns the mean of the shards added (mix.Sums.Mean): uniform, or
// weighted by their updates when weighted is set (uniform if no shard made
// one), by name.
func (a AverageSums) Mean(weighted bool) (names []string, vals []float64, err error) {
	if a.Sums.Shards == 0 {
		return nil, nil, errors.New("tune: averaging no shard results")
	}
	w := a.Sums.Mean(weighted)
	w.Grow(len(a.Names))
	return slices.Clone(a.Names), w, nil
}

// LineSearchResult is the outcome of line-search mixing.
type LineSearchResult struct {
	// Alpha is the chosen α: the mixed weights are (1−α)·prev + α·avg.
	Alpha float64
	// Stats are the summed statistics of the 1-best hypotheses at Alpha,
	// BLEU their corpus BLEU.
	Stats metric.Stats
	BLEU  float64
	// Lo and Hi bound the best interval found by the line search (possibly
	// infinite); Alpha is outside it when α = 0 or 1 was preferred.
	Lo, Hi float64
	// Breakpoints is the number of distinct α where a 1-best changes,
	// Lists the number of lists with hypotheses.
	Breakpoints, Lists int
}

// LineSearchList returns list l's share of line-search mixing along the
// line from prev (α = 0) to avg (α = 1); dir is mix.Direction(prev, avg).
// Shares merge with mix.Lines.Merge.
func LineSearchList(l pool.List, prev, avg, dir feature.Weights) (mix.Lines, error) {
	var a mix.Lines
	if err := a.Add(l, prev, avg, dir); err != nil {
		return mix.Lines{}, fmt.Errorf("tune: %w", err)
	}
	return a, nil
}

// LineSearch chooses α from the merged shares of the epoch's lists, as
// mix.LineSearch does over the same lists.
func LineSearch(a mix.Lines) (LineSearchResult, error) {
	r, err := a.Search(mix.DefaultOptions())
	if err != nil {
		return LineSearchResult{}, fmt.Errorf("tune: line search: %w", err)
	}
	return LineSearchResult{
		Alpha:       r.Alpha,
		Stats:       r.Stats,
		BLEU:        r.Stats.BLEU(),
		Lo:          r.Line.Lo,
		Hi:          r.Line.Hi,
		Breakpoints: r.Line.Breakpoints,
		Lists:       a.Envelopes.Lists,
	}, nil
}
