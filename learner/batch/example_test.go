package batch_test

import (
	"context"
	"fmt"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/batch"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// Two sentences whose model-best hypothesis is the worse one: MIRA moves
// the weights until the better one wins.
func Example() {
	good := metric.NewBLEUStats(4, []float64{4, 3, 2, 1}, []float64{4, 3, 2, 1}, 4)
	bad := metric.NewBLEUStats(4, []float64{2, 1, 0, 0}, []float64{4, 3, 2, 1}, 4)
	hyp := func(lm, tm float64, s metric.Stats) pool.Hyp {
		return pool.NewHyp(feature.FromDense([]float64{lm, tm}), s)
	}
	lists := []pool.List{
		{Sent: 0, Hyps: []pool.Hyp{hyp(-2, -5, bad), hyp(-3, -1, good)}},
		{Sent: 1, Hyps: []pool.Hyp{hyp(-1, -4, bad), hyp(-2, -2, good)}},
	}
	start := feature.Weights{1, 0.1}
	m, err := batch.NewMIRA(start, batch.MIRAOptions{})
	if err != nil {
		panic(err)
	}
	if err := m.Learn(context.Background(), lists); err != nil {
		panic(err)
	}
	fmt.Printf("BLEU %.2f → %.2f\n", metric.BLEUStats(pool.OneBest(lists, start)).BLEU(), metric.BLEUStats(pool.OneBest(lists, m.Weights())).BLEU())
	// Output: BLEU 0.00 → 1.00
}
