// Package mert is minimum error rate training (Och 2003) on a pool of n-best
// lists, as Moses' mert program does it by default.
//
// From a start point, each pass runs an exact line search
// (learner/linesearch) along every coordinate direction, and along
// Options.RandomDirections random directions (Cer et al. 2008; Moses'
// --nrandom, 0 by default), all from the same point, and moves to the best
// point found on any of these lines: Moses' SimpleOptimizer ("powell").
// Passes repeat while corpus BLEU improves by more than Options.Epsilon
// (Moses' kEPS, 0.0001). The optimisation runs from the learner's current
// weights and from Options.Restarts random points (mert-moses.pl's
// --random-restarts, 20), drawn uniformly from [Min, Max] in every
// dimension ([0, 1]: mert-moses.pl's default ranges, the second and third
// lines of mert's init.opt); the best run wins, the earliest on ties, and
// its weights are L1-normalised (the sum of |w| is 1), as mert does.
//
// The dimensions are the features active in the pool (any hypothesis has a
// non-zero value for them), or Options.Features. MERT is meant for a few
// dense features: it keeps a dense column of every dimension's values over
// all hypotheses, and the number of line searches grows with the number of
// dimensions; it is not a method for sparse features. Weights of features
// outside the dimensions stay fixed (they still count in the model score).
//
// The line searches run in parallel over sentences (Options.Threads), and
// the result does not depend on the number of threads: for a given seed, the
// weights are the same bit for bit.
//
// Differences from Moses: scores are float64 (Moses uses float); a line
// search returns γ = 0 when the current point is already best on the line
// and otherwise the midpoint of the best interval nearest to it (Moses takes
// the leftmost, and 1000 before the first breakpoint); a move is accepted
// only if re-ranking the lists at the new point confirms the line search's
// BLEU; and normalisation divides every weight, fixed ones included, so it
// never changes the ranking (Moses skips it when some weights are fixed).
//
// What is the same, point by point against Moses' mert/mert.cpp (main),
// mert/Optimizer.cpp (SimpleOptimizer::TrueRun, Optimizer::LineOptimize),
// mert/Point.cpp (Point::Randomize) and mert-moses.pl: the start points are
// the current weights (the first line of init.opt) and Restarts points
// drawn uniformly in [Min, Max] in every optimised dimension, all drawn
// before any run; a pass searches every coordinate (and RandomDirections
// random directions drawn in the same ranges) from the same point and moves
// to the best line optimum only if it beats the current BLEU; passes stop
// when a pass gains no more than kEPS = 0.0001 (BLEU in [0, 1]); the best
// run wins, the starting point's included, the earliest on ties.
// mert-moses.pl's --historic-bests (previous iterations' start points as
// further starts) and --historic-interpolation are not part of mert itself.
//
// Moses' LineOptimize also drops a sentence's breakpoint closer than 0.0001
// to its previous one, and sets γ to 0 when |γ| < 0.00015 while keeping the
// score of the interval it found: the score it reports for a run can then be
// that of a point it did not move to. mtune's BLEU is always that of
// re-ranking the lists at the returned weights.
//
// Usage:
//
//	m := mert.New(initial, mert.Options{Seed: 1})
//	err := m.Learn(ctx, lists)
//	w := m.Weights() // mert.BLEU(lists, w) is the tuned corpus BLEU
package mert
