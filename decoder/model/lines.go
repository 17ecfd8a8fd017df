package model

import (
	"bytes"
	"math"
	"strconv"
	"unsafe"
)

// isBlank reports whether c separates words: Moses splits phrases on
// spaces and tabs.
func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// trimBlank removes leading and trailing spaces, tabs and a '\r'.
func trimBlank(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (isBlank(b[i]) || b[i] == '\r') {
		i++
	}
	for j > i && (isBlank(b[j-1]) || b[j-1] == '\r') {
		j--
	}
	return b[i:j]
}

// nextWord returns the next word of b at or after p and the position after
// it; word is nil when there is none.
func nextWord(b []byte, p int) (word []byte, start, end int) {
	for p < len(b) && isBlank(b[p]) {
		p++
	}
	start = p
	for p < len(b) && !isBlank(b[p]) {
		p++
	}
	if start == p {
		return nil, p, p
	}
	return b[start:p], start, p
}

var sep = []byte("|||")

// field is one "|||"-separated part of a line: its bytes, untrimmed, and
// its offset in the line.
type field struct {
	b   []byte
	off int
}

// splitFields splits line on "|||" into dst (reset first), as Moses does:
// at each occurrence, left to right.
func splitFields(dst []field, line []byte) []field {
	dst = dst[:0]
	off := 0
	for {
		i := bytes.Index(line[off:], sep)
		if i < 0 {
			return append(dst, field{line[off:], off})
		}
		dst = append(dst, field{line[off : off+i], off})
		off += i + len(sep)
	}
}

// unsafeString views b as a string without copying, for map lookups and
// parsing only: the string must not outlive b's content.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// parseUint parses a non-negative decimal integer below 2^31 with no sign.
func parseUint(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n > math.MaxInt32 {
		return 0, false
	}
	return n, true
}

var pow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// parseFloat parses a finite decimal number: an optional sign, digits with
// an optional point, an optional exponent. "inf", "nan", hexadecimal and
// overflowing values are rejected.
//
// A mantissa of at most 19 digits below 2^53 with a decimal exponent
// within ±22 is converted by one exact multiplication or division
// (Clinger's fast path), correctly rounded like strconv.ParseFloat; other
// numbers go to strconv.ParseFloat.
func parseFloat(b []byte) (float64, bool) {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var mant uint64
	ndig, exp := 0, 0
	sawDigit, sawDot, slow := false, false, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if mant == 0 && c == '0' {
				if sawDot {
					exp--
				}
				continue
			}
			if ndig < 19 {
				mant = mant*10 + uint64(c-'0')
				ndig++
				if sawDot {
					exp--
				}
			} else {
				slow = true
				if !sawDot {
					exp++
				}
			}
		case c == '.' && !sawDot:
			sawDot = true
		default:
			goto exponent
		}
	}
exponent:
	if !sawDigit {
		return 0, false
	}
	if i < len(b) {
		if b[i] != 'e' && b[i] != 'E' {
			return 0, false
		}
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		if i == len(b) {
			return 0, false
		}
		e := 0
		for ; i < len(b); i++ {
			c := b[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			if e < 100000 {
				e = e*10 + int(c-'0')
			}
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if !slow && mant < 1<<53 && exp >= -22 && exp <= 22 {
		f := float64(mant)
		if exp >= 0 {
			f *= pow10[exp]
		} else {
			f /= pow10[-exp]
		}
		if neg {
			f = -f
		}
		return f, true
	}
	if mant == 0 && !slow {
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// parseProb parses a score or count as Moses' tables hold them: a finite
// number ≥ 0 that fits a float32. Values below the smallest float32 become
// 0 (whose log Moses floors, see LogScore).
func parseProb(b []byte) (float32, bool) {
	f, ok := parseFloat(b)
	if !ok || f < 0 || f > math.MaxFloat32 {
		return 0, false
	}
	return float32(f), true
}
