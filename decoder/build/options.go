package build

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mtune/mtune/decoder/lm"
)

// Defaults of Options, as Moses' train-model.perl uses them.
const (
	DefaultMaxPhrase = 7   // --max-phrase-length
	DefaultLMOrder   = 5   // the order of the language model
	DefaultSmoothing = 0.5 // --reordering-smooth
	DefaultDistLimit = 6   // [distortion-limit] written to moses.ini
)

// Options configure Run. Src, Tgt, Align and Out are required.
type Options struct {
	// Src and Tgt are the tokenised source (foreign, "f") and target
	// ("e") sides of the bitext, one sentence a line; Align the word
	// alignment, one line of "i-j" points a sentence pair, i a source and
	// j a target position, 0-based. Local or gs://, .gz/.zst by extension.
	Src, Tgt, Align string
	// Lines selects the sentence pairs to build from; the zero value
	// selects every line.
	Lines LineRange
	// MaxPhrase is the maximum length of a phrase on either side; zero
	// means DefaultMaxPhrase (7). At most 255.
	MaxPhrase int
	// LMOrder is the order of the language model; zero means
	// DefaultLMOrder (5).
	LMOrder int
	// Smoothing is added to each orientation count of the reordering
	// model, as Moses' constant smoothing does; zero means
	// DefaultSmoothing (0.5), a negative value means no smoothing.
	Smoothing float64
	// DistortionLimit is written to moses.ini; zero means
	// DefaultDistLimit (6), a negative value means no limit (-1).
	DistortionLimit int
	// Sparse names the sparse feature templates to switch on in moses.ini.
	// They are decode-time features with nothing to build; the names are
	// accepted and reported in Result, not yet written (nil: none).
	Sparse []string
	// Out is the folder the model is written to (local or gs://); a
	// missing local folder is created.
	Out string
	// AbsolutePaths writes absolute local paths (or gs:// URLs) in
	// moses.ini, which Moses and mtune load from any working directory.
	// False, the default, writes the paths relative to the ini's folder:
	// mtune resolves them so, and the model folder can be moved or
	// copied whole; Moses resolves them against its working directory,
	// so it must run in the model's folder.
	AbsolutePaths bool
	// Workers is the number of goroutines extracting and scoring; zero
	// means runtime.GOMAXPROCS(0).
	Workers int
	// LM estimates the language model; nil means the package's default
	// estimator (see DefaultLM). SkipLM leaves the language model out
	// (no LM file, no LM feature in moses.ini).
	LM     LMEstimator
	SkipLM bool
}

// LineRange is a 1-based inclusive range of line numbers. The zero value
// means every line; Last zero means up to the last line.
type LineRange struct {
	First, Last int
}

// ParseLineRange parses "FIRST-LAST" (1-based, inclusive), "FIRST-" (to
// the end) or "N" (one line); "" is the zero LineRange (every line).
func ParseLineRange(s string) (LineRange, error) {
	if s == "" {
		return LineRange{}, nil
	}
	a, b, dash := strings.Cut(s, "-")
	first, err := strconv.Atoi(a)
	if err != nil || first < 1 {
		return LineRange{}, fmt.Errorf("build: %w: line range %q: first line must be a positive integer", ErrOptions, s)
	}
	if !dash {
		return LineRange{first, first}, nil
	}
	if b == "" {
		return LineRange{First: first}, nil
	}
	last, err := strconv.Atoi(b)
	if err != nil || last < first {
		return LineRange{}, fmt.Errorf("build: %w: line range %q: last line must be an integer ≥ the first", ErrOptions, s)
	}
	return LineRange{first, last}, nil
}

// String returns the range in the form ParseLineRange reads.
func (r LineRange) String() string {
	switch {
	case r.First == 0 && r.Last == 0:
		return ""
	case r.Last == 0:
		return strconv.Itoa(r.First) + "-"
	}
	return strconv.Itoa(r.First) + "-" + strconv.Itoa(r.Last)
}

// contains reports whether 1-based line n is in the range, and past
// whether n is beyond its end.
func (r LineRange) contains(n int) (in, past bool) {
	first := max(r.First, 1)
	if r.Last > 0 && n > r.Last {
		return false, true
	}
	return n >= first, false
}

// Validate checks the options of o other than its input paths (which a
// caller may fill in later, as the demo does), so that a command refuses
// a bad one before any work (ErrOptions).
func (o Options) Validate() error {
	if o.Src == "" && o.Tgt == "" && o.Align == "" {
		o.Src, o.Tgt, o.Align = "-", "-", "-"
	}
	_, err := o.withDefaults()
	return err
}

// withDefaults returns o with zero fields replaced by their defaults, or an
// error for invalid values.
func (o Options) withDefaults() (Options, error) {
	bad := func(format string, args ...any) (Options, error) {
		return o, fmt.Errorf("build: %w: "+format, append([]any{ErrOptions}, args...)...)
	}
	if o.Src == "" || o.Tgt == "" || o.Align == "" {
		return bad("source, target and alignment paths are required")
	}
	if o.Out == "" {
		return bad("an output folder is required")
	}
	if o.Lines.First < 0 || o.Lines.Last < 0 || (o.Lines.Last > 0 && o.Lines.Last < o.Lines.First) {
		return bad("line range %d-%d", o.Lines.First, o.Lines.Last)
	}
	if o.MaxPhrase == 0 {
		o.MaxPhrase = DefaultMaxPhrase
	}
	if o.MaxPhrase < 1 || o.MaxPhrase > 255 {
		return bad("maximum phrase length %d not in 1..255", o.MaxPhrase)
	}
	if o.LMOrder == 0 {
		o.LMOrder = DefaultLMOrder
	}
	if o.LMOrder < 1 || o.LMOrder > lm.MaxOrder {
		return bad("language model order %d not in 1..%d", o.LMOrder, lm.MaxOrder)
	}
	if math.IsNaN(o.Smoothing) || math.IsInf(o.Smoothing, 0) {
		return bad("smoothing %v", o.Smoothing)
	}
	switch {
	case o.Smoothing == 0:
		o.Smoothing = DefaultSmoothing
	case o.Smoothing < 0:
		o.Smoothing = 0
	}
	switch {
	case o.DistortionLimit == 0:
		o.DistortionLimit = DefaultDistLimit
	case o.DistortionLimit < 0:
		o.DistortionLimit = -1
	}
	return o, nil
}
