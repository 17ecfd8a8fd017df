package algo

import (
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/online"
)

var miraInfo = Info{
	Name:      "mira",
	Summary:   "online MIRA with hope/fear and a pseudo-corpus (background) gain (Chiang et al. 2008)",
	Online:    true,
	MiniBatch: online.DefaultMIRABatch,
	Options:   []string{"minibatch"},
	New: func(w feature.Weights, c Config) (learner.Learner, error) {
		return online.NewMIRA(w, online.MIRAOptions{BatchSize: c.MiniBatch, Metric: c.metric, Seed1: c.Seed, Seed2: c.seed2()})
	},
	AnyMetric: true,
}
