package weights

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mtune/mtune/internal/textpos"
)

var bom = []byte("\xef\xbb\xbf")

// lineScanner yields the lines of its input (see textpos.LineReader): lines
// of any length, without the newline, one '\r' before it, and a byte order
// mark at the start of the input.
type lineScanner struct {
	lr   *textpos.LineReader
	line int   // number of the line last yielded
	err  error // first read error other than io.EOF
}

func newLineScanner(r io.Reader) *lineScanner {
	return &lineScanner{lr: textpos.NewLineReader(r, 0)}
}

// lines yields each line, valid during its step, and its 1-based number,
// until the end of input or a read error (see readErr).
func (s *lineScanner) lines() iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		for {
			b, err := s.lr.Next()
			if err != nil {
				if err != io.EOF {
					s.err = err
				}
				return
			}
			s.line = s.lr.Line()
			if !yield(s.line, b) {
				return
			}
		}
	}
}

// readErr returns a *ParseError for the read error that ended lines, or
// nil.
func (s *lineScanner) readErr() error {
	if s.err != nil {
		return &ParseError{Line: s.line + 1, Err: s.err}
	}
	return nil
}

// spaceTab is what separates tokens and surrounds fields: space or tab,
// as Moses.
var spaceTab = textpos.Separators{' ': true, '\t': true}

// token is a field of a line and its 1-based byte column.
type token struct {
	text []byte
	col  int
}

// fields splits line into tokens at spaces and tabs, appending to dst.
func fields(dst []token, line []byte) []token {
	for i, text := range spaceTab.Tokens(line) {
		dst = append(dst, token{text: text, col: i + 1})
	}
	return dst
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

// checkName reports why s, a what ("feature name", "label"), cannot be
// written in any text format: it is empty, not UTF-8, or starts with
// first. Otherwise it returns nil.
func checkName(what, s string, first byte) error {
	switch {
	case s == "":
		return errors.New("empty " + what)
	case !utf8.ValidString(s):
		return errors.New(what + " is not valid UTF-8")
	case s[0] == first:
		return fmt.Errorf("%s starts with '%c'", what, first)
	}
	return nil
}

// checkSparseName reports why name cannot be a sparse feature name in the
// Moses sparse format, or nil.
func checkSparseName(name string) error {
	if err := checkName("feature name", name, '#'); err != nil {
		return err
	}
	if name[len(name)-1] == '=' {
		return errors.New("feature name ends with '='")
	}
	if strings.ContainsFunc(name, badNameChar) {
		return errors.New("feature name contains white space")
	}
	return nil
}

// checkLabel reports why label cannot be a dense label in the Moses dense
// format, or nil.
func checkLabel(label string) error {
	if err := checkName("label", label, '['); err != nil {
		return err
	}
	switch i := strings.IndexFunc(label, func(c rune) bool { return badNameChar(c) || c == '#' }); {
	case i < 0:
		return nil
	case label[i] == '#':
		return errors.New("label contains '#'")
	}
	return errors.New("label contains white space")
}
