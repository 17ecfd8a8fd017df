package weights

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/textpos"
)

// JSONVersion is the version of the JSON document WriteJSON writes and
// ReadJSON reads.
const JSONVersion = 1

// WriteJSON writes s as mtune's JSON document (see the package
// documentation): every group with all its components, then the non-zero
// weights of the other features sorted by name.
func WriteJSON(w io.Writer, s *Set) error {
	if err := s.Validate(); err != nil {
		return err
	}
	for _, g := range s.Groups {
		if !utf8.ValidString(g.Label) {
			return fmt.Errorf("weights: cannot write label %q: not valid UTF-8", g.Label)
		}
	}
	sparse := s.Sparse()
	for _, e := range sparse {
		if !utf8.ValidString(e.Name) {
			return fmt.Errorf("weights: cannot write feature %q: not valid UTF-8", e.Name)
		}
	}
	var buf []byte
	buf = append(buf, "{\n  \"version\": "...)
	buf = strconv.AppendInt(buf, JSONVersion, 10)
	buf = append(buf, ",\n  \"dense\": ["...)
	for i, g := range s.Groups {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n    {\"label\": "...)
		buf = appendJSONString(buf, g.Label)
		buf = append(buf, ", \"values\": ["...)
		for k := 0; k < g.Len; k++ {
			if k > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendFloat(buf, s.Value(feature.DenseName(g.Label, k)))
		}
		buf = append(buf, "]}"...)
	}
	if len(s.Groups) > 0 {
		buf = append(buf, "\n  "...)
	}
	buf = append(buf, "],\n  \"sparse\": {"...)
	bw := bufio.NewWriter(w)
	for i, e := range sparse {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n    "...)
		buf = appendJSONString(buf, e.Name)
		buf = append(buf, ": "...)
		buf = appendFloat(buf, e.Value)
		if len(buf) > 1<<16 {
			if _, err := bw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if len(sparse) > 0 {
		buf = append(buf, "\n  "...)
	}
	buf = append(buf, "}\n}\n"...)
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}

func appendJSONString(b []byte, s string) []byte {
	q, err := json.Marshal(s)
	if err != nil { // cannot happen for a string
		panic(err)
	}
	return append(b, q...)
}

// jsonReader walks a JSON document token by token, so that duplicate keys
// and positions can be reported.
type jsonReader struct {
	data []byte
	dec  *json.Decoder
}

// errAt returns a *ParseError at the decoder's current position.
func (j *jsonReader) errAt(kind error, format string, args ...any) *ParseError {
	line, col := position(j.data, int(j.dec.InputOffset()))
	return errAt(line, col, kind, format, args...)
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

func (j *jsonReader) token() (json.Token, error) {
	t, err := j.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, j.errAt(ErrSyntax, "%v", io.ErrUnexpectedEOF)
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(j.data, int(se.Offset))
			return nil, errAt(line, col, ErrSyntax, "%v", err)
		}
		return nil, j.errAt(ErrSyntax, "%v", err)
	}
	return t, nil
}

func (j *jsonReader) delim(want json.Delim) error {
	t, err := j.token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return j.errAt(ErrSyntax, "want %q, got %v", want, describe(t))
	}
	return nil
}

// openOrNull reads want or null; it reports whether it read want.
func (j *jsonReader) openOrNull(want json.Delim) (bool, error) {
	t, err := j.token()
	if err != nil {
		return false, err
	}
	if t == nil {
		return false, nil
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return false, j.errAt(ErrSyntax, "want %q, got %v", want, describe(t))
	}
	return true, nil
}

func (j *jsonReader) str() (string, error) {
	t, err := j.token()
	if err != nil {
		return "", err
	}
	s, ok := t.(string)
	if !ok {
		return "", j.errAt(ErrSyntax, "want a string, got %v", describe(t))
	}
	return s, nil
}

func (j *jsonReader) number() (float64, error) {
	t, err := j.token()
	if err != nil {
		return 0, err
	}
	n, ok := t.(json.Number)
	if !ok {
		return 0, j.errAt(ErrNumber, "want a number, got %v", describe(t))
	}
	x, err := strconv.ParseFloat(string(n), 64)
	if err != nil || !finite(x) {
		return 0, j.errAt(ErrNumber, "%s is out of the float64 range", textpos.Quote(string(n)))
	}
	return x, nil
}

func describe(t json.Token) string {
	switch v := t.(type) {
	case nil:
		return "null"
	case json.Delim:
		return strconv.Quote(v.String())
	case string:
		return "string " + textpos.Quote(v)
	case json.Number:
		return "number " + textpos.Quote(string(v))
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprint(t)
}

// ReadJSON reads mtune's JSON document (see the package documentation),
// interning the names in idx (a new Index if nil).
func ReadJSON(r io.Reader, idx *feature.Index) (*Set, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &ParseError{Err: err}
	}
	data = bytes.TrimPrefix(data, bom)
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			c, size := utf8.DecodeRune(data[off:])
			if c == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		line, col := position(data, off)
		return nil, errAt(line, col, ErrSyntax, "invalid UTF-8")
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &ParseError{Err: ErrEmpty}
	}
	j := &jsonReader{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	j.dec.UseNumber()
	s := NewSet(idx)
	if err := j.document(s); err != nil {
		return nil, err
	}
	return s, nil
}

func (j *jsonReader) document(s *Set) error {
	if err := j.delim('{'); err != nil {
		return err
	}
	seenKey := make(map[string]bool)
	version := false
	var dense []Entry // group features, in layout order
	labels := make(map[string]bool)
	sparse := make(map[string]float64)
	var sparseOrder []string
	for j.dec.More() {
		key, err := j.str()
		if err != nil {
			return err
		}
		if seenKey[key] {
			return j.errAt(ErrDuplicate, "key %s", textpos.Quote(key))
		}
		seenKey[key] = true
		switch key {
		case "version":
			t, err := j.token()
			if err != nil {
				return err
			}
			n, ok := t.(json.Number)
			if !ok {
				return j.errAt(ErrSyntax, "version: want a number, got %v", describe(t))
			}
			if string(n) != strconv.Itoa(JSONVersion) {
				return j.errAt(ErrVersion, "%s (this reader knows %d)", n, JSONVersion)
			}
			version = true
		case "dense":
			open, err := j.openOrNull('[')
			if err != nil {
				return err
			}
			for open && j.dec.More() {
				g, vals, err := j.group()
				if err != nil {
					return err
				}
				if labels[g.Label] {
					return j.errAt(ErrDuplicate, "label %s", textpos.Quote(g.Label))
				}
				labels[g.Label] = true
				s.Groups = append(s.Groups, g)
				for k, x := range vals {
					dense = append(dense, Entry{Name: feature.DenseName(g.Label, k), Value: x})
				}
			}
			if open {
				if err := j.delim(']'); err != nil {
					return err
				}
			}
		case "sparse":
			open, err := j.openOrNull('{')
			if err != nil {
				return err
			}
			for open && j.dec.More() {
				name, err := j.str()
				if err != nil {
					return err
				}
				if name == "" {
					return j.errAt(ErrSyntax, "empty feature name")
				}
				if _, dup := sparse[name]; dup {
					return j.errAt(ErrDuplicate, "feature %s", textpos.Quote(name))
				}
				x, err := j.number()
				if err != nil {
					return err
				}
				sparse[name] = x
				sparseOrder = append(sparseOrder, name)
			}
			if open {
				if err := j.delim('}'); err != nil {
					return err
				}
			}
		default:
			return j.errAt(ErrSyntax, "unknown key %s", textpos.Quote(key))
		}
	}
	if err := j.delim('}'); err != nil {
		return err
	}
	if _, err := j.dec.Token(); !errors.Is(err, io.EOF) {
		return j.errAt(ErrSyntax, "data after the document")
	}
	if !version {
		return &ParseError{Err: fmt.Errorf("%w: no version", ErrVersion)}
	}
	for _, e := range dense {
		if _, clash := sparse[e.Name]; clash {
			return &ParseError{Err: fmt.Errorf("%w: sparse feature %q is also a dense feature", ErrDuplicate, e.Name)}
		}
		s.SetValue(e.Name, e.Value)
	}
	for _, name := range sparseOrder {
		s.SetValue(name, sparse[name])
	}
	return nil
}

// group reads {"label": …, "values": […]}.
func (j *jsonReader) group() (feature.Group, []float64, error) {
	var g feature.Group
	if err := j.delim('{'); err != nil {
		return g, nil, err
	}
	var vals []float64
	hasLabel, hasValues := false, false
	for j.dec.More() {
		key, err := j.str()
		if err != nil {
			return g, nil, err
		}
		switch {
		case key == "label" && !hasLabel:
			if g.Label, err = j.str(); err != nil {
				return g, nil, err
			}
			if g.Label == "" {
				return g, nil, j.errAt(ErrSyntax, "empty label")
			}
			hasLabel = true
		case key == "values" && !hasValues:
			if err := j.delim('['); err != nil {
				return g, nil, err
			}
			for j.dec.More() {
				x, err := j.number()
				if err != nil {
					return g, nil, err
				}
				vals = append(vals, x)
			}
			if err := j.delim(']'); err != nil {
				return g, nil, err
			}
			hasValues = true
		case key == "label" || key == "values":
			return g, nil, j.errAt(ErrDuplicate, "key %s", textpos.Quote(key))
		default:
			return g, nil, j.errAt(ErrSyntax, "unknown key %s in a dense group", textpos.Quote(key))
		}
	}
	if err := j.delim('}'); err != nil {
		return g, nil, err
	}
	if !hasLabel {
		return g, nil, j.errAt(ErrSyntax, "dense group without a label")
	}
	if len(vals) == 0 {
		return g, nil, j.errAt(ErrNoValues, "%s", textpos.Quote(g.Label))
	}
	g.Len = len(vals)
	return g, vals, nil
}
