package tune

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
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
//     learner/mix.Average; AverageSums holds the shards' weights by
//     feature name, since each shard names its own features, and sums
//     them in the order of the shards' numbers;
//   - line-search mixing (Watanabe 2012, §4.2, Algorithm 3 line 6):
//     w = (1 − α)·prev + α·avg with the α that maximises corpus BLEU of the
//     epoch's n-best lists, is learner/mix.LineSearch: LineSearchList is
//     one list's share (its envelope along the line, Och 2003 §4, and its
//     1-best statistics at α = 0 and 1), mix.Lines.Merge merges shares and
//     LineSearch sweeps them and chooses α.

// AverageSums accumulates averaging (mix.Sums) over named features: the
// weights of each shard added, kept apart until Mean sums them in the order
// of the shards' numbers. Float sums depend on their order, and a
// combiner adds shards and merges accumulators in whatever order its
// runner chooses (a Beam CombineFn's merges on any runner): the mean is
// then the same bits however the shards came. The price is memory: the
// combiner holds every shard's weights until Mean, where running sums
// held one vector over their names. Its fields are exported so that it
// can be serialised; the zero value holds no shard.
type AverageSums struct {
	Shards []ShardWeights
}

// ShardWeights are a shard's weights, made by Updates updates.
type ShardWeights struct {
	Shard   int
	Weights weights.ByName
	Updates int
}

// Add adds shard's weights, vals[i] for names[i], made by updates updates.
// A feature the shard lacks counts as zero there.
func (a *AverageSums) Add(shard int, names []string, vals []float64, updates int) error {
	sw := ShardWeights{Shard: shard, Weights: weights.ByName{Names: names, Vals: vals}, Updates: updates}
	if err := sw.validate(); err != nil {
		return err
	}
	return a.Merge(AverageSums{Shards: []ShardWeights{sw}})
}

func (s ShardWeights) validate() error {
	if err := s.Weights.Validate(); err != nil {
		return fmt.Errorf("tune: shard %d: %w", s.Shard, err)
	}
	if s.Shard < 0 {
		return fmt.Errorf("tune: negative shard %d", s.Shard)
	}
	if s.Updates < 0 {
		return fmt.Errorf("tune: shard %d: %d updates", s.Shard, s.Updates)
	}
	return nil
}

// Merge adds b's shards to a's. A shard in both is an error.
func (a *AverageSums) Merge(b AverageSums) error {
	for _, s := range b.Shards {
		if err := s.validate(); err != nil {
			return err
		}
		if slices.ContainsFunc(a.Shards, func(t ShardWeights) bool { return t.Shard == s.Shard }) {
			return fmt.Errorf("tune: shard %d averaged twice", s.Shard)
		}
		a.Shards = append(a.Shards, s)
	}
	return nil
}

// Mean returns the mean of the shards added (mix.Sums.Mean): uniform, or
// weighted by their updates when weighted is set (uniform if no shard made
// one), by name: the union of the shards' names, by increasing shard
// number and each shard's names in order. The sums run over the shards by
// increasing number, whatever the order of Add and Merge.
func (a AverageSums) Mean(weighted bool) (names []string, vals []float64, err error) {
	if len(a.Shards) == 0 {
		return nil, nil, errors.New("tune: averaging no shard results")
	}
	shards := slices.Clone(a.Shards)
	slices.SortFunc(shards, func(x, y ShardWeights) int { return cmp.Compare(x.Shard, y.Shard) })
	idx := feature.NewIndex()
	var sums mix.Sums
	for _, s := range shards {
		var w feature.Weights
		for i, n := range s.Weights.Names {
			id := idx.ID(n)
			if v := s.Weights.Vals[i]; v != 0 {
				w.Set(id, v)
			}
		}
		sums.Add(w, s.Updates)
	}
	w := sums.Mean(weighted)
	w.Grow(idx.Len())
	return idx.Names(), w, nil
}

// MixReport says how an epoch's shards were mixed (work/mix.json): the
// mixer's name and, for line search, its outcome.
type MixReport struct {
	Mixer      string
	LineSearch *LineSearchResult `json:",omitempty"`
}

// Alpha returns the line search's α, nil for a mixer without one.
func (r MixReport) Alpha() *float64 {
	if r.LineSearch == nil {
		return nil
	}
	return &r.LineSearch.Alpha
}

// LineSearchResult is the outcome of line-search mixing.
type LineSearchResult struct {
	// Alpha is the chosen α: the mixed weights are (1−α)·prev + α·avg.
	Alpha float64
	// Stats are the summed statistics of the 1-best hypotheses at Alpha,
	// BLEU their corpus BLEU (a fraction) when the run tunes toward BLEU;
	// under another metric, Metric names it and Score is its corpus
	// score there (BLEU is then 0).
	Stats  metric.Stats
	BLEU   float64
	Metric string  `json:",omitempty"`
	Score  float64 `json:",omitempty"`
	// Lo and Hi bound the best interval found by the line search (possibly
	// infinite); Alpha is outside it when α = 0 or 1 was preferred.
	Lo, Hi float64
	// Breakpoints is the number of distinct α where a 1-best changes,
	// Lists the number of lists with hypotheses.
	Breakpoints, Lists int
}

// MixLine is the line of line-search mixing over one index: Prev (α = 0),
// Avg (α = 1) and Dir = Avg − Prev (mix.Direction).
type MixLine struct {
	Index          *feature.Index
	Prev, Avg, Dir feature.Weights
}

// NewMixLine maps prev and avg onto one index, prev's names first, then
// the names only avg has.
func NewMixLine(prev, avg weights.ByName) (MixLine, error) {
	idx := feature.NewIndexOf(prev.Names...)
	p, err := prev.Over(idx)
	if err != nil {
		return MixLine{}, fmt.Errorf("tune: previous weights: %w", err)
	}
	q, err := avg.Over(idx)
	if err != nil {
		return MixLine{}, fmt.Errorf("tune: averaged weights: %w", err)
	}
	return MixLine{Index: idx, Prev: p, Avg: q, Dir: mix.Direction(p, q)}, nil
}

// Share returns list n's share of the line search (LineSearchList), its
// features added to the line's index.
func (m MixLine) Share(n NBest) (mix.Lines, error) {
	l, err := n.List(m.Index)
	if err != nil {
		return mix.Lines{}, err
	}
	return LineSearchList(l, m.Prev, m.Avg, m.Dir)
}

// At returns (1−α)·Prev + α·Avg (mix.Interpolate) by name.
func (m MixLine) At(alpha float64) weights.ByName {
	return weights.NewByName(m.Index, mix.Interpolate(m.Prev, m.Avg, alpha))
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
// mix.LineSearch does over the same lists, for the corpus score of the
// metric spec (DecodeOptions.Metric; "" is BLEU).
func LineSearch(a mix.Lines, spec string) (LineSearchResult, error) {
	m, err := DecodeOptions{Metric: spec}.ParseMetric()
	if err != nil {
		return LineSearchResult{}, err
	}
	opts := mix.DefaultOptions()
	opts.Metric = m
	r, err := a.Search(opts)
	if err != nil {
		return LineSearchResult{}, fmt.Errorf("tune: line search: %w", err)
	}
	res := LineSearchResult{
		Alpha:       r.Alpha,
		Stats:       r.Stats,
		Lo:          r.Line.Lo,
		Hi:          r.Line.Hi,
		Breakpoints: r.Line.Breakpoints,
		Lists:       a.Envelopes.Lists,
	}
	if name := metric.RecordName(m); name == "" {
		res.BLEU = metric.Objective(m)(r.Stats)
	} else {
		res.Metric, res.Score = name, m.Score(r.Stats)
	}
	return res, nil
}
