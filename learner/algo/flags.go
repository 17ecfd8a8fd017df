package algo

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// RegisterLearnerFlags registers on fs the flags of the online learners'
// settings that tune-nbest and tune share (--loss, --l1, --l2, --noise,
// --noise-type, --noise-unlabeled, --rate, --minibatch), stored in c, with
// the learners and defaults their help names taken from the learners'
// descriptions (All, Readers).
func (c *Config) RegisterLearnerFlags(fs *flag.FlagSet) {
	var losses, rates, batches []string
	for _, in := range All() {
		if len(in.Losses) > 0 {
			losses = append(losses, fmt.Sprintf("%s (%s)", strings.Join(in.Losses, " or "), in.Name))
		}
		if in.Rate > 0 {
			rates = append(rates, fmt.Sprintf("%s %g", in.Name, in.Rate))
		}
		if in.MiniBatch > 0 {
			batches = append(batches, fmt.Sprintf("%s %d", in.Name, in.MiniBatch))
		}
	}
	fs.StringVar(&c.Loss, "loss", "", "loss of an online learner, the default first: "+strings.Join(losses, ", "))
	fs.Func("l1", "L1 strength of "+Readers("l1")+"'s FOBOS step (default 0.1; 0 = off)", floatPtr(&c.L1))
	fs.Func("l2", "L2 strength of "+Readers("l2")+" (Watanabe's λ for oro; 0 = off, not for svm)", floatPtr(&c.L2))
	fs.Float64Var(&c.Noise, "noise", 0, "feature-noising level for the logistic loss of "+Readers("noise")+" (Wang et al. 2013): the dropout rate δ, or σ with --noise-type gaussian; 0 = off")
	fs.StringVar(&c.NoiseType, "noise-type", "", "the noise of --noise: dropout (the default) or gaussian (additive N(0, σ²) on every feature of a pair's difference vector)")
	fs.IntVar(&c.NoiseUnlabeled, "noise-unlabeled", 0, "random pairs a list, their order unknown, that enter only the noising regulariser (Wang et al.'s eq. 11); needs --noise")
	fs.Float64Var(&c.Rate, "rate", 0, "learning rate of "+Readers("rate")+" (default: the learner's own: "+strings.Join(rates, ", ")+")")
	fs.IntVar(&c.MiniBatch, "minibatch", 0, "sentences per online update (default: the learner's own: "+strings.Join(batches, ", ")+")")
}

// floatPtr returns a flag.Func handler that stores a parsed float in a new
// *float64, so that "not given" stays distinguishable from 0.
func floatPtr(dst **float64) func(string) error {
	return func(s string) error {
		var x float64
		if _, err := fmt.Sscan(s, &x); err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return fmt.Errorf("want a non-negative number, got %q", s)
		}
		*dst = &x
		return nil
	}
}

// RegisterBatchSearchFlags registers on fs the flags of MERT's search and
// of kb-MIRA that tune-nbest and tune share, stored in c:
// --random-directions, --restart-range, --mira-c and --mira-decay. A
// typed-in value out of range is refused as the flag is parsed (exit 2,
// before any work); a flag the chosen learner does not use is refused by
// Validate.
func (c *Config) RegisterBatchSearchFlags(fs *flag.FlagSet) {
	fs.Func("random-directions", "MERT: random directions searched in every pass besides the coordinate ones (Moses' mert --nrandom; default 0)", func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fmt.Errorf("want a positive count, got %q", s)
		}
		c.RandomDirections = n
		return nil
	})
	fs.Func("restart-range", "MERT: MIN,MAX bounding every coordinate of the random start points and directions (the min and max of Moses' init.opt; default 0,1)", func(s string) error {
		r, err := parseRange(s)
		if err != nil {
			return err
		}
		c.RestartRange = &r
		return nil
	})
	fs.Func("mira-c", "kb-MIRA's step-size cap C (kbmira --cparam; default 0.01)", func(s string) error {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("want a positive number, got %q", s)
		}
		c.MIRAC = x
		return nil
	})
	fs.Func("mira-decay", "kb-MIRA's BLEU pseudo-corpus decay γ in (0, 1] (kbmira --decay; default 0.999)", func(s string) error {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !(x > 0 && x <= 1) {
			return fmt.Errorf("want a number in (0, 1], got %q", s)
		}
		c.MIRADecay = x
		return nil
	})
}

// parseRange parses "MIN,MAX": two finite numbers, MIN < MAX.
func parseRange(s string) ([2]float64, error) {
	lo, hi, ok := strings.Cut(s, ",")
	if !ok {
		return [2]float64{}, fmt.Errorf("want MIN,MAX, got %q", s)
	}
	a, err1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
	switch {
	case err1 != nil || err2 != nil || math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0):
		return [2]float64{}, fmt.Errorf("want two finite numbers MIN,MAX, got %q", s)
	case !(a < b):
		return [2]float64{}, fmt.Errorf("MIN %v must be less than MAX %v", a, b)
	}
	return [2]float64{a, b}, nil
}
