package loss

import "github.com/mtune/mtune/feature"

// gaussian returns the additive-Gaussian-noising regulariser of Wang et al.
// (2013) over the labelled vectors xs and the unlabelled ones us, whose
// vectors count with cl and cu (σ² times each one's share of eq. 11):
//
//	R(w) = ½ · σ² · ‖w‖² · Σ_x p(1−p),   p = σ(w·x).
//
// It is their eq. 8 with the variance of the additive Gaussian scheme of
// §2 ("Noising schemes"): x̃ = x + ε with ε ~ N(0, σ²I) keeps the mean of
// the score and gives Var[w·x̃] = w^T Cov[x̃] w = σ²·Σ_j w_j² (their eq. 9),
// the same for every input. The noise is on a pair's difference vector:
// noising each hypothesis independently with σ_h is σ² = 2σ_h² here. R is
// an L2 penalty whose strength, ½σ²·Σ_x p(1−p), is largest when the model
// is unsure of the pairs.
//
// It adds the exact gradient to g when g is not nil: for each vector, with
// c its weight and N = ‖w‖²,
//
//	∂r/∂w_j = c·p(1−p)·( ½(1−2p)·N·x_j + w_j ),
//
// the first term coming from p's dependence on w, the second from N. The
// second term touches every non-zero coordinate of w (once, summed over
// the vectors), as L2 does.
func gaussian(w feature.Weights, xs, us []feature.Vector, cl, cu float64, g Sink) float64 {
	var norm float64
	for _, x := range w {
		norm += x * x
	}
	// sum is Σ c_x·p(1−p) over both sets: R = ½·N·sum, and sum·w is the
	// gradient's dense term.
	var sum float64
	for _, set := range []struct {
		xs []feature.Vector
		c  float64
	}{{xs, cl}, {us, cu}} {
		if set.c == 0 {
			continue
		}
		for _, x := range set.xs {
			p := Sigmoid(x.Dot(w))
			v := p * (1 - p)
			sum += set.c * v
			if g != nil && v != 0 {
				addScaled(g, 0.5*set.c*v*(1-2*p)*norm, x)
			}
		}
	}
	if g != nil && sum != 0 {
		for j, x := range w {
			if x != 0 {
				g.Add(feature.ID(j), sum*x)
			}
		}
	}
	return 0.5 * norm * sum
}
