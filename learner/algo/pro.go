package algo

import (
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/batch"
)

var proInfo = Info{
	Name:    "pro",
	Summary: "PRO (Hopkins & May 2011): sampled pairs, L2 logistic regression by L-BFGS",
	Options: []string{"l2"},
	New: func(w feature.Weights, c Config) (learner.Learner, error) {
		return batch.NewPRO(w, PROOptions(c))
	},
	Pairs:     true,
	AnyMetric: true,
}

// PROOptions returns the options of the "pro" learner New makes from c
// (for batch.SamplePRO, which samples a part of a pool held by parts).
func PROOptions(c Config) batch.PROOptions {
	return batch.PROOptions{Lambda: c.l2(0), Seed: c.Seed, Metric: c.metric}
}
