package algo

import (
	"errors"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/batch"
)

var svmInfo = Info{
	Name:    "svm",
	Summary: "structured SVM (Cherry & Foster 2012 §3.2): latent hinge loss, L2 λ=1000, cutting plane",
	Options: []string{"l2", "passes"},
	Check: func(c Config) error {
		if c.L2 != nil && *c.L2 == 0 {
			return errors.New("algo: svm needs an L2 strength > 0 (its dual bounds the multipliers by 1/λ)")
		}
		return nil
	},
	New: func(w feature.Weights, c Config) (learner.Learner, error) {
		return batch.NewSVM(w, batch.SVMOptions{Lambda: c.l2(0), Iterations: c.Passes, Seed: c.Seed, Threads: c.Threads, Metric: c.metric})
	},
	AnyMetric: true,
}
