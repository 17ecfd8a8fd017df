package algo

import (
	"context"
	"errors"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/batch"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/europarl100"
)

// train runs name for the given epochs (one Learn for a batch learner) and
// returns the BLEU×100 of the pool's 1-best under the result.
func train(t *testing.T, name string, lists []pool.List, w feature.Weights, c Config, epochs int) (learner.Learner, float64) {
	t.Helper()
	l, err := New(name, w.Clone(), c)
	if err != nil {
		t.Fatal(err)
	}
	for range epochs {
		if err := l.Learn(context.Background(), lists); err != nil {
			t.Fatal(err)
		}
	}
	return l, 100 * metric.BLEUStats(pool.OneBest(lists, l.Weights())).BLEU()
}

// TestEuroparl100 runs every learner on Moses' europarl100 lists from
// init.weights (13.68 BLEU). The floors are the issue's: Moses' MERT 14.39,
// kbmira (de-duplication fixed) 14.28, PRO 13.35, and PRO's 13.35 for the
// ranking surrogates; the others must beat the start.
func TestEuroparl100(t *testing.T) {
	lists, w, _ := europarl100.Load(t)
	tests := []struct {
		name   string
		cfg    Config
		epochs int
		floor  float64
	}{
		{"mert", Config{Seed: 1}, 1, 14.39},
		{"pro", Config{Seed: 1}, 1, 13.35},
		{"mr", Config{Seed: 1}, 1, 13.68},
		{"svm", Config{Seed: 1}, 1, 13.68},
		{"adagrad", Config{Seed: 1}, 5, 13.35},
		{"adagrad", Config{Seed: 1, Noise: 0.1}, 5, 13.35},
		{"adagrad", Config{Seed: 1, Loss: "hinge"}, 5, 13.35},
		{"sgd", Config{Seed: 1}, 5, 13.68},
		{"mira", Config{Seed: 1}, 5, 13.68},
		{"oro", Config{Seed: 1}, 3, 13.35},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, bleu := train(t, tc.name, lists, w, tc.cfg, tc.epochs)
			t.Logf("%s %+v: BLEU %.2f, %d non-zero weights", tc.name, tc.cfg, bleu, l.Weights().NonZero())
			if bleu < tc.floor {
				t.Fatalf("BLEU %.2f, want at least %.2f", bleu, tc.floor)
			}
		})
	}
}

// TestKBMIRASeeds checks kb-MIRA against Moses' figure the way Moses' own
// runs vary: Moses' kbmira (bug fixed) gives 14.25–14.31 over seeds, 14.28
// typically; the median of five seeds must reach 14.28.
func TestKBMIRASeeds(t *testing.T) {
	lists, w, _ := europarl100.Load(t)
	var got []float64
	for seed := uint64(1); seed <= 5; seed++ {
		_, bleu := train(t, "kbmira", lists, w, Config{Seed: seed}, 1)
		got = append(got, bleu)
	}
	sort.Float64s(got)
	t.Logf("kbmira BLEU over seeds 1-5: %.2f", got)
	if got[2] < 14.28 {
		t.Fatalf("median BLEU %.2f over seeds 1-5, want at least 14.28", got[2])
	}
}

// quick returns a Config for a short run of the named learner: 2 MERT
// restarts, the given kb-MIRA passes or SVM alternations (a setting is
// refused by a learner that does not use it).
func quick(name string, seed uint64, passes int) Config {
	c := Config{Seed: seed}
	switch name {
	case "mert":
		c.Restarts = 2
	case "kbmira", "svm":
		c.Passes = passes
	}
	return c
}

// TestResume checks, for every learner, that state saved after one Learn
// and restored into a fresh learner continues bit-identically, toward BLEU
// and toward TER (online MIRA's state holds the pseudo-corpus of either).
func TestResume(t *testing.T) {
	bleuLists, w, _ := europarl100.Load(t)
	terLists, _, _ := europarl100.SharedMetric(t, ter)
	for _, info := range All() {
		for _, m := range []metric.Metric{nil, ter} {
			lists := bleuLists[:30]
			name := info.Name
			if m != nil {
				lists, name = terLists[:30], info.Name+"/"+m.Name()
			}
			t.Run(name, func(t *testing.T) {
				cfg := quick(info.Name, 7, 5)
				cfg.SetMetric(m)
				a, _ := train(t, info.Name, lists, w, cfg, 2)

				b, _ := train(t, info.Name, lists, w, cfg, 1)
				state, err := b.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				c, err := New(info.Name, feature.Weights{1, 2, 3}, cfg) // weights replaced by the state
				if err != nil {
					t.Fatal(err)
				}
				if err := c.UnmarshalBinary(state); err != nil {
					t.Fatal(err)
				}
				if err := c.Learn(context.Background(), lists); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(a.Weights(), c.Weights()) {
					t.Fatalf("resumed weights differ:\n%v\n%v", a.Weights(), c.Weights())
				}
			})
		}
	}
}

func TestNewErrors(t *testing.T) {
	l1, zero, neg := 0.5, 0.0, -1.0
	tests := []struct {
		name string
		algo string
		cfg  Config
	}{
		{"unknown", "frobnicate", Config{}},
		{"loss of a fixed-loss learner", "mert", Config{Loss: "hinge"}},
		{"wrong loss", "adagrad", Config{Loss: "softmax"}},
		{"noise on hinge", "adagrad", Config{Loss: "hinge", Noise: 0.1}},
		{"noise on mira", "mira", Config{Noise: 0.1}},
		{"l1 on kbmira", "kbmira", Config{L1: &l1}},
		{"no L2 for svm", "svm", Config{L2: &zero}},
		{"negative L2 for svm", "svm", Config{L2: &neg}},
		{"passes on mr", "mr", Config{Passes: 3}},
	}
	for _, tc := range tests {
		if _, err := New(tc.algo, nil, tc.cfg); err == nil {
			t.Errorf("%s: New accepted it", tc.name)
		}
	}
	for _, name := range Names() {
		if _, err := New(name, nil, Config{}); err != nil {
			t.Errorf("New(%s) with defaults: %v", name, err)
		}
	}
}

// TestNoFeatures runs every learner on lists whose hypotheses have no
// non-zero feature (PRO used to panic in gonum's optimize there); each must
// return an error wrapping learner.ErrNoFeatures, not panic or return
// weights.
func TestNoFeatures(t *testing.T) {
	st := metric.NewBLEUStats(4, []float64{3, 1}, []float64{4, 3, 2, 1}, 4)
	worse := metric.NewBLEUStats(4, []float64{1}, []float64{4, 3, 2, 1}, 4)
	cases := []struct {
		name  string
		lists []pool.List
	}{
		{"all-zero features", []pool.List{
			{Sent: 0, Hyps: []pool.Hyp{pool.NewHyp(feature.Vector{}, st), pool.NewHyp(feature.Vector{}, worse)}},
			{Sent: 1, Hyps: []pool.Hyp{pool.NewHyp(feature.Vector{}, worse), pool.NewHyp(feature.Vector{}, st), pool.NewHyp(feature.Vector{}, st)}},
		}},
		{"no hypotheses", []pool.List{{Sent: 0}}},
		{"no lists", nil},
	}
	for _, info := range All() {
		for _, tc := range cases {
			t.Run(info.Name+"/"+tc.name, func(t *testing.T) {
				l, err := New(info.Name, feature.Weights{0.5, 0.5}, quick(info.Name, 1, 2))
				if err != nil {
					t.Fatal(err)
				}
				err = l.Learn(context.Background(), tc.lists)
				// The batch learners call a pool without hypotheses empty.
				if !errors.Is(err, learner.ErrNoFeatures) && (tc.name == "all-zero features" || !errors.Is(err, batch.ErrEmpty)) {
					t.Fatalf("Learn: %v, want an error wrapping learner.ErrNoFeatures", err)
				}
			})
		}
	}
}

// chrF and TER as tune-nbest --metric parses them, held so that
// europarl100.SharedMetric reads each pool once.
var (
	chrF = metric.NewChrF(false)
	ter  = metric.TER{}
)

// TestEuroparl100Metrics runs every learner toward chrF2 and toward TER
// on europarl100 from init.weights (chrF2 37.54, TER 64.56), the online
// ones for 5 epochs keeping the best, as tune-nbest does (but not the
// start), and logs where each ends. Every learner must raise chrF2;
// every one but PRO, MR and oro must lower TER. PRO's pairwise logistic
// fit and Watanabe's oracle-versus-rest hinge make TER worse or leave it
// on these lists whatever their settings (RESULTS.md), as PRO makes BLEU
// worse here (13.62, Moses' pro 13.35): a limit of the surrogates, not of
// sentence TER, which ranks a list's hypotheses exactly by their edits.
// MR's default λ = 50 outweighs 100 sentences' expected gains, so that it
// ends alike under every metric (64.70; 64.29 with --l2 0.1).
func TestEuroparl100Metrics(t *testing.T) {
	for _, tc := range []struct {
		m     metric.Metric
		start float64 // the gain (metric.Gain) of init.weights
		skip  []string
	}{
		{chrF, 37.54, nil},
		{ter, -64.56, []string{"pro", "mr", "oro"}},
	} {
		lists, w, _ := europarl100.SharedMetric(t, tc.m)
		for _, info := range All() {
			t.Run(tc.m.Name()+"/"+info.Name, func(t *testing.T) {
				c := Config{Seed: 1}
				c.SetMetric(tc.m)
				l, err := New(info.Name, w.Clone(), c)
				if err != nil {
					t.Fatal(err)
				}
				epochs := 1
				if info.Online {
					epochs = 5
				}
				best := math.Inf(-1)
				for range epochs {
					if err := l.Learn(context.Background(), lists); err != nil {
						t.Fatal(err)
					}
					best = max(best, metric.Gain(tc.m, pool.OneBest(lists, l.Weights())))
				}
				t.Logf("%s toward %s: %.2f (from %.2f)", info.Name, tc.m.Name(), math.Abs(best), math.Abs(tc.start))
				if !slices.Contains(tc.skip, info.Name) && !(best > tc.start+0.005) {
					t.Errorf("%s toward %s: gain %.2f, want above %.2f", info.Name, tc.m.Name(), best, tc.start)
				}
			})
		}
	}
}
