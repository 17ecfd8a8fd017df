package loss

import (
	"fmt"
	"math"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/enum"
)

// NoiseType is the kind of feature noise a Noising approximates (Wang et
// al. 2013, §2, "Noising schemes").
type NoiseType int

const (
	// Dropout removes each feature with probability δ and scales the
	// survivors by 1/(1−δ) (dropout.go).
	Dropout NoiseType = iota
	// Gaussian adds independent N(0, σ²) noise to every feature
	// (gaussian.go).
	Gaussian
)

// NoiseTypes are the names ParseNoiseType accepts, the default first.
var NoiseTypes = []string{"dropout", "gaussian"}

// String returns the type's name: "dropout" or "gaussian".
func (t NoiseType) String() string { return enum.Name(t, NoiseTypes, "NoiseType") }

// ParseNoiseType returns the noise type named s; "" is Dropout.
func ParseNoiseType(s string) (NoiseType, error) {
	switch s {
	case "", "dropout":
		return Dropout, nil
	case "gaussian":
		return Gaussian, nil
	}
	return 0, fmt.Errorf("loss: unknown noise type %q (choose dropout or gaussian)", s)
}

// Noising is the feature-noising regulariser of Wang et al. (2013) for the
// pairwise logistic loss: the second-order (quadratic) approximation of the
// loss increase caused by noise on the features (their eqs. 5–7). For a
// noise that keeps the mean of the score s = w·x, the increase of
// −log σ(w·x̃) is about ½·p(1−p)·Var[w·x̃] with p = σ(w·x) (their eq. 8 for
// the two-outcome case; p(1−p) is the second derivative of the loss), so
//
//	R(w) = ½ · Σ_x p(1−p) · Var[w·x̃].
//
// Var[w·x̃] depends on the noise (their eqs. 9–10 and the noising schemes
// of §2): δ/(1−δ)·Σ_j x_j² w_j² for dropout (dropout.go), σ²·‖w‖² for
// additive Gaussian noise (gaussian.go). The noise is on the difference
// vector x of a pair.
//
// R does not depend on which hypothesis of a pair is better (p(1−p) is the
// same for x and −x), so it can be estimated on unlabelled inputs too: with
// n labelled and m unlabelled vectors, Wang et al.'s eq. 11 (§2.1) uses
// n/(n+αm)·(Σ_labelled r + α·Σ_unlabelled r).
//
// The zero Noising is off.
type Noising struct {
	// Type is the noise: Dropout (the zero value) or Gaussian.
	Type NoiseType
	// Level is the noise level: the dropout probability δ in [0, 1) for
	// Dropout, the standard deviation σ ≥ 0 of the additive noise for
	// Gaussian. Zero turns noising off.
	Level float64
	// Unlabeled holds extra difference vectors to estimate the regulariser
	// on, such as pairs of hypotheses whose order is unknown; nil means
	// none.
	Unlabeled []feature.Vector
	// UnlabeledWeight is α of eq. 11; zero means 1.
	UnlabeledWeight float64
}

// On reports whether n adds anything: a non-zero level.
func (n Noising) On() bool { return n.Level != 0 }

// Validate checks the type and the level (dropout δ in [0, 1), Gaussian σ
// finite and ≥ 0) and the unlabelled weight (finite and ≥ 0).
func (n Noising) Validate() error {
	switch {
	case n.Type != Dropout && n.Type != Gaussian:
		return fmt.Errorf("loss: unknown noise type %d", int(n.Type))
	case n.Type == Dropout && !(n.Level >= 0 && n.Level < 1):
		return fmt.Errorf("loss: dropout rate %v outside [0, 1)", n.Level)
	case n.Type == Gaussian && !(n.Level >= 0 && !math.IsInf(n.Level, 1)):
		return fmt.Errorf("loss: Gaussian noise level σ = %v must be a finite number ≥ 0", n.Level)
	case !(n.UnlabeledWeight >= 0 && !math.IsInf(n.UnlabeledWeight, 1)):
		return fmt.Errorf("loss: unlabelled weight α = %v must be a finite number ≥ 0", n.UnlabeledWeight)
	}
	return nil
}

// Penalty returns R(w) over the labelled difference vectors xs (and the
// Unlabeled ones, weighted as eq. 11 says), and adds its exact gradient to
// g when g is not nil; dropout.go and gaussian.go give each noise's
// gradient. It panics if n is not valid (Validate).
func (n Noising) Penalty(w feature.Weights, xs []feature.Vector, g Sink) float64 {
	if err := n.Validate(); err != nil {
		panic(err.Error())
	}
	if n.Level == 0 {
		return 0
	}
	// cl and cu are the shares of eq. 11 of a labelled and an unlabelled
	// vector.
	cl, cu := 1.0, 0.0
	if len(n.Unlabeled) > 0 {
		a := n.UnlabeledWeight
		if a == 0 {
			a = 1
		}
		nl, m := float64(len(xs)), float64(len(n.Unlabeled))
		cl = nl / (nl + a*m)
		cu = cl * a
	}
	if n.Type == Gaussian {
		s2 := n.Level * n.Level
		return gaussian(w, xs, n.Unlabeled, s2*cl, s2*cu, g)
	}
	c := n.Level / (1 - n.Level)
	return dropout(w, xs, c*cl, g) + dropout(w, n.Unlabeled, c*cu, g)
}
