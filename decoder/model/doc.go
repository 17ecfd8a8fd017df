// Package model reads what a Moses phrase-based system is made of: its
// configuration file (moses.ini), its phrase table and its lexicalized
// reordering table, into compact read-only stores that a decoder can use
// from many goroutines. The language model is package decoder/lm's.
//
// # moses.ini (ReadConfig, LoadConfig, WriteConfig)
//
// Sections in brackets, one value a line; '#' starts a comment anywhere on
// a line, as in Moses' own reader; a section given twice continues:
//
//	[distortion-limit]
//	6
//	[feature]
//	KENLM name=LM0 factor=0 path=${MODEL_PATH}/lm.en.5.arpa.gz order=5
//	Distortion
//	PhraseDictionaryMemory name=TranslationModel0 num-features=4 path=phrase-table.gz input-factor=0 output-factor=0
//	LexicalReordering name=LexicalReordering0 num-features=6 type=wbe-msd-bidirectional-fe-allff input-factor=0 output-factor=0 path=reordering-table.gz
//	WordPenalty
//	UnknownWordPenalty
//	[weight]
//	LM0= 0.5
//	Distortion0= 0.3
//	TranslationModel0= 0.2 0.2 0.2 0.2
//	LexicalReordering0= 0.3 0.3 0.3 0.3 0.3 0.3
//	WordPenalty0= -1
//
// gives six Features: LM0 (KENLM, 1 score), Distortion0, TranslationModel0
// (4), LexicalReordering0 (6), WordPenalty0 and UnknownWordPenalty0, and
// their weights; UnknownWordPenalty0, which [weight] leaves out, gets
// Moses' default weight 1. A feature without name= is named as Moses
// names it: its type followed by the number of earlier features of the
// same type without a name= (KENLM0, KENLM1, …). num-features= defaults to
// 1, and for LexicalReordering to the number its type= implies.
//
// In argument values, ${NAME} is replaced by the environment variable NAME
// (as Moses' regression tests do with MODEL_PATH and TEST_PATH); an unset
// variable is an error that names it. A relative path= (and the
// [weight-file]) written literally is resolved against the folder of the
// moses.ini, not the working directory as in Moses, so a model folder can
// be moved whole (for a gs:// moses.ini, ".." is resolved within the bucket
// and a path that climbs out of it is an error); one that starts with a
// variable
// (path=${MODEL_PATH}/lm.gz with MODEL_PATH=models/m1) is resolved against
// the working directory, as Moses does, since that is what the variable was
// given relative to.
//
// Supported feature types: KENLM (an ARPA file), Distortion,
// LexicalReordering, WordPenalty, UnknownWordPenalty, PhrasePenalty and
// PhraseDictionaryMemory. Any other type (PhraseDictionaryCompact,
// OpSequenceModel, …), any argument Moses knows but this package does not
// (a factor other than 0, sparse-* reordering features, …), and any
// section other than [input-factors] (0), [mapping] (0 T 0), [feature],
// [weight], [weight-file], [distortion-limit], [early-distortion-cost],
// [max-phrase-length], [stack], [beam-threshold], [search-algorithm] (0,
// the normal stack search, or 1, cube pruning; Moses' other algorithms are
// ErrUnsupported errors at their line), [cube-pruning-pop-limit],
// [cube-pruning-diversity], [n-best-list] (file, size, optional
// "distinct"), [include-segmentation-in-n-best] and
// [print-alignment-info-in-n-best] is an ErrUnsupported error listing them
// all: never a setting silently ignored. Weights that name no feature, or
// of the wrong length, are errors, as in Moses.
//
// # Phrase tables (ReadPhraseTable, LoadPhraseTable)
//
// One phrase pair a line, fields separated by "|||":
//
//	! " ||| ! " ||| 0.333333 0.232809 0.5 0.244802 ||| 0-0 1-1 ||| 3 2 1 ||| |||
//
// is the source phrase `! "`, the target phrase `! "`, four scores
// (Moses' p(f|e), lex(f|e), p(e|f), lex(e|f)), the alignment 0-0 1-1
// (source-target word positions) and the counts c(e)=3, c(f)=2,
// c(f,e)=1. Only source, target and scores are required. Moses' fifth
// field (sparse features) must be empty; the sixth (properties) is
// ignored. The table stores each distinct word once in a Vocab (string ↔
// int32) per side and each source phrase once, found by a hash of its
// word ids (collisions resolved by comparing the ids); its options live in
// flat arrays: target ids, scores (float32), alignment points (one byte
// per position) and counts.
//
// Scores are kept as the file gives them, probabilities. Moses' feature
// value is LogScore(p) = max(ln p, -100): a zero probability is legal and
// floors at -100, a negative one (whose log Moses would turn into NaN) is
// an ErrNumber error, as are NaN and ±Inf. The number of scores must be the
// same on every line and equal num-features when PhraseTableOptions sets
// it; the number of counts must be the same on every line. Lines with an
// empty source phrase are skipped and counted, as Moses skips them. Blank
// lines are skipped.
//
// Moses keeps the table-limit best options of each source phrase (default
// 20), ranked by their full score in isolation, which includes the
// language model's estimate of the target phrase; Prune takes the ranking
// function from the caller so that a decoder can do the same, and
// PhraseTableOptions.TableLimit ranks by the weighted log scores only.
//
// # Lexicalized reordering tables (PhraseTable.ReadReordering)
//
// One phrase pair a line with its orientation probabilities:
//
//	! " ||| ! " ||| 0.6 0.2 0.2 0.2 0.2 0.6
//
// For msd-bidirectional-fe the six scores are monotone, swap and
// discontinuous with respect to the previous phrase, then the same with
// respect to the next one. The scores are attached to the phrase table's
// option with the same source and target, so a decoder gets them with the
// option (PhraseTable.Reordering). ParseReorderingType reads every
// phrase-based Moses model type: msd, mslr, monotonicity or leftright;
// backward, forward or bidirectional; fe tables ("src ||| tgt ||| scores")
// and f tables ("src ||| scores", attached to every option of the source
// phrase); allff or collapseff; wbe and phrase (word-based extraction
// matters to training only). Hierarchical (hier) models and tables with a
// context field are ErrUnsupported.
//
// # Errors and speed
//
// Malformed input gives a *ParseError with the file name, the line and,
// where it helps, the column, wrapping one of the Err variables; a stream
// cut short (a truncated gzip file) gives a read error wrapping
// io.ErrUnexpectedEOF. Invalid UTF-8 in words is an ErrUTF8 error. A '\r'
// before a newline is dropped; words are separated by spaces and tabs only,
// as in Moses.
//
// Tables are read by one goroutine that decompresses and splits the input
// into blocks of lines, several goroutines that parse the blocks with
// their own vocabularies, and a merge in file order; the first error in
// file order is returned. europarl-fr-en-8k's phrase table (607,252 pairs)
// and reordering table load in about 1.2 CPU seconds (0.6 s on two cores)
// into about 70 MiB of heap (BenchmarkLoad8k).
package model
