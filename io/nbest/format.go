package nbest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/enum"
	"github.com/mtune/mtune/internal/textpos"
)

// Format names an n-best list format. The zero value is FormatAuto. A
// *Format is a flag.Value (`--nbest-format`).
type Format int

const (
	// FormatAuto detects the format from the list's first lines
	// (DetectLine).
	FormatAuto Format = iota
	// FormatMoses is Moses', Joshua's, cdec's and Travatar's lists
	// (Reader).
	FormatMoses
	// FormatMarian is marian-decoder's and marian-scorer's --n-best
	// output (MarianReader).
	FormatMarian
	// FormatFairseq is fairseq-generate's and fairseq-interactive's
	// output (FairseqReader).
	FormatFairseq
	// FormatSockeye is Sockeye's JSON lines (SockeyeReader).
	FormatSockeye
)

// formatNames are the names String gives the formats and ParseFormat
// takes.
var formatNames = []string{FormatAuto: "auto", FormatMoses: "moses", FormatMarian: "marian",
	FormatFairseq: "fairseq", FormatSockeye: "sockeye"}

func (f Format) String() string { return enum.Name(f, formatNames, "Format") }

// FormatNames returns the names of the formats, "auto" first.
func FormatNames() []string { return append([]string(nil), formatNames...) }

// ErrFormat: a format name that is none of FormatNames.
var ErrFormat = errors.New("unknown n-best format")

// ParseFormat returns the format named s (FormatNames; case matters not).
func ParseFormat(s string) (Format, error) {
	for f, name := range formatNames {
		if strings.EqualFold(s, name) {
			return Format(f), nil
		}
	}
	return FormatAuto, fmt.Errorf("%w %s: choose from %s", ErrFormat, textpos.Quote(s), strings.Join(formatNames, ", "))
}

// Set sets f to the format named s, for the flag package.
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
func (f Format) HasDetok() bool { return f == FormatFairseq }

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
	switch f {
	case FormatMoses:
		return NewReader(r, name, idx), nil
	case FormatMarian:
		return NewMarianReader(r, name, idx), nil
	case FormatFairseq:
		return NewFairseqReader(r, name, idx), nil
	case FormatSockeye:
		return NewSockeyeReader(r, name, idx), nil
	}
	return nil, fmt.Errorf("nbest: %s: %w %v", name, ErrFormat, f)
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
			return 0, nil, err
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
