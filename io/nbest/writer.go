package nbest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/enum"
)

// Style is the way a Writer labels features.
type Style int

const (
	// Moses writes current Moses labels: "LM0= -41.2 TranslationModel0= -1 -2"
	// for the dense groups and "name= value" for sparse features whose
	// name holds an underscore (as every Moses sparse feature's does),
	// "name=value" for the others.
	Moses Style = iota
	// Old writes the labels of older Moses versions: "lm: -41.2 tm: -1 -2",
	// sparse features as "name: value" (with an underscore in the name)
	// or "name=value".
	Old
	// Cdec writes every non-zero feature as "name=value", dense ones under
	// their component names ("LM0_0=-41.2"), in feature id order; Groups
	// are ignored.
	Cdec
	// Marian writes Marian's lines (MarianReader):
	// "id ||| target ||| [alignment |||] F0= v Name= v … ||| total", the
	// alignment before the features. Every group must have one component,
	// as Marian's features do; a sparse feature, a group of several and a
	// hypothesis without a total are errors.
	Marian
)

// styleNames are the names String gives the styles.
var styleNames = []string{Moses: "moses", Old: "old", Cdec: "cdec", Marian: "marian"}

func (s Style) String() string { return enum.Name(s, styleNames, "Style") }

// Writer writes hypotheses as an n-best list, one line each:
//
//	id ||| target ||| features ||| total [||| alignment]
//
// (id ||| target ||| [alignment |||] features ||| total in the Marian
// style). The total is left out (three fields) when a hypothesis has no
// score.
// Numbers are written in the shortest form that reads back to the same
// float64 (strconv 'g', -1), so a written list reads back exactly.
type Writer struct {
	// Style is how features are labelled; the zero value is Moses.
	Style Style
	// Groups are the dense feature groups, written in this order with
	// all their components, zeros included. Every other feature is written
	// as a sparse one. Nil means no dense groups: every feature is sparse.
	// Usually Reader.Groups of the list that was read. Set it before the
	// first Write.
	Groups []feature.Group

	bufWriter
	idx *feature.Index
	buf []byte

	// Dense layout, resolved against idx by prepare.
	prepared bool
	idxLen   int            // idx.Len() when prepared
	missing  int            // dense names that were not in idx
	denseIDs [][]feature.ID // per group; -1 when the name is not in idx
	isDense  []bool         // by id
	labels   []string       // validated group labels
}

// NewWriter returns a Writer writing to w the names of features interned
// in idx.
func NewWriter(w io.Writer, idx *feature.Index) *Writer {
	return &Writer{bufWriter: newBufWriter(w), idx: idx}
}

// bufWriter gives the writers of this package their buffer and their
// Flush and Error methods.
type bufWriter struct{ w *bufio.Writer }

func newBufWriter(w io.Writer) bufWriter { return bufWriter{w: bufio.NewWriter(w)} }

// Flush writes any buffered data to the underlying writer. Check Error
// afterwards.
func (b bufWriter) Flush() { b.w.Flush() }

// Error reports any error of a previous Write or Flush.
func (b bufWriter) Error() error {
	_, err := b.w.Write(nil)
	return err
}

// writeBlock ends buf with the marker end and a newline and writes it,
// keeping its array in *keep for the next block.
func (b bufWriter) writeBlock(keep *[]byte, buf []byte, end string) error {
	buf = append(buf, end...)
	buf = append(buf, '\n')
	*keep = buf[:0]
	_, err := b.w.Write(buf)
	return err
}

func (w *Writer) prepare() error {
	if w.prepared && (w.missing == 0 || w.idx.Len() == w.idxLen) {
		return nil
	}
	w.idxLen = w.idx.Len()
	w.missing = 0
	w.denseIDs = w.denseIDs[:0]
	w.labels = w.labels[:0]
	clear(w.isDense)
	if w.Style != Cdec {
		for _, g := range w.Groups {
			if !validLabel(g.Label) {
				return fmt.Errorf("%w: dense label %q (empty, or holding a space, \"_\" or \"|||\")", ErrBadName, g.Label)
			}
			if g.Len < 0 || w.Style == Marian && g.Len != 1 {
				return fmt.Errorf("nbest: group %q has length %d (%v lists: 1)", g.Label, g.Len, w.Style)
			}
			ids := make([]feature.ID, g.Len)
			for i := range ids {
				id, ok := w.idx.Lookup(feature.DenseName(g.Label, i))
				if !ok {
					id = -1
					w.missing++
				} else {
					for int(id) >= len(w.isDense) {
						w.isDense = append(w.isDense, false)
					}
					w.isDense[id] = true
				}
				ids[i] = id
			}
			w.denseIDs = append(w.denseIDs, ids)
			w.labels = append(w.labels, g.Label)
		}
	}
	w.prepared = true
	return nil
}

// validLabel reports whether a dense label reads back as a dense label.
func validLabel(s string) bool {
	return s != "" && !strings.ContainsRune(s, '_') && validName(s)
}

// validName reports whether a feature name can be written as one token.
func validName(s string) bool {
	if s == "" || !utf8.ValidString(s) || strings.Contains(s, "|||") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) || s[i] == '\n' {
			return false
		}
	}
	return true
}

// validText reports whether a target or alignment fits on one line.
func validText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, '\n') < 0
}

// validStatName reports whether a name can be one token of a FEATSTAT or
// SCORESTAT file.
func validStatName(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) || s[i] == '\n' {
			return false
		}
	}
	return true
}

// Write writes one hypothesis. It returns an error, writing nothing, for a
// negative sentence id, a target holding "|||" or a line break, a
// non-finite number, an alignment without a score, or a feature name that
// would not read back (see ErrBadName).
func (w *Writer) Write(h Hypothesis) error {
	if err := w.prepare(); err != nil {
		return err
	}
	if h.Sentence < 0 {
		return fmt.Errorf("nbest: negative sentence id %d", h.Sentence)
	}
	if !validText(h.Target) || strings.Contains(h.Target, "|||") {
		return fmt.Errorf("%w: target %q (invalid UTF-8, a line break or \"|||\")", ErrBadName, h.Target)
	}
	if h.Alignment != "" && (!validText(h.Alignment) || !h.HasScore || w.Style == Marian && strings.Contains(h.Alignment, "|||")) {
		return fmt.Errorf("%w: alignment %q (needs a score, valid UTF-8 and no line break)", ErrBadName, h.Alignment)
	}
	if w.Style == Marian && !h.HasScore {
		return fmt.Errorf("nbest: sentence %d: a Marian line needs a total score", h.Sentence)
	}
	if h.HasScore && !finite(h.Score) {
		return fmt.Errorf("nbest: sentence %d: total score %v", h.Sentence, h.Score)
	}
	fv := h.Features
	if len(fv.IDs) != len(fv.Vals) {
		return fmt.Errorf("nbest: sentence %d: vector has %d ids and %d values", h.Sentence, len(fv.IDs), len(fv.Vals))
	}
	b := strconv.AppendInt(w.buf[:0], int64(h.Sentence), 10)
	b = append(b, " ||| "...)
	b = append(b, h.Target...)
	b = append(b, " ||| "...)
	if w.Style == Marian && h.Alignment != "" {
		b = append(b, bytes.TrimSpace([]byte(h.Alignment))...)
		b = append(b, " ||| "...)
	}
	n0 := len(b)
	sp := func(b []byte) []byte {
		if len(b) > n0 {
			b = append(b, ' ')
		}
		return b
	}
	mark := byte('=')
	if w.Style == Old {
		mark = ':'
	}
	if w.Style != Cdec {
		for gi, ids := range w.denseIDs {
			if len(ids) == 0 {
				continue
			}
			b = sp(b)
			b = append(b, w.labels[gi]...)
			b = append(b, mark)
			for _, id := range ids {
				x := 0.0
				if id >= 0 {
					x = fv.At(id)
				}
				if !finite(x) {
					w.buf = b
					return fmt.Errorf("nbest: sentence %d: feature %s is %v", h.Sentence, w.idx.Name(id), x)
				}
				b = append(b, ' ')
				b = strconv.AppendFloat(b, x, 'g', -1, 64)
			}
		}
	}
	for k, id := range fv.IDs {
		if int(id) < len(w.isDense) && w.isDense[id] {
			continue
		}
		x := fv.Vals[k]
		if id < 0 || int(id) >= w.idx.Len() {
			w.buf = b
			return fmt.Errorf("nbest: sentence %d: feature id %d not in the index", h.Sentence, id)
		}
		name := w.idx.Name(id)
		if !validName(name) {
			w.buf = b
			return fmt.Errorf("%w: feature %q", ErrBadName, name)
		}
		if !finite(x) {
			w.buf = b
			return fmt.Errorf("nbest: sentence %d: feature %s is %v", h.Sentence, name, x)
		}
		if x == 0 {
			continue
		}
		if w.Style == Marian {
			w.buf = b
			return fmt.Errorf("nbest: sentence %d: sparse feature %s in a Marian line", h.Sentence, name)
		}
		b = sp(b)
		b = append(b, name...)
		if w.Style != Cdec && strings.IndexByte(name, '_') >= 0 {
			b = append(b, mark, ' ')
		} else {
			b = append(b, '=')
		}
		b = strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	if h.HasScore {
		b = append(b, " ||| "...)
		b = strconv.AppendFloat(b, h.Score, 'g', -1, 64)
		if h.Alignment != "" && w.Style != Marian {
			b = append(b, " ||| "...)
			b = append(b, bytes.TrimSpace([]byte(h.Alignment))...)
		}
	}
	b = append(b, '\n')
	w.buf = b
	_, err := w.w.Write(b)
	return err
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
