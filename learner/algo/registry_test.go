package algo

import (
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/metric"
)

// TestRegistry checks every learner's description: a unique name, a
// summary, a constructor, a default mini-batch exactly for the online
// learners, options among the flags Validate knows, and a Config setting
// each option it lists accepted.
func TestRegistry(t *testing.T) {
	known := []string{"rate", "l1", "l2", "noise", "minibatch", "restarts", "passes", "random-directions", "restart-range", "mira-c", "mira-decay"}
	seen := map[string]bool{}
	for _, in := range All() {
		switch {
		case seen[in.Name]:
			t.Errorf("%s registered twice", in.Name)
		case in.Summary == "" || in.New == nil:
			t.Errorf("%s: no summary or constructor", in.Name)
		case in.Online != (in.MiniBatch > 0):
			t.Errorf("%s: online %v, default mini-batch %d", in.Name, in.Online, in.MiniBatch)
		case (in.Rounds || in.Pairs) && (in.Online || in.Rounds == in.Pairs):
			t.Errorf("%s: online %v, rounds %v, pairs %v: a distributed path is a batch learner's, and one", in.Name, in.Online, in.Rounds, in.Pairs)
		}
		seen[in.Name] = true
		for _, o := range in.Options {
			if !slices.Contains(known, o) {
				t.Errorf("%s: unknown option %q", in.Name, o)
			}
		}
	}
	for _, name := range []string{DefaultOnline, DefaultBatch} {
		if _, ok := Lookup(name); !ok {
			t.Errorf("default learner %s is not registered", name)
		}
	}
	// Batch mode's distributed paths: MERT's rounds, PRO's pairs.
	if m, p := must(Lookup("mert")), must(Lookup("pro")); !m.Rounds || m.Pairs || !p.Pairs || p.Rounds {
		t.Errorf("mert rounds %v pairs %v, pro rounds %v pairs %v", m.Rounds, m.Pairs, p.Rounds, p.Pairs)
	}
	if in, _ := Lookup(DefaultOnline); !in.Online {
		t.Errorf("DefaultOnline %s is a batch learner", DefaultOnline)
	}
	if in, _ := Lookup(DefaultBatch); in.Online {
		t.Errorf("DefaultBatch %s is an online learner", DefaultBatch)
	}
	if got := append(OnlineNames(), BatchNames()...); len(got) != len(Names()) {
		t.Errorf("online %v and batch %v are not the %d learners", OnlineNames(), BatchNames(), len(Names()))
	}
}

// TestDefaults pins the defaults the descriptions declare (DESIGN §3, the
// papers' and Moses') and the option lists behind Validate's messages.
func TestDefaults(t *testing.T) {
	for _, tc := range []struct {
		name      string
		miniBatch int
		rate      float64
	}{
		{"adagrad", 20, 0.02}, {"sgd", 20, 1e-3}, {"mira", 1, 0}, {"oro", 16, 0.2}, {"mert", 0, 0}, {"kbmira", 0, 0},
	} {
		in, _ := Lookup(tc.name)
		if in.MiniBatch != tc.miniBatch || in.Rate != tc.rate || (Config{}).MiniBatchOf(tc.name) != tc.miniBatch {
			t.Errorf("%s: mini-batch %d, rate %v; want %d, %v", tc.name, in.MiniBatch, in.Rate, tc.miniBatch, tc.rate)
		}
	}
	if n := (Config{MiniBatch: 7}).MiniBatchOf("oro"); n != 7 {
		t.Errorf("MiniBatchOf with --minibatch 7: %d", n)
	}
	for flag, want := range map[string]string{
		"rate": "adagrad, sgd and oro", "l1": "adagrad", "noise": "adagrad and sgd", "passes": "kbmira and svm", "restarts": "mert",
	} {
		if got := Readers(flag); got != want {
			t.Errorf("Readers(%q) = %q, want %q", flag, got, want)
		}
	}
}

// must returns in, for a Lookup whose name is known.
func must(in Info, ok bool) Info {
	if !ok {
		panic("algo: unknown learner in a test")
	}
	return in
}

// TestAnyMetric: every learner optimises any metric (Validate accepts a
// Config with TER for each); a learner registered without AnyMetric is
// refused another metric than BLEU, naming those that take one.
func TestAnyMetric(t *testing.T) {
	var c Config
	c.SetMetric(ter)
	for _, in := range All() {
		if !in.AnyMetric {
			t.Errorf("%s optimises BLEU only", in.Name)
		}
		if err := c.Validate(in.Name); err != nil {
			t.Errorf("%s with TER: %v", in.Name, err)
		}
	}
	saved := registry
	defer func() { registry = saved }()
	bleuOnly := must(Lookup("mert"))
	bleuOnly.Name, bleuOnly.AnyMetric = "bleuonly", false
	registry = append(slices.Clone(registry), bleuOnly)
	err := c.Validate("bleuonly")
	if err == nil || !strings.Contains(err.Error(), "bleuonly optimises BLEU only; --metric TER is for mert, pro") {
		t.Errorf("BLEU-only learner with TER: %v", err)
	}
	var bleu Config
	bleu.SetMetric(metric.DefaultBLEU())
	if err := bleu.Validate("bleuonly"); err != nil {
		t.Errorf("BLEU-only learner with BLEU: %v", err)
	}
}
