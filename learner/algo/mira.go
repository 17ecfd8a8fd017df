package algo

import (
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/online"
)

var miraInfo = Info{
	Name:      "mira",
	Summary:   "online MIRA with hope/fear and background BLEU (Chiang et al. 2008)",
	Online:    true,
	MiniBatch: online.DefaultMIRABatch,
	Options:   []string{"minibatch"},
	New: func(w feature.Weights, c Config) (learner.Learner, error) {
		return online.NewMIRA(w, online.MIRAOptions{BatchSize: c.MiniBatch, Seed1: c.Seed, Seed2: c.seed2()})
	},
}
