package nbest

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/textpos"
)

// Markers of the text blocks of Moses' extractor files.
const (
	featBegin  = "FEATURES_TXT_BEGIN_0"
	featEnd    = "FEATURES_TXT_END_0"
	scoreBegin = "SCORES_TXT_BEGIN_0"
	scoreEnd   = "SCORES_TXT_END_0"
)

// FeatBlock is one sentence's block of a Moses FEATSTAT file (the features
// file mert's extractor writes).
type FeatBlock struct {
	// Sentence is the sentence id of the block.
	Sentence int
	// Dense names the dense columns, in the order the rows give them.
	Dense []string
	// Vectors holds one feature vector per hypothesis, in row order.
	Vectors []feature.Vector
}

// ScoreBlock is one sentence's block of a Moses SCORESTAT file: the
// metric's sufficient statistics of each hypothesis.
type ScoreBlock struct {
	// Sentence is the sentence id of the block.
	Sentence int
	// Metric is the scorer's name, such as "BLEU".
	Metric string
	// Stats holds one row of statistics per hypothesis; every row has the
	// same length.
	Stats [][]float64
}

// FeatStatReader reads a FEATSTAT file block by block.
type FeatStatReader struct {
	statBase
	idx *feature.Index

	dense    []string // names of the last header, reused while unchanged
	denseIDs []feature.ID
	b        feature.Builder
}

// NewFeatStatReader returns a reader of the FEATSTAT text in r, interning
// feature names in idx. name appears in errors.
func NewFeatStatReader(r io.Reader, name string, idx *feature.Index) *FeatStatReader {
	return &FeatStatReader{statBase: statBase{lr: newLineReader(r), name: name}, idx: idx}
}

// statBase is what the FEATSTAT and SCORESTAT readers share: the lines,
// the name for errors, the sticky error and the header's fields, reused
// from block to block.
type statBase struct {
	lr     lineReader
	name   string
	err    error
	fields [][]byte
}

// header reads a block header that starts with marker; see readHeader.
func (r *statBase) header(marker string) (hdr [][]byte, sent, count, n int, err error) {
	hdr, sent, count, n, err = readHeader(&r.lr, r.name, marker, r.fields)
	r.fields = hdr
	return hdr, sent, count, n, err
}

func statErr(lr *lineReader, name string, col int, err error) error {
	return &ParseError{File: name, Line: lr.line, Column: col, Err: err}
}

// nextNonBlank returns the next line holding something other than spaces.
func nextNonBlank(lr *lineReader) ([]byte, error) {
	for {
		line, _, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !utf8.Valid(line) {
			return nil, ErrInvalidUTF8
		}
		if len(spaceTab.Trim(line)) > 0 {
			return line, nil
		}
	}
}

// splitFields appends the space-separated tokens of line to dst[:0].
func splitFields(dst [][]byte, line []byte) [][]byte {
	dst = dst[:0]
	for _, tok := range spaceTab.Tokens(line) {
		dst = append(dst, tok)
	}
	return dst
}

// readHeader parses "<marker> <sentence> <count> <n> rest…".
func readHeader(lr *lineReader, name, marker string, fields [][]byte) (hdr [][]byte, sent, count, n int, err error) {
	line, err := nextNonBlank(lr)
	if err == io.EOF {
		return nil, 0, 0, 0, io.EOF
	}
	if err == ErrInvalidUTF8 {
		return nil, 0, 0, 0, statErr(lr, name, 0, err)
	}
	if err != nil {
		return nil, 0, 0, 0, err
	}
	hdr = splitFields(fields, line)
	if string(hdr[0]) != marker {
		what := "want " + marker
		if strings.Contains(string(hdr[0]), "_BIN_") {
			what = "binary blocks are not supported"
		}
		return hdr, 0, 0, 0, statErr(lr, name, 1, textpos.Detail(ErrBadHeader, fmt.Sprintf("%s: %s", textpos.Quote(hdr[0]), what)))
	}
	if len(hdr) < 4 {
		return hdr, 0, 0, 0, statErr(lr, name, 0, textpos.Detail(ErrBadHeader, "want marker, sentence, count and width"))
	}
	var v [3]int
	for i := range v {
		x, ok := parseUint(hdr[1+i])
		if !ok {
			return hdr, 0, 0, 0, statErr(lr, name, 0, textpos.Detail(ErrBadHeader, "bad number "+textpos.Quote(hdr[1+i])))
		}
		v[i] = x
	}
	return hdr, v[0], v[1], v[2], nil
}

func readFooter(lr *lineReader, name, marker string) error {
	line, _, err := lr.next()
	if err == io.EOF {
		return statErr(lr, name, 0, fmt.Errorf("%w: missing %s: %w", ErrBadFooter, marker, io.ErrUnexpectedEOF))
	}
	if err != nil {
		return err
	}
	if string(spaceTab.Trim(line)) != marker {
		return statErr(lr, name, 1, textpos.Detail(ErrBadFooter, "want "+marker))
	}
	return nil
}

// readRow reads one row line, failing with io.ErrUnexpectedEOF at the end
// of input.
func readRow(lr *lineReader, name string) ([]byte, error) {
	line, _, err := lr.next()
	if err == io.EOF {
		return nil, statErr(lr, name, 0, fmt.Errorf("%w: block cut off: %w", ErrBadFooter, io.ErrUnexpectedEOF))
	}
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(line) {
		return nil, statErr(lr, name, 0, ErrInvalidUTF8)
	}
	return line, nil
}

// Read returns the next block, or io.EOF after the last one. Errors are
// sticky.
func (r *FeatStatReader) Read() (FeatBlock, error) { return sticky(&r.err, r.read) }

func (r *FeatStatReader) read() (FeatBlock, error) {
	hdr, sent, count, n, err := r.header(featBegin)
	if err != nil {
		return FeatBlock{}, err
	}
	names := hdr[4:]
	if len(names) != n {
		return FeatBlock{}, statErr(&r.lr, r.name, 0, textpos.Detail(ErrBadHeader, fmt.Sprintf("%d feature names, header says %d", len(names), n)))
	}
	same := len(names) == len(r.dense)
	for i := 0; same && i < len(names); i++ {
		same = string(names[i]) == r.dense[i]
	}
	if !same {
		seen := make(map[string]bool, len(names))
		dense := make([]string, len(names))
		ids := make([]feature.ID, len(names))
		for i, nm := range names {
			s := string(nm)
			if seen[s] {
				return FeatBlock{}, statErr(&r.lr, r.name, 0, textpos.Detail(ErrBadHeader, "repeated feature name "+textpos.Quote(nm)))
			}
			seen[s] = true
			dense[i] = s
			ids[i] = r.idx.ID(s)
		}
		r.dense, r.denseIDs = dense, ids
	}
	blk := FeatBlock{Sentence: sent, Dense: r.dense, Vectors: make([]feature.Vector, 0, min(count, 1024))}
	for range count {
		line, err := readRow(&r.lr, r.name)
		if err != nil {
			return FeatBlock{}, err
		}
		v, err := r.parseRow(line)
		if err != nil {
			return FeatBlock{}, err
		}
		blk.Vectors = append(blk.Vectors, v)
	}
	if err := readFooter(&r.lr, r.name, featEnd); err != nil {
		return FeatBlock{}, err
	}
	return blk, nil
}

// parseRow parses "v v v … name=v name=v …".
func (r *FeatStatReader) parseRow(line []byte) (feature.Vector, error) {
	r.b.Reset()
	nd := 0
	for start, tok := range spaceTab.Tokens(line) {
		k := -1
		for i := len(tok) - 1; i >= 0; i-- {
			if tok[i] == '=' {
				k = i
				break
			}
		}
		if k < 0 {
			x, ok := parseNum(tok)
			if !ok {
				return feature.Vector{}, statErr(&r.lr, r.name, start+1, &tokenError{"feature value", string(tok), ErrBadNumber})
			}
			if nd < len(r.denseIDs) {
				r.b.Add(r.denseIDs[nd], x)
			}
			nd++
			continue
		}
		if k == 0 {
			return feature.Vector{}, statErr(&r.lr, r.name, start+1, textpos.Detail(ErrBadFeature, "empty feature name "+textpos.Quote(tok)))
		}
		x, ok := parseNum(tok[k+1:])
		if !ok {
			return feature.Vector{}, statErr(&r.lr, r.name, start+k+2, &tokenError{"feature value", string(tok[k+1:]), ErrBadNumber})
		}
		r.b.Add(r.internSparse(tok[:k]), x)
	}
	if nd != len(r.denseIDs) {
		r.b.Reset()
		return feature.Vector{}, statErr(&r.lr, r.name, 0, textpos.Detail(ErrColumnCount, fmt.Sprintf("%d dense values, header says %d", nd, len(r.denseIDs))))
	}
	return r.b.Vector(), nil
}

func (r *FeatStatReader) internSparse(name []byte) feature.ID {
	if id, ok := r.idx.Lookup(unsafeString(name)); ok {
		return id
	}
	return r.idx.ID(string(name))
}

// ScoreStatReader reads a SCORESTAT file block by block.
type ScoreStatReader struct {
	statBase
	metric string
	row    []float64
}

// NewScoreStatReader returns a reader of the SCORESTAT text in r. name
// appears in errors.
func NewScoreStatReader(r io.Reader, name string) *ScoreStatReader {
	return &ScoreStatReader{statBase: statBase{lr: newLineReader(r), name: name}}
}

// Read returns the next block, or io.EOF after the last one. Errors are
// sticky.
func (r *ScoreStatReader) Read() (ScoreBlock, error) { return sticky(&r.err, r.read) }

func (r *ScoreStatReader) read() (ScoreBlock, error) {
	hdr, sent, count, n, err := r.header(scoreBegin)
	if err != nil {
		return ScoreBlock{}, err
	}
	if len(hdr) != 5 {
		return ScoreBlock{}, statErr(&r.lr, r.name, 0, textpos.Detail(ErrBadHeader, "want marker, sentence, count, width and metric name"))
	}
	if string(hdr[4]) != r.metric {
		r.metric = string(hdr[4])
	}
	blk := ScoreBlock{Sentence: sent, Metric: r.metric, Stats: make([][]float64, 0, min(count, 1024))}
	var back []float64
	for range count {
		line, err := readRow(&r.lr, r.name)
		if err != nil {
			return ScoreBlock{}, err
		}
		row := r.row[:0]
		for start, tok := range spaceTab.Tokens(line) {
			x, ok := parseNum(tok)
			if !ok {
				return ScoreBlock{}, statErr(&r.lr, r.name, start+1, &tokenError{"statistic", string(tok), ErrBadNumber})
			}
			row = append(row, x)
		}
		r.row = row
		if len(row) != n {
			return ScoreBlock{}, statErr(&r.lr, r.name, 0, textpos.Detail(ErrColumnCount, fmt.Sprintf("%d statistics, header says %d", len(row), n)))
		}
		// Rows share backing arrays of 64 rows each.
		if len(back)+n > cap(back) {
			back = make([]float64, 0, n*64)
		}
		k := len(back)
		back = append(back, row...)
		blk.Stats = append(blk.Stats, back[k:k+n:k+n])
	}
	if err := readFooter(&r.lr, r.name, scoreEnd); err != nil {
		return ScoreBlock{}, err
	}
	return blk, nil
}

// appendNum formats x the way the Precision option of the stat writers
// says: 0 is C++ ostream's default, %g with 6 significant digits; -1 the
// shortest exact form; n > 0 n significant digits.
func appendNum(b []byte, x float64, prec int) []byte {
	switch {
	case prec == 0:
		prec = 6
	case prec < 0:
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	// Fast paths, both exactly what %.{prec}g prints: integers below
	// 10^prec print as integers, and a number whose shortest exact form
	// has at most prec significant digits prints as that form (Go's
	// shortest %g switches to an exponent at the same points as %.6g).
	if x == math.Trunc(x) && math.Abs(x) < pow10[min(prec, 15)] {
		if x == 0 && math.Signbit(x) {
			return append(b, "-0"...)
		}
		return strconv.AppendInt(b, int64(x), 10)
	}
	if prec == 6 {
		n := len(b)
		b = strconv.AppendFloat(b, x, 'g', -1, 64)
		if significantDigits(b[n:]) <= prec {
			return b
		}
		b = b[:n]
	}
	return strconv.AppendFloat(b, x, 'g', prec, 64)
}

// significantDigits counts the significant digits of a number formatted
// by strconv: the digits of the mantissa without leading zeros.
func significantDigits(num []byte) int {
	n, leading := 0, true
	for _, c := range num {
		switch {
		case c == 'e' || c == 'E':
			return n
		case c == '0' && leading:
		case c >= '0' && c <= '9':
			leading = false
			n++
		}
	}
	return n
}

// FeatStatWriter writes FEATSTAT blocks byte for byte as Moses' extractor
// does: a header with a trailing space, each row's dense values then its
// sparse features as "name=value", each followed by a space.
type FeatStatWriter struct {
	// Precision is the number of significant digits of the values. The
	// zero value means 6, what C++'s ostream and so Moses write (%g);
	// -1 means the shortest form that reads back exactly.
	Precision int

	bufWriter
	idx *feature.Index
	buf []byte
}

// NewFeatStatWriter returns a writer to w of vectors whose ids are in idx.
func NewFeatStatWriter(w io.Writer, idx *feature.Index) *FeatStatWriter {
	return &FeatStatWriter{bufWriter: newBufWriter(w), idx: idx}
}

// Write writes one block. Features named in b.Dense are written as dense
// columns (zeros included, 0 for a name not in the index); the others as
// sparse "name=value" in id order. Unlike Moses, which drops sparse values
// below 1e-5 in magnitude, every non-zero value is written.
func (w *FeatStatWriter) Write(b FeatBlock) error {
	if b.Sentence < 0 {
		return fmt.Errorf("nbest: negative sentence id %d", b.Sentence)
	}
	ids := make([]feature.ID, len(b.Dense))
	var isDense []bool
	for i, name := range b.Dense {
		if !validStatName(name) {
			return fmt.Errorf("%w: dense column %q", ErrBadName, name)
		}
		id, ok := w.idx.Lookup(name)
		if !ok {
			id = -1
		} else {
			for int(id) >= len(isDense) {
				isDense = append(isDense, false)
			}
			isDense[id] = true
		}
		ids[i] = id
	}
	buf := fmt.Appendf(w.buf[:0], "%s %d %d %d ", featBegin, b.Sentence, len(b.Vectors), len(b.Dense))
	for _, name := range b.Dense {
		buf = append(buf, name...)
		buf = append(buf, ' ')
	}
	buf = append(buf, '\n')
	for _, v := range b.Vectors {
		if len(v.IDs) != len(v.Vals) {
			return fmt.Errorf("nbest: vector has %d ids and %d values", len(v.IDs), len(v.Vals))
		}
		for _, id := range ids {
			x := 0.0
			if id >= 0 {
				x = v.At(id)
			}
			if !finite(x) {
				return fmt.Errorf("nbest: sentence %d: value %v", b.Sentence, x)
			}
			buf = appendNum(buf, x, w.Precision)
			buf = append(buf, ' ')
		}
		for k, id := range v.IDs {
			if int(id) < len(isDense) && isDense[id] {
				continue
			}
			if id < 0 || int(id) >= w.idx.Len() {
				return fmt.Errorf("nbest: feature id %d not in the index", id)
			}
			name := w.idx.Name(id)
			x := v.Vals[k]
			if !validStatName(name) {
				return fmt.Errorf("%w: feature %q", ErrBadName, name)
			}
			if !finite(x) {
				return fmt.Errorf("nbest: sentence %d: feature %s is %v", b.Sentence, name, x)
			}
			if x == 0 {
				continue
			}
			buf = append(buf, name...)
			buf = append(buf, '=')
			buf = appendNum(buf, x, w.Precision)
			buf = append(buf, ' ')
		}
		buf = append(buf, '\n')
	}
	return w.writeBlock(&w.buf, buf, featEnd)
}

// ScoreStatWriter writes SCORESTAT blocks byte for byte as Moses'
// extractor does.
type ScoreStatWriter struct {
	// Precision is the number of significant digits of the statistics.
	// The zero value means 6, as Moses writes; -1 means the shortest
	// form that reads back exactly.
	Precision int

	bufWriter
	buf []byte
}

// NewScoreStatWriter returns a writer to w.
func NewScoreStatWriter(w io.Writer) *ScoreStatWriter {
	return &ScoreStatWriter{bufWriter: newBufWriter(w)}
}

// Write writes one block. Every row must have the length of the first;
// the metric name must be one token.
func (w *ScoreStatWriter) Write(b ScoreBlock) error {
	if b.Sentence < 0 {
		return fmt.Errorf("nbest: negative sentence id %d", b.Sentence)
	}
	if !validStatName(b.Metric) {
		return fmt.Errorf("%w: metric %q", ErrBadName, b.Metric)
	}
	n := 0
	if len(b.Stats) > 0 {
		n = len(b.Stats[0])
	}
	buf := fmt.Appendf(w.buf[:0], "%s %d %d %d %s\n", scoreBegin, b.Sentence, len(b.Stats), n, b.Metric)
	for _, row := range b.Stats {
		if len(row) != n {
			return fmt.Errorf("nbest: sentence %d: rows of %d and %d statistics", b.Sentence, n, len(row))
		}
		for _, x := range row {
			if !finite(x) {
				return fmt.Errorf("nbest: sentence %d: statistic %v", b.Sentence, x)
			}
			buf = appendNum(buf, x, w.Precision)
			buf = append(buf, ' ')
		}
		buf = append(buf, '\n')
	}
	return w.writeBlock(&w.buf, buf, scoreEnd)
}
