package nbest

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"unicode/utf8"
	"unsafe"

	"github.com/mtune/mtune/internal/fastnum"
	"github.com/mtune/mtune/internal/textpos"
)

// lineReader reads lines of any length. A line shorter than the bufio
// buffer is returned as a slice of that buffer, with no copy; a longer one
// is gathered in long, which grows as needed.
type lineReader struct {
	br   *bufio.Reader
	long []byte
	line int // number of the line last returned, 1-based
}

const readBufSize = 64 << 10

func newLineReader(r io.Reader) lineReader {
	return lineReader{br: bufio.NewReaderSize(r, readBufSize)}
}

// next returns the next line without its "\n" or "\r\n" (nor, on the first
// line, a byte order mark). complete is
// false for a last line that the input ends without a newline. At the end
// of input it returns io.EOF; other read errors are returned as they are.
// The line is valid until the next call.
func (lr *lineReader) next() (line []byte, complete bool, err error) {
	line, err = lr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.long = append(lr.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = lr.br.ReadSlice('\n')
			lr.long = append(lr.long, line...)
		}
		line = lr.long
	}
	switch {
	case err == nil:
		complete = true
		line = line[:len(line)-1]
	case err == io.EOF:
		if len(line) == 0 {
			return nil, false, io.EOF
		}
		err = nil
	default:
		return nil, false, err
	}
	lr.line++
	if lr.line == 1 {
		line = bytes.TrimPrefix(line, textpos.BOM) // as io/corpus
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, complete, nil
}

// invalidUTF8 reports whether line is not valid UTF-8, and the 0-based
// byte offset of its first invalid byte.
func invalidUTF8(line []byte) (int, bool) {
	if utf8.Valid(line) {
		return 0, false
	}
	k := 0
	for k < len(line) {
		c, size := utf8.DecodeRune(line[k:])
		if c == utf8.RuneError && size == 1 {
			break
		}
		k += size
	}
	return k, true
}

// spaceTab marks the bytes that separate tokens and surround fields:
// space, tab, carriage return, vertical tab and form feed.
var spaceTab = textpos.Separators{' ': true, '\t': true, '\r': true, '\v': true, '\f': true}

func isSpace(c byte) bool { return spaceTab[c] }

// unsafeString views b as a string without copying. The string must not
// outlive the next change to b: use it only for map lookups and parsing.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// parseUint parses a non-negative decimal int with no sign.
func parseUint(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int(c - '0')
		if n > (math.MaxInt-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

var pow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// parseNum parses a finite decimal number: an optional sign, digits with
// an optional point, and an optional exponent; see fastnum.ParseFloat64.
func parseNum(b []byte) (float64, bool) { return fastnum.ParseFloat64(b) }

// sticky returns read's result while *errp is nil; read's first error is
// kept in *errp and returned again by every later call.
func sticky[T any](errp *error, read func() (T, error)) (T, error) {
	if *errp != nil {
		var zero T
		return zero, *errp
	}
	v, err := read()
	if err != nil {
		*errp = err
		var zero T
		return zero, err
	}
	return v, nil
}
