package weights

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/textpos"
)

// oldSections maps the moses.ini v1 weight sections to the short names
// Moses gives them (Parameter.cpp), which are also the labels of its old
// n-best lists ("d: … lm: … tm: … w: …").
var oldSections = map[string]string{
	"weight-d":          "d",
	"weight-l":          "lm",
	"weight-t":          "tm",
	"weight-w":          "w",
	"weight-u":          "u",
	"weight-i":          "I",
	"weight-generation": "g",
	"weight-lr":         "lr",
	"weight-lex":        "lex",
	"weight-e":          "e",
	"weight-slm":        "slm",
	"weight-bl":         "bl",
	"weight-dlm":        "dlm",
	"weight-glm":        "glm",
	"weight-wt":         "wt",
	"weight-pp":         "pp",
	"weight-pb":         "pb",
}

type iniMode int

const (
	modeWeight iniMode = iota // label= values lines
	modeOld                   // bare values of one label
	modeFile                  // the [weight-file] path
	modeSkip                  // any other section
)

// ReadMoses reads Moses dense weights, a bare weights file or a whole
// moses.ini (see the package documentation), interning the dense feature
// names in idx (a new Index if nil).
func ReadMoses(r io.Reader, idx *feature.Index) (*Set, error) {
	sc := newLineScanner(r)
	s := NewSet(idx)
	b := newDenseBuilder(s)
	mode := modeWeight
	oldLabel := ""
	var toks []token
	s.Lines = map[string]int{}
	at := func(label string, ln int) {
		if _, ok := s.Lines[label]; !ok {
			s.Lines[label] = ln
		}
	}
	for ln, raw := range sc.lines() {
		line := raw
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		t := spaceTab.Trim(line)
		if len(t) == 0 {
			continue
		}
		col := len(line) - len(bytes.TrimLeft(line, " \t")) + 1
		if t[0] == '[' {
			j := bytes.IndexByte(t, ']')
			if j < 0 {
				return nil, errAt(ln, col, ErrSyntax, "section header has no ']' (want [name])")
			}
			name := string(spaceTab.Trim(t[1:j]))
			switch {
			case name == "weight":
				mode = modeWeight
			case name == "weight-file":
				mode = modeFile
			case oldSections[name] != "":
				mode, oldLabel = modeOld, oldSections[name]
			case strings.HasPrefix(name, "weight"):
				return nil, errAt(ln, col, ErrSyntax, "section [%s] is not supported", textpos.Quote(name))
			default:
				mode = modeSkip
			}
			continue
		}
		switch mode {
		case modeSkip:
		case modeFile:
			if s.WeightFile != "" {
				return nil, errAt(ln, col, ErrSyntax, "[weight-file] names a second file %q", t)
			}
			s.WeightFile = string(t)
		case modeOld:
			toks = fields(toks[:0], t)
			for _, tk := range toks {
				x, err := parseValue(ln, token{text: tk.text, col: tk.col + col - 1})
				if err != nil {
					return nil, err
				}
				at(oldLabel, ln)
				b.add(oldLabel, x)
			}
		case modeWeight:
			toks = fields(toks[:0], t)
			label := ""
			var labelTok token
			nvals := 0
			for _, tk := range toks {
				tk.col += col - 1
				if c := tk.text[len(tk.text)-1]; c == '=' || c == ':' {
					if label != "" && nvals == 0 {
						return nil, errAt(ln, labelTok.col, ErrNoValues, "%s", textpos.Quote(label))
					}
					l := string(tk.text[:len(tk.text)-1])
					if err := checkLabel(l); err != nil {
						return nil, errAt(ln, tk.col, ErrSyntax, "%v: %s", err, textpos.Quote(tk.text))
					}
					label, labelTok, nvals = l, tk, 0
					at(l, ln)
					continue
				}
				if label == "" {
					if bytes.ContainsAny(tk.text, "=:") {
						return nil, errAt(ln, tk.col, ErrSyntax, "%s: a label must end in '=' or ':' followed by white space", textpos.Quote(tk.text))
					}
					return nil, errAt(ln, tk.col, ErrSyntax, "value %s before any label", textpos.Quote(tk.text))
				}
				x, err := parseValue(ln, tk)
				if err != nil {
					return nil, err
				}
				b.add(label, x)
				nvals++
			}
			if label != "" && nvals == 0 {
				return nil, errAt(ln, labelTok.col, ErrNoValues, "%s", textpos.Quote(label))
			}
		}
	}
	if err := sc.readErr(); err != nil {
		return nil, err
	}
	if len(s.Groups) == 0 && s.WeightFile == "" {
		return nil, &ParseError{Err: ErrEmpty}
	}
	return s, nil
}

// Style selects the layout WriteMoses writes.
type Style int

const (
	// StyleLines writes one line a group, "Label= v v v" (the zero value).
	StyleLines Style = iota
	// StyleINI writes a "[weight]" header and then StyleLines, ready to
	// replace the [weight] section of a moses.ini.
	StyleINI
	// StyleComponents writes one line a component, "Label= v", the label
	// repeated: kbmira's --dense-init format.
	StyleComponents
)

// WriteMoses writes the groups of s, every component, zeros included, in
// layout order. It writes no sparse weights (see WriteSparse) and fails if
// s has no groups.
func WriteMoses(w io.Writer, s *Set, style Style) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if len(s.Groups) == 0 {
		return errors.New("weights: no dense weights to write as Moses 'Name= v …' lines: every weight is sparse; write them as 'name value' lines")
	}
	for _, g := range s.Groups {
		if err := checkLabel(g.Label); err != nil {
			return fmt.Errorf("weights: cannot write label %q: %v", g.Label, err)
		}
	}
	bw := bufio.NewWriter(w)
	var buf []byte
	if style == StyleINI {
		buf = append(buf, "[weight]\n"...)
	}
	for _, g := range s.Groups {
		for i := 0; i < g.Len; i++ {
			if i == 0 || style == StyleComponents {
				buf = append(buf, g.Label...)
				buf = append(buf, '=')
			}
			buf = append(buf, ' ')
			buf = appendFloat(buf, s.Value(feature.DenseName(g.Label, i)))
			if style == StyleComponents || i == g.Len-1 {
				buf = append(buf, '\n')
			}
		}
		if _, err := bw.Write(buf); err != nil {
			return err
		}
		buf = buf[:0]
	}
	return bw.Flush()
}
