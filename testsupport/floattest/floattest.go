// Package floattest compares floating-point results in tests bit for bit,
// for code that promises the same bits (a restored state, a rerun with
// the same seed, a parse of what was printed).
package floattest

import "math"

// SameBits reports whether a and b have the same length and bit-identical
// elements: 0 and -0 differ, a NaN equals a NaN of the same bits.
func SameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
