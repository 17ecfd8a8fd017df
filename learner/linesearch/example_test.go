package linesearch_test

import (
	"fmt"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/linesearch"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// One sentence, two hypotheses with features (1, 0) and (0, 1). Along
// w = (1, 0) + γ·(0, 1) their scores are 1 and γ: the second, with more
// matches, wins for γ > 1.
func ExampleSearch() {
	stats := func(matches int) metric.Stats {
		return metric.NewBLEUStats(1, []float64{float64(matches)}, []float64{10}, 10)
	}
	lists := []pool.List{{Hyps: []pool.Hyp{
		pool.NewHyp(feature.FromDense([]float64{1, 0}), stats(4)),
		pool.NewHyp(feature.FromDense([]float64{0, 1}), stats(7)),
	}}}
	gamma, s, err := linesearch.Search(lists, feature.Weights{1, 0}, feature.Weights{0, 1}, linesearch.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("γ = %.1f, BLEU %.1f\n", gamma, metric.BLEUStats(s).BLEU())
	// Output: γ = 1.1, BLEU 0.7
}
