package textpos

import (
	"errors"
	"fmt"
)

// Prefix names the package whose messages a ParseError starts with. It is
// the type argument of ParseError: each parser package declares an empty
// struct whose Prefix method returns the package name, and aliases
// ParseError to the instance, so that its errors keep a type of their own:
//
//	type pkgPrefix struct{}
//
//	func (pkgPrefix) Prefix() string { return "weights" }
//
//	type ParseError = textpos.ParseError[pkgPrefix]
type Prefix interface{ Prefix() string }

// ParseError is the error of a parser for malformed input, in the manner of
// encoding/csv's: File is the name given to the reader (empty when
// unknown), Line the 1-based line number and Column the 1-based byte column
// where the problem starts (zero when unknown or when the error concerns
// the whole line or input), and Err the underlying error, which wraps one
// of the package's sentinel errors. Its message is Format's, prefixed with
// P's name.
type ParseError[P Prefix] struct {
	File   string
	Line   int
	Column int
	Err    error
}

func (e *ParseError[P]) Error() string {
	var p P
	return Format(p.Prefix(), e.File, e.Line, e.Column, e.Err)
}

func (e *ParseError[P]) Unwrap() error { return e.Err }

// Wrap returns kind when format is empty, otherwise an error wrapping kind
// whose message is kind's, ": " and the formatted detail.
func Wrap(kind error, format string, args ...any) error {
	if format == "" {
		return kind
	}
	return fmt.Errorf("%w: "+format, append([]any{kind}, args...)...)
}

// At returns a *ParseError at file:line:col whose Err is Wrap(kind, format,
// args...).
func At[P Prefix](file string, line, col int, kind error, format string, args ...any) *ParseError[P] {
	return &ParseError[P]{File: file, Line: line, Column: col, Err: Wrap(kind, format, args...)}
}

// WithFile sets the File of the *ParseError[P] inside err when it is empty,
// and returns err; an error of another kind it returns prefixed with P's
// name and file ("weights: w.txt: …"). A nil err stays nil.
func WithFile[P Prefix](err error, file string) error {
	if err == nil {
		return nil
	}
	var pe *ParseError[P]
	if errors.As(err, &pe) {
		if pe.File == "" {
			pe.File = file
		}
		return err
	}
	var p P
	return fmt.Errorf("%s: %s: %w", p.Prefix(), file, err)
}

// DetailError adds detail to an error: its message is "err: detail" and it
// unwraps to Err, typically a sentinel.
type DetailError struct {
	Err    error
	Detail string
}

func (e *DetailError) Error() string { return e.Err.Error() + ": " + e.Detail }
func (e *DetailError) Unwrap() error { return e.Err }

// Detail returns a *DetailError adding detail to err.
func Detail(err error, detail string) error { return &DetailError{Err: err, Detail: detail} }
