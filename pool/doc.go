// Package pool holds n-best lists with the BLEU statistics of every
// hypothesis: what batch optimizers train on, what online learners update
// from, and what Moses' extractor writes (FEATSTAT/SCORESTAT).
//
// A List is the n-best list of one sentence: for each hypothesis its sparse
// feature vector and its BLEU sufficient statistics against the sentence's
// references (a Scorer computes them). Lists from several decoding
// iterations are pooled per sentence and de-duplicated the way Moses'
// extractor does it (the same target with the same features is one
// hypothesis); package pool/poolfile reads them so from n-best files.
//
// The package sits between io/nbest (the file format, no metric) and learner
// (pure algorithms over Lists): it is where hypotheses meet references. It
// touches no storage: learner/ imports it, and learner/ reads no files.
package pool
