package loss

import "github.com/mtune/mtune/feature"

// dropout returns the dropout-noising regulariser of Wang et al. (2013)
// over xs with c = δ/(1−δ) (times a vector's share of eq. 11),
//
//	R(w) = ½ · c · Σ_x p(1−p) Σ_j x_j² w_j²,   p = σ(w·x),
//
// their eq. 8 with the dropout variance of eq. 10: dropout removes each
// feature of x with probability δ and scales the survivors by 1/(1−δ), so
// the noised score w·x̃ keeps its mean w·x and has variance
// δ/(1−δ)·Σ_j x_j² w_j². It adds the exact gradient to g when g is not nil:
// for each vector, with Q = Σ_j x_j² w_j²,
//
//	∂r/∂w_j = c·p(1−p)·( ½(1−2p)·Q·x_j + x_j²·w_j ),
//
// the first term coming from p's dependence on w. It touches only the
// coordinates of the vectors.
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
