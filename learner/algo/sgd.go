package algo

import (
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/online"
)

var sgdInfo = Info{
	Name:      "sgd",
	Summary:   "plain SGD on the pairwise loss",
	Online:    true,
	Losses:    []string{"logistic", "hinge"},
	MiniBatch: online.DefaultAdaGradBatch,
	Rate:      online.DefaultSGDRate,
	Options:   []string{"rate", "l2", "noise", "minibatch"},
	New: func(w feature.Weights, c Config) (learner.Learner, error) {
		return online.NewSGD(w, online.SGDOptions{Rate: c.Rate, L2: c.l2Plain(), BatchSize: c.MiniBatch,
			Objective: c.pairwise(), Seed1: c.Seed, Seed2: c.seed2()})
	},
	AnyMetric: true,
}
