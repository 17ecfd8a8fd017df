// Package mix combines the weights that parallel shards learned in one epoch
// (iterative parameter mixing, McDonald et al. 2010).
//
// Average is the plain mix: the mean of the shards' weights, uniform or
// weighted by the number of updates each shard made.
//
// LineSearch is Watanabe's (2012, §4.2, Algorithm 3 line 6) mix: with
// w_prev the weights every shard started the epoch from and w_avg their
// average, the new weights are
//
//	w = (1 − α)·w_prev + α·w_avg = w_prev + α·(w_avg − w_prev)
//
// with α chosen by MERT's exact line search (learner/linesearch) to maximise
// corpus BLEU of the n-best lists the shards decoded this epoch. α is not
// confined to [0, 1]; when several values are equally good, α = 1 (the plain
// average) is kept if it is one of them, otherwise the best interval nearest
// to 1 gives its midpoint.
//
// Example: shards that made 10 and 30 updates,
//
//	avg := mix.Average([]mix.Shard{{W1, 10}, {W2, 30}}, true) // (10·W1 + 30·W2)/40
//	w, alpha, stats, err := mix.LineSearch(prev, avg, lists)
//
// Both come in pieces for parallel workers, merged in any order: Sums
// (Add a shard, Merge, Mean) is Average, and Lines (Add a list's envelope
// and its 1-best statistics at α = 0 and 1, Merge, Search) is LineSearch.
package mix
