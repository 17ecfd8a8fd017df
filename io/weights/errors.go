package weights

import (
	"errors"
	"fmt"

	"github.com/mtune/mtune/internal/textpos"
)

// Sentinel errors a *ParseError unwraps to.
var (
	// ErrSyntax marks a malformed line: a value before any label, a
	// malformed section header, a bad name.
	ErrSyntax = errors.New("syntax error")
	// ErrNumber marks a value that is not a finite float64 (garbage, NaN,
	// ±Inf, out of range).
	ErrNumber = errors.New("bad number")
	// ErrNoValues marks a label with no values after it.
	ErrNoValues = errors.New("label has no values")
	// ErrDuplicate marks a name or label given twice where that is not
	// allowed (sparse names, JSON labels).
	ErrDuplicate = errors.New("duplicate name")
	// ErrCount marks a list whose number of values differs from the number
	// of names.
	ErrCount = errors.New("wrong number of values")
	// ErrEmpty marks input that holds no weights.
	ErrEmpty = errors.New("no weights")
	// ErrVersion marks a JSON document of an unknown version.
	ErrVersion = errors.New("unsupported version")
)

// ParseError is the error of a reader for malformed input. File is empty
// for the io.Reader functions and set to the path by the path-based ones.
// Line and Column are 1-based; zero means unknown or not applicable.
type ParseError struct {
	File   string
	Line   int
	Column int
	Err    error
}

func (e *ParseError) Error() string {
	return textpos.Format("weights", e.File, e.Line, e.Column, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// errAt builds a *ParseError for line and column with a message wrapping
// the sentinel kind.
func errAt(line, col int, kind error, format string, args ...any) *ParseError {
	var err error
	if format == "" {
		err = kind
	} else {
		err = fmt.Errorf("%w: "+format, append([]any{kind}, args...)...)
	}
	return &ParseError{Line: line, Column: col, Err: err}
}

// withFile sets the file name of a *ParseError inside err, or prefixes
// other errors with it.
func withFile(err error, file string) error {
	if err == nil {
		return nil
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		if pe.File == "" {
			pe.File = file
		}
		return err
	}
	return fmt.Errorf("weights: %s: %w", file, err)
}
