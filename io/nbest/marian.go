package nbest

import (
	"bytes"
	"fmt"
	"io"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/textpos"
)

// MarianReader reads the n-best lists of Marian: marian-decoder --n-best
// (src/translator/output_printer.h) and marian-scorer --n-best
// (src/rescorer/score_collector.cpp, which appends a feature, Score= by
// default or --n-best-feature's name). Each line is
//
//	id ||| text ||| [alignment |||] [WordScores= s s … |||] F0= v [Name= v …] ||| total
//
// for example
//
//	1 ||| Indien und Japan ||| 0-0 1-1 2-2 ||| WordScores= -0.04 -0.11 -0.02 ||| F0= -1.66 Score= -1.7 ||| -0.18
//
// which gives, as the list's first line, Sentence 0 (see ids below), Target "Indien und Japan",
// Features F0_0 = -1.66 and Score_0 = -1.7, Alignment "0-0 1-1 2-2",
// Score -0.18 with HasScore.
//
//   - The features are "Name= v" or "Name=v" (Marian writes "F0=v" for a
//     model without a score breakdown); each is a dense group of one
//     component, feature.DenseName(Name, 0), as a weights file's
//     "Name= w" line names it, whatever the name. A name given twice on a
//     line is an error (ErrDuplicate), and every line must have the names
//     of the first (ErrDenseLayout).
//   - The total is Marian's normalised score (the path score divided by
//     the length penalty): it is kept in Score and is neither a feature
//     nor checked against them.
//   - The optional fields between the text and the features are an
//     alignment, hard ("0-0 1-1", --alignment hard or a threshold; empty
//     when no point passes the threshold) or soft (--alignment soft: for
//     each target word, its distribution over the source words,
//     comma-separated: "0.9,0.1 0.2,0.8"), kept raw in Alignment, and the
//     word scores of --word-scores, skipped. Anything else there is an
//     error (ErrBadField).
//   - Ids may start anywhere: the first line's id is the list's first
//     sentence, so sentence = id − first id. Marian writes every input
//     line in order (0, 1, 2, … from marian-decoder; lists that start at 1
//     come from other tools), so sentence k is line k+1 of the input and
//     of the references. A list cut from a larger one starts at its own
//     first sentence. Ids below the first are an error (ErrBadID).
//
// The text may be empty (Marian can translate into nothing). A
// sentence's lines must be together, as for Reader.
type MarianReader struct {
	lr   lineReader
	name string
	idx  *feature.Index
	err  error // sticky
	g    grouper

	base    int // the first line's id
	hasBase bool

	// The dense layout: the feature names of the first line, in order,
	// their ids and positions, and the line that set them (0 before).
	names      []string
	ids        []feature.ID
	byName     map[string]int
	layoutLine int
	given      []int // for each name, the 1-based column that gave it on the current line

	ents []entry  // the current line's features
	keys []uint64 // scratch for makeVector
}

// NewMarianReader returns a reader of the Marian list r; name appears in
// errors, feature names are interned in idx.
func NewMarianReader(r io.Reader, name string, idx *feature.Index) *MarianReader {
	m := &MarianReader{lr: newLineReader(r), name: name, idx: idx, byName: make(map[string]int)}
	m.g.label = func(id int) string { return fmt.Sprintf("sentence %d (id %d)", id, id+m.base) }
	return m
}

// Format returns FormatMarian.
func (m *MarianReader) Format() Format { return FormatMarian }

// Groups returns the features of the first line, each a group of one.
func (m *MarianReader) Groups() []feature.Group {
	out := make([]feature.Group, len(m.names))
	for i, n := range m.names {
		out[i] = feature.Group{Label: n, Len: 1}
	}
	return out
}

// SentenceLine returns the line of the first hypothesis of the sentence
// ReadSentence last returned.
func (m *MarianReader) SentenceLine() int { return m.g.sentLine }

// ReadSentence returns the next sentence's hypotheses (SentenceReader).
func (m *MarianReader) ReadSentence() (int, []Hypothesis, error) {
	return m.g.next(m.Read, &m.err)
}

// Read returns the next hypothesis, or io.EOF at the end of the input.
// Do not mix with ReadSentence.
func (m *MarianReader) Read() (Hypothesis, error) {
	if h, ok := m.g.unread(); ok {
		return h, nil
	}
	return sticky(&m.err, func() (Hypothesis, error) {
		for {
			line, complete, err := m.lr.next()
			if err != nil {
				return Hypothesis{}, err
			}
			if len(spaceTab.Trim(line)) == 0 {
				continue
			}
			h, err := m.parseLine(line)
			if err != nil {
				return Hypothesis{}, cutOff(err, complete)
			}
			h.File, h.Line = m.name, m.lr.line
			return h, nil
		}
	})
}

func (m *MarianReader) errAt(col int, err error) error {
	return &ParseError{File: m.name, Line: m.lr.line, Column: col, Err: err}
}

// wordScores starts the field of Marian's --word-scores.
var wordScores = []byte("WordScores=")

// parseLine parses one line (see MarianReader).
func (m *MarianReader) parseLine(line []byte) (Hypothesis, error) {
	var h Hypothesis
	if k, bad := invalidUTF8(line); bad {
		return h, m.errAt(k+1, ErrInvalidUTF8)
	}
	bounds := fieldBounds(line)
	if len(bounds) < 4 {
		return h, m.errAt(0, textpos.Detail(ErrFieldCount,
			fmt.Sprintf("%d of at least 4 (id ||| text ||| features ||| total)", len(bounds))))
	}
	field := func(i int) []byte { return line[bounds[i][0]:bounds[i][1]] }
	col := func(i int, f []byte) int { // column of f's first byte after spaces
		return bounds[i][0] + (len(f) - len(bytes.TrimLeft(f, " \t\r\v\f"))) + 1
	}

	idf := spaceTab.Trim(field(0))
	id, ok := parseUint(idf)
	if !ok {
		return h, m.errAt(1, &tokenError{"sentence id", string(idf), ErrBadID})
	}
	if !m.hasBase {
		m.base, m.hasBase = id, true
	}
	if id < m.base {
		return h, m.errAt(1, textpos.Detail(ErrBadID,
			fmt.Sprintf("id %d is below the list's first id %d", id, m.base)))
	}
	h.Sentence = id - m.base
	h.Target = string(spaceTab.Trim(field(1)))

	n := len(bounds)
	haveAlign, haveScores := false, false
	for i := 2; i < n-2; i++ {
		f := field(i)
		t := spaceTab.Trim(f)
		switch {
		case bytes.HasPrefix(t, wordScores) && !haveScores:
			haveScores = true
		case !haveAlign && !haveScores && alignmentKind(t) != notAlignment:
			haveAlign = true
			h.Alignment = string(t)
		default:
			what := "neither an alignment nor WordScores="
			if bytes.HasPrefix(t, wordScores) {
				what = "a second WordScores= field"
			} else if haveScores && alignmentKind(t) != notAlignment {
				what = "an alignment after WordScores= (Marian writes it before)"
			} else if haveAlign && alignmentKind(t) != notAlignment {
				what = "a second alignment"
			}
			return Hypothesis{}, m.errAt(col(i, f), textpos.Detail(ErrBadField,
				fmt.Sprintf("field %d is %s (id ||| text ||| [alignment |||] [WordScores= … |||] features ||| total)", i+1, what)))
		}
	}

	fv, err := m.parseFeatures(field(n-2), bounds[n-2][0])
	if err != nil {
		return Hypothesis{}, err
	}
	h.Features = fv

	tf := field(n - 1)
	tot := spaceTab.Trim(tf)
	x, ok := parseNum(tot)
	if !ok {
		return Hypothesis{}, m.errAt(col(n-1, tf), &tokenError{"total score", string(tot), ErrBadNumber})
	}
	h.Score, h.HasScore = x, true
	return h, nil
}

// parseFeatures parses the feature field f, which starts at byte off of
// the line.
func (m *MarianReader) parseFeatures(f []byte, off int) (feature.Vector, error) {
	m.ents = m.ents[:0]
	first := m.layoutLine == 0
	for k := range m.given {
		m.given[k] = 0
	}
	add := func(name []byte, x float64, col int) error {
		k, ok := m.byName[string(name)]
		switch {
		case !ok && !first:
			return m.errAt(col, textpos.Detail(ErrDenseLayout,
				fmt.Sprintf("%s is not on line %d", textpos.Quote(name), m.layoutLine)))
		case !ok:
			k = len(m.names)
			s := string(name)
			m.byName[s] = k
			m.names = append(m.names, s)
			m.ids = append(m.ids, m.idx.ID(feature.DenseName(s, 0)))
			m.given = append(m.given, 0)
		case m.given[k] > 0:
			return m.errAt(col, textpos.Detail(ErrDuplicate,
				fmt.Sprintf("%s, first at column %d", textpos.Quote(name), m.given[k])))
		}
		m.given[k] = col
		m.ents = append(m.ents, entry{id: m.ids[k], x: x})
		return nil
	}
	fail := func(err error) (feature.Vector, error) {
		if first { // the first line sets no layout
			for _, n := range m.names {
				delete(m.byName, n)
			}
			m.names, m.ids, m.given = m.names[:0], m.ids[:0], m.given[:0]
		}
		return feature.Vector{}, err
	}
	var pending []byte // a name whose value comes next
	pendingCol := 0
	for start, tok := range spaceTab.Tokens(f) {
		col := off + start + 1
		if pending != nil {
			x, ok := parseNum(tok)
			if !ok {
				return fail(m.errAt(col, &tokenError{"feature value", string(tok), ErrBadNumber}))
			}
			if err := add(pending, x, pendingCol); err != nil {
				return fail(err)
			}
			pending = nil
			continue
		}
		eq := bytes.IndexByte(tok, '=')
		switch {
		case eq == 0:
			return fail(m.errAt(col, textpos.Detail(ErrBadFeature, "empty feature name "+textpos.Quote(tok))))
		case eq == len(tok)-1:
			pending, pendingCol = tok[:eq], col
		case eq > 0:
			x, ok := parseNum(tok[eq+1:])
			if !ok {
				return fail(m.errAt(col+eq+1, &tokenError{"feature value", string(tok[eq+1:]), ErrBadNumber}))
			}
			if err := add(tok[:eq], x, col); err != nil {
				return fail(err)
			}
		default:
			return fail(m.errAt(col, textpos.Detail(ErrBadFeature,
				textpos.Quote(tok)+" is neither \"Name=\" nor \"Name=value\"")))
		}
	}
	if pending != nil {
		return fail(m.errAt(pendingCol, textpos.Detail(ErrNoValue, textpos.Quote(pending))))
	}
	if len(m.names) == 0 {
		return fail(m.errAt(off+1, textpos.Detail(ErrBadFeature, "no features (Marian writes F0= at least)")))
	}
	if first {
		m.layoutLine = m.lr.line
	} else {
		for k, c := range m.given {
			if c == 0 {
				return fail(m.errAt(off+1, textpos.Detail(ErrDenseLayout,
					fmt.Sprintf("%s is missing (line %d has it)", textpos.Quote(m.names[k]), m.layoutLine))))
			}
		}
	}
	return makeVector(&m.ents, &m.keys), nil
}

// fieldBounds returns the [start, end) byte ranges of the "|||"-separated
// fields of line.
func fieldBounds(line []byte) [][2]int {
	var out [][2]int
	pos := 0
	for {
		k := bytes.Index(line[pos:], sep)
		if k < 0 {
			return append(out, [2]int{pos, len(line)})
		}
		out = append(out, [2]int{pos, pos + k})
		pos += k + len(sep)
	}
}

// alignKind is the kind of a word alignment field.
type alignKind int

const (
	notAlignment alignKind = iota
	hardAlignment
	softAlignment
)

// alignmentKind tells whether f (trimmed) is a hard alignment, tokens
// "i-j" of decimal positions, or a soft one, tokens of comma-separated
// numbers (one distribution over the source words a target word, as
// marian's data::SoftAlignToString writes it). An empty field is a hard
// alignment with no points.
func alignmentKind(f []byte) alignKind {
	kind, first := hardAlignment, true
	for _, tok := range spaceTab.Tokens(f) {
		k := softAlignment
		if isHardPoint(tok) {
			k = hardAlignment
		} else if !isSoftPoint(tok) {
			return notAlignment
		}
		if first {
			kind, first = k, false
		} else if k != kind {
			return notAlignment
		}
	}
	return kind
}

// isHardPoint reports whether tok is "i-j", i and j decimal.
func isHardPoint(tok []byte) bool {
	d := bytes.IndexByte(tok, '-')
	if d <= 0 {
		return false
	}
	_, ok1 := parseUint(tok[:d])
	_, ok2 := parseUint(tok[d+1:])
	return ok1 && ok2
}

// isSoftPoint reports whether tok is numbers separated by commas.
func isSoftPoint(tok []byte) bool {
	for len(tok) > 0 {
		c := bytes.IndexByte(tok, ',')
		if c < 0 {
			c = len(tok)
		}
		if _, ok := parseNum(tok[:c]); !ok {
			return false
		}
		if c == len(tok) {
			break
		}
		tok = tok[c+1:]
		if len(tok) == 0 {
			return false
		}
	}
	return true
}

// cutOff marks err, the *ParseError of a line, as that of a last line cut
// off by the end of input when the line was not complete.
func cutOff(err error, complete bool) error {
	if pe, ok := err.(*ParseError); ok && !complete {
		pe.Err = fmt.Errorf("%w (line cut off by the end of input: %w)", pe.Err, io.ErrUnexpectedEOF)
	}
	return err
}

// marianFormat is the marian format's registration (Formats); it has no option.
type marianFormat struct{}

func init() {
	registerFormat("marian", "marian-decoder's and marian-scorer's --n-best output", marianFormat{})
}

func (marianFormat) spec() string { return "marian" }

func (marianFormat) open(r io.Reader, name string, idx *feature.Index) SentenceReader {
	return NewMarianReader(r, name, idx)
}
