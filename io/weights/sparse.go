package weights

import (
	"bufio"
	"fmt"
	"io"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/textpos"
)

// ReadSparse reads Moses' sparse weights file, "name value" lines (see the
// package documentation), interning the names in idx (a new Index if nil).
// The Set has no groups. Unlike the other readers it accepts empty input,
// which is how a model without sparse weights is written.
func ReadSparse(r io.Reader, idx *feature.Index) (*Set, error) {
	sc := newLineScanner(r)
	s := NewSet(idx)
	seen := make(map[feature.ID]int)
	var toks []token
	for ln, line := range sc.lines() {
		t := spaceTab.Trim(line)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		toks = fields(toks[:0], line)
		if len(toks) != 2 {
			return nil, errAt(ln, toks[0].col, ErrSyntax, "want \"name value\", got %d fields", len(toks))
		}
		nt := toks[0].text
		if nt[len(nt)-1] == '=' {
			nt = nt[:len(nt)-1]
		}
		name := string(nt)
		if err := checkSparseName(name); err != nil {
			return nil, errAt(ln, toks[0].col, ErrSyntax, "%v: %s", err, textpos.Quote(toks[0].text))
		}
		x, err := parseValue(ln, toks[1])
		if err != nil {
			return nil, err
		}
		id := s.Index.ID(name)
		if prev, dup := seen[id]; dup {
			return nil, errAt(ln, toks[0].col, ErrDuplicate, "%s (first on line %d)", textpos.Quote(name), prev)
		}
		seen[id] = ln
		s.Weights.Set(id, x)
	}
	if err := sc.readErr(); err != nil {
		return nil, err
	}
	return s, nil
}

// WriteSparse writes the non-zero weights of the features of s that no
// group names, one "name value" line each, sorted by name. It writes
// nothing when there are none.
func WriteSparse(w io.Writer, s *Set) error {
	if err := s.Validate(); err != nil {
		return err
	}
	entries := s.Sparse()
	for _, e := range entries {
		if err := checkSparseName(e.Name); err != nil {
			return fmt.Errorf("weights: cannot write feature %q: %v", e.Name, err)
		}
	}
	bw := bufio.NewWriter(w)
	var buf []byte
	for _, e := range entries {
		buf = append(buf[:0], e.Name...)
		buf = append(buf, ' ')
		buf = appendFloat(buf, e.Value)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
