package build

import (
	"errors"

	"github.com/mtune/mtune/internal/textpos"
)

// Sentinel errors a *ParseError (or an error of Run) unwraps to.
// ErrLineCount is the same error as corpus.ErrLineCount.
var (
	// ErrAlignment marks an alignment token that is not "i-j" with i and j
	// non-negative decimal integers.
	ErrAlignment = errors.New("bad alignment point")
	// ErrOutOfRange marks an alignment point whose source or target
	// position is not a token of its sentence pair.
	ErrOutOfRange = errors.New("alignment point out of range")
	// ErrLineCount marks source, target and alignment files with different
	// numbers of lines, or fewer lines than the requested range.
	ErrLineCount = textpos.ErrLineCount
	// ErrToken marks a token "|||", the field separator of Moses' tables.
	ErrToken = errors.New(`token "|||"`)
	// ErrTooLong marks a sentence of more than 65535 tokens.
	ErrTooLong = errors.New("sentence too long")
	// ErrEmpty marks a bitext with no sentence pair to extract from.
	ErrEmpty = errors.New("no sentence pairs")
	// ErrOptions marks invalid Options (bad line range, phrase length, LM
	// order, missing paths).
	ErrOptions = errors.New("invalid options")
)

// ParseError is the error of malformed input. File is the path of the
// file, Line the 1-based line number in it and Column the 1-based byte
// offset of the offending token; zero means unknown.
type ParseError = textpos.ParseError[pkgPrefix]

// pkgPrefix starts the messages of this package's ParseError.
type pkgPrefix struct{}

func (pkgPrefix) Prefix() string { return "build" }

// errAt builds a *ParseError wrapping kind with a formatted detail.
func errAt(file string, line, col int, kind error, format string, args ...any) *ParseError {
	return textpos.At[pkgPrefix](file, line, col, kind, format, args...)
}
