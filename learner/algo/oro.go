package algo

import (
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/online"
)

var oroInfo = Info{
	Name:      "oro",
	Summary:   "optimized online rank learning (Watanabe 2012)",
	Online:    true,
	Losses:    []string{"hinge", "softmax"},
	MiniBatch: online.DefaultWatanabeBatch,
	Rate:      online.DefaultWatanabeRate,
	Options:   []string{"rate", "l2", "minibatch"},
	New: func(w feature.Weights, c Config) (learner.Learner, error) {
		return online.NewWatanabe(w, online.WatanabeOptions{Softmax: c.Loss == "softmax", Rate: c.Rate,
			Lambda: c.l2(0), BatchSize: c.MiniBatch, Metric: c.metric, Seed1: c.Seed, Seed2: c.seed2()})
	},
	AnyMetric: true,
}
