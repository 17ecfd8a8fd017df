package model

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mtune/mtune/internal/textpos"
)

// maxAlignPos bounds the word positions of an alignment point, which are
// stored in one byte each.
const maxAlignPos = 255

// phraseLine is the parse of one phrase-table line. Its slices are views
// into the line or scratch reused from line to line.
type phraseLine struct {
	fields    []field
	src, tgt  [][]byte
	srcCol    []int32 // 1-based column of each source word, for errors
	tgtCol    []int32
	scores    []float32
	align     []uint8 // source, target position of each point
	counts    []float32
	hasCounts bool
	// The previous line's source phrase: its trimmed bytes, which must
	// stay valid while the parser is used, and its indentation.
	srcB    []byte
	srcLead int32
	newSrc  bool // the source differs from the previous line's
}

// parse parses line (without its '\n'; blank lines are the caller's). It
// does not check that words are valid UTF-8: the caller does that once per
// distinct word.
func (p *phraseLine) parse(line []byte) *lineError {
	p.fields = splitFields(p.fields, line)
	f := p.fields
	if err := checkPhraseFields(f); err != nil {
		return err
	}
	// Consecutive lines usually share the source phrase: keep its words.
	srcB := trimBlank(f[0].b)
	lead := int32(len(f[0].b) - len(bytes.TrimLeft(f[0].b, " \t\r")))
	if p.srcB == nil || string(srcB) != string(p.srcB) {
		p.src, p.srcCol = words(p.src[:0], p.srcCol[:0], f[0])
		p.srcB = srcB
		p.newSrc = true
	} else {
		p.newSrc = false
		for i := range p.srcCol { // columns move with the indentation
			p.srcCol[i] += lead - p.srcLead
		}
	}
	p.srcLead = lead
	p.tgt, p.tgtCol = words(p.tgt[:0], p.tgtCol[:0], f[1])

	p.scores = p.scores[:0]
	for w, s, _ := nextWord(f[2].b, 0); w != nil; w, s, _ = nextWord(f[2].b, s+len(w)) {
		x, ok := parseProb(w)
		if !ok {
			return lineErr(f[2].off+s+1, ErrNumber, "score %s is not a finite number ≥ 0", textpos.Quote(w))
		}
		p.scores = append(p.scores, x)
	}
	if len(p.scores) == 0 {
		return lineErr(f[2].off+1, ErrCount, "no scores")
	}

	p.align = p.align[:0]
	if len(f) > 3 {
		for w, s, _ := nextWord(f[3].b, 0); w != nil; w, s, _ = nextWord(f[3].b, s+len(w)) {
			i := bytes.IndexByte(w, '-')
			var a, b int
			ok := i > 0
			if ok {
				a, ok = parseUint(w[:i])
			}
			if ok {
				b, ok = parseUint(w[i+1:])
			}
			if !ok {
				return lineErr(f[3].off+s+1, ErrSyntax, "alignment point %s is not \"i-j\"", textpos.Quote(w))
			}
			if a >= len(p.src) || b >= len(p.tgt) || a > maxAlignPos || b > maxAlignPos {
				return lineErr(f[3].off+s+1, ErrSyntax, "alignment point %s outside the %d×%d phrase pair", textpos.Quote(w), len(p.src), len(p.tgt))
			}
			p.align = append(p.align, uint8(a), uint8(b))
		}
	}

	p.counts = p.counts[:0]
	p.hasCounts = len(f) > 4
	if p.hasCounts {
		for w, s, _ := nextWord(f[4].b, 0); w != nil; w, s, _ = nextWord(f[4].b, s+len(w)) {
			x, ok := parseProb(w)
			if !ok {
				return lineErr(f[4].off+s+1, ErrNumber, "count %s is not a finite number ≥ 0", textpos.Quote(w))
			}
			p.counts = append(p.counts, x)
		}
	}
	if len(f) > 5 {
		if t := trimBlank(f[5].b); len(t) > 0 {
			return lineErr(f[5].off+1, ErrUnsupported, "sparse phrase-table features %s", textpos.Quote(t))
		}
	}
	if len(f) > 6 && !utf8.Valid(f[6].b) {
		return lineErr(f[6].off+1, ErrUTF8, "")
	}
	return nil
}

// checkPhraseFields checks that a phrase-table line split into f has 3 to
// 7 "|||" fields.
func checkPhraseFields(f []field) *lineError {
	if len(f) < 3 {
		return lineErr(0, ErrSyntax, "want at least 3 fields \"source ||| target ||| scores\", have %d", len(f))
	}
	if len(f) > 7 {
		return lineErr(f[7].off-2, ErrSyntax, "more than 7 fields")
	}
	return nil
}

// words appends the words of f and their 1-based columns.
func words(dst [][]byte, cols []int32, f field) ([][]byte, []int32) {
	for w, s, _ := nextWord(f.b, 0); w != nil; w, s, _ = nextWord(f.b, s+len(w)) {
		dst = append(dst, w)
		cols = append(cols, int32(f.off+s+1))
	}
	return dst, cols
}

// PhrasePair is one entry of a phrase table, as ParsePhraseLine returns
// it and AppendPhraseLine writes it.
type PhrasePair struct {
	Source, Target []string
	// Scores are the feature scores as the file holds them: probabilities
	// (and Moses' old phrase penalty column 2.718), not logs.
	Scores []float32
	// Alignment holds the alignment points as source, target position
	// pairs: 0-1 2-2 is {0, 1, 2, 2}. Nil when the line has none.
	Alignment []int
	// Counts are the counts field (Moses writes c(e) c(f) c(e,f)); nil
	// when the line has no counts field.
	Counts []float32
}

// ParsePhraseLine parses one line of a Moses phrase table,
//
//	source words ||| target words ||| scores [||| alignment [||| counts [||| sparse [||| properties]]]]
//
// without its newline (a trailing '\r' is dropped, a '\n' inside is an
// error). Errors are *ParseError values with the column set and the line
// number 0. See the package documentation for what is checked.
func ParsePhraseLine(line string) (PhrasePair, error) {
	var p phraseLine
	b, err0 := oneLine(line)
	if err0 != nil {
		return PhrasePair{}, err0
	}
	if err := p.parse(b); err != nil {
		return PhrasePair{}, err.at("", 0)
	}
	if len(p.src) == 0 {
		return PhrasePair{}, errAt("", 0, 1, ErrSyntax, "empty source phrase")
	}
	var pp PhrasePair
	var err *ParseError
	if pp.Source, err = wordStrings(p.src, p.srcCol); err != nil {
		return PhrasePair{}, err
	}
	if pp.Target, err = wordStrings(p.tgt, p.tgtCol); err != nil {
		return PhrasePair{}, err
	}
	pp.Scores = append([]float32(nil), p.scores...)
	if len(p.align) > 0 {
		pp.Alignment = make([]int, len(p.align))
		for i, a := range p.align {
			pp.Alignment[i] = int(a)
		}
	}
	if p.hasCounts {
		pp.Counts = append([]float32{}, p.counts...)
	}
	return pp, nil
}

func wordStrings(ws [][]byte, cols []int32) ([]string, *ParseError) {
	out := make([]string, len(ws))
	for i, w := range ws {
		if !utf8.Valid(w) {
			return nil, errAt("", 0, int(cols[i]), ErrUTF8, "word %s", textpos.Quote(w))
		}
		out[i] = string(w)
	}
	return out, nil
}

// AppendPhraseLine appends p to dst as a phrase-table line with its
// newline, in the layout Moses' training writes: the alignment and counts
// fields are written when p has them (an empty alignment field when
// Counts is set and Alignment is not). Numbers are written with
// strconv.FormatFloat(x, 'g', -1, 32), which reads back to the same
// float32. It returns an error, and dst unchanged, when p cannot be read
// back: an empty source, a word that is empty or holds a space, tab,
// newline or "|||",
// invalid UTF-8, no scores, a score that is not finite and ≥ 0, an
// alignment of odd length or outside the phrases.
func AppendPhraseLine(dst []byte, p PhrasePair) ([]byte, error) {
	if err := checkEntry(p.Source, p.Target, p.Scores); err != nil {
		return dst, err
	}
	if err := checkProbs(p.Counts); err != nil {
		return dst, err
	}
	if len(p.Alignment)%2 != 0 {
		return dst, errAt("", 0, 0, ErrSyntax, "alignment of odd length %d", len(p.Alignment))
	}
	for i := 0; i < len(p.Alignment); i += 2 {
		a, b := p.Alignment[i], p.Alignment[i+1]
		if a < 0 || b < 0 || a >= len(p.Source) || b >= len(p.Target) || a > maxAlignPos || b > maxAlignPos {
			return dst, errAt("", 0, 0, ErrSyntax, "alignment point %d-%d outside the %d×%d phrase pair", a, b, len(p.Source), len(p.Target))
		}
	}
	dst = appendWords(dst, p.Source)
	dst = append(dst, " ||| "...)
	dst = appendWords(dst, p.Target)
	dst = append(dst, " ||| "...)
	dst = appendFloats(dst, p.Scores)
	if len(p.Alignment) > 0 || p.Counts != nil {
		dst = append(dst, " ||| "...)
		for i := 0; i < len(p.Alignment); i += 2 {
			if i > 0 {
				dst = append(dst, ' ')
			}
			dst = strconv.AppendInt(dst, int64(p.Alignment[i]), 10)
			dst = append(dst, '-')
			dst = strconv.AppendInt(dst, int64(p.Alignment[i+1]), 10)
		}
	}
	if p.Counts != nil {
		dst = append(dst, " ||| "...)
		dst = appendFloats(dst, p.Counts)
	}
	return append(dst, '\n'), nil
}

// oneLine returns line without a trailing '\r', refusing a '\n' in it.
func oneLine(line string) ([]byte, *ParseError) {
	line = strings.TrimSuffix(line, "\r")
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		return nil, errAt("", 0, i+1, ErrSyntax, "newline inside a line")
	}
	return []byte(line), nil
}

func checkWords(ws []string) error {
	for _, w := range ws {
		if w == "" || strings.ContainsAny(w, " \t\n") || strings.Contains(w, "|||") || !utf8.ValidString(w) {
			return errAt("", 0, 0, ErrSyntax, "word %q cannot be written", w)
		}
	}
	return nil
}

// checkEntry checks what every table line written needs: a source
// phrase, words that read back and at least one score, each finite and ≥ 0.
func checkEntry(src, tgt []string, scores []float32) error {
	if len(src) == 0 {
		return errAt("", 0, 0, ErrSyntax, "empty source phrase")
	}
	if err := checkWords(src); err != nil {
		return err
	}
	if err := checkWords(tgt); err != nil {
		return err
	}
	if len(scores) == 0 {
		return errAt("", 0, 0, ErrCount, "no scores")
	}
	return checkProbs(scores)
}

func checkProbs(xs []float32) error {
	for _, x := range xs {
		if !(x >= 0) || math.IsInf(float64(x), 0) {
			return errAt("", 0, 0, ErrNumber, "value %v is not a finite number ≥ 0", x)
		}
	}
	return nil
}

func appendWords(dst []byte, ws []string) []byte {
	for i, w := range ws {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, w...)
	}
	return dst
}

func appendFloats(dst []byte, xs []float32) []byte {
	for i, x := range xs {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = strconv.AppendFloat(dst, float64(x), 'g', -1, 32)
	}
	return dst
}
