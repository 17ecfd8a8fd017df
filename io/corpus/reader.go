package corpus

import (
	"errors"
	"io"
	"unicode/utf8"

	"github.com/mtune/mtune/internal/textpos"
)

// Sentinel errors. ErrInvalidUTF8 and ErrLineCount are the same errors as
// those of mtune's other parsers (nbest.ErrInvalidUTF8, build.ErrLineCount,
// …).
var (
	// ErrInvalidUTF8 marks a line that is not valid UTF-8.
	ErrInvalidUTF8 = textpos.ErrInvalidUTF8
	// ErrLineCount marks files of a tuning set with different numbers of
	// lines.
	ErrLineCount = textpos.ErrLineCount
	// ErrEmpty marks a tuning set with no sentences.
	ErrEmpty = errors.New("no sentences")
	// ErrEmptyLine marks an empty source line (or one of white space
	// only) where a caller refuses one (Scan).
	ErrEmptyLine = errors.New("empty source line")
	// ErrLongLine marks a source line of more words than a caller takes
	// (Scan).
	ErrLongLine = errors.New("source line too long")
)

// ParseError is the error of malformed input. File is empty for the
// io.Reader functions and set to the path by the path-based ones. Line and
// Column (a byte offset) are 1-based; zero means unknown.
type ParseError = textpos.ParseError[pkgPrefix]

// pkgPrefix starts the messages of this package's ParseError.
type pkgPrefix struct{}

func (pkgPrefix) Prefix() string { return "corpus" }

// Reader reads a file one line at a time. Lines may be of any length.
type Reader struct {
	lr  *textpos.LineReader
	err error
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	lr := textpos.NewLineReader(r, 64<<10)
	lr.BOMOnlyEmpty = true
	return &Reader{lr: lr}
}

// Line returns the number of the line Read returned last, 1-based.
func (r *Reader) Line() int { return r.lr.Line() }

// Offset returns the byte offset in the input at which the line after the
// one Read returned last starts.
func (r *Reader) Offset() int64 { return r.lr.Offset() }

// Read returns the next line without its newline (or "\r\n"), io.EOF after
// the last one, or a *ParseError for invalid UTF-8 or a failed read of the
// underlying reader. Errors are sticky.
func (r *Reader) Read() (string, error) {
	b, err := r.ReadBytes()
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// ReadBytes is Read returning a slice that is valid until the next call.
func (r *Reader) ReadBytes() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	b, err := r.lr.Next()
	if err == io.EOF {
		r.err = io.EOF
		return nil, r.err
	}
	if err != nil {
		r.err = &ParseError{Line: r.lr.Line() + 1, Err: err}
		return nil, r.err
	}
	if !utf8.Valid(b) {
		r.err = &ParseError{Line: r.lr.Line(), Column: invalidAt(b) + 1, Err: ErrInvalidUTF8}
		return nil, r.err
	}
	return b, nil
}

// invalidAt returns the byte offset of the first invalid UTF-8 in b.
func invalidAt(b []byte) int {
	off := 0
	for off < len(b) {
		c, size := utf8.DecodeRune(b[off:])
		if c == utf8.RuneError && size <= 1 {
			return off
		}
		off += size
	}
	return off
}

// ReadLines reads every line of r (see Reader). Empty input gives no lines
// and no error.
func ReadLines(r io.Reader) ([]string, error) {
	lr := NewReader(r)
	var out []string
	for {
		s, err := lr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
}
