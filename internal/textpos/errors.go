package textpos

import "errors"

// Sentinel errors that mean the same in every format mtune's parsers read.
// Each parser package gives the ones it reports a name of its own
// (lm.ErrNumber, nbest.ErrBadNumber, model.ErrUTF8, …) that is the same
// error value, so that errors.Is finds the kind of a failure whichever
// package reported it: a bad number in the [weight] section of a moses.ini
// is both a model.ErrNumber and a weights.ErrNumber.
var (
	// ErrSyntax marks a malformed line or token.
	ErrSyntax = errors.New("syntax error")
	// ErrNumber marks a value that is not a number the format allows.
	ErrNumber = errors.New("bad number")
	// ErrCount marks a line or list whose number of values differs from
	// the number its header, its names or the lines before declare.
	ErrCount = errors.New("wrong number of values")
	// ErrInvalidUTF8 marks text that is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrLineCount marks files that must be line-parallel (a source and
	// its references, a bitext and its alignment) and hold different
	// numbers of lines.
	ErrLineCount = errors.New("line counts differ")
)
