package algo

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/metric"
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
	// metric is the metric the learner optimises (nil: BLEU; SetMetric);
	// only the learners whose Info.AnyMetric is set take another. It is
	// unexported so that a Config inside a Beam DoFn stays serialisable
	// (a pipeline's workers optimise BLEU).
	metric metric.Metric
	// Seed seeds every random choice.
	Seed uint64
	// Threads bounds the goroutines of the batch optimizers (0: all cores).
	Threads int
}

// SetMetric sets the metric the learner optimises (nil: BLEU).
func (c *Config) SetMetric(m metric.Metric) { c.metric = m }

// Metric is the metric the learner optimises (nil: BLEU).
func (c Config) Metric() metric.Metric { return c.metric }

// The default learners, where a choice of learner is left out: the online
// one of the modes that learn with the decoder in the loop, and the batch
// one of batch tuning and tune-nbest.
const (
	DefaultOnline = "adagrad"
	DefaultBatch  = "mert"
)

// Info describes one learner: what it is, its defaults, the settings of
// Config it reads and how to make it. Each learner's Info is in a file
// named after it; registry lists them.
type Info struct {
	Name    string
	Summary string
	Online  bool
	// Losses are the values Config.Loss accepts, the default first; none
	// for learners with a fixed loss.
	Losses []string
	// MiniBatch is an online learner's default mini-batch size, the
	// sentences of one update (0 for a batch learner).
	MiniBatch int
	// Rate is the default learning rate (0: the learner takes none).
	Rate float64
	// Options are the flags of the Config settings the learner reads
	// besides --loss, --seed and --threads: "rate", "l1", "l2", "noise"
	// (with "noise-type" and "noise-unlabeled"), "minibatch", "restarts",
	// "passes", "random-directions", "restart-range", "mira-c",
	// "mira-decay". Validate refuses a setting of a flag not listed.
	Options []string
	// Check, if not nil, checks c further (a setting the learner reads
	// that it cannot take).
	Check func(c Config) error
	// New makes the learner, starting from weights w, from a valid c.
	New func(w feature.Weights, c Config) (learner.Learner, error)
	// Batch mode's distributed paths (tune/): Rounds runs the learner's
	// passes as rounds over a pool held by parts (MERT: tune.MERTRun);
	// Pairs samples its pairs part by part and fits them on one machine
	// (PRO: tune.BatchStep.SamplePart, FitPRO). Neither: the whole pool on
	// one machine (tune.BatchStep.RunParts).
	Rounds, Pairs bool
	// AnyMetric is set for a learner that optimises any metric
	// (Config.SetMetric), not BLEU only: one without it needs a metric
	// whose sentence smoothing it chooses (metric.Smoother).
	AnyMetric bool
}

// reads reports whether the learner reads the setting of flag.
func (in Info) reads(flag string) bool { return slices.Contains(in.Options, flag) }

// notFor is the error for a setting of flag, which the learner does not
// read.
func (in Info) notFor(flag string) error {
	return fmt.Errorf("algo: --%s applies to %s, not %s", flag, Readers(flag), in.Name)
}

// registry lists the learners, in the order Names gives them: a new
// learner is its file and one line here.
var registry = []Info{
	mertInfo,
	proInfo,
	kbmiraInfo,
	mrInfo,
	svmInfo,
	adagradInfo,
	sgdInfo,
	miraInfo,
	oroInfo,
}

// All returns every learner's description, in registry order.
func All() []Info { return slices.Clone(registry) }

// Names returns the learners' names.
func Names() []string {
	var out []string
	for _, in := range registry {
		out = append(out, in.Name)
	}
	return out
}

// OnlineNames returns the online learners' names.
func OnlineNames() []string { return namesOf(true) }

// BatchNames returns the batch learners' names.
func BatchNames() []string { return namesOf(false) }

func namesOf(online bool) []string {
	var out []string
	for _, in := range registry {
		if in.Online == online {
			out = append(out, in.Name)
		}
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

// Readers returns the names of the learners that read the setting of
// flag (see Info.Options), as "a, b and c".
func Readers(flag string) string {
	var names []string
	for _, in := range registry {
		if in.reads(flag) {
			names = append(names, in.Name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
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
	switch {
	case bad(c.Rate):
		return fmt.Errorf("algo: learning rate %v must be a positive number", c.Rate)
	case c.Rate != 0 && !info.reads("rate"):
		return info.notFor("rate")
	case c.L1 != nil && bad(*c.L1):
		return fmt.Errorf("algo: L1 strength %v must be a number ≥ 0", *c.L1)
	case c.L1 != nil && !info.reads("l1"):
		return info.notFor("l1")
	case c.L2 != nil && bad(*c.L2):
		return fmt.Errorf("algo: L2 strength %v must be a number ≥ 0", *c.L2)
	case c.L2 != nil && !info.reads("l2"):
		return info.notFor("l2")
	case c.MiniBatch < 0:
		return fmt.Errorf("algo: mini-batch size %d must be positive", c.MiniBatch)
	case c.MiniBatch != 0 && !info.reads("minibatch"):
		return fmt.Errorf("algo: --minibatch applies to the online learners, not %s", name)
	case c.Restarts < 0:
		return fmt.Errorf("algo: %d restarts: must be positive", c.Restarts)
	case c.Restarts != 0 && !info.reads("restarts"):
		return info.notFor("restarts")
	case c.Passes < 0:
		return fmt.Errorf("algo: %d passes: must be positive", c.Passes)
	case c.Passes != 0 && !info.reads("passes"):
		return info.notFor("passes")
	case c.Threads < 0:
		return fmt.Errorf("algo: %d threads: must be positive", c.Threads)
	}
	if _, ok := metric.OrDefault(c.metric).(metric.Smoother); !ok && !info.AnyMetric {
		var any []string
		for _, in := range All() {
			if in.AnyMetric {
				any = append(any, in.Name)
			}
		}
		return fmt.Errorf("algo: %s optimises BLEU only; --metric %s is for %s", name, c.metric.Name(), strings.Join(any, ", "))
	}
	if err := c.validateNoise(info); err != nil {
		return err
	}
	if err := c.validateBatch(info); err != nil {
		return err
	}
	if info.Check != nil {
		return info.Check(c)
	}
	return nil
}

// validateBatch checks the settings of MERT's search and of kb-MIRA.
func (c Config) validateBatch(info Info) error {
	switch {
	case c.RandomDirections < 0:
		return fmt.Errorf("algo: %d random directions: must be positive", c.RandomDirections)
	case c.RandomDirections != 0 && !info.reads("random-directions"):
		return info.notFor("random-directions")
	case c.RestartRange != nil && !(finite(c.RestartRange[0]) && finite(c.RestartRange[1]) && c.RestartRange[0] < c.RestartRange[1]):
		return fmt.Errorf("algo: restart range [%v, %v]: want finite MIN < MAX", c.RestartRange[0], c.RestartRange[1])
	case c.RestartRange != nil && !info.reads("restart-range"):
		return info.notFor("restart-range")
	case math.IsNaN(c.MIRAC) || math.IsInf(c.MIRAC, 0) || c.MIRAC < 0:
		return fmt.Errorf("algo: MIRA C %v must be a positive number", c.MIRAC)
	case c.MIRAC != 0 && !info.reads("mira-c"):
		return info.notFor("mira-c")
	case math.IsNaN(c.MIRADecay) || c.MIRADecay < 0 || c.MIRADecay > 1:
		return fmt.Errorf("algo: MIRA decay %v must be in (0, 1]", c.MIRADecay)
	case c.MIRADecay != 0 && !info.reads("mira-decay"):
		return info.notFor("mira-decay")
	}
	return nil
}

func finite(x float64) bool { return x-x == 0 }

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

// l2Plain returns the L2 strength c asks for, 0 (off, the online
// learners' default) when it asks for none.
func (c Config) l2Plain() float64 {
	if c.L2 == nil {
		return 0
	}
	return *c.L2
}

// seed2 is the second PCG word of the online learners, derived from the
// seed.
func (c Config) seed2() uint64 { return c.Seed ^ 0x6a09e667f3bcc909 }

// New returns the named learner starting from weights w.
func New(name string, w feature.Weights, c Config) (learner.Learner, error) {
	if err := c.Validate(name); err != nil {
		return nil, err
	}
	info, _ := Lookup(name)
	return info.New(w, c)
}

// MiniBatchOf returns the mini-batch size the online learner name uses
// with c: c.MiniBatch, or the learner's default when it is 0; 0 for a
// batch learner (or an unknown name).
func (c Config) MiniBatchOf(name string) int {
	if c.MiniBatch > 0 {
		return c.MiniBatch
	}
	info, _ := Lookup(name)
	return info.MiniBatch
}
