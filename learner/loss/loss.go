package loss

import (
	"fmt"
	"math"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/pool"
)

// Sink receives a gradient entry by entry; entries with the same id add up.
// *feature.Builder (sparse) and Dense satisfy it.
type Sink interface {
	Add(id feature.ID, x float64)
}

// Dense is a dense gradient indexed by feature id. Add panics if id is out
// of range: size it to the feature index.
type Dense []float64

// Add adds x to d[id].
func (d Dense) Add(id feature.ID, x float64) { d[id] += x }

var _ Sink = (*feature.Builder)(nil)
var _ Sink = Dense(nil)

// addScaled adds a·v to g.
func addScaled(g Sink, a float64, v feature.Vector) {
	if a == 0 {
		return
	}
	if d, ok := g.(Dense); ok {
		// Dense.Add inlined: the same sums without a call a value
		// (PRO's regression spent a tenth of its time in the calls).
		for k, id := range v.IDs {
			d[id] += float64(a * v.Vals[k])
		}
		return
	}
	for k, id := range v.IDs {
		g.Add(id, a*v.Vals[k])
	}
}

// Sigmoid returns σ(s) = 1/(1+e^−s), without overflow for large |s|.
func Sigmoid(s float64) float64 {
	if s >= 0 {
		return 1 / (1 + math.Exp(-s))
	}
	e := math.Exp(s)
	return e / (1 + e)
}

// softplus returns log(1 + e^s) without overflow.
func softplus(s float64) float64 {
	if s > 0 {
		return s + math.Log1p(math.Exp(-s))
	}
	return math.Log1p(math.Exp(s))
}

// Logistic returns the pairwise logistic loss of Green et al. (2013) eq. 12,
// Σ_x −log σ(w·x) over the difference vectors xs, and adds its gradient
// −Σ_x σ(−w·x)·x to g when g is not nil.
//
// Moses' pro and Phrasal train on both orientations of each pair (x with
// label 1, −x with label 0); both terms equal −log σ(w·x), so theirs is
// twice this loss.
func Logistic(w feature.Weights, xs []feature.Vector, g Sink) float64 {
	var sum float64
	for _, x := range xs {
		sp, sg := softplusSigmoid(-x.Dot(w))
		sum += sp
		if g != nil {
			addScaled(g, -sg, x)
		}
	}
	return sum
}

// LogisticRows is Logistic over difference vectors stored as dense rows:
// row i is rows[i·d : (i+1)·d] with d = len(w), and the gradient goes to g
// (len(w) long; nil: none). It gives the bits Logistic gives over the
// sparse vectors with the same values: each dot product and each gradient
// sum adds the same products in the same (id) order, and a zero entry adds
// a zero, which changes no sum (x + ±0 = x, and +0 + −0 = +0). PRO's pairs
// over a dense pool take half the memory this way and no id per value.
func LogisticRows(w feature.Weights, rows []float64, g []float64) float64 {
	d := len(w)
	var sum float64
	for lo := 0; lo+d <= len(rows); lo += d {
		x := rows[lo : lo+d]
		var dot float64
		for j, v := range x {
			dot += v * w[j]
		}
		sp, sg := softplusSigmoid(-dot)
		sum += sp
		if g != nil && sg != 0 {
			a := -sg
			g := g[:d]
			for j, v := range x {
				g[j] += float64(a * v)
			}
		}
	}
	return sum
}

// softplusSigmoid returns softplus(t) and Sigmoid(t), the same bits as
// each, from one exponential: both take e^{−|t|} (PRO's logistic loss
// spent a fifth of its time in math.Exp, half of it computing e^{−|t|} a
// second time).
func softplusSigmoid(t float64) (sp, sg float64) {
	e := math.Exp(-math.Abs(t))
	sp = math.Log1p(e)
	if t > 0 {
		sp += t
	}
	if t >= 0 {
		return sp, 1 / (1 + e)
	}
	return sp, e / (1 + e)
}

// Hinge returns the pairwise hinge loss Σ_x max(0, 1 − w·x) over the
// difference vectors xs, and adds its subgradient −Σ_{w·x<1} x to g when g
// is not nil (at the kink w·x = 1 it takes 0).
func Hinge(w feature.Weights, xs []feature.Vector, g Sink) float64 {
	var sum float64
	for _, x := range xs {
		if m := 1 - x.Dot(w); m > 0 {
			sum += m
			if g != nil {
				addScaled(g, -1, x)
			}
		}
	}
	return sum
}

// scores returns w·φ of every hypothesis of l and the largest of them.
func scores(w feature.Weights, l pool.List, scale float64) ([]float64, float64) {
	s := make([]float64, len(l.Hyps))
	m := math.Inf(-1)
	for k, h := range l.Hyps {
		s[k] = scale * h.Features.Dot(w)
		m = max(m, s[k])
	}
	return s, m
}

// Softmax returns Watanabe's (2012, eq. 6) softmax loss of one n-best list
// with several oracles,
//
//	−log( Σ_{o∈O} e^{w·φ_o} / Σ_i e^{w·φ_i} ),
//
// where O is the set of hypotheses indexed by oracles (duplicates count
// once), and adds its gradient E_p[φ] − E_q[φ] to g when g is not nil: p is
// the softmax over the whole list, q the softmax over the oracles. It panics
// if oracles is empty or holds an index out of range.
func Softmax(w feature.Weights, l pool.List, oracles []int, g Sink) float64 {
	if len(oracles) == 0 {
		panic("loss: Softmax without oracles")
	}
	s, m := scores(w, l, 1)
	in := make([]bool, len(s))
	mo := math.Inf(-1)
	for _, o := range oracles {
		in[o] = true
		mo = max(mo, s[o])
	}
	var zn, zo float64
	for k, x := range s {
		zn += math.Exp(x - m)
		if in[k] {
			zo += math.Exp(x - mo)
		}
	}
	lseN, lseO := m+math.Log(zn), mo+math.Log(zo)
	if g != nil {
		for k, h := range l.Hyps {
			c := math.Exp(s[k] - lseN)
			if in[k] {
				c -= math.Exp(s[k] - lseO)
			}
			addScaled(g, c, h.Features)
		}
	}
	return lseN - lseO
}

func checkGains(l pool.List, gains []float64) {
	if len(gains) != len(l.Hyps) {
		panic(fmt.Sprintf("loss: %d gains for %d hypotheses", len(gains), len(l.Hyps)))
	}
}

// HopeFear returns MIRA's hope and fear hypotheses of l (Chiang et al.
// 2008; Cherry & Foster 2012): hope maximises w·φ + gain, fear maximises
// w·φ − gain, ties going to the earlier hypothesis. Both are -1 for an
// empty list. gains holds the gain of each hypothesis (sample.Gains); it
// panics if its length differs from the list's.
func HopeFear(w feature.Weights, l pool.List, gains []float64) (hope, fear int) {
	checkGains(l, gains)
	hope, fear = -1, -1
	var hs, fs float64
	for k, h := range l.Hyps {
		s := h.Features.Dot(w)
		if hope < 0 || s+gains[k] > hs {
			hope, hs = k, s+gains[k]
		}
		if fear < 0 || s-gains[k] > fs {
			fear, fs = k, s-gains[k]
		}
	}
	return hope, fear
}

// StructuredHinge returns MIRA's structured hinge loss of one n-best list
// with its hope and fear hypotheses (HopeFear),
//
//	max(0, (gain_hope − gain_fear) − w·(φ_hope − φ_fear)),
//
// and adds its subgradient −(φ_hope − φ_fear) to g when the loss is positive
// and g is not nil. The loss is 0 for an empty list.
func StructuredHinge(w feature.Weights, l pool.List, gains []float64, g Sink) (loss float64, hope, fear int) {
	hope, fear = HopeFear(w, l, gains)
	if hope < 0 || hope == fear {
		return 0, hope, fear
	}
	h, f := l.Hyps[hope].Features, l.Hyps[fear].Features
	loss = (gains[hope] - gains[fear]) - (h.Dot(w) - f.Dot(w))
	if loss <= 0 {
		return 0, hope, fear
	}
	if g != nil {
		addScaled(g, -1, h)
		addScaled(g, 1, f)
	}
	return loss, hope, fear
}

// ExpectedBLEU returns the minimum-risk loss of one n-best list, minus the
// expected gain −Σ_i p_i·gain_i under the model distribution
// p_i ∝ exp(scale·w·φ_i), and adds its gradient
//
//	−scale·(E_p[gain·φ] − E_p[gain]·E_p[φ])
//
// to g when g is not nil. scale is the sharpness of p (1 is the plain
// softmax). The loss is 0 for an empty list. It panics if len(gains)
// differs from the number of hypotheses.
func ExpectedBLEU(w feature.Weights, l pool.List, gains []float64, scale float64, g Sink) float64 {
	checkGains(l, gains)
	if len(l.Hyps) == 0 {
		return 0
	}
	s, m := scores(w, l, scale)
	var z float64
	for k := range s {
		s[k] = math.Exp(s[k] - m)
		z += s[k]
	}
	var e float64
	for k := range s {
		s[k] /= z
		e += s[k] * gains[k]
	}
	if g != nil {
		for k, h := range l.Hyps {
			addScaled(g, -scale*s[k]*(gains[k]-e), h.Features)
		}
	}
	return -e
}

// L1 returns λ·Σ_j |w_j| and adds its subgradient λ·sign(w_j) (0 at 0) to
// g when g is not nil. It visits every coordinate of w; online learners
// apply L1 lazily as a proximal step instead (SoftThreshold).
func L1(w feature.Weights, lambda float64, g Sink) float64 {
	var sum float64
	for j, x := range w {
		if x == 0 {
			continue
		}
		sum += math.Abs(x)
		if g != nil {
			g.Add(feature.ID(j), lambda*math.Copysign(1, x))
		}
	}
	return lambda * sum
}

// L2 returns λ/2·Σ_j w_j² and adds its gradient λ·w to g when g is not nil.
// It visits every coordinate of w.
func L2(w feature.Weights, lambda float64, g Sink) float64 {
	var sum float64
	for j, x := range w {
		if x == 0 {
			continue
		}
		sum += x * x
		if g != nil {
			g.Add(feature.ID(j), lambda*x)
		}
	}
	return lambda / 2 * sum
}

// SoftThreshold returns sign(x)·max(0, |x| − t), the proximal step of t·|x|
// (FOBOS with L1, Duchi & Singer 2009; Green et al. 2013 eq. 15).
func SoftThreshold(x, t float64) float64 {
	if a := math.Abs(x) - t; a > 0 {
		return math.Copysign(a, x)
	}
	return 0
}
