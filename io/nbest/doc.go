// Package nbest reads and writes the n-best lists of Moses, cdec and
// Joshua, reads those of Marian, fairseq and Sockeye, reads and writes the
// FEATSTAT and SCORESTAT files of Moses' mert extractor, and pools the
// lists of several tuning iterations.
//
// # Formats
//
// Every reader is a SentenceReader, which returns a list sentence by
// sentence; NewSentenceReader returns the one a Format names, or detects
// the format from the list's first lines (FormatAuto, DetectLine):
//
//	FormatMoses    Reader         Moses, Joshua, cdec, Travatar: below
//	FormatMarian   MarianReader   id ||| text ||| [alignment |||] [WordScores= … |||] F0= v … ||| total
//	FormatFairseq  FairseqReader  fairseq-generate/-interactive: H-id<TAB>score<TAB>tokens, D-…
//	FormatSockeye  SockeyeReader  sockeye-translate --output-type json: {"translations": […], "scores": […]}
//
// Each reader's documentation gives its format, what it takes from a
// line, and how it numbers sentences (Marian and Sockeye lists may count
// from 1: the first id is sentence 0). docs/formats.md shows a sample
// line of each. The rest of this documentation is about Moses' format.
//
// # N-best lists
//
// Each line is one hypothesis, with fields separated by "|||":
//
//	id ||| target ||| features ||| total [||| alignment]
//
// for example, as current Moses writes it:
//
//	0 ||| we are here .  ||| LM0= -41.3 TranslationModel0= -1.5 -2 0 WordPenalty0= -4 pp_we~nous= 1 ||| -14.6 ||| 0-0 1-1
//
// Reader.Read returns it as the Hypothesis
//
//	Sentence:  0
//	Target:    "we are here ."
//	Features:  LM0_0 = -41.3, TranslationModel0_0 = -1.5,
//	           TranslationModel0_1 = -2, WordPenalty0_0 = -4, pp_we~nous = 1
//	Score:     -14.6, HasScore: true
//	Alignment: "0-0 1-1"
//
// and Reader.Groups reports the dense groups LM0 (1 component),
// TranslationModel0 (3) and WordPenalty0 (1). Zeros are not stored
// (TranslationModel0_2 above), as a feature.Vector never holds them.
//
// The sentence id is a non-negative decimal integer. Spaces around every
// field are ignored ("0||| target  ||| …", as older Moses wrote, is fine).
// Blank lines are skipped. The total is optional: a line of three fields
// (cdec's k-best lists may have no score) gives HasScore false.
// Everything after the fourth field is kept raw in Alignment; Moses writes
// a phrase or word alignment there.
//
// # Features
//
// The feature field is a sequence of tokens separated by spaces and tabs,
// classified in this order:
//
//   - A token ending in "=" or ":" is a label. If the label (without the
//     "=" or ":") holds an underscore it names a sparse feature, and the
//     next token must be its single value: "pp_we~nous= 1". Otherwise it
//     starts a dense group, and the numbers that follow are its components
//     0, 1, 2, …, named feature.DenseName(label, i): "LM0= -41.3" is the
//     feature LM0_0, and the old style "tm: -1 -2" gives tm_0 and tm_1.
//     This is the rule of Moses' own mert (Data::AddFeatures in
//     mert/Data.cpp; versions that wrote "name:" labels applied it to
//     those): a label with "_" is sparse because Moses names every
//     sparse feature "<feature function>_<name>" and its dense feature
//     functions (LM0, Distortion0, TranslationModel0, …) have no "_". So a
//     one-component dense group and a sparse feature are told apart by the
//     name alone, never by the number of values.
//   - A token holding "=" elsewhere is cdec's and Joshua's "name=value",
//     split at its last "=": "LanguageModel=-41.3", "tm_pt_0=-1.5".
//   - A token starting with a digit, "+", "-" or "." (or spelling NaN or
//     infinity) is a number: a component of the dense group in force, or
//     the value of the sparse name just before it.
//   - Any other token is a sparse feature name without a label mark, and
//     the next token must be its value: "sparse_name 1".
//
// A dense label that comes back later on the same line continues its
// group: "d: 1 2 lm: 3 d: 4" gives d_0 = 1, d_1 = 2, d_2 = 4. A sparse
// feature or a cdec token ends the dense group in force, so a number after
// it is an error. A feature given twice on a line is summed. Numbers are
// decimal (hexadecimal floats are refused); NaN, infinities and values
// that overflow float64 are errors.
//
// Every line must have the dense groups of the list's first line, each
// with as many values (Moses always writes them all); otherwise a cut-off
// line, an empty feature field or a missing group would score as if its
// missing values were zero. cdec's and Joshua's "name=value" features, of
// which Joshua omits the zeros, may differ from line to line.
//
// Malformed lines give a *ParseError with the file name, line and column,
// wrapping ErrFieldCount, ErrBadID, ErrBadNumber, ErrNoValue,
// ErrBadFeature, ErrDenseLayout or ErrInvalidUTF8. A last line cut off by
// the end of input that is malformed also wraps io.ErrUnexpectedEOF. An empty input is
// an empty list, not an error.
//
// # Writing
//
// Writer writes the dense groups it is given (usually Reader.Groups) in
// their order with every component, zeros included, then the other
// features in id order as sparse features. In the Moses style a sparse
// feature whose name has an underscore is written "name= value", as Moses
// writes it; a name without one is written "name=value", since
// "name= value" would read back as a dense group (Moses' mert cannot read
// such a feature at all). Numbers are written in the shortest form that
// reads back exactly, so a list written and read again gives the same
// hypotheses, with targets and alignments trimmed of surrounding spaces.
//
// # Extractor files
//
// Moses' extractor writes, per sentence, a FEATSTAT block
//
//	FEATURES_TXT_BEGIN_0 0 2 3 d_0 lm_0 w_0
//	0 -47.2982 -14 pp_x=1
//	-3.3 -42.5518 -13
//	FEATURES_TXT_END_0
//
// (sentence id, number of rows, number of dense columns and their names,
// then each row's dense values and sparse "name=value" features) and a
// SCORESTAT block of the metric's statistics
//
//	SCORES_TXT_BEGIN_0 0 2 9 BLEU
//	6 14 1 13 0 12 0 11 18
//	4 13 0 12 0 11 0 10 18
//	SCORES_TXT_END_0
//
// Every value is followed by a space, and so is the header's last feature
// name. FeatStatReader, FeatStatWriter, ScoreStatReader and
// ScoreStatWriter read and write these blocks; by default the writers
// format numbers as C++'s ostream does (6 significant digits, %g), which
// reproduces Moses' files byte for byte. The binary block format is not
// supported.
//
// # Pooling
//
// Pool merges the lists of several iterations and drops duplicates: a
// hypothesis of a sentence whose target and feature vector equal those of
// one already pooled. Moses' extractor (Data::removeDuplicates) instead
// compares the dense feature values and the metric's statistics; the
// statistics depend only on the target, so Moses may merge two different
// targets with equal features and statistics that Pool keeps apart, and it
// ignores sparse features. It also fills the place of each dropped
// duplicate with the last hypothesis of the list, where Pool keeps the
// order of first appearance. On Moses' mert-extractor regression data the
// two agree on every sentence's count and set of feature vectors.
package nbest
