package loss

import (
	"fmt"

	"github.com/mtune/mtune/feature"
)

// Noising is the feature-noising regulariser of Wang et al. (2013) for the
// pairwise logistic loss: the second-order (quadratic) approximation of the
// loss increase caused by dropout noise on the features. Dropout removes each
// feature of x with probability δ and scales the survivors by 1/(1−δ), so
// the noised score w·x̃ keeps its mean w·x and has variance
// δ/(1−δ)·Σ_j x_j² w_j²; the increase of −log σ(w·x̃) is then about
// ½·p(1−p)·Var[w·x̃] with p = σ(w·x) (their eqs. 8 and 10). Summed over the
// difference vectors,
//
//	R(w) = ½ · δ/(1−δ) · Σ_x p(1−p) Σ_j x_j² w_j².
//
// R does not depend on which hypothesis of a pair is better (p(1−p) is the
// same for x and −x), so it can be estimated on unlabelled inputs too: with
// n labelled and m unlabelled vectors, Wang et al.'s eq. 11 uses
// n/(n+αm)·(Σ_labelled r + α·Σ_unlabelled r).
//
// The zero Noising is off.
type Noising struct {
	// Rate is the dropout probability δ in [0, 1); zero turns noising off.
	Rate float64
	// Unlabeled holds extra difference vectors to estimate the regulariser
	// on, such as pairs of hypotheses whose order is unknown; nil means
	// none.
	Unlabeled []feature.Vector
	// UnlabeledWeight is α of eq. 11; zero means 1.
	UnlabeledWeight float64
}

// Penalty returns R(w) over the labelled difference vectors xs (and the
// Unlabeled ones), and adds its exact gradient to g when g is not nil:
// for each vector, with c the vector's share of δ/(1−δ), p = σ(w·x) and
// Q = Σ_j x_j² w_j²,
//
//	∂r/∂w_j = c·p(1−p)·( ½(1−2p)·Q·x_j + x_j²·w_j ),
//
// the first term coming from p's dependence on w. It panics if Rate is
// outside [0, 1).
func (n Noising) Penalty(w feature.Weights, xs []feature.Vector, g Sink) float64 {
	if n.Rate < 0 || n.Rate >= 1 {
		panic(fmt.Sprintf("loss: dropout rate %v outside [0, 1)", n.Rate))
	}
	if n.Rate == 0 {
		return 0
	}
	c := n.Rate / (1 - n.Rate)
	if len(n.Unlabeled) == 0 {
		return dropout(w, xs, c, g)
	}
	a := n.UnlabeledWeight
	if a == 0 {
		a = 1
	}
	nl, m := float64(len(xs)), float64(len(n.Unlabeled))
	c *= nl / (nl + a*m)
	return dropout(w, xs, c, g) + dropout(w, n.Unlabeled, c*a, g)
}

// dropout returns ½·c·Σ_x p(1−p)·Σ_j x_j² w_j² and adds its gradient to g.
func dropout(w feature.Weights, xs []feature.Vector, c float64, g Sink) float64 {
	var sum float64
	nw := feature.ID(len(w))
	for _, x := range xs {
		var s, q float64
		for k, id := range x.IDs {
			if id < nw {
				wx := w[id] * x.Vals[k]
				s += wx
				q += wx * wx
			}
		}
		p := Sigmoid(s)
		v := p * (1 - p)
		sum += v * q
		if g == nil || v == 0 {
			continue
		}
		a := c * v * 0.5 * (1 - 2*p) * q
		for k, id := range x.IDs {
			xj := x.Vals[k]
			var wj float64
			if id < nw {
				wj = w[id]
			}
			g.Add(id, a*xj+c*v*xj*xj*wj)
		}
	}
	return 0.5 * c * sum
}
