// Package lm is an n-gram language model with back-off: an ARPA reader and
// writer, a compact store, scoring with KenLM's minimised state and Moses'
// conventions, and interpolated modified Kneser–Ney estimation as KenLM's
// lmplz does it.
//
// # The ARPA format
//
// Probabilities and back-offs are log10. A header gives the number of
// n-grams of each order, then each order lists its n-grams: probability,
// tab, the words separated by spaces, and (for every order but the highest)
// an optional tab and back-off, missing meaning 0:
//
//	\data\
//	ngram 1=4
//	ngram 2=2
//
//	\1-grams:
//	-1.0	<unk>	0
//	-99	<s>	-0.30103
//	-0.7	</s>
//	-0.6	a	-0.2
//
//	\2-grams:
//	-0.2	<s> a
//	-0.1	a </s>
//
//	\end\
//
// parses to a bigram model where log10 p(a | <s>) = -0.2 and
// log10 p(</s> | <s>) = bo(<s>) + p(</s>) = -0.30103 + -0.7.
//
// The reader tolerates what KenLM tolerates: blank lines and lines starting
// with '#' before \data\, blank lines between and inside sections, a zero
// back-off on the highest order, <UNK> for <unk>. It also accepts spaces
// where tabs belong, CRLF line ends, and a last line without '\n'. It
// rejects, with a *ParseError naming the file and line: counts that differ
// from the sections, malformed headers and lines, numbers that are not
// finite decimals (NaN, inf, 1e50 as a float32), positive log probabilities
// (KenLM's default), words of higher orders missing from the 1-grams, an
// n-gram whose context (first n-1 words) is not in the model, duplicates, a
// model without <s> or </s>, invalid UTF-8, text after \end\ and input cut
// short (missing \end\, truncated gzip). A model without <unk> gets
// log10 p(<unk>) = -100 and no back-off, as in KenLM.
//
// # Storage
//
// A Vocab maps words to int32 ids (one byte arena, an open-addressing
// table of ids); <unk> is id 0, the other words follow in 1-gram order.
// 1-grams are arrays by id. The n-grams of each order n ≥ 2 are in one
// open-addressing table of 16-byte slots (12 for the highest order): the
// key is exact, (slot of the context in the order n-1 table, last word id),
// so no two n-grams can collide; the load is at most 2/3 (KenLM's probing
// multiplier 1.5). Reading runs decompression, 1-gram parsing, n-gram
// parsing (Options.Workers goroutines) and table insertion concurrently.
//
// # Scoring
//
// Score(state, word) returns log10 p(word | state) and the next State as
// KenLM's FullScore does: the longest listed n-gram ending in the word,
// plus the back-offs of the longer contexts. States are minimised as KenLM
// minimises them (see State) and are comparable values, for hypothesis
// recombination. Moses' KENLM feature reports natural logs (log10 × ln 10,
// MosesScore); it scores every word of a translation and </s>, not <s>.
// PhraseScore gives Moses' isolated score of a target phrase, used for the
// future cost.
//
// # Estimation
//
// Counter.Estimate (or Estimate on a reader of lines) computes an
// interpolated modified Kneser–Ney model (Chen and Goodman 1998) exactly as
// lmplz does without pruning, in its float32 arithmetic and output order:
// on the 8,000 English training sentences of europarl-fr-en it gives the
// n-gram counts of Moses' lm.en.5.arpa.gz and its probabilities and
// back-offs to within a float32 rounding.
package lm
