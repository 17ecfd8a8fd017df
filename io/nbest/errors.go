package nbest

import (
	"errors"

	"github.com/mtune/mtune/internal/textpos"
)

// Errors a reader reports inside a *ParseError. Test for them with
// errors.Is. ErrBadNumber, ErrInvalidUTF8 and ErrColumnCount are the same
// errors as those of mtune's other parsers (weights.ErrNumber,
// corpus.ErrInvalidUTF8, weights.ErrCount, …).
var (
	// ErrFieldCount: a line has fewer than the three fields
	// "id ||| target ||| features".
	ErrFieldCount = errors.New("too few fields")
	// ErrBadID: the sentence id is not a non-negative decimal integer.
	ErrBadID = errors.New("bad sentence id")
	// ErrBadNumber: a feature value, total score or statistic is not a
	// finite decimal number (NaN and ±Inf are errors).
	ErrBadNumber = textpos.ErrNumber
	// ErrNoValue: a feature name or dense label is not followed by a value.
	ErrNoValue = errors.New("feature name without value")
	// ErrBadFeature: a token of the feature field fits none of the
	// feature forms, such as a value before any label or an empty name.
	ErrBadFeature = errors.New("bad feature token")
	// ErrDenseLayout: a line's dense groups, or their numbers of values,
	// differ from those of the list's first line; a cut-off line or a
	// hypothesis that lacks a feature would otherwise score as if its
	// missing values were zero.
	ErrDenseLayout = errors.New("dense features differ from the list's first line")
	// ErrInvalidUTF8: a line is not valid UTF-8.
	ErrInvalidUTF8 = textpos.ErrInvalidUTF8
	// ErrNotGrouped: ReadSentence met a sentence id again after the lines
	// of another sentence; an n-best list must keep each sentence's
	// hypotheses together.
	ErrNotGrouped = errors.New("sentence id reappears after another sentence")
	// ErrDuplicate: a feature (or a JSON key) is given twice on a line of
	// a Marian or Sockeye list. (Moses lists sum a repeated feature, as
	// Moses' mert does.)
	ErrDuplicate = errors.New("given twice on a line")
	// ErrBadField: a field of a line is none of those the format has
	// there, such as a Marian field between the text and the features
	// that is neither an alignment nor word scores, a fairseq D- line
	// without its H- line, or a Sockeye key of the wrong type.
	ErrBadField = errors.New("unexpected field")
	// ErrNoHypothesis: a fairseq H- line or a Sockeye line has no
	// hypothesis at all (no text field, no "translation" or an empty
	// "translations"); an empty text is a hypothesis.
	ErrNoHypothesis = errors.New("no hypothesis")
	// ErrBadHeader: a FEATSTAT or SCORESTAT block header is malformed.
	ErrBadHeader = errors.New("bad block header")
	// ErrBadFooter: a FEATSTAT or SCORESTAT block does not end where its
	// header says.
	ErrBadFooter = errors.New("bad block footer")
	// ErrColumnCount: a FEATSTAT or SCORESTAT row has a number of dense
	// values other than the header's.
	ErrColumnCount = textpos.ErrCount
	// ErrBadName: a writer was given a name, target or alignment it
	// cannot write so that a reader gets it back.
	ErrBadName = errors.New("nbest: name cannot be written")
)

// ParseError is the error of a malformed line: the file name given to
// the reader, the 1-based line number, the 1-based byte column where the
// problem starts (0 when it concerns the whole line) and the underlying
// error, which wraps one of the Err variables (or io.ErrUnexpectedEOF).
type ParseError = textpos.ParseError[pkgPrefix]

// pkgPrefix starts the messages of this package's ParseError.
type pkgPrefix struct{}

func (pkgPrefix) Prefix() string { return "nbest" }

// tokenError reports a bad token: `bad feature value "x"`. It unwraps to
// its sentinel.
type tokenError struct {
	what string // "feature value", "total score", …
	tok  string
	err  error
}

func (e *tokenError) Error() string {
	return "bad " + e.what + " " + textpos.Quote(e.tok)
}

func (e *tokenError) Unwrap() error { return e.err }
