// Package algo makes any of mtune's learners by name, for the --algo flag
// of `mtune tune-nbest` and of the tuning pipeline:
//
//	mert     MERT (Och 2003) as Moses' mert                      batch
//	pro      PRO (Hopkins & May 2011) as Moses' pro               batch
//	kbmira   batch k-best MIRA (Cherry & Foster 2012) as kbmira   batch
//	mr       expected BLEU / minimum risk (Cherry & Foster §2.4)  batch
//	svm      structured SVM (Cherry & Foster §3.2)                batch
//	adagrad  AdaGrad + FOBOS L1 (Green et al. 2013)               online
//	sgd      plain SGD on the same pairwise loss                  online
//	mira     online MIRA with hope/fear (Chiang et al. 2008)      online
//	oro      optimized online rank learning (Watanabe 2012)       online
//
// Config carries the settings the command-line flags give; a zero field
// leaves the learner's own default (the paper's or Moses').
package algo

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/batch"
	"github.com/mtune/mtune/learner/mert"
	"github.com/mtune/mtune/learner/online"
)

// Config holds the settings shared by the --algo flags. The zero value
// gives every learner its defaults.
type Config struct {
	// Loss selects an online learner's loss: "logistic" (the default of
	// adagrad and sgd) or "hinge" for the pairwise learners; "hinge" (the
	// default) or "softmax" for oro. Empty means the default.
	Loss string
	// L1 is the L1 strength of adagrad (nil: 0.1; 0 turns it off).
	L1 *float64
	// L2 is the L2 strength of adagrad, sgd, pro, mr and svm (λ of
	// Cherry & Foster's (4); svm needs it positive), and Watanabe's λ for
	// oro (nil: each learner's default).
	L2 *float64
	// Noise is the level of the feature noising (Wang et al. 2013) added
	// to the logistic loss of adagrad and sgd: the dropout rate δ in
	// [0, 1), or the standard deviation σ ≥ 0 of Gaussian noise (see
	// NoiseType); 0 means none.
	Noise float64
	// NoiseType is the noise of Noise: "dropout" (the default) or
	// "gaussian" (additive N(0, σ²) on every feature). Empty means
	// dropout.
	NoiseType string
	// NoiseUnlabeled is the number of random pairs of hypotheses a list
	// (their order unknown) that enter only the noising regulariser, as
	// the unlabelled inputs of Wang et al.'s eq. 11; 0 means none. It
	// needs Noise.
	NoiseUnlabeled int
	// Rate is the learning rate of the online learners (0: default).
	Rate float64
	// MiniBatch is the number of sentences an online update learns from
	// (0: the learner's default).
	MiniBatch int
	// Restarts is MERT's number of random restarts (0: 20).
	Restarts int
	// Passes is kb-MIRA's number of passes (0: 60) and the SVM's most
	// alternations of oracle selection and SVM solve (0: 10).
	Passes int
	// RandomDirections is the number of random directions MERT searches in
	// every pass besides the coordinate directions (Moses' mert --nrandom;
	// 0: none).
	RandomDirections int
	// RestartRange bounds, in every dimension, MERT's random start points
	// and random directions (the min and max lines of Moses' init.opt,
	// mert-moses.pl --range; nil: [0, 1]).
	RestartRange *[2]float64
	// MIRAC is kb-MIRA's step-size cap C (kbmira --cparam; 0: 0.01).
	MIRAC float64
	// MIRADecay is kb-MIRA's pseudo-corpus decay γ (kbmira --decay; 0:
	// 0.999).
	MIRADecay float64
	// Features restricts MERT to these dimensions (nil: the features
	// active in the pool).
	Features []feature.ID
	// Seed seeds every random choice.
	Seed uint64
	// Threads bounds the goroutines of the batch optimizers (0: all cores).
	Threads int
}

// Info describes one learner.
type Info struct {
	Name    string
	Summary string
	Online  bool
	// Losses are the values Config.Loss accepts, the default first; none
	// for learners with a fixed loss.
	Losses []string
}

var registry = []Info{
	{"mert", "MERT (Och 2003): exact line search, 20 random restarts, as Moses' mert", false, nil},
	{"pro", "PRO (Hopkins & May 2011): sampled pairs, L2 logistic regression by L-BFGS", false, nil},
	{"kbmira", "batch k-best MIRA (Cherry & Foster 2012) as Moses' kbmira: 60 passes, C=0.01", false, nil},
	{"mr", "minimum risk: expected sentence BLEU by SGD (Cherry & Foster 2012)", false, nil},
	{"svm", "structured SVM (Cherry & Foster 2012 §3.2): latent hinge loss, L2 λ=1000, cutting plane", false, nil},
	{"adagrad", "AdaGrad + FOBOS L1 on the pairwise loss (Green et al. 2013)", true, []string{"logistic", "hinge"}},
	{"sgd", "plain SGD on the pairwise loss", true, []string{"logistic", "hinge"}},
	{"mira", "online MIRA with hope/fear and background BLEU (Chiang et al. 2008)", true, nil},
	{"oro", "optimized online rank learning (Watanabe 2012)", true, []string{"hinge", "softmax"}},
}

// All returns every learner's description, in the order of the package
// documentation.
func All() []Info { return slices.Clone(registry) }

// Names returns the learners' names.
func Names() []string {
	var out []string
	for _, in := range registry {
		out = append(out, in.Name)
	}
	return out
}

// Lookup returns the description of the named learner.
func Lookup(name string) (Info, bool) {
	for _, in := range registry {
		if in.Name == name {
			return in, true
		}
	}
	return Info{}, false
}

// Validate checks c for the named learner: every value in range and every
// setting one the learner uses (a setting it would ignore is an error, so
// that a flag never silently does nothing). Zero fields are the defaults
// and always valid.
func (c Config) Validate(name string) error {
	info, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("algo: unknown learner %q (choose from %s)", name, strings.Join(Names(), ", "))
	}
	if c.Loss != "" && !slices.Contains(info.Losses, c.Loss) {
		if len(info.Losses) == 0 {
			return fmt.Errorf("algo: %s has a fixed loss; --loss %s does not apply", name, c.Loss)
		}
		return fmt.Errorf("algo: %s takes the loss %s, not %q", name, strings.Join(info.Losses, " or "), c.Loss)
	}
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 }
	uses := func(names ...string) bool { return slices.Contains(names, name) }
	switch {
	case bad(c.Rate):
		return fmt.Errorf("algo: learning rate %v must be a positive number", c.Rate)
	case c.Rate != 0 && !uses("adagrad", "sgd", "oro"):
		return fmt.Errorf("algo: --rate applies to adagrad, sgd and oro, not %s", name)
	case c.L1 != nil && bad(*c.L1):
		return fmt.Errorf("algo: L1 strength %v must be a number ≥ 0", *c.L1)
	case c.L1 != nil && name != "adagrad":
		return fmt.Errorf("algo: --l1 applies to adagrad, not %s", name)
	case c.L2 != nil && bad(*c.L2):
		return fmt.Errorf("algo: L2 strength %v must be a number ≥ 0", *c.L2)
	case c.L2 != nil && !uses("adagrad", "sgd", "pro", "mr", "oro", "svm"):
		return fmt.Errorf("algo: --l2 applies to adagrad, sgd, pro, mr, oro and svm, not %s", name)
	case c.L2 != nil && *c.L2 == 0 && name == "svm":
		return fmt.Errorf("algo: svm needs an L2 strength > 0 (its dual bounds the multipliers by 1/λ)")
	case c.MiniBatch < 0:
		return fmt.Errorf("algo: mini-batch size %d must be positive", c.MiniBatch)
	case c.MiniBatch != 0 && !info.Online:
		return fmt.Errorf("algo: --minibatch applies to the online learners, not %s", name)
	case c.Restarts < 0:
		return fmt.Errorf("algo: %d restarts: must be positive", c.Restarts)
	case c.Restarts != 0 && name != "mert":
		return fmt.Errorf("algo: --restarts applies to mert, not %s", name)
	case c.Passes < 0:
		return fmt.Errorf("algo: %d passes: must be positive", c.Passes)
	case c.Passes != 0 && !uses("kbmira", "svm"):
		return fmt.Errorf("algo: --passes applies to kbmira and svm, not %s", name)
	case c.Threads < 0:
		return fmt.Errorf("algo: %d threads: must be positive", c.Threads)
	}
	if err := c.validateNoise(name); err != nil {
		return err
	}
	return c.validateBatch(name)
}

// validateBatch checks the settings of MERT's search and of kb-MIRA.
func (c Config) validateBatch(name string) error {
	switch {
	case c.RandomDirections < 0:
		return fmt.Errorf("algo: %d random directions: must be positive", c.RandomDirections)
	case c.RandomDirections != 0 && name != "mert":
		return fmt.Errorf("algo: --random-directions applies to mert, not %s", name)
	case c.RestartRange != nil && !(finite(c.RestartRange[0]) && finite(c.RestartRange[1]) && c.RestartRange[0] < c.RestartRange[1]):
		return fmt.Errorf("algo: restart range [%v, %v]: want finite MIN < MAX", c.RestartRange[0], c.RestartRange[1])
	case c.RestartRange != nil && name != "mert":
		return fmt.Errorf("algo: --restart-range applies to mert, not %s", name)
	case math.IsNaN(c.MIRAC) || math.IsInf(c.MIRAC, 0) || c.MIRAC < 0:
		return fmt.Errorf("algo: MIRA C %v must be a positive number", c.MIRAC)
	case c.MIRAC != 0 && name != "kbmira":
		return fmt.Errorf("algo: --mira-c applies to kbmira, not %s", name)
	case math.IsNaN(c.MIRADecay) || c.MIRADecay < 0 || c.MIRADecay > 1:
		return fmt.Errorf("algo: MIRA decay %v must be in (0, 1]", c.MIRADecay)
	case c.MIRADecay != 0 && name != "kbmira":
		return fmt.Errorf("algo: --mira-decay applies to kbmira, not %s", name)
	}
	return nil
}

func finite(x float64) bool { return x-x == 0 }

// MERTOptions returns the options of the "mert" learner New makes from c
// (for mert.NewCoordinator, which runs it over a pool held by parts).
func MERTOptions(c Config) mert.Options {
	mo := mert.Options{Restarts: c.Restarts, RandomDirections: c.RandomDirections,
		Features: c.Features, Threads: c.Threads, Seed: c.Seed}
	if r := c.RestartRange; r != nil {
		mo.Min, mo.Max = r[0], r[1]
	}
	return mo
}

// PROOptions returns the options of the "pro" learner New makes from c
// (for batch.SamplePRO, which samples a part of a pool held by parts).
func PROOptions(c Config) batch.PROOptions {
	return batch.PROOptions{Lambda: c.l2(0), Seed: c.Seed}
}

// l2 returns the L2 strength c asks for, def when it asks for none.
func (c Config) l2(def float64) float64 {
	if c.L2 == nil {
		return def
	}
	if *c.L2 == 0 {
		return -1 // the learners read a negative strength as "off"
	}
	return *c.L2
}

// New returns the named learner starting from weights w.
func New(name string, w feature.Weights, c Config) (learner.Learner, error) {
	if err := c.Validate(name); err != nil {
		return nil, err
	}
	seed2 := c.Seed ^ 0x6a09e667f3bcc909 // a second PCG word derived from the seed
	pairwise := online.Pairwise{Hinge: c.Loss == "hinge", Noising: c.noising(), UnlabeledPairs: c.NoiseUnlabeled}
	l2 := func(def float64) float64 { return c.l2(def) }
	switch name {
	case "mert":
		return mert.New(w, MERTOptions(c)), nil
	case "pro":
		return batch.NewPRO(w, PROOptions(c))
	case "kbmira":
		return batch.NewMIRA(w, batch.MIRAOptions{C: c.MIRAC, Decay: c.MIRADecay, Passes: c.Passes, Seed: c.Seed, Threads: c.Threads})
	case "mr":
		return batch.NewMR(w, batch.MROptions{Lambda: l2(0), Seed: c.Seed, Threads: c.Threads})
	case "svm":
		return batch.NewSVM(w, batch.SVMOptions{Lambda: l2(0), Iterations: c.Passes, Seed: c.Seed, Threads: c.Threads})
	case "adagrad":
		l1 := 0.0 // the learner's default
		if c.L1 != nil {
			l1 = *c.L1
			if l1 == 0 {
				l1 = -1
			}
		}
		l2v := 0.0
		if c.L2 != nil {
			l2v = *c.L2
		}
		return online.NewAdaGrad(w, online.AdaGradOptions{Rate: c.Rate, L1: l1, L2: l2v, BatchSize: c.MiniBatch,
			Objective: pairwise, Seed1: c.Seed, Seed2: seed2})
	case "sgd":
		l2v := 0.0
		if c.L2 != nil {
			l2v = *c.L2
		}
		return online.NewSGD(w, online.SGDOptions{Rate: c.Rate, L2: l2v, BatchSize: c.MiniBatch,
			Objective: pairwise, Seed1: c.Seed, Seed2: seed2})
	case "mira":
		return online.NewMIRA(w, online.MIRAOptions{BatchSize: c.MiniBatch, Seed1: c.Seed, Seed2: seed2})
	case "oro":
		return online.NewWatanabe(w, online.WatanabeOptions{Softmax: c.Loss == "softmax", Rate: c.Rate,
			Lambda: l2(0), BatchSize: c.MiniBatch, Seed1: c.Seed, Seed2: seed2})
	}
	panic("algo: registry and New disagree about " + name)
}

// MiniBatchOf returns the mini-batch size the online learner name uses
// with c: c.MiniBatch, or the learner's default when it is 0; 0 for a
// batch learner (or an unknown name).
func (c Config) MiniBatchOf(name string) int {
	if c.MiniBatch > 0 {
		return c.MiniBatch
	}
	switch name {
	case "adagrad", "sgd":
		return online.DefaultAdaGradBatch
	case "mira":
		return online.DefaultMIRABatch
	case "oro":
		return online.DefaultWatanabeBatch
	}
	return 0
}
