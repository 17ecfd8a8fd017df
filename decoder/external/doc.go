// Package external runs a Moses-compatible decoder as a subprocess, so that
// mtune can tune a system it does not decode itself: Moses, Joshua with
// Moses output, or another mtune binary ("mtune decode" takes Moses'
// command line).
//
// # Protocol
//
// One run of the decoder translates a batch of sentences under one
// weights vector. For the command "moses -v 0" and the model moses.ini it
// is
//
//	moses -v 0 -f moses.ini -threads 2 -n-best-list /tmp/…/nbest 100 distinct \
//	    -weight-overwrite 'LM0= 0.5 WordPenalty0= -1 TranslationModel0= 0.2 0.2 0.2 0.2' \
//	    [-weight-file /tmp/…/sparse]
//
// with the sentences on its standard input, one a line, as Moses reads
// them. The decoder writes one 1-best translation a line on its standard
// output (only counted) and the n-best lists, Moses' format, to the file:
//
//	0 ||| la maison ||| LM0= -4.2 WordPenalty0= -2 TranslationModel0= -1.5 -2 0 -0.7 ||| -3.1
//
// whose sentence 0 is the first line of the batch. Dense features are
// named as the moses.ini's [weight] section names them (LM0_0,
// TranslationModel0_0, …; feature.DenseName), as package decoder and
// io/nbest name them, so that weights and lists round-trip by name: a
// list with a dense group the moses.ini has not, or with another number
// of values, is an error (ErrGroups).
// -weight-overwrite gives every dense feature of the moses.ini its weight;
// sparse weights go to a "name value" file given with -weight-file, as
// Moses' mert-moses.pl passes them. Numbers are written in the shortest
// form that reads back exactly, so that "mtune decode" in the loop decodes
// with the very weights the in-process decoder would have.
//
// Moses writes no feature whose value is 0 and no feature declared
// tuneable=false; the n-best lists of the in-process decoder
// (decoder.Hypothesis) include the latter, so a model with untuneable
// features learns nothing about them through an external decoder.
//
// An external decoder loads its model at every run: Moses and "mtune
// decode" prune the phrase table to its table limit with the weights they
// are given, where the in-process decoder prunes it once with the
// moses.ini's; the two agree whenever no source phrase has more options
// than the table limit.
package external
