package weights

import (
	"errors"

	"github.com/mtune/mtune/internal/textpos"
)

// Sentinel errors a *ParseError unwraps to. ErrSyntax, ErrNumber and
// ErrCount are the same errors as those of mtune's other parsers
// (model.ErrSyntax, nbest.ErrBadNumber, nbest.ErrColumnCount, …).
var (
	// ErrSyntax marks a malformed line: a value before any label, a
	// malformed section header, a bad name.
	ErrSyntax = textpos.ErrSyntax
	// ErrNumber marks a value that is not a finite float64 (garbage, NaN,
	// ±Inf, out of range).
	ErrNumber = textpos.ErrNumber
	// ErrNoValues marks a label with no values after it.
	ErrNoValues = errors.New("label has no values")
	// ErrDuplicate marks a name or label given twice where that is not
	// allowed (sparse names, JSON labels).
	ErrDuplicate = errors.New("duplicate name")
	// ErrCount marks a list whose number of values differs from the number
	// of names.
	ErrCount = textpos.ErrCount
	// ErrEmpty marks input that holds no weights.
	ErrEmpty = errors.New("no weights")
	// ErrVersion marks a JSON document of an unknown version.
	ErrVersion = errors.New("unsupported version")
)

// ParseError is the error of a reader for malformed input. File is empty
// for the io.Reader functions and set to the path by the path-based ones.
// Line and Column are 1-based; zero means unknown or not applicable.
type ParseError = textpos.ParseError[pkgPrefix]

// pkgPrefix starts the messages of this package's ParseError.
type pkgPrefix struct{}

func (pkgPrefix) Prefix() string { return "weights" }

// errAt builds a *ParseError for line and column with a message wrapping
// the sentinel kind.
func errAt(line, col int, kind error, format string, args ...any) *ParseError {
	return textpos.At[pkgPrefix]("", line, col, kind, format, args...)
}

// withFile sets the file name of a *ParseError inside err, or prefixes
// other errors with it.
func withFile(err error, file string) error {
	return textpos.WithFile[pkgPrefix](err, file)
}
