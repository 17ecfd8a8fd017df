// Package sample chooses the hypothesis pairs that pairwise tuning learns
// from: in each n-best list (a pool.List) a better and a worse hypothesis,
// better by a sentence-level gain such as BLEU+1.
//
// A Pair names its hypotheses by index, so sampling copies no features:
//
//	Pair{List: 2, Better: 17, Worse: 64, Gap: 0.21}
//
// is hypothesis 17 of lists[2] against hypothesis 64 of the same list, with a
// gain 0.21 higher. Its difference vector x = φ(better) − φ(worse) is
// p.Vector(lists); a linear model ranks the pair right when w·x > 0.
//
// Three samplers are provided:
//
//   - PRO, the sampler of Hopkins & May (2011) as Moses' pro runs it: Γ = 5000
//     random pairs a sentence drawn with replacement, those whose gains differ
//     by less than 0.05 dropped, the Ξ = 50 with the largest difference kept.
//     The gain is Moses' BLEU+1 (metric.MosesPlusOne).
//   - Green, the same sampler with the settings of Green et al. (2013) and
//     Phrasal's online PRO objective: Γ = 500, Ξ = 15 pairs a sentence, BLEU+1
//     of Lin & Och (metric.LinOch).
//   - OracleVsRest, Watanabe (2012): in a mini-batch, one oracle per sentence
//     chosen greedily to maximise the batch-local corpus BLEU (Haddow et al.
//     2011), paired with every other hypothesis of its list.
//
// Under a metric other than BLEU the samplers rank by its sentence score as
// a fraction (MetricGain, a PRO's Gain) and the oracles maximise its batch
// score (Oracles' metric).
//
// Moses' pro writes every pair twice for its binary classifier, as
// "1 x" and "0 −x" (mert/pro.cpp); Examples makes the same two examples.
//
// Random samplers draw only from the *rand.Rand they are given, so a sample
// is a function of the lists and the generator's state.
package sample
