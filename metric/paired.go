package metric

// Paired significance tests: is one system's corpus score on a test set
// (BLEU, or any Metric: chrF, TER, a weighted sum) better than another's, or
// could the difference be chance?
//
// References:
//
//   - Koehn (2004), "Statistical significance tests for machine translation
//     evaluation", EMNLP: paired bootstrap resampling.
//   - Riezler & Maxwell (2005), "On some pitfalls in automatic evaluation and
//     significance testing for MT", ACL workshop: approximate randomisation.
//   - Clark, Dyer, Lavie & Smith (2011), "Better hypothesis testing for
//     statistical machine translation: controlling for optimizer
//     instability", ACL (MultEval): approximate randomisation, the +1 in
//     the p-value.
//   - Post (2018) and sacreBLEU 2 (sacrebleu/significance.py,
//     `--paired-bs` and `--paired-ar`), whose conventions are followed and
//     whose differences are noted below. sacreBLEU runs both tests on
//     any of its metrics (BLEU, chrF, TER) from their sufficient
//     statistics, as here; its statistics are absolute differences and
//     need no orientation, while the one-sided p-values here count a
//     lower TER as better (Objective).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// ErrPaired is wrapped by the errors the paired tests return for unusable
// input: systems of different lengths, no sentences, a count of samples or
// trials below 1 (or, for the bootstrap, above MaxPairedSamples), statistics
// of different lengths (BLEU: orders). Malformed statistics (NaN, negative,
// not the metric's, …) wrap ErrStats instead, and a cancelled context wraps
// the context's error.
var ErrPaired = errors.New("metric: invalid paired test input")

// MaxPairedSamples bounds PairedBootstrap's resamples: their gains are kept (8
// bytes each) for the percentiles.
const MaxPairedSamples = 50_000_000

// pcgStream is the second PCG seed word of the paired tests' generator,
// rand.NewPCG(seed, pcgStream).
const pcgStream = 0x70616972_65647465 // "pairedte"

// PairedResult is the outcome of PairedBootstrap. Scores and gains are on
// the metric's paired scale (Scale): for BLEU fractions in [0, 1] like
// BLEUStats.BLEU (sacreBLEU reports them multiplied by 100), for every other
// metric the points of Metric.Score; p-values are scale-free. Gains are
// oriented so that a positive one favours the candidate, for an error rate
// (TER) too.
type PairedResult struct {
	// Metric is the metric's name ("BLEU", "chrF2", "TER"; Metric.Name).
	Metric string `json:"metric"`
	// Scale turns the scores, gains and interval into the metric's points
	// (Metric.Score's scale): 100 for BLEU, 1 for the others (pairedScale).
	Scale float64 `json:"scale"`
	// Base and Cand are each system's corpus score on the whole test set
	// (TER as TER, lower being better), and Gain the candidate's gain
	// over the base: Cand - Base, or Base - Cand when lower is better.
	Base float64 `json:"base"`
	Cand float64 `json:"cand"`
	Gain float64 `json:"gain"`
	// MeanGain is the mean of the resampled gains δ_b (close to Gain, but not
	// equal to it: BLEU, chrF and TER are not linear in the statistics).
	MeanGain float64 `json:"mean_gain"`
	// Low and High bound the 95% percentile interval of the resampled gains:
	// with the gains sorted, g[k] and g[B-1-k] for k = ⌊B/40⌋, the indices
	// sacreBLEU's estimate_ci uses (the 2.5th and 97.5th percentiles; for B
	// < 40 the smallest and largest gain).
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// P is the one-sided p-value for H0 "the candidate is not better than
	// the base": (1 + #{b : δ_b - MeanGain ≥ Gain}) / (B + 1).
	P float64 `json:"p"`
	// PTwoSided is the two-sided p-value for H0 "the systems are equally
	// good": (1 + #{b : |δ_b - MeanGain| ≥ |Gain|}) / (B + 1).
	PTwoSided float64 `json:"p_two_sided"`
	// Samples is B, the number of resamples.
	Samples int `json:"samples"`
}

// RandomizationResult is the outcome of PairedApproxRandomization, on the
// same scale and with the same orientation as PairedResult.
type RandomizationResult struct {
	// Metric and Scale are PairedResult's.
	Metric string  `json:"metric"`
	Scale  float64 `json:"scale"`
	// Base and Cand are each system's corpus score on the whole test set,
	// and Gain the candidate's gain over the base, as in PairedResult.
	Base float64 `json:"base"`
	Cand float64 `json:"cand"`
	Gain float64 `json:"gain"`
	// P is the one-sided p-value for H0 "the candidate is not better than
	// the base": (1 + #{t : δ_t ≥ Gain}) / (T + 1).
	P float64 `json:"p"`
	// PTwoSided is the two-sided p-value, sacreBLEU's and MultEval's
	// statistic: (1 + #{t : |δ_t| ≥ |Gain|}) / (T + 1).
	PTwoSided float64 `json:"p_two_sided"`
	// Trials is T, the number of shuffles.
	Trials int `json:"trials"`
}

// pairedMetric is how the paired tests score a system under a metric.
type pairedMetric struct {
	name string
	// score is a system's corpus score as the results report it; gain
	// the figure whose difference is the gain, higher being better
	// (Objective).
	score, gain func(Stats) float64
	// scale is the results' Scale.
	scale float64
	// check is CheckStats.
	check func(Stats) error
}

// pairedScale returns how the paired tests score systems under m (nil:
// BLEU). BLEU is computed as BLEUStats.BLEU, a fraction, the computation of
// Koehn (2004) and Moses, whose results earlier versions gave bit for bit
// (Scale 100 takes them to points); any other metric as Metric.Score, in
// points (Scale 1), its gain Gain's orientation: the negated score of an
// error rate, so that a positive gain favours the candidate.
func pairedScale(m Metric) pairedMetric {
	check := func(s Stats) error { return CheckStats(m, s) }
	if isBLEU(m) {
		return pairedMetric{name: DefaultBLEU().Name(), score: bleuOf, gain: bleuOf, scale: 100, check: check}
	}
	return pairedMetric{name: m.Name(), score: m.Score, gain: Objective(m), scale: 1, check: check}
}

// checkPaired validates the input of a paired test: equal non-zero lengths,
// valid statistics of one length (BLEU: order) under pm's metric, at least
// one draw (a resample or shuffle), a live context; and returns the
// full-set statistics of both systems.
func checkPaired(ctx context.Context, pm pairedMetric, test string, base, cand []Stats, draws int, unit string) (sb, sc Stats, err error) {
	if ctx == nil {
		return sb, sc, fmt.Errorf("%w: %s: nil context", ErrPaired, test)
	}
	if err := ctx.Err(); err != nil {
		return sb, sc, fmt.Errorf("metric: %s: %w", test, err)
	}
	if len(base) != len(cand) {
		return sb, sc, fmt.Errorf("%w: %s: %d base sentences, %d candidate sentences", ErrPaired, test, len(base), len(cand))
	}
	if len(base) == 0 {
		return sb, sc, fmt.Errorf("%w: %s: no sentences", ErrPaired, test)
	}
	if draws < 1 {
		return sb, sc, fmt.Errorf("%w: %s: %d %s, want at least 1", ErrPaired, test, draws, unit)
	}
	n := base[0].N
	for _, sys := range []struct {
		name  string
		stats []Stats
	}{{"base", base}, {"candidate", cand}} {
		for i := range sys.stats {
			s := &sys.stats[i]
			if err := pm.check(*s); err != nil {
				return sb, sc, fmt.Errorf("metric: %s: %s %s sentence %d: %w", test, pm.name, sys.name, i+1, err)
			}
			if s.N != n {
				return sb, sc, fmt.Errorf("%w: %s: %s sentence %d has %d statistics, base sentence 1 %d", ErrPaired, test, sys.name, i+1, s.N, n)
			}
		}
	}
	return Sum(base), Sum(cand), nil
}

// pValue returns (1 + count) / (1 + n), the p-value of a Monte Carlo test
// whose statistic was at least as extreme as the observed one count times in
// n draws. The +1 counts the observed value itself: it keeps a randomisation
// test valid (rejecting a true H0 at level α at most a fraction α of the
// time) for any n, and makes no p-value 0 (Davison & Hinkley 1997; Clark et
// al. 2011). The bootstrap test is approximate anyway; it takes the same
// convention, as sacreBLEU does.
func pValue(count, n int) float64 { return float64(count+1) / float64(n+1) }

// tally counts the draws of a Monte Carlo test whose statistic d is at
// least as extreme as the observed gain: one-sided (d ≥ gain) and
// two-sided (|d| ≥ |gain|).
type tally struct {
	gain, absGain float64
	one, two      int
}

func newTally(gain float64) tally { return tally{gain: gain, absGain: math.Abs(gain)} }

func (t *tally) add(d float64) {
	if d >= t.gain {
		t.one++
	}
	if math.Abs(d) >= t.absGain {
		t.two++
	}
}

// pValues returns the one- and two-sided p-values after n draws.
func (t *tally) pValues(n int) (one, two float64) { return pValue(t.one, n), pValue(t.two, n) }

// pairs holds the counts of both systems' statistics packed for the
// resampling loops: for sentence i, row i is base's counts then cand's, each
// its Stats' values V[:w] (w = N, 2·order+1 for BLEU). Summing rows adds
// exactly what Stats.Add adds, in the same order.
type pairs struct {
	w    int
	rows []float64
}

func packPairs(base, cand []Stats) pairs {
	p := pairs{w: base[0].N}
	p.rows = make([]float64, 0, 2*p.w*len(base))
	for i := range base {
		p.rows = append(p.rows, base[i].V[:p.w]...)
		p.rows = append(p.rows, cand[i].V[:p.w]...)
	}
	return p
}

// acc is the sum of some rows of a pairs: one system's counts, then the
// other's.
type acc [2 * MaxStats]float64

// stats returns the Stats of the system at offset off (0 or w) of a.
func (p *pairs) stats(a *acc, off int) Stats {
	return StatsOf(a[off : off+p.w]...)
}

// PairedBootstrap compares two systems' translations of one test set by paired
// bootstrap resampling (Koehn 2004) under the metric m (nil: BLEU). base[i]
// and cand[i] are the statistics of each system's translation of sentence i
// under m.
//
// It draws samples resamples of the n sentence indices, uniformly with
// replacement, the same indices for both systems, and computes each system's
// corpus score on each from its summed statistics: for BLEU BLEUStats.BLEU
// (unsmoothed, a fraction in [0, 1]), for any other metric Metric.Score. The
// resampled gain is δ_b = S(cand on b) - S(base on b), S being the score
// oriented so that higher is better (Objective: BLEU, chrF, a weighted sum
// as they are, TER negated, so that δ_b = TER(base on b) - TER(cand on b)).
// Let δ = Gain be the gain on the whole set and δ̄ = MeanGain the mean of the
// δ_b. Everything below holds for every metric; the figures quoted are
// BLEU's.
//
// The p-values test the observed gain against the bootstrap distribution
// shifted to mean zero, the null distribution the bootstrap estimates
// (the shift method; Berg-Kirkpatrick, Burkett & Klein 2012, "An empirical
// investigation of statistical significance in NLP", shift by δ instead of
// δ̄; sacreBLEU shifts by the mean, as here):
//
//	P         = (1 + #{b : δ_b - δ̄ ≥ δ})     / (samples + 1)   one-sided, H0: cand ≤ base
//	PTwoSided = (1 + #{b : |δ_b - δ̄| ≥ |δ|}) / (samples + 1)   two-sided, H0: cand = base
//
// P is the one a promotion gate wants: small only when the candidate is
// better; close to 1 when it is worse (δ < 0). Ties count against the
// candidate (≥), so a system compared with itself, or with any system whose
// statistics equal its own, gets δ_b = 0 for every b and P = PTwoSided = 1.
// Koehn's own criterion, the fraction of resamples the candidate does not
// win, #{b : δ_b ≤ 0} / samples, has the same limit as P when the δ_b are
// symmetric about δ̄ = δ; on a skewed distribution the two differ (on
// wmt15-en-ru-100 with 5 of 100 lines shortened, 0.02 against 0.09).
//
// Relation to sacreBLEU 2 (`--paired-bs`, _paired_bs_test): sacreBLEU folds
// before centring, s_b = |δ_b| - mean_b'(|δ_b'|), and reports p = (1 + #{b :
// s_b > |δ|}) / (samples + 1), with a strict >. Its p does not depend on
// which system is better. When no δ_b has the sign opposite to δ (a clear
// difference), s_b = ±(δ_b - δ̄), so sacreBLEU counts the tail P counts
// (δ > 0) or its mirror (δ < 0); the other tail of PTwoSided, δ_b on the
// far side of about 0, is then nearly empty: sacreBLEU's p ≈ PTwoSided, and
// ≈ P when the candidate is better, ≈ 1 - P when it is worse. When the δ_b
// straddle 0, folding narrows their spread and sacreBLEU's p is below
// PTwoSided, often below P too (0.13 against P = 0.16 and PTwoSided = 0.34
// on wmt15-en-ru-100 with a third of the lines shortened): it is neither
// the one- nor the two-sided p-value of the shift method. Two systems with
// identical statistics get p = 1/(samples+1) from sacreBLEU (its strict >
// counts no tie), 1 here. Its random numbers are numpy's, not these, so its
// p-values agree with these within Monte Carlo error at best.
//
// The random numbers come from rand.New(rand.NewPCG(seed,
// 0x7061697265647465)); resample b draws its n indices in turn with IntN(n).
// The result is a function of the input and seed alone. A resample costs n
// additions of both systems' statistics and allocates nothing: 1,000
// resamples of 2,000 sentences take some tens of milliseconds.
//
// It returns an error wrapping ErrPaired if the systems have different
// numbers of sentences, there are none, samples is below 1 or above 5e7, or
// the statistics have different lengths (BLEU: orders); one wrapping
// ErrStats if some statistics are not m's (CheckStats: NaN, infinite or
// negative counts, the wrong number of them, …); and one wrapping ctx.Err()
// if ctx is done before it finishes.
func PairedBootstrap(ctx context.Context, m Metric, base, cand []Stats, samples int, seed uint64) (PairedResult, error) {
	const test = "paired bootstrap"
	pm := pairedScale(m)
	sb, sc, err := checkPaired(ctx, pm, test, base, cand, samples, "samples")
	if err != nil {
		return PairedResult{}, err
	}
	if samples > MaxPairedSamples {
		return PairedResult{}, fmt.Errorf("%w: %s: %d samples, at most %d", ErrPaired, test, samples, MaxPairedSamples)
	}
	n := len(base)
	res := PairedResult{Metric: pm.name, Scale: pm.scale, Base: pm.score(sb), Cand: pm.score(sc), Samples: samples}
	res.Gain = pm.gain(sc) - pm.gain(sb)

	p := packPairs(base, cand)
	w2 := 2 * p.w
	rng := rand.New(rand.NewPCG(seed, pcgStream))
	gains := make([]float64, samples)
	// Check the context about every 2^16 sentence draws.
	every := max(1, (1<<16)/n)
	var sum float64
	for b := range gains {
		if b%every == 0 {
			if err := ctx.Err(); err != nil {
				return PairedResult{}, fmt.Errorf("metric: %s: after %d of %d samples: %w", test, b, samples, err)
			}
		}
		var a acc
		sums := a[:w2]
		for range n {
			i := rng.IntN(n)
			row := p.rows[i*w2 : (i+1)*w2]
			for k := range sums {
				sums[k] += row[k]
			}
		}
		xb, xc := p.stats(&a, 0), p.stats(&a, p.w)
		g := pm.gain(xc) - pm.gain(xb)
		gains[b] = g
		sum += g
	}
	res.MeanGain = sum / float64(samples)

	ta := newTally(res.Gain)
	for _, g := range gains {
		ta.add(g - res.MeanGain)
	}
	res.P, res.PTwoSided = ta.pValues(samples)

	slices.Sort(gains)
	k := samples / 40
	res.Low, res.High = gains[k], gains[samples-1-k]
	return res, nil
}

// PairedApproxRandomization compares two systems' translations of one test set
// by paired approximate randomisation (Riezler & Maxwell 2005; Clark et al.
// 2011; sacreBLEU's `--paired-ar`) under the metric m (nil: BLEU). base[i]
// and cand[i] are the statistics of each system's translation of sentence
// i under m.
//
// Under H0 the two systems are exchangeable: which of a sentence's two
// translations came from which system does not matter. Each of trials
// shuffles swaps the two translations of every sentence independently with
// probability ½, giving pseudo-systems X_t (base where not swapped) and Y_t
// (cand where not swapped), and the shuffled gain δ_t = S(Y_t) - S(X_t), S
// the oriented score of PairedBootstrap (BLEU: BLEUStats.BLEU, a fraction in
// [0, 1]; TER negated). With δ = Gain, the gain on the whole set:
//
//	P         = (1 + #{t : δ_t ≥ δ})     / (trials + 1)   one-sided, H0: cand ≤ base
//	PTwoSided = (1 + #{t : |δ_t| ≥ |δ|}) / (trials + 1)   two-sided, H0: cand = base
//
// The distribution of δ_t is symmetric about 0 (swapping every sentence
// negates δ_t), so P is the one-sided version of PTwoSided, about half of it
// when δ > 0 and close to 1 when δ < 0. Ties count against the candidate, so
// identical statistics give P = PTwoSided = 1. PTwoSided is MultEval's and
// sacreBLEU 2's statistic (_paired_ar_test), except that sacreBLEU counts
// with a strict > (|δ_t| > |δ|), which makes identical systems p =
// 1/(trials+1); its random numbers differ from these.
//
// The random numbers come from rand.New(rand.NewPCG(seed,
// 0x7061697265647465)), as for PairedBootstrap; a shuffle draws one Uint64
// for each 64 sentences in turn, and bit j of the k-th (k = 0, 1, …) set
// swaps sentence 64k + j. A shuffle allocates nothing: 10,000 shuffles of
// 2,000 sentences take about half a second.
//
// Errors are those of PairedBootstrap (without the upper bound on trials).
func PairedApproxRandomization(ctx context.Context, m Metric, base, cand []Stats, trials int, seed uint64) (RandomizationResult, error) {
	const test = "paired approximate randomization"
	pm := pairedScale(m)
	sb, sc, err := checkPaired(ctx, pm, test, base, cand, trials, "trials")
	if err != nil {
		return RandomizationResult{}, err
	}
	n := len(base)
	res := RandomizationResult{Metric: pm.name, Scale: pm.scale, Base: pm.score(sb), Cand: pm.score(sc), Trials: trials}
	res.Gain = pm.gain(sc) - pm.gain(sb)
	ta := newTally(res.Gain)

	p := packPairs(base, cand)
	w, w2 := p.w, 2*p.w
	rng := rand.New(rand.NewPCG(seed, pcgStream))
	every := max(1, (1<<16)/n)
	for t := range trials {
		if t%every == 0 {
			if err := ctx.Err(); err != nil {
				return RandomizationResult{}, fmt.Errorf("metric: %s: after %d of %d trials: %w", test, t, trials, err)
			}
		}
		// a holds X_t, then Y_t.
		var a acc
		x, y := a[:w], a[w:w2]
		var bits uint64
		for i := range n {
			if i%64 == 0 {
				bits = rng.Uint64()
			}
			row := p.rows[i*w2 : (i+1)*w2]
			rb, rc := row[:w], row[w:]
			if bits&1 != 0 {
				rb, rc = rc, rb
			}
			for k := range x {
				x[k] += rb[k]
				y[k] += rc[k]
			}
			bits >>= 1
		}
		ta.add(pm.gain(p.stats(&a, w)) - pm.gain(p.stats(&a, 0)))
	}
	res.P, res.PTwoSided = ta.pValues(trials)
	return res, nil
}
