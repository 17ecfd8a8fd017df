// Package loss holds the tuning losses and regularisers of mtune, each with
// its value and its (sub)gradient with respect to the weights w.
//
// Every function returns the value and, when given a non-nil Sink, adds
// the gradient to it entry by entry, touching only the coordinates of the
// feature vectors involved (the active coordinates), never all of w.
// A *feature.Builder collects a sparse gradient; Dense collects it in a
// dense slice:
//
//	var g feature.Builder
//	v := loss.Logistic(w, xs, &g) // Σ −log σ(w·x), gradient into g
//	grad := g.Vector()            // sparse, sorted, no zeros
//
// Losses to minimise:
//
//	Logistic         Σ_x −log σ(w·x)                   Green et al. (2013) eq. 12
//	Hinge            Σ_x max(0, 1 − w·x)               pairwise hinge
//	Softmax          −log Σ_{o∈O} e^{w·φ_o} / Σ_i e^{w·φ_i}   Watanabe (2012) eq. 6
//	StructuredHinge  max(0, Δgain − w·(φ_hope − φ_fear))    MIRA (Chiang 2008)
//	ExpectedBLEU     −Σ_i p_i gain_i, p ∝ e^{scale·w·φ_i}    MR
//
// where x = φ(better) − φ(worse) are pair difference vectors (see
// learner/sample), O is a set of oracle hypotheses, and gain is a
// per-hypothesis sentence metric given as a slice (sample.Gains), so the
// caller picks the variant: BLEU+1, or MIRA's pseudo-corpus background BLEU.
//
// Regularisers: L1 (a subgradient; online learners apply it as a FOBOS
// proximal step, see SoftThreshold), L2, and the feature-noising
// regulariser of Wang et al. (2013) for the logistic losses (Noising): the
// second-order approximation (their eqs. 5–8) of dropout (dropout.go,
// eq. 10) or of additive Gaussian noise N(0, σ²I) (gaussian.go),
//
//	R(w) = ½ · δ/(1−δ) · Σ_x p(1−p) Σ_j x_j² w_j²   dropout
//	R(w) = ½ · σ² · ‖w‖² · Σ_x p(1−p)               Gaussian,   p = σ(w·x),
//
// optionally estimated on extra unlabelled inputs as their eq. 11 does.
//
// Every gradient is checked against central finite differences, and both
// noising regularisers against Monte-Carlo averages over real noise.
package loss
