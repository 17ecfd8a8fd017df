package model

import (
	"bytes"
	"math"

	"github.com/mtune/mtune/internal/fastnum"
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

// parseFloat parses a finite decimal number: an optional sign, digits with
// an optional point, an optional exponent; see fastnum.ParseFloat64.
func parseFloat(b []byte) (float64, bool) { return fastnum.ParseFloat64(b) }

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
