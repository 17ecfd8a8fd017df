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

// Average returns the mean of the shards' weights: uniform, or weighted by
// each shard's Updates when weighted is set (a shard with no update then
// counts for nothing; if no shard made one, the mean is uniform). Weights of
// different lengths are padded with zeros. It returns nil for no shards and
// panics on a negative update count.
func Average(results []Shard, weighted bool) feature.Weights {
	if len(results) == 0 {
		return nil
	}
	n, total := 0, 0
	for _, s := range results {
		if s.Updates < 0 {
			panic(fmt.Sprintf("mix: negative update count %d", s.Updates))
		}
		n = max(n, len(s.Weights))
		total += s.Updates
	}
	uniform := !weighted || total == 0
	avg := make(feature.Weights, n)
	for _, s := range results {
		c := 1.0
		if !uniform {
			c = float64(s.Updates)
		}
		if c == 0 {
			continue
		}
		for j, x := range s.Weights {
			avg[j] += c * x
		}
	}
	d := float64(len(results))
	if !uniform {
		d = float64(total)
	}
	for j := range avg {
		avg[j] /= d
	}
	return avg
}

// LineSearch returns w = prev + α·(avg − prev) with the α that maximises
// corpus BLEU of lists re-ranked with w (see the package documentation),
// and the statistics of the re-ranked lists. The result is never worse than
// avg (α = 1) or prev (α = 0). It fails for lists without hypotheses or with
// invalid statistics, and for non-finite weights.
func LineSearch(prev, avg feature.Weights, lists []pool.List) (w feature.Weights, alpha float64, stats metric.Stats, err error) {
	return LineSearchOptions(prev, avg, lists, linesearch.Options{Prefer: 1})
}

// LineSearchOptions is LineSearch with the line search's options (threads,
// bounds on α, the preferred α; LineSearch prefers 1).
func LineSearchOptions(prev, avg feature.Weights, lists []pool.List, opts linesearch.Options) (w feature.Weights, alpha float64, stats metric.Stats, err error) {
	if !prev.Finite() || !avg.Finite() {
		return nil, 0, metric.Stats{}, errors.New("mix: non-finite weights")
	}
	dir := make(feature.Weights, max(len(prev), len(avg)))
	for j := range dir {
		dir[j] = avg.At(feature.ID(j)) - prev.At(feature.ID(j))
	}
	alpha, stats, err = linesearch.Search(lists, prev, dir, opts)
	if err != nil {
		return nil, 0, metric.Stats{}, fmt.Errorf("mix: %w", err)
	}
	// The line search returns a point inside an interval of α. The ends of
	// the segment, α = 1 (the average) and α = 0, may be points where
	// hypotheses tie, and better: take them then (1 on equal BLEU).
	if opts.Min == 0 && opts.Max == 0 || opts.Min <= 1 && 1 <= opts.Max {
		if s1 := pool.OneBest(lists, avg); s1.BLEU() >= stats.BLEU() && alpha != 1 {
			alpha, stats = 1, s1
		}
	}
	if opts.Min == 0 && opts.Max == 0 || opts.Min <= 0 && 0 <= opts.Max {
		if s0 := pool.OneBest(lists, prev); s0.BLEU() > stats.BLEU() {
			alpha, stats = 0, s0
		}
	}
	w = make(feature.Weights, len(dir))
	for j := range w {
		// (1−α)·prev + α·avg is exactly prev at α = 0 and avg at α = 1.
		w[j] = (1-alpha)*prev.At(feature.ID(j)) + alpha*avg.At(feature.ID(j))
	}
	return w, alpha, stats, nil
}
