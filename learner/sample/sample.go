package sample

import (
	"math/rand/v2"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/internal/opt"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// Gain scores a hypothesis by its BLEU statistics: the sentence-level metric
// a sampler ranks hypotheses by, or the cost MIRA and expected BLEU use.
type Gain func(s metric.Stats) float64

// PlusOne returns sentence-level BLEU+1 in variant v (metric.BLEUPlusOne) as
// a Gain.
func PlusOne(v metric.PlusOneVariant) Gain {
	return func(s metric.Stats) float64 { return metric.BLEUPlusOne(s, v) }
}

// MetricGain returns m's sentence score as a fraction
// (metric.SentenceFraction: gain over 100, TER negated, an external score
// as it is) as a Gain: what the learners rank hypotheses by, and take as
// their cost, under m, on the scale of BLEU+1 so that their thresholds and
// step sizes keep their meaning. For a metric whose sentence smoothing the
// learner chooses (metric.Smoother: BLEU, or a nil m) it returns nil: each
// learner keeps its own variant of BLEU+1.
func MetricGain(m metric.Metric) Gain {
	if _, ok := metric.OrDefault(m).(metric.Smoother); ok {
		return nil
	}
	return func(s metric.Stats) float64 { return metric.SentenceFraction(m, s) }
}

// Gains returns the gain of every hypothesis of l, in dst[:len(l.Hyps)]
// (dst is reallocated when too short).
func Gains(l pool.List, gain Gain, dst []float64) []float64 {
	dst = slices.Grow(dst[:0], len(l.Hyps))[:len(l.Hyps)]
	for k, h := range l.Hyps {
		dst[k] = gain(h.Stats())
	}
	return dst
}

// Pair is a pair of hypotheses of one n-best list: Better has the higher
// gain. List indexes the slice of lists the pair was sampled from (it is not
// the sentence id), Better and Worse index that list's hypotheses.
type Pair struct {
	List   int
	Better int
	Worse  int
	// Gap is how much better Better is: gain(Better) − gain(Worse) for PRO
	// pairs, the batch BLEU lost by replacing the oracle with Worse for
	// OracleVsRest pairs.
	Gap float64
}

// Vector returns the pair's difference vector φ(Better) − φ(Worse), the
// positive example of the pairwise ranking problem. It panics if the pair's
// indices are out of range of lists.
func (p Pair) Vector(lists []pool.List) feature.Vector {
	h := lists[p.List].Hyps
	return feature.Diff(h[p.Better].Features, h[p.Worse].Features)
}

// Vectors appends the difference vector of each pair to dst.
func Vectors(lists []pool.List, pairs []Pair, dst []feature.Vector) []feature.Vector {
	for _, p := range pairs {
		dst = append(dst, p.Vector(lists))
	}
	return dst
}

// Examples returns the pairs as Moses' pro writes them for a binary
// classifier: for each pair, x = φ(Better) − φ(Worse) with label 1, then −x
// with label 0.
func Examples(lists []pool.List, pairs []Pair) (xs []feature.Vector, labels []float64) {
	xs = make([]feature.Vector, 0, 2*len(pairs))
	labels = make([]float64, 0, 2*len(pairs))
	for _, p := range pairs {
		x := p.Vector(lists)
		xs = append(xs, x, feature.Scale(-1, x))
		labels = append(labels, 1, 0)
	}
	return xs, labels
}

// Defaults of Hopkins & May (2011), which Moses' pro hard-codes.
const (
	DefaultGamma   = 5000
	DefaultXi      = 50
	DefaultMinDiff = 0.05
)

// PRO is the pair sampler of Hopkins & May (2011). For each list it draws
// Gamma pairs of hypotheses uniformly with replacement, drops those whose
// gains differ by less than MinDiff, and keeps the Xi whose gains differ
// most (ties to the earlier draw). A pair of hypotheses with equal gains is
// never kept, and the same pair may be kept twice, as in Moses.
//
// The zero PRO is Moses' pro: Γ = 5000, Ξ = 50, threshold 0.05, BLEU+1 with
// unigrams smoothed too (metric.MosesPlusOne).
type PRO struct {
	// Gamma is the number of candidate pairs drawn per list; zero means
	// DefaultGamma.
	Gamma int
	// Xi is the most pairs kept per list; zero means DefaultXi.
	Xi int
	// MinDiff is the smallest gain difference kept; zero means
	// DefaultMinDiff, a negative value keeps every pair whose gains differ.
	MinDiff float64
	// Gain ranks the hypotheses; nil means PlusOne(metric.MosesPlusOne).
	Gain Gain
}

// Green returns the sampler of Green et al. (2013) as Phrasal's online PRO
// objective (PairwiseRankingOptimizerSGD) sets it: Γ = 500 candidates, the
// Ξ = 15 pairs a sentence with the largest BLEU+1 difference of at least
// 0.05, BLEU+1 as Lin & Och (2004) define it.
func Green() PRO {
	return PRO{Gamma: 500, Xi: 15, MinDiff: DefaultMinDiff, Gain: PlusOne(metric.LinOch)}
}

func (s PRO) gamma() int {
	if s.Gamma > 0 {
		return s.Gamma
	}
	return DefaultGamma
}

func (s PRO) xi() int {
	if s.Xi > 0 {
		return s.Xi
	}
	return DefaultXi
}

func (s PRO) minDiff() float64 {
	return opt.OrOff(s.MinDiff, DefaultMinDiff)
}

func (s PRO) gain() Gain {
	if s.Gain != nil {
		return s.Gain
	}
	return PlusOne(metric.MosesPlusOne)
}

// Sample appends to dst the pairs sampled from each list in turn, and
// returns the extended slice. The lists are sampled in order from r.
func (s PRO) Sample(r *rand.Rand, lists []pool.List, dst []Pair) []Pair {
	var gains, scratch []float64
	for i, l := range lists {
		gains = Gains(l, s.gain(), gains)
		dst, scratch = s.sample(r, gains, i, dst, scratch)
	}
	return dst
}

// SampleList appends to dst the pairs sampled from l, with Pair.List set to
// list, and returns the extended slice. Sampling the lists of a pool in
// parallel, one generator each, goes through SampleList.
func (s PRO) SampleList(r *rand.Rand, l pool.List, list int, dst []Pair) []Pair {
	dst, _ = s.sample(r, Gains(l, s.gain(), nil), list, dst, nil)
	return dst
}

// sample draws from the gains of one list. The candidates are collected in
// dst itself and then cut down, in place and in draw order, to the Xi with
// the largest gaps (as Moses' pro keeps them: those above the Xi-th largest
// gap, then the earliest drawn of those equal to it). scratch is reused for
// finding that gap.
func (s PRO) sample(r *rand.Rand, gains []float64, list int, dst []Pair, scratch []float64) ([]Pair, []float64) {
	n := len(gains)
	if n < 2 {
		return dst, scratch
	}
	start := len(dst)
	minDiff := s.minDiff()
	for range s.gamma() {
		a, b := r.IntN(n), r.IntN(n)
		d := gains[a] - gains[b]
		if d < 0 {
			a, b, d = b, a, -d
		}
		if d == 0 || d < minDiff {
			continue
		}
		dst = append(dst, Pair{List: list, Better: a, Worse: b, Gap: d})
	}
	cand := dst[start:]
	xi := s.xi()
	if len(cand) <= xi {
		return dst, scratch
	}
	scratch = scratch[:0]
	for _, p := range cand {
		scratch = append(scratch, p.Gap)
	}
	slices.Sort(scratch)
	t := scratch[len(scratch)-xi] // the Xi-th largest gap
	above := 0                    // candidates strictly above t, all kept
	for _, g := range scratch[len(scratch)-xi:] {
		if g > t {
			above++
		}
	}
	ties := xi - above // how many of those equal to t fit
	kept := 0
	for _, p := range cand {
		if p.Gap > t || (p.Gap == t && ties > 0) {
			if p.Gap == t {
				ties--
			}
			cand[kept] = p
			kept++
		}
	}
	return dst[:start+kept], scratch
}
