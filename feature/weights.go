package feature

import "math"

// Weights is a dense weight vector indexed by feature id. It grows with the
// Index: reading an id past its end reads zero, and Set grows it.
type Weights []float64

// At returns the weight of id, zero past the end.
func (w Weights) At(id ID) float64 {
	if int(id) < len(w) {
		return w[id]
	}
	return 0
}

// Grow makes w at least n long, padding with zeros.
func (w *Weights) Grow(n int) {
	if n > len(*w) {
		*w = append(*w, make([]float64, n-len(*w))...)
	}
}

// Set sets the weight of id, growing w if needed.
func (w *Weights) Set(id ID, x float64) {
	w.Grow(int(id) + 1)
	(*w)[id] = x
}

// AddScaled adds alpha·v to w in place (w += alpha·v), growing w to cover v.
// It touches only v's non-zero coordinates.
func (w *Weights) AddScaled(alpha float64, v Vector) {
	if n := len(v.IDs); n > 0 {
		w.Grow(int(v.IDs[n-1]) + 1)
	}
	d := *w
	for k, id := range v.IDs {
		d[id] += alpha * v.Vals[k]
	}
}

// Clone returns a copy of w.
func (w Weights) Clone() Weights { return append(Weights(nil), w...) }

// NonZero returns the number of non-zero weights.
func (w Weights) NonZero() int {
	n := 0
	for _, x := range w {
		if x != 0 {
			n++
		}
	}
	return n
}

// NormalizeL1 divides w in place by its L1 norm Σ|w_j| (the scale Moses'
// mert writes), unless that is zero.
func (w Weights) NormalizeL1() {
	var s float64
	for _, x := range w {
		s += math.Abs(x)
	}
	if s == 0 {
		return
	}
	for j := range w {
		w[j] /= s
	}
}

// Sparse returns the non-zero weights as a sparse vector.
func (w Weights) Sparse() Vector { return FromDense(w) }

// Finite reports whether every weight is a finite number.
func (w Weights) Finite() bool {
	for _, x := range w {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
