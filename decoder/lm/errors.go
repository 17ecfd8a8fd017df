package lm

import (
	"errors"

	"github.com/mtune/mtune/internal/textpos"
)

// Sentinel errors a *ParseError unwraps to. ErrSyntax, ErrNumber and
// ErrInvalidUTF8 are the same errors as those of mtune's other parsers
// (model.ErrSyntax, weights.ErrNumber, nbest.ErrInvalidUTF8, …).
var (
	// ErrSyntax marks a malformed line: a bad header, a missing or
	// unexpected section, the wrong number of fields, trailing text after
	// \end\.
	ErrSyntax = textpos.ErrSyntax
	// ErrNumber marks a probability or back-off that is not a finite
	// decimal number, or a positive log probability.
	ErrNumber = textpos.ErrNumber
	// ErrCount marks a section whose number of n-grams differs from the
	// count in the \data\ header.
	ErrCount = errors.New("n-gram count does not match the header")
	// ErrDuplicate marks an n-gram listed twice.
	ErrDuplicate = errors.New("duplicate n-gram")
	// ErrUnknownWord marks a word of an n-gram that the 1-grams do not list.
	ErrUnknownWord = errors.New("word not in the 1-grams")
	// ErrMissingContext marks an n-gram whose context (its first n-1 words)
	// is not an (n-1)-gram of the model.
	ErrMissingContext = errors.New("context of the n-gram is not in the model")
	// ErrSpecialWord marks a model without <s> or </s>.
	ErrSpecialWord = errors.New("missing special word")
	// ErrOrder marks a model of order zero or above MaxOrder.
	ErrOrder = errors.New("unsupported order")
	// ErrInvalidUTF8 marks a line that is not valid UTF-8.
	ErrInvalidUTF8 = textpos.ErrInvalidUTF8
)

// ParseError is the error of a reader for malformed input. File is the name
// given to the reader (the path for Load). Line is 1-based; zero means the
// error concerns the input as a whole. Column is always zero.
type ParseError = textpos.ParseError[pkgPrefix]

// pkgPrefix starts the messages of this package's ParseError.
type pkgPrefix struct{}

func (pkgPrefix) Prefix() string { return "lm" }

// errorf returns an error wrapping the sentinel kind with a message.
func errorf(kind error, format string, args ...any) error {
	return textpos.Wrap(kind, format, args...)
}
