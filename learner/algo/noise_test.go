package algo

import (
	"math"
	"strings"
	"testing"

	"github.com/mtune/mtune/learner/loss"
	"github.com/mtune/mtune/testsupport/europarl100"
)

// TestNoiseConfig checks the feature-noising settings: each noise's range,
// the noise type's names, and the settings that need --noise.
func TestNoiseConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		algo string
		cfg  Config
		want string // "" for valid
	}{
		{"dropout", "adagrad", Config{Noise: 0.1}, ""},
		{"dropout by name", "sgd", Config{Noise: 0.1, NoiseType: "dropout"}, ""},
		{"gaussian", "adagrad", Config{Noise: 2.5, NoiseType: "gaussian"}, ""},
		{"gaussian unlabelled", "adagrad", Config{Noise: 0.3, NoiseType: "gaussian", NoiseUnlabeled: 5}, ""},
		{"dropout unlabelled", "sgd", Config{Noise: 0.1, NoiseUnlabeled: 1}, ""},
		{"dropout of 1", "adagrad", Config{Noise: 1}, "[0, 1)"},
		{"negative dropout", "adagrad", Config{Noise: -0.1}, "[0, 1)"},
		{"NaN dropout", "adagrad", Config{Noise: math.NaN()}, "[0, 1)"},
		{"negative σ", "adagrad", Config{Noise: -1, NoiseType: "gaussian"}, "finite number ≥ 0"},
		{"infinite σ", "adagrad", Config{Noise: math.Inf(1), NoiseType: "gaussian"}, "finite number ≥ 0"},
		{"NaN σ", "adagrad", Config{Noise: math.NaN(), NoiseType: "gaussian"}, "finite number ≥ 0"},
		{"unknown type", "adagrad", Config{Noise: 0.1, NoiseType: "uniform"}, "choose dropout or gaussian"},
		{"type without level", "adagrad", Config{NoiseType: "gaussian"}, "needs --noise"},
		{"unlabelled without noise", "adagrad", Config{NoiseUnlabeled: 3}, "needs --noise"},
		{"negative unlabelled", "adagrad", Config{Noise: 0.1, NoiseUnlabeled: -2}, "must be positive"},
		{"gaussian on mira", "mira", Config{Noise: 0.5, NoiseType: "gaussian"}, "adagrad and sgd, not mira"},
		{"gaussian on the hinge", "adagrad", Config{Noise: 0.5, NoiseType: "gaussian", Loss: "hinge"}, "not the hinge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate(tc.algo)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if err == nil {
				if _, err := New(tc.algo, nil, tc.cfg); err != nil {
					t.Fatalf("valid, but New: %v", err)
				}
			}
		})
	}
	n := Config{Noise: 0.3, NoiseType: "gaussian"}.noising()
	if n.Type != loss.Gaussian || n.Level != 0.3 {
		t.Fatalf("noising() = %+v", n)
	}
}

// TestGaussianNoisingEuroparl100 runs adagrad with Gaussian noising of
// σ = 1 (the README's figure: about the score variance of its dropout row,
// δ = 0.1, at init.weights), with and without unlabelled pairs, on Moses'
// europarl100 lists: the final weights must reach PRO's 13.35.
func TestGaussianNoisingEuroparl100(t *testing.T) {
	lists, w, _ := europarl100.Load(t)
	for _, cfg := range []Config{
		{Seed: 1, Noise: 1, NoiseType: "gaussian"},
		{Seed: 2, Noise: 1, NoiseType: "gaussian", NoiseUnlabeled: 15},
	} {
		l, bleu := train(t, "adagrad", lists, w, cfg, 5)
		t.Logf("%+v: BLEU %.2f, %d non-zero weights", cfg, bleu, l.Weights().NonZero())
		if bleu < 13.35 {
			t.Errorf("%+v: BLEU %.2f, want at least 13.35", cfg, bleu)
		}
	}
}
