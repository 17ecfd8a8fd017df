package nbest

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/textpos"
)

// FairseqFeature is the dense group of the score fairseq gives a
// hypothesis: its feature is feature.DenseName(FairseqFeature, 0),
// "fairseq_0", weighted by a weights file's "fairseq= w" line.
const FairseqFeature = "fairseq"

// FairseqReader reads the output of fairseq-generate and
// fairseq-interactive (fairseq_cli/generate.py and interactive.py), which
// print, for each input sentence id, lines
//
//	S-id<TAB>source                  (ignored)
//	T-id<TAB>reference               (ignored)
//	H-id<TAB>score<TAB>tokens        a hypothesis, once per --nbest
//	D-id<TAB>score<TAB>detokenized   after its H- line
//	P-id<TAB>positional scores       (ignored; as A-, I-, E-, W-, C-)
//
// for example
//
//	H-0	-1.5333266258239746	Mach@@ ine trans@@ lation is hard to influence .
//	D-0	-1.5333266258239746	Machine translation is hard to influence .
//
// gives Sentence 0, Target the H- tokens (after --remove-bpe when given),
// Detok the D- text, Features fairseq_0 = -1.5333266258239746 and Score
// the same with HasScore. Log lines, which fairseq-generate writes to the
// same stream, and every line that does not start with a capital letter,
// "-", an id and a tab are skipped; an H- or D- line that is malformed is
// an error, as is a D- line that does not follow an H- line of its id.
//
// fairseq prints scores in base 2 since January 2020 (commit 660d69f,
// "Print base 2 scores"; the log says "NOTE: hypothesis and token scores
// are output in base 2"), natural logarithms before: the reader does not
// convert them. A linear model only scales the feature's weight by ln 2,
// but weights tuned on lists of one kind do not carry over to the other.
//
// fairseq-generate prints sentences in the order of its batches, which
// are sorted by length: the reader reads the whole list and returns the
// sentences in increasing id order. The ids are the 0-based positions of
// the sentences in the data set (and in the references); a sentence
// fairseq skipped (--skip-invalid-size-inputs-valid-test) is missing. A
// sentence's H- lines must be together. An input with lines but no H- line
// (fairseq's --quiet, or another format) is an error.
type FairseqReader struct {
	lr   lineReader
	name string
	idx  *feature.Index
	err  error // sticky

	loaded   bool
	sents    []fairseqSentence // in increasing id order, once loaded
	next     int
	sentLine int
	id       feature.ID // fairseq_0
}

type fairseqSentence struct {
	id   int
	hyps []Hypothesis
}

// NewFairseqReader returns a reader of fairseq's output r; name appears
// in errors, the feature name is interned in idx.
func NewFairseqReader(r io.Reader, name string, idx *feature.Index) *FairseqReader {
	return &FairseqReader{lr: newLineReader(r), name: name, idx: idx}
}

// Format returns FormatFairseq.
func (f *FairseqReader) Format() Format { return FormatFairseq }

// Groups returns the group fairseq (one component) once a hypothesis has
// been read.
func (f *FairseqReader) Groups() []feature.Group {
	if len(f.sents) == 0 {
		return nil
	}
	return []feature.Group{{Label: FairseqFeature, Len: 1}}
}

// SentenceLine returns the line of the first H- line of the sentence
// ReadSentence last returned.
func (f *FairseqReader) SentenceLine() int { return f.sentLine }

// ReadSentence returns the next sentence in id order (SentenceReader).
// The first call reads the whole input.
func (f *FairseqReader) ReadSentence() (int, []Hypothesis, error) {
	if !f.loaded {
		if f.err == nil {
			f.err = f.load()
		}
		f.loaded = true
	}
	if f.err != nil {
		return 0, nil, f.err
	}
	if f.next == len(f.sents) {
		return 0, nil, io.EOF
	}
	s := f.sents[f.next]
	f.next++
	f.sentLine = s.hyps[0].Line
	return s.id, s.hyps, nil
}

func (f *FairseqReader) errAt(col int, err error) error {
	return &ParseError{File: f.name, Line: f.lr.line, Column: col, Err: err}
}

// load reads the input and sorts its sentences.
func (f *FairseqReader) load() error {
	f.id = f.idx.ID(feature.DenseName(FairseqFeature, 0))
	at := map[int]int{}      // index in f.sents by id
	lastH := -1              // index in f.sents of the last H- line's sentence
	haveDetok := false       // the last hypothesis has its D- line
	lines, firstLine := 0, 0 // non-blank lines, and the first
	for {
		line, complete, err := f.lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if len(spaceTab.Trim(line)) == 0 {
			continue
		}
		lines++
		if firstLine == 0 {
			firstLine = f.lr.line
		}
		kind, id, rest, ok := fairseqLine(line)
		if !ok {
			if bytes.HasPrefix(line, []byte("H-")) || bytes.HasPrefix(line, []byte("D-")) {
				return cutOff(f.errAt(1, textpos.Detail(ErrBadField,
					fmt.Sprintf("%c- line without \"%c-id<TAB>\"", line[0], line[0]))), complete)
			}
			continue
		}
		if kind != 'H' && kind != 'D' {
			continue
		}
		if k, bad := invalidUTF8(line); bad {
			return f.errAt(k+1, ErrInvalidUTF8)
		}
		off := len(line) - len(rest) // byte offset of the score
		tab := bytes.IndexByte(rest, '\t')
		if tab < 0 {
			return cutOff(f.errAt(len(line)+1, textpos.Detail(ErrNoHypothesis,
				fmt.Sprintf("%c-%d has no text field (%c-id<TAB>score<TAB>text)", kind, id, kind))), complete)
		}
		x, ok := parseNum(spaceTab.Trim(rest[:tab]))
		if !ok {
			return cutOff(f.errAt(off+1, &tokenError{"score", string(spaceTab.Trim(rest[:tab])), ErrBadNumber}), complete)
		}
		text := string(spaceTab.Trim(rest[tab+1:]))
		if kind == 'D' {
			if lastH < 0 || f.sents[lastH].id != id || haveDetok {
				return f.errAt(1, textpos.Detail(ErrBadField,
					fmt.Sprintf("D-%d does not follow an H-%d line", id, id)))
			}
			hs := f.sents[lastH].hyps
			hs[len(hs)-1].Detok = text
			haveDetok = true
			continue
		}
		k, seen := at[id]
		switch {
		case !seen:
			k = len(f.sents)
			at[id] = k
			f.sents = append(f.sents, fairseqSentence{id: id})
		case k != lastH:
			return f.errAt(1, textpos.Detail(ErrNotGrouped,
				fmt.Sprintf("sentence %d (its first H- line is line %d)", id, f.sents[k].hyps[0].Line)))
		}
		h := Hypothesis{Sentence: id, Target: text, Score: x, HasScore: true, File: f.name, Line: f.lr.line}
		if x != 0 {
			h.Features = feature.Vector{IDs: []feature.ID{f.id}, Vals: []float64{x}}
		}
		f.sents[k].hyps = append(f.sents[k].hyps, h)
		lastH, haveDetok = k, false
	}
	if lines > 0 && len(f.sents) == 0 {
		return &ParseError{File: f.name, Line: firstLine, Err: textpos.Detail(ErrNoHypothesis,
			fmt.Sprintf("no H- line in %d lines: not the output of fairseq-generate or fairseq-interactive (or it ran with --quiet)", lines))}
	}
	slices.SortFunc(f.sents, func(a, b fairseqSentence) int { return cmp.Compare(a.id, b.id) })
	return nil
}

// fairseqLine parses the start of a fairseq output line, "X-id<TAB>" or
// "X-id_step<TAB>" (E- lines) with X a capital letter, and returns X, the
// id and the rest after the tab.
func fairseqLine(line []byte) (kind byte, id int, rest []byte, ok bool) {
	if len(line) < 4 || line[0] < 'A' || line[0] > 'Z' || line[1] != '-' {
		return 0, 0, nil, false
	}
	tab := bytes.IndexByte(line, '\t')
	if tab < 3 {
		return 0, 0, nil, false
	}
	num := line[2:tab]
	if line[0] == 'E' {
		if u := bytes.IndexByte(num, '_'); u >= 0 {
			if _, ok := parseUint(num[u+1:]); !ok {
				return 0, 0, nil, false
			}
			num = num[:u]
		}
	}
	id, ok = parseUint(num)
	if !ok {
		return 0, 0, nil, false
	}
	return line[0], id, line[tab+1:], true
}

// fairseqFormat is the fairseq format's registration (Formats); it has no option.
type fairseqFormat struct{}

func init() {
	registerFormat("fairseq", "fairseq-generate's and fairseq-interactive's output (H-, D- lines)", fairseqFormat{})
}

func (fairseqFormat) spec() string { return "fairseq" }

func (fairseqFormat) open(r io.Reader, name string, idx *feature.Index) SentenceReader {
	return NewFairseqReader(r, name, idx)
}

func (fairseqFormat) hasDetok() bool { return true }
