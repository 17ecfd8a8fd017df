package weights

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/mtune/mtune/feature"
)

// ReadList reads a plain list of values, separated by white space over any
// number of lines ('#' starts a comment), naming them by names in order and
// interning the names in idx (a new Index if nil). The number of values
// must equal len(names). The Set's groups are GroupsOf(names).
func ReadList(r io.Reader, names []string, idx *feature.Index) (*Set, error) {
	if err := checkNames(names); err != nil {
		return nil, err
	}
	sc := newLineScanner(r)
	s := NewSet(idx)
	n := 0
	var toks []token
	for ln, line := range sc.lines() {
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		toks = fields(toks[:0], line)
		for _, tk := range toks {
			if n == len(names) {
				return nil, errAt(ln, tk.col, ErrCount, "more than the %d values named", len(names))
			}
			x, err := parseValue(ln, tk)
			if err != nil {
				return nil, err
			}
			s.SetValue(names[n], x)
			n++
		}
	}
	if err := sc.readErr(); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, &ParseError{Err: ErrEmpty}
	}
	if n < len(names) {
		return nil, &ParseError{Line: sc.line, Err: fmt.Errorf("%w: %d values for %d names", ErrCount, n, len(names))}
	}
	s.Groups = GroupsOf(names)
	return s, nil
}

func checkNames(names []string) error {
	if len(names) == 0 {
		return errors.New("weights: list without names")
	}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if n == "" || !utf8.ValidString(n) {
			return fmt.Errorf("weights: bad feature name %q", n)
		}
		if seen[n] {
			return fmt.Errorf("weights: feature name %s given twice", n)
		}
		seen[n] = true
	}
	return nil
}

// WriteList writes the weights of the named features, in order, on one
// line; names nil means every group's features, feature.GroupNames(s.Groups).
func WriteList(w io.Writer, s *Set, names []string) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if names == nil {
		names = feature.GroupNames(s.Groups)
	}
	if err := checkNames(names); err != nil {
		return err
	}
	var buf []byte
	for i, n := range names {
		if i > 0 {
			buf = append(buf, ' ')
		}
		buf = appendFloat(buf, s.Value(n))
	}
	buf = append(buf, '\n')
	bw := bufio.NewWriter(w)
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}
