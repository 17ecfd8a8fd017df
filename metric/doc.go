// Package metric computes BLEU (Papineni et al. 2002) from sufficient
// statistics, the sentence-level variants that tuners optimise, and the
// tokenisations BLEU is reported with.
//
// # Statistics
//
// A hypothesis is scored against the references of its sentence by its
// Stats, an opaque vector of numbers that add up over sentences, which
// only its metric reads. BLEU's, read through BLEUStats, are for each order
// n = 1..N (N = 4 by default, up to 6) the number of its n-grams, and how
// many of them match a reference, each distinct n-gram counting at most as
// often as it occurs in any one reference (clipping); and the length of
// the reference closest in length to the hypothesis, the shorter of two
// equally close. Stats add up, so a corpus' BLEU is the BLEU of the sum of
// its sentences' Stats.
//
// BLEU's Stats convert exactly to and from Moses' layout, the SCORESTAT
// lines mert's extractor writes (m1 t1 m2 t2 m3 t3 m4 t4 r):
//
//	hypothesis:  mr president , we shall be in biarritz , look a little further .
//	reference:   what i would also call for , however , is to look beyond immediate concerns in biarritz .
//	SCORESTAT:   6 14 1 13 0 12 0 11 18
//
// that is 6 of the 14 unigrams match, 1 of the 13 bigrams, none of the
// trigrams and 4-grams, and the reference has 18 tokens.
//
// # Scoring many hypotheses
//
// NewReference prepares a sentence's references once: its n-grams go into a
// hash table keyed by a 63-bit hash (a collision, which would count a wrong
// match, has a chance of about 4e-15 per hypothesis). Reference.StatsString
// then splits a hypothesis on ASCII white space, hashes its tokens and counts
// its matches without allocating; a Reference serves any number of
// goroutines at once.
//
// # Scores
//
//   - BLEUStats.BLEU: corpus BLEU, unsmoothed; MultiBLEU formats it exactly as
//     Moses' multi-bleu.perl prints it.
//   - BLEUPlusOne: sentence BLEU+1, either as Lin & Och (2004) define it or
//     as Moses' PRO computes it.
//   - Background and BackgroundBLEU: the pseudo-corpus BLEU of Chiang et al.
//     (2008) as Moses' kbmira computes it, scaled by the reference length,
//     with decay γ = 0.999; BackgroundGain: the same for any other metric,
//     its gain scaled by the pseudo-corpus' sentences at SentenceWords
//     words each.
//   - BatchBLEU: corpus BLEU of a batch with one sentence's hypothesis
//     replaced (Haddow et al. 2011; Watanabe 2012).
//   - InterpolatedBLEU: the sentence BLEU of Liang et al. (2006).
//   - Smoothing: sacreBLEU 2's BLEU with smoothing none, floor, add-k or exp
//     and effective order, for sentences or corpora.
//
// # Behaviours
//
// Besides Metric, a metric may offer behaviours (behaviour.go), small
// interfaces that code outside this package asks for instead of asking
// which metric it holds: Objectiver (compared by its own objective, BLEU
// as a fraction), Smoother (a sentence smoothing the learner chooses,
// BLEU+1's variants), Backgrounder (kbmira's pseudo-corpus), FileScored
// (scores read from a file, External), ScorePrinter and Reporter (how
// `mtune score` prints and writes it), and RecordName (the name records
// give it, "" for BLEU).
//
// # chrF and chrF++
//
// ChrF is a Metric: the character n-gram F-score chrF (Popović 2015) and,
// with word n-grams, chrF++ (Popović 2017), exactly as sacreBLEU 2.6.0
// computes them. NewChrF gives its defaults, printed as "chrF2" and
// "chrF2++": character 6-grams over code points with white space removed,
// word 2-grams for ++ (punctuation split off words as sacreBLEU does), β =
// 2, case-sensitive, precision and recall averaged over the effective
// orders. Statistics are three numbers per order (hypothesis n-grams,
// reference n-grams, matches), 18 or 24; a corpus' chrF is the Score of
// their sum, and with several references a hypothesis takes the statistics
// of the reference it scores best against. ChrF.Segment prepares a
// segment's references as a trie of their n-grams; Segment.Stats then
// allocates nothing. testdata/ holds sacreBLEU's own chrF test vectors and
// its scores of the shared wmt15-en-ru-100 data, which the tests check to
// 1e-9, and the script that computed them.
//
// # Significance
//
// PairedBootstrap (Koehn 2004) and PairedApproxRandomization (Riezler &
// Maxwell 2005; Clark et al. 2011) compare two systems' translations of one
// test set from their per-sentence Stats under any metric (BLEU by
// default), as sacreBLEU's --paired-bs and --paired-ar do: the corpus score
// of each, the candidate's gain (oriented: a lower TER is a gain), a 95%
// interval of the gain (bootstrap), and one- and two-sided p-values. The
// one-sided P, for "the candidate is not better", is the one to gate a
// promotion on.
//
// # TER
//
// TER is translation edit rate (Snover et al. 2006) as sacreBLEU 2.6.0
// computes it, tercom-compatible, behind the Metric interface: the fewest
// insertions, deletions, substitutions and block shifts that turn a
// hypothesis into a reference, divided by the reference length, × 100
// (lower is better). Shifts are searched within the sentence, greedily as
// tercom does (blocks of up to 10 words, at most 50 words away, a
// 25-cell beam, at most 1000 shifted hypotheses scored), so each
// hypothesis' edit count is fixed and its statistics are two numbers that
// add over a corpus: the edits against the reference needing the fewest,
// and the references' average length. TER's zero value is sacreBLEU's
// default (case-insensitive as Python's str.lower, no normalisation,
// punctuation kept); Normalized, NoPunct, AsianSupport and CaseSensitive
// are its options. TER.Segment prepares a segment's references once; its
// Stats allocates nothing and serves any number of goroutines.
//
// The tests check TER against sacreBLEU's own tests and against sacreBLEU
// run from source (testdata/sacrebleu_ter.py): every sentence's statistics
// on the WMT15 en-ru sample under each option set, with one and with two
// references, random word sequences made to reach the search's limits, the
// tokeniser on every rule, and Python's lower-casing on every code point.
//
// # Tokenisation
//
// Tuning data is usually tokenised already and needs nothing more ("none").
// Tokenize13a reproduces mteval-v13a.pl as sacreBLEU implements it, for
// scoring detokenised output; TokenizeChar is sacreBLEU's character
// tokenizer. Text is handled as bytes: checking that it is valid UTF-8 is
// the job of the readers.
package metric
