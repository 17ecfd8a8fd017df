// Package learner defines what every tuning algorithm of mtune is: a Learner
// that learns weights from n-best lists (pool.List), online or in batch.
//
// The algorithms live in sub-packages, each pure Go with no Beam import:
//
//	learner/sample   pair samplers: PRO (Hopkins & May 2011), Green et al.'s
//	                 15 pairs a sentence, Watanabe's oracle-vs-rest
//	learner/loss     losses with gradients and regularisers (pairwise
//	                 logistic and hinge, softmax, MIRA's structured hinge,
//	                 expected BLEU; L1, L2, feature noising of Wang et al.)
//	learner/online   online updaters: SGD, AdaGrad + FOBOS (Green et al. 2013),
//	                 MIRA (Chiang 2008), Watanabe's optimized online rank
//	                 learning (2012)
//	learner/batch    batch optimizers on a pool: PRO (Hopkins & May 2011),
//	                 k-best MIRA and expected BLEU (Cherry & Foster 2012)
//	learner/mert     MERT (Och 2003) as Moses' mert runs it
//	learner/linesearch  the exact line search over per-sentence upper
//	                 envelopes that MERT and line-search mixing use
//	learner/mix      parameter mixing: averaging, line search (Watanabe 2012)
package learner
