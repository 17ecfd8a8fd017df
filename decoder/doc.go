// Package decoder is a phrase-based statistical machine translation
// decoder that reproduces Moses' default ("normal") search: it loads a
// Moses system from its moses.ini and translates sentences into 1-best
// translations and n-best lists with full feature vectors, as Moses does,
// plus the sparse feature templates of Green et al. (2013) and Cherry and
// Foster (2012) for tuning.
//
// # Loading
//
// Load reads a moses.ini with package decoder/model, then the phrase table
// and its lexicalized reordering table (one after the other: the
// reordering scores attach to the table's options) while the ARPA language
// model loads with package decoder/lm. For example
//
//	[distortion-limit]
//	6
//	[feature]
//	UnknownWordPenalty
//	WordPenalty
//	PhrasePenalty
//	PhraseDictionaryMemory name=TranslationModel0 num-features=4 path=phrase-table.gz input-factor=0 output-factor=0
//	LexicalReordering name=LexicalReordering0 num-features=6 type=wbe-msd-bidirectional-fe-allff input-factor=0 output-factor=0 path=reordering-table.gz
//	Distortion
//	KENLM name=LM0 factor=0 path=lm.arpa.gz order=5
//	[weight]
//	UnknownWordPenalty0= 1
//	WordPenalty0= -1
//	PhrasePenalty0= 0.2
//	TranslationModel0= 0.2 0.2 0.2 0.2
//	LexicalReordering0= 0.3 0.3 0.3 0.3 0.3 0.3
//	Distortion0= 0.3
//	LM0= 0.5
//
// is a model with the dense features LexicalReordering0_0 … _5,
// Distortion0_0, LM0_0, WordPenalty0_0, PhrasePenalty0_0,
// TranslationModel0_0 … _3 and UnknownWordPenalty0_0 (feature.DenseName of
// the feature's name and component). The model needs one
// PhraseDictionaryMemory and may have one of each of KENLM, Distortion,
// LexicalReordering (phrase-based msd, mslr, monotonicity or leftright;
// backward, forward or bidirectional; f or fe; not collapseff),
// WordPenalty, PhrasePenalty and UnknownWordPenalty; anything else is an
// ErrUnsupported error. The weights of [weight] can be replaced by a
// weights file and completed by sparse weights (LoadOptions). Every target
// word of the phrase table is mapped to its language-model id once, at
// load time.
//
// Moses keeps the table-limit best options of each source phrase (20 by
// default), ranked by their weighted score in isolation: the weighted log
// phrase-table scores, word and phrase penalties and the language model's
// score of the target phrase alone (TargetPhrase::GetFutureScore), and so
// does Load, with the moses.ini's weights (and any sparse template
// weights). Decoding with other weights (DecodeOptions.Weights) does not
// prune again.
//
// # Scores
//
// The features are valued as Moses values them. Phrase-table and
// reordering scores are ln p floored at -100 (model.LogScore). The
// language model feature is the sum of the log10 probabilities of every
// target word and of </s> (not <s>) times ln 10, computed per phrase in
// float32 as Moses' KENLM feature does; a word the language model lacks,
// such as an unknown source word passed through, is scored as <unk>.
// WordPenalty is minus the number of target words, PhrasePenalty the
// number of phrases, UnknownWordPenalty -100 per unknown word (Moses leaves
// it out of n-best lists: it is not tuneable). Distortion is minus the sum
// of the jumps between consecutive phrases, the first phrase's jump being
// its start (no jump to the sentence end); with [early-distortion-cost]
// it is the cost of Moore and Quirk (2007) as Moses'
// DistortionScoreProducer charges it, paid as soon as a gap is left. The
// lexicalized reordering scores the orientation of each phrase with
// respect to the previous one with the phrase's own backward scores (the
// first phrase is monotone if it starts the sentence, discontinuous
// otherwise) and, from the second phrase on, the orientation of the
// previous phrase with respect to this one with the previous phrase's
// forward scores (nothing at the sentence end); pairs without reordering
// scores score 0 (or the feature's default-scores).
//
// # Search
//
// The search is Moses' multi-stack beam search (Koehn 2003;
// SearchNormal), or Moses' cube pruning (see below). Hypotheses covering the same number of source words
// share a stack. A hypothesis is expanded with every translation option of
// every span that does not overlap its coverage and that the distortion
// limit allows: the jump from the end of the last phrase to the start of
// the span must not exceed the limit, and a span that starts right of the
// first gap must end close enough to the gap (end - gap + 1 ≤ limit) for
// the gap to be filled later. Each span's options are the phrase table's
// (table-limited) options; a word without any one-word option gets a
// pass-through option (unknown word). A new hypothesis' score adds the
// option's score in isolation, distortion, reordering and the language
// model's scores of the option's first order-1 words in context (and of
// </s> when the translation is complete); its total adds the future cost
// of the uncovered gaps, from a table filled by dynamic programming over
// spans with the best option of each span (including the language model's
// estimate of the target phrase and unknown words' penalty). It joins its
// stack unless its total is below the stack's threshold; hypotheses with
// the same coverage, language-model state (as KenLM minimises it), end
// of the last phrase and, with lexicalized reordering, start of the last
// phrase and the last option's forward reordering scores are recombined,
// the worse becoming an arc of the better for the n-best lists. A stack
// that grows past twice its size is pruned to the best StackSize
// hypotheses within the beam (best + ln BeamThreshold), which raises its
// threshold, and so is every stack before it is expanded (Moses'
// HypothesisStackNormal). The default settings are Moses': stack 200, beam
// threshold 1e-5, table limit 20, the moses.ini's distortion limit (none
// when absent). Hypotheses are expanded best first; the search skips the
// language-model lookups of an expansion that the other scores already put
// below the threshold, which is exact for a normalised language model (a
// log probability is at most 0) with a non-negative weight.
//
// # Cube pruning
//
// With [search-algorithm] 1 in the moses.ini (or SearchOptions.Algorithm
// CubePruning), the search is Moses' cube pruning (Huang and Chiang 2007;
// SearchCubePruning) on the same stacks, with the same scores, future
// costs, distortion limit, recombination, beam and histogram pruning, and
// the same search graph for n-best lists. Instead of expanding every
// hypothesis with every option, it groups the hypotheses of a stack by
// coverage and pairs each group with each span it may translate next: a
// cube whose rows are the group's hypotheses that may jump to the span
// (best score plus weighted distortion cost first) and whose columns are
// the span's options (best future score first). Each later stack starts
// from the corner of each of its cubes and pops the best hypothesis built
// so far [cube-pruning-pop-limit] times (Moses' default 1000), building the
// two neighbours of each popped hypothesis in its cube; with
// [cube-pruning-diversity] d, each coverage of the stack then pops until d
// of its hypotheses have joined the stack. With no limit on the pops (and
// no pruning) it finds what the stack search finds. On europarl-fr-en-8k
// (test lines 9001–9200, default weights), with the default pop limit it
// scores about 41,000 hypotheses a sentence with the language model where
// the stack search scores 250,000, and takes about 13 ms of CPU a sentence
// instead of 37; 193 of the 200 1-best translations are Moses' (BLEU
// 19.80, Moses 19.79; model scores 0.02 below on average). With pop limit
// 200: 3.3 ms a sentence, 169 of 200, BLEU 19.81, 0.12 below. See
// BenchmarkEuroparl8kDecodeCube and scripts/bench-decoder.sh.
//
// # N-best lists
//
// N-best lists are extracted from the search graph as Moses does
// (Manager::CalcNBest with TrellisPath): starting from every hypothesis of
// the last stack, a path is popped best first and each of its nodes after
// its own deviation point is replaced in turn by each of its arcs, giving
// new candidate paths; at most 20 times the list size are popped. Lists
// are of distinct targets by default (each with its best derivation), or
// of all derivations (DecodeOptions.AllDerivations, Moses' default, where
// an arc list longer than 5 times the list size keeps its best ones).
// Each Hypothesis has its full feature vector over the model's Index (the
// dense features, tuneable or not, and the sparse ones), its score, its
// segmentation and word alignment. NBestEntry and NewNBestWriter write it
// as Moses writes n-best lists: stateful features first (in moses.ini
// order), then the stateless ones, leaving out those that are not
// tuneable; with the segmentation ("0=0 1-3=1-2") or the word alignment
// when the moses.ini asks for it.
//
// # Sparse features
//
// Templates switches on indicator templates: the discriminative phrase
// table (pp_src~tgt), phrase-internal alignments and unaligned source words
// (al_, aldel_), reordering classes (lo_<class>_src~tgt), unaligned target
// words (tu_), joint-count bins (cb_) and length bins (lb_); see
// Templates for the names. Their weights are read from the sparse weights
// file or given per call; names are interned in the model's Index (safe for
// concurrent use) only when a hypothesis is output.
//
// # Checked against Moses
//
// The tests decode with Moses' own regression models: on
// early-distortion-de-en every 1-best is Moses' and 249 of the 250
// hypotheses of Moses' 50-best lists are in mtune's, with dense features
// within 6e-5 (the 250th ties with another hypothesis at the end of the
// list); on lexicalized-reordering-fr-en all 5 1-best translations and
// scores are Moses'. On europarl-fr-en-8k (test lines 9001–9200, default
// weights) every 1-best is Moses' (BLEU 19.79, as Moses), and the 1536
// hypotheses of Moses' distinct 100-best lists of the first 20 sentences
// are all in mtune's lists with the same features and scores (within
// Moses' six printed digits). The model loads in about 1–2 s (Moses 4.6–7.6
// s) and decodes about 25 sentences a second on one thread (Moses 5.6);
// see BenchmarkEuroparl8kLoad and BenchmarkEuroparl8kDecode.
//
// # Concurrency
//
// A loaded Model is read-only: Decode and DecodeAll may run from any
// number of goroutines. Each decode takes a reusable search state from a
// pool.
// Translate decodes a whole input in chunks, writing the 1-best as each
// chunk is done and the n-best lists to a file, as `mtune decode` does.
package decoder
