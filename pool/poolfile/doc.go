// Package poolfile reads the n-best files of several decoding iterations
// into a pool, the way Moses' extractor does: each sentence's hypotheses
// are gathered across the files, de-duplicated (the same target with the
// same features is one hypothesis, the first kept) and scored against the
// sentence's references.
//
// Load returns the pool as one pool.List per sentence (what the batch
// optimizers of learner/ train on); Walk streams it sentence by sentence
// without scoring; Extract writes it as Moses' FEATSTAT and SCORESTAT files
// for Moses' own mert, pro and kbmira. Rerank picks each sentence's best
// hypothesis under given weights, and RerankTo writes them (`mtune
// rerank`) with the re-scored lists; CheckWeights and StartWeights match
// weights to the features the lists hold, and LoadTuning reads a pool and
// the weights tuning on it starts from (`mtune tune-nbest`).
// ReadExternalScores and ExternalScorer read scores computed elsewhere
// (COMET, QE) from score files aligned with the lists, for a pool.Scorer
// that scores each hypothesis by the file and line it was read from.
// Options.Features add dense features to every hypothesis from score files
// of the same formats (FeatureFile, ParseFeatureFlags): a reverse model's
// or a language model's scores, as marian-scorer --n-best appends one. The
// files are n-best lists in any
// format io/nbest reads, local or gs://, plain or .gz/.zst (io/storage),
// each in increasing sentence order, all from one model (the same dense
// feature groups).
//
// The in-memory types and the scoring live in package pool, which touches
// no storage, so that learner/ can use them without reading files.
package poolfile
