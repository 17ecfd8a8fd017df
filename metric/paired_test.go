package metric

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// st1 returns order-1 statistics: m of t unigrams match, reference length r.
// Its BLEU is m/t times the brevity penalty, easy to follow by hand.
func st1(m, t, r float64) Stats {
	return NewBLEUStats(1, []float64{m}, []float64{t}, r)
}

// st2 returns order-2 statistics.
func st2(m1, t1, m2, t2, r float64) Stats {
	return NewBLEUStats(2, []float64{m1, m2}, []float64{t1, t2}, r)
}

// randomStats returns n plausible order-4 statistics: hypotheses of 5 to 44
// tokens whose n-gram precisions fall with the order.
func randomStats(rng *rand.Rand, n int) []Stats {
	out := make([]Stats, n)
	for i := range out {
		c := 5 + rng.IntN(40)
		p := 0.3 + 0.5*rng.Float64()
		s := NewBLEUStats(4, nil, nil, float64(max(1, c+rng.IntN(11)-5)))
		for k := range 4 {
			t := max(c-k, 0)
			s.V[2*k+1] = float64(t)
			s.V[2*k] = math.Floor(float64(t) * math.Pow(p, float64(k+1)) * (0.5 + rng.Float64()))
			s.V[2*k] = min(BLEUStats(s).Match(k), BLEUStats(s).Total(k))
		}
		out[i] = s
	}
	return out
}

// perturb returns a copy of s whose match counts moved by -1, 0 or +1 at
// random: a system close to s.
func perturb(rng *rand.Rand, s []Stats) []Stats {
	out := slices.Clone(s)
	for i := range out {
		for k := range BLEUStats(out[i]).Order() {
			m := BLEUStats(out[i]).Match(k) + float64(rng.IntN(3)-1)
			out[i].V[2*k] = max(0, min(m, BLEUStats(out[i]).Total(k)))
		}
	}
	return out
}

// atom is one value of an exactly enumerated distribution.
type atom struct{ gain, prob float64 }

// exact is the distribution of a resampling test's statistic when every
// resample or shuffle is enumerated: what the Monte Carlo estimates converge
// to as the samples grow.
type exact struct {
	gain, mean float64
	pOne, pTwo float64
	low, high  float64
	// sd is the standard deviation of the gains; margin is the distance of
	// the nearest atom from a threshold of the bootstrap's counts, which
	// move with the sampled mean; cdfMargin is the distance of the nearest
	// value of the cumulative distribution from 0.025 and 0.975, near which
	// the sampled percentiles could jump to the next atom.
	sd, margin, cdfMargin float64
}

// pick returns the sum of the statistics at idx.
func pick(stats []Stats, idx []int) Stats {
	sel := make([]Stats, len(idx))
	for j, i := range idx {
		sel[j] = stats[i]
	}
	return Sum(sel)
}

// testScore is a system's corpus score as the paired results report it
// under m (nil: BLEU), written here apart from pairedScale: BLEU as
// BLEUStats.BLEU, a fraction; the others as Metric.Score.
func testScore(m Metric, s Stats) float64 {
	if m == nil {
		return BLEUStats(s).BLEU()
	}
	if _, ok := m.(BLEU); ok {
		return BLEUStats(s).BLEU()
	}
	return m.Score(s)
}

// testGain is the candidate's gain over the base under m: cand - base, or
// base - cand for a metric where lower is better, as the paired tests
// orient it.
func testGain(m Metric, base, cand Stats) float64 {
	if m != nil && !m.HigherIsBetter() {
		return testScore(m, base) - testScore(m, cand)
	}
	return testScore(m, cand) - testScore(m, base)
}

// testName and testScale are the Metric and Scale fields the results of
// the paired tests under m must have.
func testName(m Metric) string {
	if m == nil {
		return "BLEU"
	}
	return m.Name()
}

// subtest names a subtest under m: its name, "default" for nil.
func subtest(m Metric) string {
	if m == nil {
		return "default"
	}
	return m.Name()
}

func testScale(m Metric) float64 {
	if testName(m) == "BLEU" {
		return 100
	}
	return 1
}

// exactBootstrap enumerates all n^n resamples, each of probability n^-n,
// under m (nil: BLEU).
func exactBootstrap(m Metric, base, cand []Stats) exact {
	n := len(base)
	var atoms []atom
	idx := make([]int, n)
	prob := math.Pow(float64(n), -float64(n))
	for {
		atoms = append(atoms, atom{testGain(m, pick(base, idx), pick(cand, idx)), prob})
		j := 0
		for j < n && idx[j] == n-1 {
			idx[j] = 0
			j++
		}
		if j == n {
			break
		}
		idx[j]++
	}
	e := exact{gain: testGain(m, Sum(base), Sum(cand)), margin: math.Inf(1), cdfMargin: math.Inf(1)}
	for _, a := range atoms {
		e.mean += a.prob * a.gain
	}
	for _, a := range atoms {
		e.sd += a.prob * (a.gain - e.mean) * (a.gain - e.mean)
	}
	e.sd = math.Sqrt(e.sd)
	for _, a := range atoms {
		d := a.gain - e.mean
		if d >= e.gain {
			e.pOne += a.prob
		}
		if math.Abs(d) >= math.Abs(e.gain) {
			e.pTwo += a.prob
		}
		e.margin = min(e.margin, math.Abs(d-e.gain), math.Abs(math.Abs(d)-math.Abs(e.gain)))
	}
	slices.SortFunc(atoms, func(a, b atom) int { return cmpFloat(a.gain, b.gain) })
	// The quantiles, and the distance of the cumulative probabilities from
	// the 2.5% and 97.5% levels, which must not be close to a jump.
	var cdf float64
	e.low, e.high = math.NaN(), math.NaN()
	for _, a := range atoms {
		cdf += a.prob
		if math.IsNaN(e.low) && cdf >= 0.025 {
			e.low = a.gain
		}
		if math.IsNaN(e.high) && cdf >= 0.975 {
			e.high = a.gain
		}
		e.cdfMargin = min(e.cdfMargin, math.Abs(cdf-0.025), math.Abs(cdf-0.975))
	}
	return e
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// exactRandomization enumerates all 2^n swaps, each of probability 2^-n,
// under m (nil: BLEU).
func exactRandomization(m Metric, base, cand []Stats) exact {
	n := len(base)
	e := exact{gain: testGain(m, Sum(base), Sum(cand))}
	prob := math.Pow(2, -float64(n))
	for mask := 0; mask < 1<<n; mask++ {
		var x, y Stats
		for i := range n {
			if mask&(1<<i) == 0 {
				x.Add(base[i])
				y.Add(cand[i])
			} else {
				x.Add(cand[i])
				y.Add(base[i])
			}
		}
		d := testGain(m, x, y)
		if d >= e.gain {
			e.pOne += prob
		}
		if math.Abs(d) >= math.Abs(e.gain) {
			e.pTwo += prob
		}
	}
	return e
}

// within reports whether a Monte Carlo p-value from n draws is within five
// standard errors (plus the +1's bias) of its limit p.
func within(got, p float64, n int) bool {
	return math.Abs(got-p) <= 5*math.Sqrt(p*(1-p)/float64(n))+2/float64(n+1)
}

// TestPairedExact checks both tests on test sets small enough to enumerate
// every resample (n^n) and every shuffle (2^n): with many samples the p-values
// must approach the enumerated ones, and the bootstrap's interval and mean
// must too.
func TestPairedExact(t *testing.T) {
	const samples = 200_000
	chrf := NewChrF(false)
	tests := []struct {
		name       string
		m          Metric // nil: BLEU
		base, cand []Stats
		// hand holds values computed by hand (NaN: not given), handAR
		// the randomisation's p-values (nil: not given).
		hand   exact
		handAR *[2]float64
	}{
		{
			// Base 2/4 and 2/4, candidate 4/4 and 1/4: BLEU 0.5 and 0.625,
			// gain 1/8. Resamples (0,0) gain 1/2, (0,1) and (1,0) 1/8, (1,1)
			// -1/4: mean 1/8; centred -3/8, 0, 0, 3/8, so one resample in
			// four is at least 1/8 and two in four at least 1/8 in absolute
			// value. Shuffles: none 1/8, both -1/8; swapping the first only
			// gives Y = {2/4, 1/4}, X = {4/4, 2/4}, (2+1)/8 - (4+2)/8 = -3/8,
			// the second only 3/8. So P = 2/4 and PTwoSided = 4/4.
			name:   "hand two sentences",
			base:   []Stats{st1(2, 4, 4), st1(2, 4, 4)},
			cand:   []Stats{st1(4, 4, 4), st1(1, 4, 4)},
			hand:   exact{gain: 0.125, mean: 0.125, pOne: 0.25, pTwo: 0.5, low: -0.25, high: 0.5},
			handAR: &[2]float64{0.5, 1},
		},
		{
			// Candidate better on both sentences: every resample favours it.
			// Gains 1/2, 3/8, 3/8, 1/4; mean 3/8; centred ±1/8 or 0, never
			// 3/8.
			name: "hand clearly better",
			base: []Stats{st1(1, 4, 4), st1(3, 4, 4)},
			cand: []Stats{st1(3, 4, 4), st1(4, 4, 4)},
			hand: exact{gain: 0.375, mean: 0.375, pOne: 0, pTwo: 0, low: 0.25, high: 0.5},
		},
		{
			name: "three sentences order 2 brevity",
			base: []Stats{st2(5, 8, 3, 7, 9), st2(2, 6, 1, 5, 6), st2(7, 10, 4, 9, 10)},
			cand: []Stats{st2(6, 7, 3, 6, 9), st2(4, 6, 2, 5, 6), st2(5, 10, 3, 9, 10)},
			hand: exact{gain: math.NaN()},
		},
		{
			name: "three sentences candidate worse",
			base: []Stats{st2(6, 7, 3, 6, 9), st2(4, 6, 2, 5, 6), st2(5, 10, 3, 9, 10)},
			cand: []Stats{st2(5, 8, 2, 7, 9), st2(2, 6, 1, 5, 6), st2(7, 10, 4, 9, 10)},
			hand: exact{gain: math.NaN()},
		},
		{
			// TER, lower being better: base 2/4 and 2/4 edits per
			// reference word, TER 50; candidate 0/4 and 3/4, TER 37.5: a
			// gain of 12.5 points. Resamples (0,0) 50 - 0, (0,1) and
			// (1,0) 50 - 37.5, (1,1) 50 - 75: gains 50, 12.5, 12.5, -25,
			// the hand BLEU case's times 100, and so its p-values. The
			// shuffles likewise: swapping the first only gives Y = {2/4,
			// 3/4} (62.5), X = {0/4, 2/4} (25), gain 25 - 62.5 = -37.5.
			name:   "hand TER two sentences",
			m:      TER{},
			base:   []Stats{StatsOf(2, 4), StatsOf(2, 4)},
			cand:   []Stats{StatsOf(0, 4), StatsOf(3, 4)},
			hand:   exact{gain: 12.5, mean: 12.5, pOne: 0.25, pTwo: 0.5, low: -25, high: 50},
			handAR: &[2]float64{0.5, 1},
		},
		{
			// The systems of the case above swapped: every gain is
			// negated, the base being better. Centred resampled gains
			// -37.5, 0, 0, 37.5, three in four at least -12.5; shuffled
			// gains -12.5, 12.5, 37.5, -37.5, three in four at least
			// -12.5.
			name:   "hand TER candidate worse",
			m:      TER{},
			base:   []Stats{StatsOf(0, 4), StatsOf(3, 4)},
			cand:   []Stats{StatsOf(2, 4), StatsOf(2, 4)},
			hand:   exact{gain: -12.5, mean: -12.5, pOne: 0.75, pTwo: 0.5, low: -50, high: 25},
			handAR: &[2]float64{0.75, 1},
		},
		{
			name: "three sentences TER",
			m:    TER{},
			base: []Stats{StatsOf(3, 9), StatsOf(5, 6), StatsOf(2, 10)},
			cand: []Stats{StatsOf(1, 9), StatsOf(4, 6), StatsOf(4, 10)},
			hand: exact{gain: math.NaN()},
		},
		{
			name: "three sentences chrF",
			m:    chrf,
			base: chrfStats(t, chrf, []string{"the cat sat on the mat", "a quick brown fox", "it rains today"},
				[]string{"the cat is on a mat", "the quick brown fox jumps", "it rained yesterday"}),
			cand: chrfStats(t, chrf, []string{"the cat sat on the mat", "quick brown fox", "today it rains"},
				[]string{"the cat sat on a mat", "the quick brown fox jumps", "it rained yesterday"}),
			hand: exact{gain: math.NaN()},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := exactBootstrap(tc.m, tc.base, tc.cand)
			if !math.IsNaN(tc.hand.gain) {
				const tol = 1e-12
				h := tc.hand
				if math.Abs(e.gain-h.gain) > tol || math.Abs(e.mean-h.mean) > tol || math.Abs(e.pOne-h.pOne) > tol ||
					math.Abs(e.pTwo-h.pTwo) > tol || math.Abs(e.low-h.low) > tol || math.Abs(e.high-h.high) > tol {
					t.Fatalf("enumeration %+v disagrees with the hand computation %+v", e, h)
				}
			}
			// The sampled mean has a standard error of sd/sqrt(samples); a
			// count may flip only for an atom about that close to a
			// threshold. Likewise the sampled percentiles are those of the
			// distribution unless it has a jump near 2.5% or 97.5%.
			if se := e.sd / math.Sqrt(samples); e.margin < 10*se {
				t.Fatalf("test data: an atom lies %g from a threshold, too close for the standard error %g", e.margin, se)
			}
			if se := math.Sqrt(0.025 * 0.975 / samples); e.cdfMargin < 10*se {
				t.Fatalf("test data: the distribution function passes %g from 2.5%% or 97.5%%, too close for the standard error %g", e.cdfMargin, se)
			}
			got, err := PairedBootstrap(context.Background(), tc.m, tc.base, tc.cand, samples, 7)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("bootstrap: exact %+v\n got %+v", e, got)
			if got.Metric != testName(tc.m) || got.Scale != testScale(tc.m) {
				t.Errorf("metric %q scale %g, want %q and %g", got.Metric, got.Scale, testName(tc.m), testScale(tc.m))
			}
			if got.Gain != e.gain {
				t.Errorf("Gain %g, want %g", got.Gain, e.gain)
			}
			if math.Abs(got.MeanGain-e.mean) > 5*e.sd/math.Sqrt(samples) {
				t.Errorf("MeanGain %g, want about %g", got.MeanGain, e.mean)
			}
			if !within(got.P, e.pOne, samples) {
				t.Errorf("P %g, want about %g", got.P, e.pOne)
			}
			if !within(got.PTwoSided, e.pTwo, samples) {
				t.Errorf("PTwoSided %g, want about %g", got.PTwoSided, e.pTwo)
			}
			if got.Low != e.low || got.High != e.high {
				t.Errorf("interval [%g, %g], want [%g, %g]", got.Low, got.High, e.low, e.high)
			}

			ea := exactRandomization(tc.m, tc.base, tc.cand)
			ar, err := PairedApproxRandomization(context.Background(), tc.m, tc.base, tc.cand, samples, 7)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("randomization: exact %+v\n got %+v", ea, ar)
			if !within(ar.P, ea.pOne, samples) {
				t.Errorf("AR P %g, want about %g", ar.P, ea.pOne)
			}
			if !within(ar.PTwoSided, ea.pTwo, samples) {
				t.Errorf("AR PTwoSided %g, want about %g", ar.PTwoSided, ea.pTwo)
			}
		})
	}
	// The shuffles of the hand cases, by hand (see their comments).
	for _, tc := range tests {
		if tc.handAR == nil {
			continue
		}
		if ea := exactRandomization(tc.m, tc.base, tc.cand); ea.pOne != tc.handAR[0] || ea.pTwo != tc.handAR[1] {
			t.Errorf("%s: AR enumeration p %g and %g, want %v", tc.name, ea.pOne, ea.pTwo, *tc.handAR)
		}
	}
}

// chrfStats returns the chrF statistics of each hypothesis of hyps against
// the reference of the same index.
func chrfStats(tb testing.TB, c ChrF, hyps, refs []string) []Stats {
	tb.Helper()
	out := make([]Stats, len(hyps))
	for i, h := range hyps {
		seg, err := c.Segment([]string{refs[i]})
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = seg.Stats(h)
	}
	return out
}

// bruteBootstrap is PairedBootstrap written the slow, obvious way, drawing
// the same random numbers: each resample is a slice of statistics, summed;
// a TER gain is base - cand, not a difference of negations.
func bruteBootstrap(m Metric, base, cand []Stats, samples int, seed uint64) PairedResult {
	rng := rand.New(rand.NewPCG(seed, pcgStream))
	n := len(base)
	res := PairedResult{Metric: testName(m), Scale: testScale(m), Base: testScore(m, Sum(base)), Cand: testScore(m, Sum(cand)), Samples: samples}
	res.Gain = testGain(m, Sum(base), Sum(cand))
	var gains []float64
	for range samples {
		idx := make([]int, n)
		for j := range idx {
			idx[j] = rng.IntN(n)
		}
		gains = append(gains, testGain(m, pick(base, idx), pick(cand, idx)))
	}
	var sum float64
	for _, g := range gains {
		sum += g
	}
	res.MeanGain = sum / float64(samples)
	var one, two int
	for _, g := range gains {
		if g-res.MeanGain >= res.Gain {
			one++
		}
		if math.Abs(g-res.MeanGain) >= math.Abs(res.Gain) {
			two++
		}
	}
	res.P = float64(one+1) / float64(samples+1)
	res.PTwoSided = float64(two+1) / float64(samples+1)
	slices.Sort(gains)
	res.Low, res.High = gains[samples/40], gains[samples-1-samples/40]
	return res
}

// bruteRandomization is PairedApproxRandomization the slow way, with the same
// random numbers: the swaps of a shuffle are drawn as a []bool first.
func bruteRandomization(m Metric, base, cand []Stats, trials int, seed uint64) RandomizationResult {
	rng := rand.New(rand.NewPCG(seed, pcgStream))
	n := len(base)
	res := RandomizationResult{Metric: testName(m), Scale: testScale(m), Base: testScore(m, Sum(base)), Cand: testScore(m, Sum(cand)), Trials: trials}
	res.Gain = testGain(m, Sum(base), Sum(cand))
	var one, two int
	for range trials {
		swap := make([]bool, n)
		for k := 0; k < n; k += 64 {
			w := rng.Uint64()
			for j := 0; j < 64 && k+j < n; j++ {
				swap[k+j] = w>>j&1 == 1
			}
		}
		var x, y []Stats
		for i := range n {
			if swap[i] {
				x, y = append(x, cand[i]), append(y, base[i])
			} else {
				x, y = append(x, base[i]), append(y, cand[i])
			}
		}
		d := testGain(m, Sum(x), Sum(y))
		if d >= res.Gain {
			one++
		}
		if math.Abs(d) >= math.Abs(res.Gain) {
			two++
		}
	}
	res.P = float64(one+1) / float64(trials+1)
	res.PTwoSided = float64(two+1) / float64(trials+1)
	return res
}

// randomSystems returns the statistics under m of two close systems'
// translations of n random sentences: for BLEU (nil or BLEU)
// randomStats and perturb, the statistics earlier versions of these tests
// drew; for any other metric references of 4 to 20 words of a small
// vocabulary, a base system that replaces or drops some of their words,
// and a candidate that edits one more word of each base translation or
// puts one back.
func randomSystems(rng *rand.Rand, m Metric, n int) (base, cand []Stats) {
	if isBLEU(m) {
		base = randomStats(rng, n)
		return base, perturb(rng, base)
	}
	vocab := strings.Fields("the a cat dog sat ran on under mat house big small red it is was and of to in")
	word := func() string { return vocab[rng.IntN(len(vocab))] }
	for range n {
		ref := make([]string, 4+rng.IntN(17))
		for i := range ref {
			ref[i] = word()
		}
		var hyp []string
		for _, w := range ref {
			switch r := rng.Float64(); {
			case r < 0.15:
				hyp = append(hyp, word())
			case r < 0.25:
			default:
				hyp = append(hyp, w)
			}
		}
		alt := slices.Clone(hyp)
		if i := rng.IntN(len(ref)); i < len(alt) && rng.IntN(2) == 0 {
			alt[i] = ref[i]
		} else if len(alt) > 0 {
			alt[rng.IntN(len(alt))] = word()
		}
		seg, err := m.Segment([]string{strings.Join(ref, " ")})
		if err != nil {
			panic(err)
		}
		base = append(base, seg.Stats(strings.Join(hyp, " ")))
		cand = append(cand, seg.Stats(strings.Join(alt, " ")))
	}
	return base, cand
}

// pairedMetrics are the metrics the paired tests run under: BLEU by
// default (nil) and given, chrF, chrF++, TER and BLEU−TER.
func pairedMetrics(tb testing.TB) []Metric {
	tb.Helper()
	var out []Metric
	for _, spec := range []string{"bleu", "chrf", "chrf++", "ter", "bleu:0.5,ter:0.5"} {
		m, err := Parse(spec, Options{})
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, m)
	}
	return append([]Metric{nil}, out...)
}

// TestPairedBrute compares both tests with the slow implementations, exactly,
// under every metric: same random numbers, same sums, same results to the
// last bit.
func TestPairedBrute(t *testing.T) {
	for _, m := range pairedMetrics(t) {
		t.Run(subtest(m), func(t *testing.T) { testPairedBrute(t, m) })
	}
}

func testPairedBrute(t *testing.T, m Metric) {
	rng := rand.New(rand.NewPCG(11, 12))
	tests := []struct {
		name    string
		n       int
		samples int
		seed    uint64
	}{
		{"one sentence", 1, 5, 1},
		{"few samples", 7, 3, 2},
		{"under 40 samples", 20, 39, 3},
		{"40 samples", 20, 40, 4},
		{"64 sentences", 64, 101, 5},
		{"several words of swaps", 130, 250, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, cand := randomSystems(rng, m, tc.n)
			got, err := PairedBootstrap(context.Background(), m, base, cand, tc.samples, tc.seed)
			if err != nil {
				t.Fatal(err)
			}
			if want := bruteBootstrap(m, base, cand, tc.samples, tc.seed); got != want {
				t.Errorf("PairedBootstrap:\n got %+v\nwant %+v", got, want)
			}
			ar, err := PairedApproxRandomization(context.Background(), m, base, cand, tc.samples, tc.seed)
			if err != nil {
				t.Fatal(err)
			}
			if want := bruteRandomization(m, base, cand, tc.samples, tc.seed); ar != want {
				t.Errorf("PairedApproxRandomization:\n got %+v\nwant %+v", ar, want)
			}
		})
	}
}

// wmt15 returns the statistics under m (nil: BLEU) of Google's translation
// of wmt15-en-ru-100 and of a clearly worse system, the first half of the
// tokens of each of its lines.
func wmt15(tb testing.TB, m Metric) (google, truncated []Stats) {
	tb.Helper()
	refPath := shared.Path(tb, "bleu", "wmt15-en-ru-100", "ref.ru")
	hyps := readLines(tb, shared.Path(tb, "bleu", "wmt15-en-ru-100", "google.ru"))
	if m == nil {
		refs := readReferences(tb, 4, nil, refPath)
		if len(hyps) != len(refs) {
			tb.Fatalf("%d hypotheses, %d references", len(hyps), len(refs))
		}
		for i, h := range hyps {
			f := strings.Fields(h)
			google = append(google, refs[i].StatsString(h))
			truncated = append(truncated, refs[i].StatsString(strings.Join(f[:len(f)/2], " ")))
		}
		return google, truncated
	}
	refs := readLines(tb, refPath)
	if len(hyps) != len(refs) {
		tb.Fatalf("%d hypotheses, %d references", len(hyps), len(refs))
	}
	for i, h := range hyps {
		seg, err := m.Segment([]string{refs[i]})
		if err != nil {
			tb.Fatal(err)
		}
		f := strings.Fields(h)
		google = append(google, seg.Stats(h))
		truncated = append(truncated, seg.Stats(strings.Join(f[:len(f)/2], " ")))
	}
	return google, truncated
}

// TestPairedWMT15 runs both tests on real data under BLEU, chrF and TER: a
// system against itself, and Google's translation against its truncation,
// each way round. The truncation is worse under every metric: its TER is
// higher, and the gain oriented so that it is negative all the same.
func TestPairedWMT15(t *testing.T) {
	for _, m := range []Metric{nil, NewChrF(false), TER{}} {
		t.Run(testName(m), func(t *testing.T) { testPairedWMT15(t, m) })
	}
}

func testPairedWMT15(t *testing.T, m Metric) {
	google, truncated := wmt15(t, m)
	const samples, trials = 1000, 10000
	tests := []struct {
		name       string
		base, cand []Stats
		// gain is the sign of the gain; the p-values must be above pMin
		// and below pMax.
		gain           float64
		pMin, pMax     float64
		twoMin, twoMax float64
		interval0      bool
	}{
		{name: "google vs itself", base: google, cand: google, gain: 0, pMin: 1, pMax: 1, twoMin: 1, twoMax: 1, interval0: true},
		{name: "google over truncated", base: truncated, cand: google, gain: 1, pMin: 0, pMax: 0.01, twoMin: 0, twoMax: 0.01},
		{name: "truncated over google", base: google, cand: truncated, gain: -1, pMin: 0.99, pMax: 1, twoMin: 0, twoMax: 0.01},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bs, err := PairedBootstrap(context.Background(), m, tc.base, tc.cand, samples, 1)
			if err != nil {
				t.Fatal(err)
			}
			ar, err := PairedApproxRandomization(context.Background(), m, tc.base, tc.cand, trials, 1)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("bootstrap %d: %s base %.4f cand %.4f gain %+.4f mean %+.4f 95%% [%+.4f, %+.4f] p %.4g (two-sided %.4g)",
				samples, bs.Metric, bs.Base, bs.Cand, bs.Gain, bs.MeanGain, bs.Low, bs.High, bs.P, bs.PTwoSided)
			t.Logf("randomization %d: gain %+.4f p %.4g (two-sided %.4g)", trials, ar.Gain, ar.P, ar.PTwoSided)
			if m == nil && math.Abs(BLEUStats(Sum(google)).BLEU()-0.2317) > 5e-5 {
				t.Errorf("google BLEU %g, multi-bleu.perl says 23.17", BLEUStats(Sum(google)).BLEU())
			}
			if m != nil && (bs.Base != m.Score(Sum(tc.base)) || bs.Cand != m.Score(Sum(tc.cand)) || bs.Scale != 1) {
				t.Errorf("%s scores %g and %g (scale %g), want Score's %g and %g", bs.Metric, bs.Base, bs.Cand, bs.Scale, m.Score(Sum(tc.base)), m.Score(Sum(tc.cand)))
			}
			if ar.Gain != bs.Gain || ar.Base != bs.Base || ar.Cand != bs.Cand || ar.Metric != bs.Metric || ar.Scale != bs.Scale {
				t.Errorf("the tests disagree on the scores: %+v, %+v", bs, ar)
			}
			if sign := math.Copysign(1, bs.Gain); (tc.gain == 0 && bs.Gain != 0) || (tc.gain != 0 && sign != tc.gain) {
				t.Errorf("gain %g, want sign %g", bs.Gain, tc.gain)
			}
			if tc.interval0 && (bs.Low != 0 || bs.High != 0 || bs.MeanGain != 0) {
				t.Errorf("interval [%g, %g], mean %g, want all 0", bs.Low, bs.High, bs.MeanGain)
			}
			if !tc.interval0 && (bs.Low > bs.Gain || bs.High < bs.Gain || bs.Low*bs.High <= 0) {
				t.Errorf("interval [%g, %g] should hold the gain %g and exclude 0", bs.Low, bs.High, bs.Gain)
			}
			for _, p := range []struct {
				name     string
				got      float64
				min, max float64
			}{
				{"bootstrap P", bs.P, tc.pMin, tc.pMax},
				{"bootstrap PTwoSided", bs.PTwoSided, tc.twoMin, tc.twoMax},
				{"randomization P", ar.P, tc.pMin, tc.pMax},
				{"randomization PTwoSided", ar.PTwoSided, tc.twoMin, tc.twoMax},
			} {
				if p.got < p.min || p.got > p.max {
					t.Errorf("%s %g, want in [%g, %g]", p.name, p.got, p.min, p.max)
				}
			}
		})
	}
}

// countdownCtx is a context that is cancelled after its Err has been asked n
// times: a cancellation in the middle of a test, deterministically.
type countdownCtx struct {
	context.Context
	n int
}

func (c *countdownCtx) Err() error {
	if c.n <= 0 {
		return context.Canceled
	}
	c.n--
	return nil
}

func TestPairedErrors(t *testing.T) {
	ok := []Stats{st1(1, 2, 2), st1(2, 3, 3)}
	nan := []Stats{st1(1, 2, 2), st1(math.NaN(), 3, 3)}
	inf := []Stats{st1(1, math.Inf(1), 2), st1(2, 3, 3)}
	tooMany := []Stats{st1(3, 2, 2), st1(2, 3, 3)}
	mixed := []Stats{st1(1, 2, 2), st2(2, 3, 1, 2, 3)}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	var nilCtx context.Context
	// Big enough that the context is asked more than once.
	big := make([]Stats, 1<<17)
	for i := range big {
		big[i] = st1(1, 2, 2)
	}
	ter := []Stats{StatsOf(1, 4), StatsOf(2, 5)}
	tests := []struct {
		name       string
		ctx        context.Context
		m          Metric // nil: BLEU
		base, cand []Stats
		samples    int
		want       error
		bootOnly   bool
		nilCtx     bool
	}{
		{name: "length mismatch", base: ok, cand: ok[:1], samples: 10, want: ErrPaired},
		{name: "empty", base: nil, cand: []Stats{}, samples: 10, want: ErrPaired},
		{name: "zero samples", base: ok, cand: ok, samples: 0, want: ErrPaired},
		{name: "negative samples", base: ok, cand: ok, samples: -3, want: ErrPaired},
		{name: "too many samples", base: ok, cand: ok, samples: MaxPairedSamples + 1, want: ErrPaired, bootOnly: true},
		{name: "NaN in base", base: nan, cand: ok, samples: 10, want: ErrStats},
		{name: "NaN in candidate", base: ok, cand: nan, samples: 10, want: ErrStats},
		{name: "infinite", base: ok, cand: inf, samples: 10, want: ErrStats},
		{name: "more matches than n-grams", base: tooMany, cand: ok, samples: 10, want: ErrStats},
		{name: "zero Stats", base: []Stats{{}}, cand: []Stats{{}}, samples: 10, want: ErrStats},
		{name: "mixed orders", base: mixed, cand: mixed, samples: 10, want: ErrPaired},
		{name: "orders differ between systems", base: ok, cand: []Stats{st2(1, 2, 0, 1, 2), st2(2, 3, 1, 2, 3)}, samples: 10, want: ErrPaired},
		{name: "cancelled", ctx: cancelled, base: ok, cand: ok, samples: 10, want: context.Canceled},
		{name: "cancelled while running", ctx: &countdownCtx{context.Background(), 2}, base: big, cand: big, samples: 10, want: context.Canceled},
		{name: "nil context", nilCtx: true, base: ok, cand: ok, samples: 10, want: ErrPaired},
		{name: "TER statistics under BLEU", base: ter, cand: ter, samples: 10, want: ErrStats},
		{name: "BLEU statistics under TER", m: TER{}, base: ok, cand: ok, samples: 10, want: ErrStats},
		{name: "BLEU-1 statistics under BLEU-4", m: DefaultBLEU(), base: ok, cand: ok, samples: 10, want: ErrStats},
		{name: "TER statistics under chrF", m: NewChrF(false), base: ter, cand: ter, samples: 10, want: ErrStats},
		{name: "negative TER edits", m: TER{}, base: ter, cand: []Stats{StatsOf(-1, 4), StatsOf(2, 5)}, samples: 10, want: ErrStats},
		{name: "TER length mismatch", m: TER{}, base: ter, cand: ter[:1], samples: 10, want: ErrPaired},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			switch {
			case tc.nilCtx:
				ctx = nilCtx
			case ctx == nil:
				ctx = context.Background()
			}
			// rewind restarts a countdown before each test.
			rewind := func() {
				if c, ok := ctx.(*countdownCtx); ok {
					c.n = 2
				}
			}
			rewind()
			res, err := PairedBootstrap(ctx, tc.m, tc.base, tc.cand, tc.samples, 1)
			checkFailed(t, "PairedBootstrap", res, err, tc.want)
			if tc.bootOnly {
				return
			}
			rewind()
			ar, err := PairedApproxRandomization(ctx, tc.m, tc.base, tc.cand, tc.samples, 1)
			checkFailed(t, "PairedApproxRandomization", ar, err, tc.want)
		})
	}
}

// checkFailed fails t unless the test name returned an error wrapping want
// and the zero result.
func checkFailed[R comparable](t *testing.T, name string, res R, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: error %v, want one wrapping %v", name, err, want)
	}
	var zero R
	if res != zero {
		t.Errorf("%s: result %+v with an error", name, res)
	}
}

// TestPairedDeterminism checks that a seed fixes the results, and that
// another seed moves them a little.
func TestPairedDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	base := randomStats(rng, 300)
	cand := perturb(rng, base)
	ctx := context.Background()
	run := func(seed uint64) (PairedResult, RandomizationResult) {
		bs, err := PairedBootstrap(ctx, nil, base, cand, 2000, seed)
		if err != nil {
			t.Fatal(err)
		}
		ar, err := PairedApproxRandomization(ctx, nil, base, cand, 2000, seed)
		if err != nil {
			t.Fatal(err)
		}
		return bs, ar
	}
	bs1, ar1 := run(42)
	bs2, ar2 := run(42)
	if bs1 != bs2 || ar1 != ar2 {
		t.Errorf("same seed, different results:\n%+v\n%+v\n%+v\n%+v", bs1, bs2, ar1, ar2)
	}
	bs3, ar3 := run(43)
	t.Logf("seed 42: %+v %+v", bs1, ar1)
	t.Logf("seed 43: %+v %+v", bs3, ar3)
	if bs3 == bs1 || bs3.MeanGain == bs1.MeanGain {
		t.Errorf("seeds 42 and 43 give the same bootstrap: %+v", bs1)
	}
	if ar3 == ar1 {
		t.Errorf("seeds 42 and 43 give the same randomization: %+v", ar1)
	}
	if bs3.Gain != bs1.Gain || ar3.Gain != ar1.Gain {
		t.Errorf("the observed gain depends on the seed")
	}
	// Monte Carlo error with 2000 samples: a few hundredths at most.
	if math.Abs(bs3.P-bs1.P) > 0.05 || math.Abs(bs3.PTwoSided-bs1.PTwoSided) > 0.05 ||
		math.Abs(ar3.P-ar1.P) > 0.05 || math.Abs(ar3.PTwoSided-ar1.PTwoSided) > 0.05 {
		t.Errorf("seeds 42 and 43 differ by more than Monte Carlo error")
	}
	if d := bs1.High - bs1.Low; math.Abs(bs3.Low-bs1.Low) > 0.2*d || math.Abs(bs3.High-bs1.High) > 0.2*d {
		t.Errorf("intervals [%g, %g] and [%g, %g] differ by more than Monte Carlo error", bs1.Low, bs1.High, bs3.Low, bs3.High)
	}
}

// TestPairedAllocations checks that the work per resample or shuffle
// allocates nothing: the allocations do not grow with the samples.
func TestPairedAllocations(t *testing.T) {
	for _, m := range pairedMetrics(t) {
		t.Run(subtest(m), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 8))
			base, cand := randomSystems(rng, m, 50)
			ctx := context.Background()
			allocs := func(f func(samples int)) (few, many float64) {
				return testing.AllocsPerRun(5, func() { f(10) }), testing.AllocsPerRun(5, func() { f(1000) })
			}
			few, many := allocs(func(s int) { PairedBootstrap(ctx, m, base, cand, s, 1) })
			if many != few {
				t.Errorf("PairedBootstrap: %v allocations for 10 samples, %v for 1000", few, many)
			}
			few, many = allocs(func(s int) { PairedApproxRandomization(ctx, m, base, cand, s, 1) })
			if many != few {
				t.Errorf("PairedApproxRandomization: %v allocations for 10 trials, %v for 1000", few, many)
			}
		})
	}
}

// BenchmarkPairedBootstrap resamples 2,000 sentences 1,000 times, sacreBLEU's
// default, the size of a large dev set.
func BenchmarkPairedBootstrap(b *testing.B) {
	benchPaired(b, func(ctx context.Context, base, cand []Stats) error {
		_, err := PairedBootstrap(ctx, nil, base, cand, 1000, 1)
		return err
	})
}

// BenchmarkPairedApproxRandomization shuffles 2,000 sentences 10,000 times,
// sacreBLEU's default.
func BenchmarkPairedApproxRandomization(b *testing.B) {
	benchPaired(b, func(ctx context.Context, base, cand []Stats) error {
		_, err := PairedApproxRandomization(ctx, nil, base, cand, 10000, 1)
		return err
	})
}

// benchPaired runs test in b's loop on the benchmarks' 2,000 random
// sentences, a base and a perturbed candidate.
func benchPaired(b *testing.B, test func(ctx context.Context, base, cand []Stats) error) {
	rng := rand.New(rand.NewPCG(9, 10))
	base := randomStats(rng, 2000)
	cand := perturb(rng, base)
	ctx := context.Background()
	for b.Loop() {
		if err := test(ctx, base, cand); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPairedSwap: swapping the systems negates every resampled and
// shuffled gain, under every metric (for TER too, whose gain is oriented):
// the gain, its mean and the interval are negated exactly, the scores
// trade places and the two-sided p-values stay.
func TestPairedSwap(t *testing.T) {
	ctx := context.Background()
	for _, m := range pairedMetrics(t) {
		t.Run(subtest(m), func(t *testing.T) {
			a, b := randomSystems(rand.New(rand.NewPCG(3, 4)), m, 60)
			ab, err := PairedBootstrap(ctx, m, a, b, 500, 9)
			if err != nil {
				t.Fatal(err)
			}
			ba, err := PairedBootstrap(ctx, m, b, a, 500, 9)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%+v\n%+v", ab, ba)
			if ab.Gain == 0 || ba.Gain != -ab.Gain || ba.MeanGain != -ab.MeanGain || ba.Low != -ab.High || ba.High != -ab.Low ||
				ba.Base != ab.Cand || ba.Cand != ab.Base || ba.PTwoSided != ab.PTwoSided {
				t.Errorf("swapped bootstrap not the mirror image:\n%+v\n%+v", ab, ba)
			}
			// The gain is the candidate's, by the metric's direction.
			if better := ab.Cand > ab.Base; (m == nil || m.HigherIsBetter()) != (better == (ab.Gain > 0)) {
				t.Errorf("%s: base %g cand %g, gain %g: wrong orientation", ab.Metric, ab.Base, ab.Cand, ab.Gain)
			}
			arAB, err := PairedApproxRandomization(ctx, m, a, b, 500, 9)
			if err != nil {
				t.Fatal(err)
			}
			arBA, err := PairedApproxRandomization(ctx, m, b, a, 500, 9)
			if err != nil {
				t.Fatal(err)
			}
			if arBA.Gain != -arAB.Gain || arBA.PTwoSided != arAB.PTwoSided || arAB.Gain != ab.Gain {
				t.Errorf("swapped randomization not the mirror image:\n%+v\n%+v", arAB, arBA)
			}
		})
	}
}
