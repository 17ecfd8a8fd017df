// Package batch holds the batch optimizers of mtune: each trains weights
// on a pool of n-best lists (pool.List, hypotheses with features and BLEU
// statistics) as the inner step of the MERT-like tuning loop (decode,
// merge the n-best lists into the pool, optimise, repeat), and each is a
// learner.Learner:
//
//	MIRA  batch k-best MIRA (Cherry & Foster 2012, Algorithm 1) as Moses'
//	      kbmira: 60 passes, C = 0.01, pseudo-corpus decay 0.999, averaged
//	      weights of the pass with the best 1-best BLEU on the pool
//	MR    minimum risk training (Cherry & Foster §2.4): expected sentence
//	      BLEU under the softmax of the model scores, L2 λ = 50, SGD with
//	      the rate η₀/(1+η₀λt), η₀ chosen as Bottou (2010), 5 restarts
//	PRO   pairwise ranking optimisation (Hopkins & May 2011) as Moses' pro:
//	      Γ = 5000 candidate pairs a sentence, the Ξ = 50 with the largest
//	      BLEU+1 difference of at least 0.05 (learner/sample), logistic
//	      regression with a small L2 term by L-BFGS (gonum)
//	SVM   structured SVM (Cherry & Foster §3.2): the latent structured
//	      hinge loss against an oracle of maximal interpolated sentence
//	      BLEU, L2 λ = 1000, 10 alternations of oracle selection and an
//	      n-slack cutting-plane solve by dual coordinate descent
//
// A Learn call is one optimisation on the pool from the learner's current
// weights; Weights returns its result, which the next Learn starts from:
//
//	m, err := batch.NewMIRA(start, batch.MIRAOptions{Seed: 1})
//	err = m.Learn(ctx, lists)       // 60 passes of kbmira on the pool
//	w := m.Weights()                // decode the next n-best lists with w
//	bleu := pool.OneBest(lists, w).BLEU()
//
// The optimizers work on a flat copy of the pool: the features present in
// it renumbered densely, stored as dense rows when that takes no more
// memory than sparse ones, and the statistics as Moses' SCORESTAT rows, so
// that a hypothesis costs one dot product and one BLEU a pass. Weights of
// features absent from the pool pass through unchanged.
//
// State: MarshalBinary writes a versioned binary state (a magic string
// naming the learner, a uint32 version, then the options, the weights as
// IEEE-754 bits, the PCG random state and the last run's summary);
// UnmarshalBinary restores it exactly, so that a restored learner given
// the same pools produces bit-identical weights. Randomness (MIRA's
// shuffles, MR's shuffles and samples, PRO's pairs, the SVM's dual
// solver's visiting order) comes only from that
// state, seeded by the options' Seed.
package batch
