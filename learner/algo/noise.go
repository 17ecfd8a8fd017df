package algo

import (
	"fmt"
	"math"

	"github.com/mtune/mtune/learner/loss"
	"github.com/mtune/mtune/learner/online"
)

// validateNoise checks the feature-noising settings of c (Noise, NoiseType,
// NoiseUnlabeled) for the learner info: the level in the noise's range, a
// known noise type, and no setting that would be ignored.
func (c Config) validateNoise(info Info) error {
	typ, err := loss.ParseNoiseType(c.NoiseType)
	if err != nil {
		return fmt.Errorf("algo: noise type %q: choose %s or %s", c.NoiseType, loss.NoiseTypes[0], loss.NoiseTypes[1])
	}
	on := c.Noise != 0
	switch {
	case typ == loss.Dropout && !(c.Noise >= 0 && c.Noise < 1):
		return fmt.Errorf("algo: feature-noising dropout rate %v must be in [0, 1)", c.Noise)
	case typ == loss.Gaussian && (math.IsNaN(c.Noise) || math.IsInf(c.Noise, 0) || c.Noise < 0):
		return fmt.Errorf("algo: Gaussian feature-noising level σ = %v must be a finite number ≥ 0", c.Noise)
	case on && !info.reads("noise"):
		return fmt.Errorf("algo: feature noising applies to the logistic loss of %s, not %s", Readers("noise"), info.Name)
	case on && c.Loss == "hinge":
		return fmt.Errorf("algo: feature noising is defined for the logistic loss, not the hinge")
	case c.NoiseType != "" && !on:
		return fmt.Errorf("algo: --noise-type %s needs --noise, the noise level", c.NoiseType)
	case c.NoiseUnlabeled < 0:
		return fmt.Errorf("algo: %d unlabelled pairs a list: must be positive", c.NoiseUnlabeled)
	case c.NoiseUnlabeled != 0 && !on:
		return fmt.Errorf("algo: --noise-unlabeled %d needs --noise: unlabelled pairs only enter the noising regulariser", c.NoiseUnlabeled)
	}
	return nil
}

// pairwise returns the objective of the pairwise online learners (adagrad,
// sgd) c asks for; c must be valid. Under a metric other than BLEU, Green
// et al.'s sampler ranks the hypotheses by the metric's sentence score as
// a fraction (online.Pairwise.Metric) instead of BLEU+1.
func (c Config) pairwise() online.Pairwise {
	return online.Pairwise{Hinge: c.Loss == "hinge", Noising: c.noising(), UnlabeledPairs: c.NoiseUnlabeled, Metric: c.metric}
}

// noising returns the regulariser c asks for; c must be valid.
func (c Config) noising() loss.Noising {
	typ, _ := loss.ParseNoiseType(c.NoiseType)
	return loss.Noising{Type: typ, Level: c.Noise}
}
