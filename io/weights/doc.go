// Package weights reads and writes the weights of a linear translation
// model: the Moses dense formats (a moses.ini [weight] section and kbmira's
// --dense-init file), Moses' sparse weights file, a plain list of values,
// and mtune's own JSON document.
//
// A Set holds the weights: a feature.Index shared with the caller, the
// feature.Weights indexed by it, and the dense layout as []feature.Group in
// order of first appearance. Dense features are named feature.DenseName(label,
// i), so "TranslationModel0= 0.2 0.1" sets TranslationModel0_0 = 0.2 and
// TranslationModel0_1 = 0.1. Every feature not named by a group is sparse.
//
// # Moses dense weights (ReadMoses, WriteMoses)
//
// One label and its values a line, as in the [weight] section of a
// moses.ini, in kbmira's --dense-init file, or in the old n-best style:
//
//	[weight]
//	LM0= 0.5
//	TranslationModel0= 0.2 0.2 0.2 0.2
//	d: 0.3            # old style label with a colon
//	d= 0.3            # a repeated label continues: this is d_1
//
// parses to the groups LM0 (1), TranslationModel0 (4), d (2). A token that
// ends in '=' or ':' starts a label and the numbers after it, on the same
// line, are its next components; several labels may share a line. '#'
// starts a comment anywhere on a line (as in Moses' own config reader);
// blank lines are skipped.
//
// A moses.ini is read whole: only its weight sections count, every other
// section ([feature], [distortion-limit], …) is skipped. Lines before the
// first section are weight lines, so a bare weights file needs no header.
// The old moses.ini v1 sections [weight-d], [weight-l], [weight-t],
// [weight-w], … hold bare values, read under the label Moses' old n-best
// lists use for them: [weight-d] with seven lines gives d_0 … d_6,
// matching the n-best label "d:" (Moses v1 put the distance distortion and
// the lexicalized reordering weights together there); [weight-l] gives lm,
// [weight-t] tm, [weight-w] w, [weight-u] u, [weight-i] I,
// [weight-generation] g, and [weight-lr], [weight-lex], [weight-e], … the
// part after "weight-". The [weight-file] section names Moses'
// sparse weights file; its path is kept in Set.WeightFile and not read.
// [weight-overwrite] and unknown weight-… sections are errors, not silently
// dropped weights. A feature that Moses weighs by default when [weight]
// omits it (UnknownWordPenalty0 = 1) gets no weight here.
//
// Moses' -weight-overwrite string is dense weights of this format on one
// line, "LM0= 0.5 TranslationModel0= 0.2 0.2 0.2 0.2" (ParseOverwrite).
//
// # Moses sparse weights (ReadSparse, WriteSparse)
//
// Moses' weight-file: one "name value" a line, separated by spaces or tabs;
// "name= value" is accepted too. Lines starting with '#' are comments.
//
//	pp_la~the 0.25
//	wt_de~of -0.03
//
// A name may appear once. WriteSparse writes the non-zero features that no
// group names, sorted by name.
//
// # Plain list (ReadList, WriteList)
//
// Values only, separated by white space over any number of lines, in an
// order given by the caller, as Moses mert's weights.txt, whose names come
// from the FEATSTAT header:
//
//	0.000488591 0.000241107 0.000561318 … -0.926921
//
// GroupsOf recovers the dense layout from names like d_0 … d_6 lm_0.
//
// # mtune JSON (ReadJSON, WriteJSON)
//
// A versioned document that keeps the dense layout; float64 values round
// trip bit for bit (numbers are written with strconv 'g', -1):
//
//	{
//	  "version": 1,
//	  "dense": [
//	    {"label": "LM0", "values": [0.5]},
//	    {"label": "TranslationModel0", "values": [0.2, 0.2, 0.2, 0.2]}
//	  ],
//	  "sparse": {
//	    "pp_la~the": 0.25
//	  }
//	}
//
// Unknown fields, duplicate labels or sparse names, and a sparse name equal
// to a dense feature's name are errors.
//
// # Common rules
//
// Numbers are parsed by strconv.ParseFloat; NaN, ±Inf and values out of the
// float64 range are errors. Names must be valid UTF-8. A leading UTF-8 byte
// order mark and '\r' before a newline are ignored. Input with no weights is
// an error. Parse errors are *ParseError values carrying the file name
// (filled in by the path-based functions), the line and, where it helps,
// the column; they unwrap to the sentinel errors ErrSyntax, ErrNumber,
// ErrNoValues, ErrDuplicate, ErrCount or ErrEmpty.
//
// Writers write every number with strconv.FormatFloat(x, 'g', -1, 64), so
// reading what they wrote gives the same bits back, and refuse names that
// the format could not read back.
//
// # Files
//
// Read detects the format of a file (see Detect); ReadFormat, ReadListFile
// and Write name it; ReadByName and WriteByName read any format and write
// JSON as ByName. Paths are local or gs://, and .gz/.zst files are
// decompressed, through package storage.
package weights
