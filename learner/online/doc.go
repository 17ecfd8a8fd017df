// Package online holds mtune's online learners, each a learner.Online:
//
//	SGD       plain stochastic gradient descent, optional L2 weight decay
//	AdaGrad   AdaGrad + FOBOS with L1 (and L2), applied lazily
//	          (Green et al. 2013, Alg. 1; the default for tuning), or
//	          linearized AROW (their eq. 11) with the AROW option
//	MIRA      online MIRA with hope/fear, background BLEU (or another
//	          metric's pseudo-corpus gain) and averaging (Chiang et al.
//	          2008; Cherry & Foster 2012)
//	Watanabe  optimized online rank learning: L2 step, a passive-aggressive
//	          step solving the QP of his eq. 12 (hinge) or 16 (softmax),
//	          L2-ball projection (Watanabe 2012)
//
// Each optimises BLEU or, given a metric (Pairwise.Metric,
// MIRAOptions.Metric, WatanabeOptions.Metric), any other whose statistics
// the lists hold. Each learns from mini-batches of n-best lists (pool.List). Learn runs an
// epoch: the lists in an order drawn from the learner's generator, cut into
// mini-batches, one Update each. Update splits into Gradient, a pure
// function of the weights it is given (safe to call from several goroutines,
// for Green et al.'s stale-gradient Alg. 2), and Apply:
//
//	g, err := l.Gradient(l.Current(), batch, seed) // any goroutine
//	l.Apply(g)                                       // one applier
//
// For SGD and AdaGrad g is the gradient of a Pairwise objective (sampled
// pairs, logistic or hinge loss, optional feature noising); for MIRA and
// Watanabe it is minus the passive-aggressive step computed at the weights
// given (and the learner's pseudo-corpus or learning rate), and Apply adds
// the step and does the learner's bookkeeping (averaging, L2 step,
// projection; MIRA's ApplyStep also feeds the hopes to the pseudo-corpus).
// Watanabe's QP is solved by an interior-point method with a final exact
// polish (KKT conditions met to about 1e-11), falling back to dual
// coordinate descent for problems with more than 400 rows and coordinates.
//
// Every update costs time proportional to the features of its mini-batch,
// not to the number of features: regularisation that touches every weight
// is kept lazy (AdaGrad's skipped proximal steps, a scale factor for L2
// decay and projection, kbmira's lazy averaging sums).
//
// Options are fields whose zero value is the paper's default. A learner's
// state (weights, accumulators, counters, generator) marshals to a
// versioned binary record with exact float bits: a learner restored from
// MarshalBinary into one made with the same options continues
// bit-identically.
//
// The Moses dense features have very different scales (word penalty about
// −20, language model about −50, distortion a few units). AdaGrad needs no
// scaling (its per-coordinate rates absorb it, Green et al. §2.3). MIRA and
// Watanabe's learner work in the raw scale, as kbmira and Watanabe do.
package online
