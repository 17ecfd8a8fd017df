package algo

import (
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/mert"
)

var mertInfo = Info{
	Name:    "mert",
	Summary: "MERT (Och 2003): exact line search, 20 random restarts, as Moses' mert",
	Options: []string{"restarts", "random-directions", "restart-range"},
	New: func(w feature.Weights, c Config) (learner.Learner, error) {
		return mert.New(w, MERTOptions(c)), nil
	},
	Rounds:    true,
	AnyMetric: true,
}

// MERTOptions returns the options of the "mert" learner New makes from c
// (for mert.NewCoordinator, which runs it over a pool held by parts).
func MERTOptions(c Config) mert.Options {
	mo := mert.Options{Restarts: c.Restarts, RandomDirections: c.RandomDirections,
		Features: c.Features, Threads: c.Threads, Seed: c.Seed, Metric: c.metric}
	if r := c.RestartRange; r != nil {
		mo.Min, mo.Max = r[0], r[1]
	}
	return mo
}
