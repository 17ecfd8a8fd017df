package algo

import (
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/batch"
)

var kbmiraInfo = Info{
	Name:    "kbmira",
	Summary: "batch k-best MIRA (Cherry & Foster 2012) as Moses' kbmira: 60 passes, C=0.01",
	Options: []string{"passes", "mira-c", "mira-decay"},
	New: func(w feature.Weights, c Config) (learner.Learner, error) {
		return batch.NewMIRA(w, batch.MIRAOptions{C: c.MIRAC, Decay: c.MIRADecay, Passes: c.Passes, Seed: c.Seed, Threads: c.Threads, Metric: c.metric})
	},
	AnyMetric: true,
}
