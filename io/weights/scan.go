package weights

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/mtune/mtune/internal/textpos"
)

var bom = []byte("\xef\xbb\xbf")

// lineScanner splits input into lines of any length. It drops the newline,
// one '\r' before it, and a byte order mark at the start of the input.
type lineScanner struct {
	br   *bufio.Reader
	line int
	acc  []byte
	err  error // first read error other than io.EOF
	done bool
}

func newLineScanner(r io.Reader) *lineScanner {
	return &lineScanner{br: bufio.NewReader(r)}
}

// next returns the next line, valid until the following call, and false at
// the end of input or on a read error (see s.err).
func (s *lineScanner) next() ([]byte, bool) {
	if s.done {
		return nil, false
	}
	s.acc = s.acc[:0]
	var b []byte
	for {
		frag, err := s.br.ReadSlice('\n')
		if err == nil {
			if len(s.acc) > 0 {
				s.acc = append(s.acc, frag...)
				b = s.acc
			} else {
				b = frag
			}
			b = b[:len(b)-1]
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			s.acc = append(s.acc, frag...)
			continue
		}
		s.done = true
		if err != io.EOF {
			s.err = err
			return nil, false
		}
		s.acc = append(s.acc, frag...)
		if len(s.acc) == 0 {
			return nil, false
		}
		b = s.acc
		break
	}
	s.line++
	if s.line == 1 {
		b = bytes.TrimPrefix(b, bom)
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, true
}

// isSpace reports whether c separates tokens: space or tab, as Moses.
func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// token is a field of a line and its 1-based byte column.
type token struct {
	text []byte
	col  int
}

// fields splits line into tokens at spaces and tabs, appending to dst.
func fields(dst []token, line []byte) []token {
	i := 0
	for i < len(line) {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			dst = append(dst, token{text: line[i:j], col: i + 1})
		}
		i = j
	}
	return dst
}

// trimSpace removes leading and trailing spaces and tabs.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// parseValue parses a finite float64.
func parseValue(line int, t token) (float64, error) {
	x, err := strconv.ParseFloat(string(t.text), 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, errAt(line, t.col, ErrNumber, "%s is out of the float64 range", textpos.Quote(t.text))
		}
		return 0, errAt(line, t.col, ErrNumber, "%s is not a number", textpos.Quote(t.text))
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, errAt(line, t.col, ErrNumber, "%s is not finite", textpos.Quote(t.text))
	}
	return x, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// appendFloat formats x so that strconv.ParseFloat gives the same bits back.
func appendFloat(b []byte, x float64) []byte {
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

// badNameChar reports whether a name may not contain c in any text format.
func badNameChar(c rune) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// checkSparseName reports why name cannot be a sparse feature name in the
// Moses sparse format, or nil.
func checkSparseName(name string) error {
	if name == "" {
		return errors.New("empty feature name")
	}
	if !utf8.ValidString(name) {
		return errors.New("feature name is not valid UTF-8")
	}
	if name[0] == '#' {
		return errors.New("feature name starts with '#'")
	}
	if name[len(name)-1] == '=' {
		return errors.New("feature name ends with '='")
	}
	for _, c := range name {
		if badNameChar(c) {
			return errors.New("feature name contains white space")
		}
	}
	return nil
}

// checkLabel reports why label cannot be a dense label in the Moses dense
// format, or nil.
func checkLabel(label string) error {
	if label == "" {
		return errors.New("empty label")
	}
	if !utf8.ValidString(label) {
		return errors.New("label is not valid UTF-8")
	}
	if label[0] == '[' {
		return errors.New("label starts with '['")
	}
	for _, c := range label {
		if badNameChar(c) {
			return errors.New("label contains white space")
		}
		if c == '#' {
			return errors.New("label contains '#'")
		}
	}
	return nil
}
