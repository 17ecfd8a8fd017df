package fastnum

import (
	"math"
	"strconv"
	"unsafe"
)

var pow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// scan checks the syntax of b and returns its significant digits as an
// integer mant, the decimal exponent exp such that |b| = mant·10^exp,
// and the sign. exact is false when digits beyond the 19th were dropped
// or the exponent was too long to keep, so that mant and exp are only
// approximate; ok is false when b is not a decimal number.
func scan(b []byte) (mant uint64, exp int, neg, exact, ok bool) {
	i := 0
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	ndig := 0
	exact = true
	sawDigit, sawDot := false, false
	for ; i < len(b); i++ {
		c := b[i]
		if c >= '0' && c <= '9' {
			sawDigit = true
			switch {
			case mant == 0 && c == '0':
				// A leading zero is not significant.
			case ndig < 19:
				mant = mant*10 + uint64(c-'0')
				ndig++
			default:
				exact = false
				if !sawDot {
					exp++
				}
				continue
			}
			if sawDot {
				exp--
			}
			continue
		}
		if c == '.' && !sawDot {
			sawDot = true
			continue
		}
		break
	}
	if !sawDigit {
		return 0, 0, false, false, false
	}
	if i == len(b) {
		return mant, exp, neg, exact, true
	}
	if b[i] != 'e' && b[i] != 'E' {
		return 0, 0, false, false, false
	}
	i++
	eneg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		eneg = b[i] == '-'
		i++
	}
	if i == len(b) {
		return 0, 0, false, false, false
	}
	e := 0
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, 0, false, false, false
		}
		if e < 1_000_000 {
			e = e*10 + int(c-'0')
		} else {
			exact = false
		}
	}
	if eneg {
		e = -e
	}
	return mant, exp + e, neg, exact, true
}

// fast returns mant·10^exp correctly rounded to float64 when one exact
// multiplication or division gives it.
func fast(mant uint64, exp int) (float64, bool) {
	if mant >= 1<<53 || exp < -22 || exp > 22 {
		return 0, false
	}
	f := float64(mant)
	if exp < 0 {
		return f / pow10[-exp], true
	}
	return f * pow10[exp], true
}

// exactValue returns ±mant·10^exp correctly rounded to float64 (-0 for a
// negative zero) when fast gives it.
func exactValue(mant uint64, exp int, neg bool) (float64, bool) {
	if mant == 0 {
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	f, ok := fast(mant, exp)
	if neg {
		f = -f
	}
	return f, ok
}

// slow is strconv.ParseFloat(string(b), bitSize) when that is finite.
func slow(b []byte, bitSize int) (float64, bool) {
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), bitSize)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// ParseFloat64 parses b as a finite decimal number (see the package
// documentation) and returns strconv.ParseFloat(string(b), 64); ok is
// false when b is not such a number or overflows a float64.
func ParseFloat64(b []byte) (float64, bool) {
	mant, exp, neg, exact, ok := scan(b)
	if !ok {
		return 0, false
	}
	if exact {
		if f, ok := exactValue(mant, exp, neg); ok {
			return f, true
		}
	}
	return slow(b, 64)
}

// ParseFloat32 parses b as a finite decimal number (see the package
// documentation) and returns strconv.ParseFloat(string(b), 32) as a
// float32; ok is false when b is not such a number or overflows a
// float32.
func ParseFloat32(b []byte) (float32, bool) {
	mant, exp, neg, exact, ok := scan(b)
	if !ok {
		return 0, false
	}
	if exact {
		// Rounding the correctly rounded float64 to float32 is correct
		// unless the float64 lies exactly halfway between two float32s
		// (then the true value may not) or float32 is subnormal or
		// overflows there. Zero is exact (and keeps its sign).
		if f, ok := exactValue(mant, exp, neg); ok && (mant == 0 ||
			math.Float64bits(f)&(1<<29-1) != 1<<28 &&
				math.Abs(f) >= 0x1p-126 && math.Abs(f) <= math.MaxFloat32) {
			return float32(f), true
		}
	}
	f, ok := slow(b, 32)
	return float32(f), ok
}
