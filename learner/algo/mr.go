package algo

import (
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/batch"
)

var mrInfo = Info{
	Name:    "mr",
	Summary: "minimum risk: expected sentence BLEU by SGD (Cherry & Foster 2012)",
	Options: []string{"l2"},
	New: func(w feature.Weights, c Config) (learner.Learner, error) {
		return batch.NewMR(w, batch.MROptions{Lambda: c.l2(0), Seed: c.Seed, Threads: c.Threads, Metric: c.metric})
	},
	AnyMetric: true,
}
