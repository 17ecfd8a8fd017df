package nbest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/textpos"
)

// SockeyeFeature is the dense group of Sockeye's scores: component 0,
// feature.DenseName(SockeyeFeature, 0) = "sockeye_0", is the model's
// score, components 1, 2, … those of the target factors.
const SockeyeFeature = "sockeye"

// SockeyeReader reads the JSON lines of sockeye-translate --output-type
// json (sockeye/output_handler.py, JSONOutputHandler; the keys are
// TranslatorOutput.json's in sockeye/inference.py), one object a line, one
// line an input sentence. With --nbest-size N > 1 a line holds the n-best
// list:
//
//	{"score": 0.41, "scores": [[0.41], [0.57]], "sentence_id": 1, "translation": "ein Test", "translations": ["ein Test", "der Test"]}
//
// gives two hypotheses of sentence 0, "ein Test" with sockeye_0 = 0.41
// and "der Test" with sockeye_0 = 0.57. Sockeye 3 writes each element of
// "scores" as a list (the model's score, then each target factor's:
// sockeye_0, sockeye_1, …), Sockeye 1 and 2 as a number, as in
// "scores": [0.41, 0.57]; both are read. Without "translations" (N = 1)
// the line is one hypothesis: "translation" with "score" and the
// "factorK_score" keys as components 1, 2, …. Score (with HasScore) is
// component 0.
//
// Sockeye's scores are costs, negative log-probabilities (normalised by
// the length penalty): lower is better, so the weight of sockeye_0 that
// ranks as Sockeye does is negative. They are not negated here.
//
// "sentence_id" counts input lines from 1 in sockeye-translate: as for
// Marian lists, sentence = sentence_id − the first line's sentence_id.
// Without "sentence_id" (Sockeye 1's n-best lines have none) the k-th line
// is sentence k−1. Other keys (pass-through fields, alignments, factors)
// are ignored. A key given twice, a key of the wrong type (null is of no
// type mtune reads: "translation": null is an error, not an empty
// hypothesis; "sentence_id" is a number, "7" an error), "scores" of
// another length than "translations", a line without a translation, and
// scores that are not finite numbers (Python's json writes -Infinity for
// an input Sockeye could not translate) are errors. Every hypothesis must
// have as many components as the first (ErrDenseLayout).
type SockeyeReader struct {
	lr   lineReader
	name string
	idx  *feature.Index
	err  error // sticky

	lines    int  // sentence lines read
	base     int  // the first line's sentence_id
	withID   bool // the first line has a sentence_id
	seen     map[int]struct{}
	sentLine int

	width     int // components of the group, 0 before the first line
	widthLine int
	ids       []feature.ID
}

// NewSockeyeReader returns a reader of Sockeye's JSON lines r; name
// appears in errors, feature names are interned in idx.
func NewSockeyeReader(r io.Reader, name string, idx *feature.Index) *SockeyeReader {
	return &SockeyeReader{lr: newLineReader(r), name: name, idx: idx, seen: make(map[int]struct{})}
}

// Format returns FormatSockeye.
func (s *SockeyeReader) Format() Format { return FormatSockeye }

// Groups returns the group sockeye once a line has been read.
func (s *SockeyeReader) Groups() []feature.Group {
	if s.width == 0 {
		return nil
	}
	return []feature.Group{{Label: SockeyeFeature, Len: s.width}}
}

// SentenceLine returns the line of the sentence ReadSentence last
// returned.
func (s *SockeyeReader) SentenceLine() int { return s.sentLine }

// ReadSentence returns the hypotheses of the next line (SentenceReader).
func (s *SockeyeReader) ReadSentence() (int, []Hypothesis, error) {
	if s.err != nil {
		return 0, nil, s.err
	}
	id, hyps, err := s.read()
	if err != nil {
		s.err = err
		return 0, nil, err
	}
	return id, hyps, nil
}

func (s *SockeyeReader) errAt(col int, err error) error {
	return &ParseError{File: s.name, Line: s.lr.line, Column: col, Err: err}
}

// sockeyeLine is what a line holds, with the byte offset of each key for
// errors.
type sockeyeLine struct {
	id           *int
	translation  *string
	score        *float64
	translations []string
	scores       [][]float64
	factors      map[int]float64 // factorK_score by K
	at           map[string]int  // byte offset of each key read
}

func (s *SockeyeReader) read() (int, []Hypothesis, error) {
	var line []byte
	var complete bool
	for {
		var err error
		line, complete, err = s.lr.next()
		if err != nil {
			return 0, nil, err
		}
		if len(spaceTab.Trim(line)) > 0 {
			break
		}
	}
	if k, bad := invalidUTF8(line); bad {
		return 0, nil, s.errAt(k+1, ErrInvalidUTF8)
	}
	l, err := s.parse(line)
	if err != nil {
		return 0, nil, cutOff(err, complete)
	}

	// The sentence.
	s.lines++
	sent := s.lines - 1
	switch {
	case s.lines == 1:
		s.withID = l.id != nil
		if l.id != nil {
			s.base = *l.id
		}
	case s.withID != (l.id != nil):
		return 0, nil, s.errAt(1, textpos.Detail(ErrBadID, "sentence_id on some lines only"))
	}
	if s.withID {
		if *l.id < s.base {
			return 0, nil, s.errAt(l.at["sentence_id"]+1, textpos.Detail(ErrBadID,
				fmt.Sprintf("sentence_id %d is below the first line's %d", *l.id, s.base)))
		}
		sent = *l.id - s.base
		if _, dup := s.seen[sent]; dup {
			return 0, nil, s.errAt(l.at["sentence_id"]+1, textpos.Detail(ErrNotGrouped,
				fmt.Sprintf("sentence_id %d again", *l.id)))
		}
		s.seen[sent] = struct{}{}
	}

	// The hypotheses and their components.
	var texts []string
	var comps [][]float64
	if l.translations != nil {
		if l.scores == nil || len(l.scores) != len(l.translations) {
			return 0, nil, s.errAt(l.at["translations"]+1, textpos.Detail(ErrBadField,
				fmt.Sprintf("%d translations and %d scores", len(l.translations), len(l.scores))))
		}
		if len(l.translations) == 0 {
			return 0, nil, s.errAt(l.at["translations"]+1, textpos.Detail(ErrNoHypothesis, "empty \"translations\""))
		}
		texts, comps = l.translations, l.scores
	} else {
		if l.translation == nil {
			return 0, nil, s.errAt(1, textpos.Detail(ErrNoHypothesis, "neither \"translation\" nor \"translations\""))
		}
		if l.score == nil {
			return 0, nil, s.errAt(l.at["translation"]+1, textpos.Detail(ErrBadField, "\"translation\" without \"score\""))
		}
		c := []float64{*l.score}
		for k := 1; k <= len(l.factors); k++ {
			x, ok := l.factors[k]
			if !ok {
				return 0, nil, s.errAt(1, textpos.Detail(ErrBadField,
					fmt.Sprintf("factor%d_score missing before factor%d_score", k, len(l.factors))))
			}
			c = append(c, x)
		}
		texts, comps = []string{*l.translation}, [][]float64{c}
	}
	hyps := make([]Hypothesis, len(texts))
	for k, text := range texts {
		c := comps[k]
		if err := s.checkWidth(len(c), l.at); err != nil {
			return 0, nil, err
		}
		var ents []entry
		for i, x := range c {
			if x != 0 {
				ents = append(ents, entry{id: s.ids[i], x: x})
			}
		}
		hyps[k] = Hypothesis{Sentence: sent, Target: strings.Trim(text, " \t\r\v\f"), Features: vectorOf(ents),
			Score: c[0], HasScore: true, File: s.name, Line: s.lr.line}
	}
	s.sentLine = s.lr.line
	return sent, hyps, nil
}

// checkWidth checks that a hypothesis has the number of components of
// the first, which sets it.
func (s *SockeyeReader) checkWidth(n int, at map[string]int) error {
	if s.width == 0 {
		if n == 0 {
			return s.errAt(at["scores"]+1, textpos.Detail(ErrBadField, "a hypothesis with no score"))
		}
		s.width, s.widthLine = n, s.lr.line
		for i := range n {
			s.ids = append(s.ids, s.idx.ID(feature.DenseName(SockeyeFeature, i)))
		}
		return nil
	}
	if n != s.width {
		return s.errAt(at["scores"]+1, textpos.Detail(ErrDenseLayout,
			fmt.Sprintf("a hypothesis with %d scores, line %d has %d", n, s.widthLine, s.width)))
	}
	return nil
}

// parse reads the keys of a line that mtune uses.
func (s *SockeyeReader) parse(line []byte) (sockeyeLine, error) {
	l := sockeyeLine{at: map[string]int{}}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	syntax := func(err error) error { return s.jsonError(line, err) }
	tok, err := dec.Token()
	if err != nil {
		return l, syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return l, s.errAt(1, textpos.Detail(ErrBadField, "a line is not a JSON object"))
	}
	for dec.More() {
		off := int(dec.InputOffset())
		off += len(line[off:]) - len(bytes.TrimLeft(line[off:], " \t\r\n,"))
		tok, err := dec.Token()
		if err != nil {
			return l, syntax(err)
		}
		key := tok.(string) // object keys are strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return l, syntax(err)
		}
		if _, dup := l.at[key]; dup {
			return l, s.errAt(off+1, textpos.Detail(ErrDuplicate, textpos.Quote(key)))
		}
		l.at[key] = off
		bad := func(want string) error {
			return s.errAt(off+1, textpos.Detail(ErrBadField, fmt.Sprintf("%s: want %s", textpos.Quote(key), want)))
		}
		switch {
		case key == "sentence_id":
			id, ok := sockeyeID(raw)
			if !ok {
				return l, bad("a non-negative integer")
			}
			l.id = &id
		case key == "translation":
			var t string
			if isNull(raw) || json.Unmarshal(raw, &t) != nil {
				return l, bad("a string")
			}
			l.translation = &t
		case key == "translations":
			var elems []*string // a null element is nil
			if json.Unmarshal(raw, &elems) != nil || elems == nil || slices.Contains(elems, nil) {
				return l, bad("an array of strings")
			}
			l.translations = make([]string, len(elems))
			for k, e := range elems {
				l.translations[k] = *e
			}
		case key == "score":
			x, ok := jsonNumber(raw)
			if !ok {
				return l, bad("a number")
			}
			l.score = &x
		case key == "scores":
			var elems []json.RawMessage
			if json.Unmarshal(raw, &elems) != nil || elems == nil {
				return l, bad("an array of numbers or of arrays of numbers")
			}
			l.scores = make([][]float64, len(elems))
			for k, e := range elems {
				var ok bool
				if l.scores[k], ok = jsonNumbers(e); !ok {
					return l, bad("an array of numbers or of arrays of numbers")
				}
			}
		case strings.HasPrefix(key, "factor") && strings.HasSuffix(key, "_score"):
			k, err := strconv.Atoi(key[len("factor") : len(key)-len("_score")])
			if err != nil || k < 1 {
				continue
			}
			x, ok := jsonNumber(raw)
			if !ok {
				return l, bad("a number")
			}
			if l.factors == nil {
				l.factors = map[int]float64{}
			}
			l.factors[k] = x
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return l, syntax(err)
	}
	off := int(dec.InputOffset())
	if rest := bytes.TrimLeft(line[off:], " \t\r\v\f"); len(rest) > 0 {
		return l, s.errAt(len(line)-len(rest)+1, textpos.Detail(ErrBadField, "text after the JSON object"))
	}
	return l, nil
}

// ErrBadJSON: a Sockeye line is not valid JSON.
var ErrBadJSON = errors.New("bad JSON")

// jsonError is the error of a line a json.Decoder could not decode (err):
// a non-finite number as Python writes it (NaN, Infinity, -Infinity) is
// ErrBadNumber, anything else ErrBadJSON, at the byte where decoding the
// whole line stops.
func (s *SockeyeReader) jsonError(line []byte, err error) error {
	var se *json.SyntaxError
	if e := json.Unmarshal(line, new(any)); errors.As(e, &se) { // offsets from the line's start
		err = e
	} else {
		se = nil
	}
	off := len(line)
	if se != nil {
		off = int(se.Offset) - 1
	}
	off = max(0, min(off, len(line)))
	// Back up to the start of the token where decoding stopped.
	start := off
	for start > 0 && !bytes.ContainsRune([]byte(" \t,:[{"), rune(line[start-1])) {
		start--
	}
	end := start
	for end < len(line) && !bytes.ContainsRune([]byte(" \t,:]}"), rune(line[end])) {
		end++
	}
	switch tok := strings.TrimPrefix(string(line[start:end]), "-"); tok {
	case "NaN", "Infinity":
		return s.errAt(start+1, &tokenError{"score", string(line[start:end]), ErrBadNumber})
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) || (se != nil && se.Offset >= int64(len(line))) {
		return s.errAt(len(line)+1, textpos.Detail(ErrBadJSON, "the object is not closed"))
	}
	msg := err.Error()
	if se != nil {
		msg = se.Error()
	}
	return s.errAt(start+1, textpos.Detail(ErrBadJSON, msg))
}

// sockeyeID reads a sentence_id: a non-negative integer (sockeye-translate
// writes the input's line number; a string, even "7", or null is of the
// wrong type).
func sockeyeID(raw json.RawMessage) (int, bool) {
	var n json.Number
	if len(raw) == 0 || raw[0] == '"' || isNull(raw) || json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	return parseUint([]byte(n.String()))
}

// isNull reports whether raw is JSON's null, which json.Unmarshal takes
// for any type (leaving the zero value) but is no value of a key mtune
// reads.
func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

// jsonNumber reads a finite number.
func jsonNumber(raw json.RawMessage) (float64, bool) {
	if len(raw) == 0 || raw[0] == '"' || isNull(raw) {
		return 0, false
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	return parseNum([]byte(n.String()))
}

// jsonNumbers reads a number, as a list of one, or a list of numbers.
func jsonNumbers(raw json.RawMessage) ([]float64, bool) {
	if x, ok := jsonNumber(raw); ok {
		return []float64{x}, true
	}
	var ns []json.RawMessage
	if isNull(raw) || json.Unmarshal(raw, &ns) != nil {
		return nil, false
	}
	out := make([]float64, len(ns))
	for i, n := range ns {
		x, ok := jsonNumber(n)
		if !ok {
			return nil, false
		}
		out[i] = x
	}
	return out, true
}

// sockeyeFormat is the sockeye format's registration (Formats); it has no option.
type sockeyeFormat struct{}

func init() { registerFormat("sockeye", "sockeye-translate --output-type json lines", sockeyeFormat{}) }

func (sockeyeFormat) spec() string { return "sockeye" }

func (sockeyeFormat) open(r io.Reader, name string, idx *feature.Index) SentenceReader {
	return NewSockeyeReader(r, name, idx)
}
