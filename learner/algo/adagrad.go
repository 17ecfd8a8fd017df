package algo

import (
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/online"
)

var adagradInfo = Info{
	Name:      "adagrad",
	Summary:   "AdaGrad + FOBOS L1 on the pairwise loss (Green et al. 2013)",
	Online:    true,
	Losses:    []string{"logistic", "hinge"},
	MiniBatch: online.DefaultAdaGradBatch,
	Rate:      online.DefaultAdaGradRate,
	Options:   []string{"rate", "l1", "l2", "noise", "minibatch"},
	New: func(w feature.Weights, c Config) (learner.Learner, error) {
		l1 := 0.0 // the learner's default
		if c.L1 != nil {
			l1 = *c.L1
			if l1 == 0 {
				l1 = -1
			}
		}
		return online.NewAdaGrad(w, online.AdaGradOptions{Rate: c.Rate, L1: l1, L2: c.l2Plain(), BatchSize: c.MiniBatch,
			Objective: c.pairwise(), Seed1: c.Seed, Seed2: c.seed2()})
	},
	AnyMetric: true,
}
