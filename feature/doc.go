// Package feature holds the types every other mtune package shares: the
// feature index that maps feature names to dense ids, sparse feature vectors,
// and dense weight vectors that grow with the index.
//
// A translation hypothesis d has a feature vector φ(d) that mixes a few dense
// features (language model, translation probabilities, distortion, word
// penalty, …) with up to millions of sparse indicator features. mtune keeps
// φ(d) as a Vector: the ids of its non-zero features in increasing order and
// their values, so a vector costs memory in proportion to its non-zeros only
// (12 bytes each). Weights are a dense []float64 indexed by id; reading an id
// past the end of the slice reads zero, so weights grow lazily as the Index
// does.
//
// Dense Moses features are named by their label and position: the n-best
// entry "LM0= -30.5" is the feature "LM0_0", "tm: -1 -2" are "tm_0" and
// "tm_1". SplitDenseName undoes this.
//
// An Index is safe for concurrent use; Vector and Weights follow the usual Go
// rule (concurrent readers, one writer).
package feature
