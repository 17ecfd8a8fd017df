package model

import (
	"errors"

	"github.com/mtune/mtune/internal/textpos"
)

// Errors a reader reports inside a *ParseError. Test for them with
// errors.Is. ErrSyntax, ErrNumber, ErrCount and ErrUTF8 are the same errors
// as those of mtune's other parsers (weights.ErrSyntax, weights.ErrNumber,
// weights.ErrCount, nbest.ErrInvalidUTF8, …): a bad number in the [weight]
// section is both a model.ErrNumber and a weights.ErrNumber.
var (
	// ErrSyntax marks a malformed line: a missing "|||" field, a bad
	// section header, a feature argument without '=', a bad alignment
	// point.
	ErrSyntax = textpos.ErrSyntax
	// ErrNumber marks a score or count that is not a finite non-negative
	// number (garbage, NaN, ±Inf, a negative probability), or a setting
	// that is not a valid number.
	ErrNumber = textpos.ErrNumber
	// ErrCount marks a line whose number of scores or counts differs from
	// what the table or the feature declares.
	ErrCount = textpos.ErrCount
	// ErrUTF8 marks a word or value that is not valid UTF-8.
	ErrUTF8 = textpos.ErrInvalidUTF8
	// ErrUnsupported marks something Moses knows and this package does not
	// implement: a feature type, a moses.ini section, a feature argument, a
	// factor other than 0, a reordering model type.
	ErrUnsupported = errors.New("unsupported")
	// ErrEmpty marks input that holds no entry at all.
	ErrEmpty = errors.New("no entries")
	// ErrConfig marks a moses.ini whose parts do not fit together: weights
	// of the wrong length or naming no feature, a duplicate feature name, a
	// required argument missing, an unset ${NAME}.
	ErrConfig = errors.New("inconsistent configuration")
)

// ParseError is the error of a reader for malformed input: the file name
// given to the reader, the 1-based line (0 when it concerns the whole
// input), the 1-based byte column where the problem starts (0 when it
// concerns the whole line), and the underlying error, which wraps one of
// the Err variables.
type ParseError = textpos.ParseError[pkgPrefix]

// pkgPrefix starts the messages of this package's ParseError.
type pkgPrefix struct{}

func (pkgPrefix) Prefix() string { return "model" }

// errAt returns a *ParseError wrapping kind with a formatted detail.
func errAt(file string, line, col int, kind error, format string, args ...any) *ParseError {
	return textpos.At[pkgPrefix](file, line, col, kind, format, args...)
}

// lineError is a parse error inside one line, before the caller knows the
// file and line number; col is 1-based within the line, 0 for the whole
// line.
type lineError struct {
	col int
	err error
}

func (e *lineError) Error() string { return e.err.Error() }
func (e *lineError) Unwrap() error { return e.err }

func lineErr(col int, kind error, format string, args ...any) *lineError {
	return &lineError{col: col, err: textpos.Wrap(kind, format, args...)}
}

// at turns a lineError into a *ParseError at file:line.
func (e *lineError) at(file string, line int) *ParseError {
	return &ParseError{File: file, Line: line, Column: e.col, Err: e.err}
}
