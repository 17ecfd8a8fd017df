package algo

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// TestFlags: the learner and batch-search flags store what they parse in
// the Config, and refuse a value out of range as they parse it.
func TestFlags(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		name string
		args []string
		want Config
		err  string // a part of the refusal; "" for none
	}{
		{"none", nil, Config{}, ""},
		{"learner", []string{"--loss", "hinge", "--l1", "0", "--l2", "0.5", "--noise", "0.1", "--noise-type", "gaussian", "--noise-unlabeled", "3", "--rate", "0.2", "--minibatch", "4"},
			Config{Loss: "hinge", L1: f(0), L2: f(0.5), Noise: 0.1, NoiseType: "gaussian", NoiseUnlabeled: 3, Rate: 0.2, MiniBatch: 4}, ""},
		{"batch search", []string{"--random-directions", "3", "--restart-range", " -1 , 2", "--mira-c", "0.001", "--mira-decay", "1"},
			Config{RandomDirections: 3, RestartRange: &[2]float64{-1, 2}, MIRAC: 0.001, MIRADecay: 1}, ""},
		{"negative l1", []string{"--l1", "-1"}, Config{}, "want a non-negative number"},
		{"NaN l2", []string{"--l2", "NaN"}, Config{}, "want a non-negative number"},
		{"zero directions", []string{"--random-directions", "0"}, Config{}, "want a positive count"},
		{"range without comma", []string{"--restart-range", "1"}, Config{}, "want MIN,MAX"},
		{"range reversed", []string{"--restart-range", "1,0"}, Config{}, "MIN 1 must be less than MAX 0"},
		{"range infinite", []string{"--restart-range", "0,Inf"}, Config{}, "want two finite numbers MIN,MAX"},
		{"zero C", []string{"--mira-c", "0"}, Config{}, "want a positive number"},
		{"infinite C", []string{"--mira-c", "Inf"}, Config{}, "want a positive number"},
		{"decay above 1", []string{"--mira-decay", "1.01"}, Config{}, "want a number in (0, 1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			c.RegisterLearnerFlags(fs)
			c.RegisterBatchSearchFlags(fs)
			err := fs.Parse(tc.args)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one with %q", err, tc.err)
			case tc.err == "" && !reflect.DeepEqual(c, tc.want):
				t.Errorf("config %+v, want %+v", c, tc.want)
			}
		})
	}
}

// TestFlagsHelp: the help of the flags names the learners that read them
// and their defaults, from the descriptions.
func TestFlagsHelp(t *testing.T) {
	var c Config
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	c.RegisterLearnerFlags(fs)
	for name, want := range map[string]string{
		"l1":        "L1 strength of " + Readers("l1") + "'s FOBOS step",
		"rate":      "learning rate of " + Readers("rate"),
		"minibatch": fmt.Sprintf("%s %d", adagradInfo.Name, adagradInfo.MiniBatch),
	} {
		if u := fs.Lookup(name).Usage; !strings.Contains(u, want) {
			t.Errorf("--%s: help %q lacks %q", name, u, want)
		}
	}
}
