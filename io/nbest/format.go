package nbest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/spec"
	"github.com/mtune/mtune/internal/textpos"
)

// Format is an n-best list format with its options, a choice registered
// in Formats (--nbest-format moses, marian, fairseq, sockeye; auto). The
// zero value is FormatAuto. A *Format is a flag.Value. Formats compare
// with ==: two values are one format with the same options.
type Format struct{ f format }

// format is one registered format: its options struct (comparable, its
// fields tagged spec:"key" as internal/spec declares them), which opens
// its reader.
type format interface {
	// spec is the format's canonical spec ("marian").
	spec() string
	// open returns the reader of the list r in this format.
	open(r io.Reader, name string, idx *feature.Index) SentenceReader
}

// detoker is the behaviour of a format whose lists give a hypothesis a
// detokenized text besides its target.
type detoker interface{ hasDetok() bool }

// Formats holds the n-best formats by name, each with its options (the
// idiom of every named choice: internal/spec). ParseFormat decodes a
// spec; help texts and docs list its names.
var Formats = &spec.Registry[Format]{Kind: "n-best format"}

// registerFormat adds the format name, read by readers of type T's open,
// to Formats; defaults is T at its default options.
func registerFormat[T format](name, summary string, defaults T) {
	spec.Register(Formats, name, summary, defaults, func(o T) (Format, error) {
		if c, ok := any(o).(interface{ check() error }); ok {
			if err := c.check(); err != nil {
				return Format{}, err
			}
		}
		return Format{o}, nil
	})
}

// autoFormat is FormatAuto's registration: it has no reader of its own.
type autoFormat struct{}

func init() {
	spec.Register(Formats, "auto", "detected from each list's first lines (DetectLine)", autoFormat{},
		func(autoFormat) (Format, error) { return FormatAuto, nil })
}

var (
	// FormatAuto detects the format from the list's first lines
	// (DetectLine).
	FormatAuto = Format{}
	// FormatMoses is Moses', Joshua's, cdec's and Travatar's lists
	// (Reader).
	FormatMoses = Format{mosesFormat{}}
	// FormatMarian is marian-decoder's and marian-scorer's --n-best
	// output (MarianReader).
	FormatMarian = Format{marianFormat{}}
	// FormatFairseq is fairseq-generate's and fairseq-interactive's
	// output (FairseqReader).
	FormatFairseq = Format{fairseqFormat{}}
	// FormatSockeye is Sockeye's JSON lines (SockeyeReader).
	FormatSockeye = Format{sockeyeFormat{}}
)

// String is the format's canonical spec: "auto", "marian", ….
func (f Format) String() string {
	if f.f == nil {
		return "auto"
	}
	return f.f.spec()
}

// FormatNames returns the names of the formats, "auto" first, the others
// sorted.
func FormatNames() []string {
	names := Formats.Names()
	i := slices.Index(names, "auto")
	return slices.Concat(names[i:i+1], names[:i], names[i+1:])
}

// ErrFormat: a format name that is none of FormatNames.
var ErrFormat = errors.New("unknown n-best format")

// ParseFormat returns the format spec s names, NAME[:KEY=VALUE…]
// (FormatNames; case matters not), with its options.
func ParseFormat(s string) (Format, error) {
	name, _, _ := strings.Cut(s, ":")
	if names := FormatNames(); !slices.Contains(names, strings.ToLower(strings.TrimSpace(name))) {
		return FormatAuto, fmt.Errorf("%w %s: choose from %s", ErrFormat, textpos.Quote(s), strings.Join(names, ", "))
	}
	f, _, err := Formats.Parse(s)
	if err != nil {
		return FormatAuto, fmt.Errorf("nbest: %w", err)
	}
	return f, nil
}

// Set sets f to the format spec s names, for the flag package.
func (f *Format) Set(s string) error {
	x, err := ParseFormat(s)
	if err != nil {
		return err
	}
	*f = x
	return nil
}

// HasDetok reports whether lists of format f give a hypothesis a
// detokenized text besides its target (Hypothesis.Detok): fairseq's, whose
// D- lines hold it.
func (f Format) HasDetok() bool {
	d, ok := f.f.(detoker)
	return ok && d.hasDetok()
}

// SentenceReader reads an n-best list of any format sentence by
// sentence. Reader (Moses), MarianReader, FairseqReader and SockeyeReader
// implement it; NewSentenceReader returns the one a format names.
type SentenceReader interface {
	// ReadSentence returns the next sentence's 0-based id and its
	// hypotheses, each with its target text, its features (interned in
	// the reader's index) and the file and line it was read from
	// (Hypothesis.Pos). Sentences come in the order the format gives
	// (increasing ids for fairseq). At the end of the input it returns
	// io.EOF; a malformed line gives a *ParseError naming its file, line
	// and column. Errors are sticky.
	ReadSentence() (id int, hyps []Hypothesis, err error)
	// SentenceLine returns the line of the first hypothesis of the
	// sentence ReadSentence last returned.
	SentenceLine() int
	// Groups returns the dense feature groups read so far, in order of
	// first appearance, each with its largest number of components.
	Groups() []feature.Group
	// Format returns the format the reader reads.
	Format() Format
}

// NewSentenceReader returns a reader of the list r in format f; name (a
// file name) appears in errors, and feature names are interned in idx.
// FormatAuto detects the format with DetectLine from the first line it
// recognises, looking at most at the first DetectBytes bytes (fairseq
// writes its log lines before the hypotheses), and takes FormatMoses when
// no line is recognised, so that the Moses reader reports the first bad
// line. Only a read error is returned as an error here.
func NewSentenceReader(r io.Reader, name string, idx *feature.Index, f Format) (SentenceReader, error) {
	if f == FormatAuto {
		var err error
		if f, r, err = detect(r); err != nil {
			return nil, fmt.Errorf("nbest: %s: %w", name, err)
		}
	}
	return f.f.open(r, name, idx), nil
}

// DetectBytes is how much of a list FormatAuto looks at, at most.
const DetectBytes = 1 << 20

// detect reads lines of r until DetectLine recognises one, and returns
// the format and a reader that gives all of r again.
func detect(r io.Reader) (Format, io.Reader, error) {
	br := bufio.NewReaderSize(r, readBufSize)
	var seen bytes.Buffer
	again := func() io.Reader { return io.MultiReader(bytes.NewReader(seen.Bytes()), br) }
	lineStart := true
	for seen.Len() < DetectBytes {
		chunk, err := br.ReadSlice('\n')
		if lineStart {
			line := chunk
			if seen.Len() == 0 {
				line = bytes.TrimPrefix(line, textpos.BOM)
			}
			if f, ok := DetectLine(line); ok {
				seen.Write(chunk)
				return f, again(), nil
			}
		}
		seen.Write(chunk)
		lineStart = err == nil
		switch err {
		case nil, bufio.ErrBufferFull:
		case io.EOF:
			return FormatMoses, again(), nil
		default:
			return FormatAuto, nil, err
		}
	}
	return FormatMoses, again(), nil
}

// DetectLine returns the format a line of a list shows, if it shows one:
//
//   - a line that starts with "{" is Sockeye's JSON;
//   - a line that starts with a capital letter, "-", digits and a tab
//     ("S-0\t", "H-12\t", "E-3_1\t") is fairseq's;
//   - a line with "|||" is Marian's if it has at least four fields and
//     its third field is an alignment (hard "0-0 1-1" or soft "0.9,0.1
//     0.2,0.8"), starts with "WordScores=", or starts with the label "F0="
//     that Marian gives its first model; otherwise it is Moses' (or
//     cdec's, Joshua's, Travatar's).
//
// Blank lines and others (fairseq's log lines) show none.
func DetectLine(line []byte) (Format, bool) {
	t := spaceTab.Trim(bytes.TrimRight(line, "\r\n"))
	switch {
	case len(t) == 0:
		return FormatAuto, false
	case t[0] == '{':
		return FormatSockeye, true
	}
	if _, _, _, ok := fairseqLine(t); ok {
		return FormatFairseq, true
	}
	if !bytes.Contains(t, sep) {
		return FormatAuto, false
	}
	fields := bytes.SplitN(t, sep, 4)
	if len(fields) < 4 {
		return FormatMoses, true
	}
	f := spaceTab.Trim(fields[2])
	if bytes.HasPrefix(f, wordScores) || bytes.HasPrefix(f, []byte("F0=")) {
		return FormatMarian, true
	}
	if len(f) > 0 && alignmentKind(f) != notAlignment {
		return FormatMarian, true
	}
	return FormatMoses, true
}
