package algo

import (
	"math"
	"slices"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/batch"
	"github.com/mtune/mtune/learner/mert"
	"github.com/mtune/mtune/testsupport/europarl100"
)

// TestBatchSearchOptions checks that MERT's random directions and restart
// range reach mert.Options, and that kb-MIRA's C and decay reach
// batch.MIRAOptions: the learner New makes learns the weights one made
// directly with those options learns, and not the default's.
func TestBatchSearchOptions(t *testing.T) {
	r := [2]float64{-1, 2}
	l, err := New("mert", nil, Config{Restarts: 3, RandomDirections: 4, RestartRange: &r, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	o := l.(*mert.MERT).Options()
	if o.Restarts != 3 || o.RandomDirections != 4 || o.Min != -1 || o.Max != 2 || o.Seed != 9 {
		t.Errorf("mert options %+v", o)
	}
	if o := mustMERT(t, Config{}).Options(); o.Min != 0 || o.Max != 0 || o.RandomDirections != 0 {
		t.Errorf("default mert options %+v, want the learner's defaults (zero)", o)
	}

	lists, w, _ := europarl100.Load(t)
	lists = lists[:40]
	for _, tc := range []struct {
		name string
		cfg  Config
		opts batch.MIRAOptions
	}{
		{"C", Config{MIRAC: 0.001, Passes: 3, Seed: 2}, batch.MIRAOptions{C: 0.001, Passes: 3, Seed: 2}},
		{"decay", Config{MIRADecay: 0.5, Passes: 3, Seed: 2}, batch.MIRAOptions{Decay: 0.5, Passes: 3, Seed: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := train(t, "kbmira", lists, w, tc.cfg, 1)
			def, _ := train(t, "kbmira", lists, w, Config{Passes: 3, Seed: 2}, 1)
			direct, err := batch.NewMIRA(w.Clone(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := direct.Learn(t.Context(), lists); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Weights(), direct.Weights()) {
				t.Errorf("weights %v, want %v (batch.NewMIRA with %+v)", got.Weights(), direct.Weights(), tc.opts)
			}
			if slices.Equal(got.Weights(), def.Weights()) {
				t.Errorf("weights are the default's: the setting did not reach the learner")
			}
		})
	}
}

func mustMERT(t *testing.T, c Config) *mert.MERT {
	t.Helper()
	l, err := New("mert", feature.Weights{1}, c)
	if err != nil {
		t.Fatal(err)
	}
	return l.(*mert.MERT)
}

// TestBatchSearchValidate: each setting out of range, or given to a
// learner that does not use it, is refused; in range, it is accepted.
func TestBatchSearchValidate(t *testing.T) {
	rng := func(a, b float64) *[2]float64 { return &[2]float64{a, b} }
	for _, tc := range []struct {
		name, algo string
		cfg        Config
		ok         bool
	}{
		{"random directions", "mert", Config{RandomDirections: 5}, true},
		{"negative random directions", "mert", Config{RandomDirections: -1}, false},
		{"random directions for pro", "pro", Config{RandomDirections: 5}, false},
		{"range", "mert", Config{RestartRange: rng(-1, 1)}, true},
		{"negative range", "mert", Config{RestartRange: rng(-3, -1)}, true},
		{"empty range", "mert", Config{RestartRange: rng(1, 1)}, false},
		{"reversed range", "mert", Config{RestartRange: rng(1, 0)}, false},
		{"zero range", "mert", Config{RestartRange: rng(0, 0)}, false},
		{"infinite range", "mert", Config{RestartRange: rng(0, math.Inf(1))}, false},
		{"NaN range", "mert", Config{RestartRange: rng(math.NaN(), 1)}, false},
		{"range for kbmira", "kbmira", Config{RestartRange: rng(-1, 1)}, false},
		{"C", "kbmira", Config{MIRAC: 0.1}, true},
		{"negative C", "kbmira", Config{MIRAC: -0.1}, false},
		{"infinite C", "kbmira", Config{MIRAC: math.Inf(1)}, false},
		{"NaN C", "kbmira", Config{MIRAC: math.NaN()}, false},
		{"C for mert", "mert", Config{MIRAC: 0.1}, false},
		{"C for online mira", "mira", Config{MIRAC: 0.1}, false},
		{"decay", "kbmira", Config{MIRADecay: 1}, true},
		{"decay above 1", "kbmira", Config{MIRADecay: 1.5}, false},
		{"negative decay", "kbmira", Config{MIRADecay: -0.5}, false},
		{"NaN decay", "kbmira", Config{MIRADecay: math.NaN()}, false},
		{"decay for pro", "pro", Config{MIRADecay: 0.9}, false},
	} {
		err := tc.cfg.Validate(tc.algo)
		if (err == nil) != tc.ok {
			t.Errorf("%s: Validate(%s) = %v, want ok %v", tc.name, tc.algo, err, tc.ok)
		}
		if _, nerr := New(tc.algo, nil, tc.cfg); (nerr == nil) != tc.ok {
			t.Errorf("%s: New(%s): %v, want ok %v", tc.name, tc.algo, nerr, tc.ok)
		}
	}
}
