// Package build makes a phrase-based translation model from a word-aligned
// bitext, as Moses' train-model.perl does in its steps 4–9, and writes it
// in Moses' formats: what `mtune build` runs.
//
// Run reads the source (f), target (e) and alignment files, one sentence
// pair a line, optionally a range of lines:
//
//	fr:     reprise de la session
//	en:     resumption of the session
//	align:  0-0 1-1 2-2 3-3
//
// An alignment point "i-j" links source token i to target token j (0-based);
// tokens are separated by spaces or tabs. It then
//
//  1. counts the lexical translation tables w(e|f) and w(f|e) over the
//     alignment points, unaligned words counting with NULL, rounded to 7
//     decimals as Moses' lex.f2e and lex.e2f files hold them;
//  2. extracts every phrase pair of at most MaxPhrase words on each side
//     consistent with the alignment (Koehn et al. 2003; Och and Ney 2004),
//     enumerated as Moses' extract does (every target span, the source span
//     extended over unaligned boundary words), with its word-based msd
//     orientations towards the previous and the next phrase;
//  3. scores the pairs as Moses' score and consolidate do: p(f|e) and
//     p(e|f) by relative frequency, and the lexical weights lex(f|e) and
//     lex(e|f) of Koehn et al. 2003 under the pair's most frequent
//     alignment (with Moses' ties and counting, ExtractionPhrasePair);
//  4. smooths the orientation counts as Moses' lexical-reordering-score
//     does ((count + 0.5) / (total + 1.5));
//  5. estimates an interpolated modified Kneser–Ney language model on the
//     target side (package decoder/lm, lmplz's method);
//  6. writes moses.ini with train-model.perl's layout and default weights.
//
// Extraction runs on Workers goroutines; phrases are interned by a 64-bit
// hash in an open-addressing table (checked word by word), ranked in Moses'
// byte order and the occurrences sorted by counting sort; the tables are
// formatted in parallel chunks and each compressed by its own goroutine.
//
// # Output
//
// The phrase table (phrase-table.gz), sorted as Moses sorts it (LC_ALL=C,
// by the bytes of "f ||| e |||"): the four scores p(f|e) lex(f|e) p(e|f)
// lex(e|f), the alignment inside the pair ("i-j", source-target, sorted by
// target then source), and count(e) count(f) count(f,e); numbers printed
// as C's "%g" (6 significant digits):
//
//	! " ||| ! " ||| 0.333333 0.232809 0.5 0.244802 ||| 0-0 1-1 ||| 3 2 1 ||| |||
//
// The phrase penalty is not a column: it is moses.ini's PhrasePenalty
// feature, as in current Moses. The reordering table
// (reordering-table.wbe-msd-bidirectional-fe.gz), in the same order: the
// probabilities of monotone, swap and discontinuous orientation with
// respect to the previous phrase, then the next one:
//
//	! " ||| ! " ||| 0.6 0.2 0.2 0.2 0.2 0.6
//
// The language model (lm.5.arpa.gz, ARPA) and moses.ini:
//
//	[feature]
//	UnknownWordPenalty
//	WordPenalty
//	PhrasePenalty
//	PhraseDictionaryMemory name=TranslationModel0 num-features=4 path=/m/phrase-table.gz input-factor=0 output-factor=0
//	LexicalReordering name=LexicalReordering0 num-features=6 type=wbe-msd-bidirectional-fe-allff input-factor=0 output-factor=0 path=/m/reordering-table.wbe-msd-bidirectional-fe.gz
//	Distortion
//	KENLM name=LM0 factor=0 path=/m/lm.5.arpa.gz order=5
//
//	[weight]
//	UnknownWordPenalty0= 1
//	WordPenalty0= -1
//	PhrasePenalty0= 0.2
//	TranslationModel0= 0.2 0.2 0.2 0.2
//	LexicalReordering0= 0.3 0.3 0.3 0.3 0.3 0.3
//	Distortion0= 0.3
//	LM0= 0.5
//
// On the train split of europarl-fr-en (8,000 pairs) the phrase and
// reordering tables are byte for byte those Moses' train-model.perl made
// (607,252 pairs), and the language model has lmplz's n-gram counts.
//
// # Differences from Moses
//
// A malformed alignment point, or one outside its sentence pair, is an
// error naming the file, line and column; Moses warns and skips the pair
// (extract) or the point (the lexical tables). So is a token "|||", which
// would corrupt the tables' fields. Sentence pairs with an empty
// side are skipped by extraction, as in Moses, but count in the lexical
// tables (their words align to NULL), as in train-model.perl.
//
// # Demo
//
// Demo generates a small invented language pair with a known alignment, a
// training, a tuning and a test part, designed so that tuning matters (see
// Demo); Write writes it as files Run can build from. BuildDemoIn builds
// the demo system, its corpus and model, into a folder (as `mtune tune`
// does without a moses.ini), and DemoIn names its files.
package build
