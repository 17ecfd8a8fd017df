package loss

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/pool"
)

const dim = 20

func randVector(r *rand.Rand, n int) feature.Vector {
	var b feature.Builder
	for range n {
		b.Add(feature.ID(r.IntN(dim)), r.NormFloat64())
	}
	return b.Vector()
}

func randWeights(r *rand.Rand, scale float64) feature.Weights {
	w := make(feature.Weights, dim)
	for j := range w {
		w[j] = scale * r.NormFloat64()
	}
	return w
}

// problem is one random instance of a loss: its value at w and its gradient
// into g.
type problem struct {
	f func(w feature.Weights, g Sink) float64
	// smooth reports whether f is differentiable on a neighbourhood of w
	// of radius eps (no kink of a piecewise-linear loss nearby); nil means
	// always.
	smooth func(w feature.Weights, eps float64) bool
}

func randList(r *rand.Rand, n int) (pool.List, []float64) {
	l := pool.List{Hyps: make([]pool.Hyp, n)}
	gains := make([]float64, n)
	for k := range l.Hyps {
		l.Hyps[k].Features = randVector(r, 1+r.IntN(6))
		gains[k] = r.Float64()
	}
	return l, gains
}

func randXs(r *rand.Rand) []feature.Vector {
	xs := make([]feature.Vector, 1+r.IntN(12))
	for i := range xs {
		xs[i] = randVector(r, 1+r.IntN(8))
	}
	return xs
}

// topGap returns the gap between the largest and second largest of v.
func topGap(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) < 2 {
		return math.Inf(1)
	}
	return s[len(s)-1] - s[len(s)-2]
}

var problems = []struct {
	name string
	make func(r *rand.Rand) problem
}{
	{"logistic", func(r *rand.Rand) problem {
		xs := randXs(r)
		return problem{f: func(w feature.Weights, g Sink) float64 { return Logistic(w, xs, g) }}
	}},
	{"hinge", func(r *rand.Rand) problem {
		xs := randXs(r)
		return problem{
			f: func(w feature.Weights, g Sink) float64 { return Hinge(w, xs, g) },
			smooth: func(w feature.Weights, eps float64) bool {
				for _, x := range xs {
					if math.Abs(1-x.Dot(w)) < eps*10*math.Sqrt(x.SquaredNorm()) {
						return false
					}
				}
				return true
			},
		}
	}},
	{"softmax one oracle", func(r *rand.Rand) problem {
		l, _ := randList(r, 2+r.IntN(10))
		o := []int{r.IntN(len(l.Hyps))}
		return problem{f: func(w feature.Weights, g Sink) float64 { return Softmax(w, l, o, g) }}
	}},
	{"softmax several oracles", func(r *rand.Rand) problem {
		l, _ := randList(r, 3+r.IntN(10))
		o := []int{0, 2, 2, len(l.Hyps) - 1}
		return problem{f: func(w feature.Weights, g Sink) float64 { return Softmax(w, l, o, g) }}
	}},
	{"structured hinge", func(r *rand.Rand) problem {
		l, gains := randList(r, 2+r.IntN(10))
		for k := range gains {
			gains[k] *= 5 // make hope and fear differ
		}
		return problem{
			f: func(w feature.Weights, g Sink) float64 {
				v, _, _ := StructuredHinge(w, l, gains, g)
				return v
			},
			smooth: func(w feature.Weights, eps float64) bool {
				plus := make([]float64, len(gains))
				minus := make([]float64, len(gains))
				for k, h := range l.Hyps {
					s := h.Features.Dot(w)
					plus[k], minus[k] = s+gains[k], s-gains[k]
				}
				return topGap(plus) > 100*eps && topGap(minus) > 100*eps
			},
		}
	}},
	{"expected BLEU", func(r *rand.Rand) problem {
		l, gains := randList(r, 1+r.IntN(10))
		return problem{f: func(w feature.Weights, g Sink) float64 { return ExpectedBLEU(w, l, gains, 1, g) }}
	}},
	{"expected BLEU scaled", func(r *rand.Rand) problem {
		l, gains := randList(r, 1+r.IntN(10))
		return problem{f: func(w feature.Weights, g Sink) float64 { return ExpectedBLEU(w, l, gains, 3.5, g) }}
	}},
	{"L1", func(r *rand.Rand) problem {
		return problem{
			f: func(w feature.Weights, g Sink) float64 { return L1(w, 0.3, g) },
			smooth: func(w feature.Weights, eps float64) bool {
				for _, x := range w {
					if math.Abs(x) < 10*eps {
						return false
					}
				}
				return true
			},
		}
	}},
	{"L2", func(r *rand.Rand) problem {
		return problem{f: func(w feature.Weights, g Sink) float64 { return L2(w, 0.7, g) }}
	}},
	{"noising δ=0.1", func(r *rand.Rand) problem {
		xs := randXs(r)
		n := Noising{Level: 0.1}
		return problem{f: func(w feature.Weights, g Sink) float64 { return n.Penalty(w, xs, g) }}
	}},
	{"noising δ=0.5 unlabelled", func(r *rand.Rand) problem {
		xs := randXs(r)
		n := Noising{Level: 0.5, Unlabeled: randXs(r), UnlabeledWeight: 0.3}
		return problem{f: func(w feature.Weights, g Sink) float64 { return n.Penalty(w, xs, g) }}
	}},
	{"logistic + noising", func(r *rand.Rand) problem {
		xs := randXs(r)
		n := Noising{Level: 0.2, Unlabeled: randXs(r)}
		return problem{f: func(w feature.Weights, g Sink) float64 { return Logistic(w, xs, g) + n.Penalty(w, xs, g) }}
	}},
	{"gaussian noising σ=0.3", func(r *rand.Rand) problem {
		xs := randXs(r)
		n := Noising{Type: Gaussian, Level: 0.3}
		return problem{f: func(w feature.Weights, g Sink) float64 { return n.Penalty(w, xs, g) }}
	}},
	{"gaussian noising σ=1.5 unlabelled", func(r *rand.Rand) problem {
		xs := randXs(r)
		n := Noising{Type: Gaussian, Level: 1.5, Unlabeled: randXs(r), UnlabeledWeight: 0.3}
		return problem{f: func(w feature.Weights, g Sink) float64 { return n.Penalty(w, xs, g) }}
	}},
	{"logistic + gaussian noising", func(r *rand.Rand) problem {
		xs := randXs(r)
		n := Noising{Type: Gaussian, Level: 0.5, Unlabeled: randXs(r)}
		return problem{f: func(w feature.Weights, g Sink) float64 { return Logistic(w, xs, g) + n.Penalty(w, xs, g) }}
	}},
}

// TestGradients checks every loss and regulariser against central finite
// differences at random points, with the gradient collected both densely
// and sparsely.
func TestGradients(t *testing.T) {
	const h = 1e-6
	for _, tc := range problems {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(tc.name))))
			checked, worst := 0, 0.0
			for trial := 0; checked < 30 && trial < 300; trial++ {
				p := tc.make(r)
				w := randWeights(r, 0.7)
				if p.smooth != nil && !p.smooth(w, h) {
					continue
				}
				checked++
				g := make(Dense, dim)
				v := p.f(w, g)
				var b feature.Builder
				if v2 := p.f(w, &b); v2 != v {
					t.Fatalf("value %v with a dense sink, %v with a sparse one", v, v2)
				}
				if nv := p.f(w, nil); nv != v {
					t.Fatalf("value %v without a sink, %v with one", nv, v)
				}
				sparse := b.Vector()
				for j := range dim {
					wp, wm := w.Clone(), w.Clone()
					wp[j] += h
					wm[j] -= h
					num := (p.f(wp, nil) - p.f(wm, nil)) / (2 * h)
					err := math.Abs(num-g[j]) / math.Max(1, math.Abs(g[j]))
					worst = max(worst, err)
					if err > 1e-6 {
						t.Fatalf("trial %d: ∂/∂w_%d = %v, finite difference %v", trial, j, g[j], num)
					}
					if s := sparse.At(feature.ID(j)); math.Abs(s-g[j]) > 1e-12*math.Max(1, math.Abs(g[j])) {
						t.Fatalf("trial %d: sparse gradient %v, dense %v at %d", trial, s, g[j], j)
					}
				}
			}
			if checked < 10 {
				t.Fatalf("only %d smooth instances", checked)
			}
			t.Logf("%d instances, worst relative error %.2g", checked, worst)
		})
	}
}

func TestExtremeScores(t *testing.T) {
	x := feature.FromDense([]float64{1})
	for _, s := range []float64{-1e4, -40, 0, 40, 1e4} {
		w := feature.Weights{s}
		var g feature.Builder
		v := Logistic(w, []feature.Vector{x}, &g)
		want := math.Log1p(math.Exp(-s))
		if s < -30 {
			want = -s
		}
		if math.IsInf(v, 0) || math.IsNaN(v) || math.Abs(v-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("Logistic at w·x = %v: %v, want %v", s, v, want)
		}
		gv := g.Vector().At(0)
		if want := -Sigmoid(-s); gv != want {
			t.Errorf("gradient at %v: %v, want %v", s, gv, want)
		}
		for _, n := range []Noising{{Level: 0.1}, {Type: Gaussian, Level: 0.1}} {
			var g feature.Builder
			r := n.Penalty(w, []feature.Vector{x}, &g)
			if math.IsNaN(r) || r < 0 || !feature.Weights(g.Vector().Vals).Finite() {
				t.Errorf("%v noising at %v: %v, gradient %v", n.Type, s, r, g.Vector())
			}
		}
	}
	l := pool.List{Hyps: []pool.Hyp{{Features: feature.FromDense([]float64{1e4})}, {Features: feature.FromDense([]float64{-1e4})}}}
	w := feature.Weights{1}
	if v := Softmax(w, l, []int{1}, nil); math.Abs(v-2e4) > 1e-6 {
		t.Errorf("Softmax with scores ±1e4: %v, want 2e4", v)
	}
	if v := ExpectedBLEU(w, l, []float64{0.25, 0.75}, 1, nil); v != -0.25 {
		t.Errorf("ExpectedBLEU with scores ±1e4: %v, want -0.25", v)
	}
}

func TestHopeFear(t *testing.T) {
	v := func(x float64) feature.Vector { return feature.FromDense([]float64{x}) }
	l := pool.List{Hyps: []pool.Hyp{{Features: v(1)}, {Features: v(2)}, {Features: v(3)}, {Features: v(0)}}}
	gains := []float64{0.5, 0.2, 0, 3}
	tests := []struct {
		name       string
		w          float64
		hope, fear int
		loss       float64
	}{
		// scores 1 2 3 0: s+g = 1.5 2.2 3 3 → hope 2 (earlier tie); s−g = .5 1.8 3 −3 → fear 2.
		{"hope is fear", 1, 2, 2, 0},
		// scores 0 0 0 0: hope 3 (gain 3), fear 2 (gain 0): loss 3 − 0 − 0.
		{"zero weights", 0, 3, 2, 3},
		// scores −1 −2 −3 0: s+g = −.5 −1.8 −3 3 → hope 3; s−g = −1.5 −2.2 −3 −3 → fear 0;
		// loss = (3 − 0.5) − (0 − (−1)) = 1.5.
		{"negative", -1, 3, 0, 1.5},
	}
	for _, tc := range tests {
		w := feature.Weights{tc.w}
		loss, hope, fear := StructuredHinge(w, l, gains, nil)
		if hope != tc.hope || fear != tc.fear || math.Abs(loss-tc.loss) > 1e-15 {
			t.Errorf("%s: loss %v hope %d fear %d, want %v %d %d", tc.name, loss, hope, fear, tc.loss, tc.hope, tc.fear)
		}
	}
	if h, f := HopeFear(nil, pool.List{}, nil); h != -1 || f != -1 {
		t.Errorf("empty list: hope %d fear %d", h, f)
	}
}

func TestSoftThreshold(t *testing.T) {
	tests := []struct{ x, t, want float64 }{
		{3, 1, 2}, {-3, 1, -2}, {0.5, 1, 0}, {-0.5, 1, 0}, {1, 1, 0}, {2, 0, 2},
	}
	for _, tc := range tests {
		if got := SoftThreshold(tc.x, tc.t); got != tc.want {
			t.Errorf("SoftThreshold(%v, %v) = %v, want %v", tc.x, tc.t, got, tc.want)
		}
	}
}

// TestNoisingUnlabeled checks eq. 11's weighting of the unlabelled term,
// for both noises.
func TestNoisingUnlabeled(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	w := randWeights(r, 0.5)
	xs, us := randXs(r), randXs(r)
	const a = 0.4
	n, m := float64(len(xs)), float64(len(us))
	for _, typ := range []NoiseType{Dropout, Gaussian} {
		rl := Noising{Type: typ, Level: 0.2}.Penalty(w, xs, nil)
		ru := Noising{Type: typ, Level: 0.2}.Penalty(w, us, nil)
		got := Noising{Type: typ, Level: 0.2, Unlabeled: us, UnlabeledWeight: a}.Penalty(w, xs, nil)
		if want := n / (n + a*m) * (rl + a*ru); math.Abs(got-want) > 1e-12*want {
			t.Fatalf("%v: semi-supervised penalty %v, want %v", typ, got, want)
		}
		if got := (Noising{Type: typ}).Penalty(w, xs, nil); got != 0 {
			t.Fatalf("%v: zero level: %v", typ, got)
		}
	}
}

// TestGaussianNoisingClosedForm checks the Gaussian regulariser on one
// hand-computed input: x = (1, 2), w = (0.5, −1), so w·x = −1.5,
// p = σ(−1.5), ‖w‖² = 1.25 and R = ½·σ²·1.25·p(1−p).
func TestGaussianNoisingClosedForm(t *testing.T) {
	x := feature.FromDense([]float64{1, 2})
	w := feature.Weights{0.5, -1}
	const sigma = 0.7
	p := 1 / (1 + math.Exp(1.5))
	want := 0.5 * sigma * sigma * 1.25 * p * (1 - p)
	if got := (Noising{Type: Gaussian, Level: sigma}).Penalty(w, []feature.Vector{x}, nil); math.Abs(got-want) > 1e-15 {
		t.Fatalf("R = %v, want %v", got, want)
	}
}

func TestNoisingValidate(t *testing.T) {
	for _, tc := range []struct {
		n  Noising
		ok bool
	}{
		{Noising{}, true},
		{Noising{Level: 0.5}, true},
		{Noising{Level: 1}, false},
		{Noising{Level: -0.1}, false},
		{Noising{Level: math.NaN()}, false},
		{Noising{Type: Gaussian, Level: 3}, true},
		{Noising{Type: Gaussian, Level: -1}, false},
		{Noising{Type: Gaussian, Level: math.Inf(1)}, false},
		{Noising{Type: Gaussian, Level: math.NaN()}, false},
		{Noising{Type: 7, Level: 0.1}, false},
		{Noising{Level: 0.1, UnlabeledWeight: -1}, false},
	} {
		if err := tc.n.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: error %v, want ok %v", tc.n, err, tc.ok)
		}
	}
	for _, tc := range []struct {
		s    string
		want NoiseType
		ok   bool
	}{{"", Dropout, true}, {"dropout", Dropout, true}, {"gaussian", Gaussian, true}, {"Gaussian", 0, false}} {
		got, err := ParseNoiseType(tc.s)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseNoiseType(%q) = %v, %v", tc.s, got, err)
		}
		if tc.ok && tc.s != "" && got.String() != tc.s {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.s)
		}
	}
}

// TestNoisingMonteCarlo compares the quadratic regulariser of each noise
// with the average increase of the logistic loss over real noise.
//
// Dropout drops each feature with probability δ and scales the survivors
// by 1/(1−δ). The inputs have many small contributions x_j·w_j, where the
// second-order approximation is accurate (its third-order error is below
// 1% here).
//
// Gaussian noise is x̃ = x + ε, ε ~ N(0, σ²I) over every coordinate of the
// feature space, drawn afresh for each pair and sample. The noise is
// symmetric, so the approximation's third-order term vanishes and its
// error is of order σ⁴‖w‖⁴; with σ²‖w‖² ≤ 0.03 here it is at most about
// half a percent of R, about one standard error.
//
// The test asks for agreement within 4 standard errors of the Monte-Carlo
// mean, which a wrong constant (a factor 2, say) misses by far more.
func TestNoisingMonteCarlo(t *testing.T) {
	tests := []struct {
		name   string
		noise  Noising
		nvec   int
		seed   uint64
		stream uint64 // the PCG's second seed word
	}{
		{"δ=0.05 one pair", Noising{Level: 0.05}, 1, 1, 99},
		{"δ=0.1 one pair", Noising{Level: 0.1}, 1, 2, 99},
		{"δ=0.05 three pairs", Noising{Level: 0.05}, 3, 3, 99},
		{"δ=0.1 three pairs", Noising{Level: 0.1}, 3, 4, 99},
		{"σ=0.03 one pair", Noising{Type: Gaussian, Level: 0.03}, 1, 1, 77},
		{"σ=0.075 one pair", Noising{Type: Gaussian, Level: 0.075}, 1, 2, 77},
		{"σ=0.03 three pairs", Noising{Type: Gaussian, Level: 0.03}, 3, 3, 77},
		{"σ=0.075 three pairs", Noising{Type: Gaussian, Level: 0.075}, 3, 4, 77},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			noisingMonteCarlo(t, tc.noise, tc.nvec, rand.NewPCG(tc.seed, tc.stream))
		})
	}
}

// realNoise returns the score of x under weights w (w·x = dot) with n's
// noise drawn from r: dropout of x's features, or Gaussian noise on every
// coordinate of the feature space.
func realNoise(n Noising) func(r *rand.Rand, w feature.Weights, x feature.Vector, dot float64) float64 {
	if n.Type == Gaussian {
		sigma := n.Level
		return func(r *rand.Rand, w feature.Weights, _ feature.Vector, dot float64) float64 {
			var we float64 // w·ε
			for _, wj := range w {
				we += wj * sigma * r.NormFloat64()
			}
			return dot + we
		}
	}
	delta := n.Level
	keep := 1 / (1 - delta)
	return func(r *rand.Rand, w feature.Weights, x feature.Vector, _ float64) float64 {
		var s float64
		for k, id := range x.IDs {
			if r.Float64() >= delta {
				s += keep * x.Vals[k] * w[id]
			}
		}
		return s
	}
}

// noisingMonteCarlo checks n's penalty on nvec random difference vectors of
// 60 features against the Monte-Carlo mean of the logistic loss's increase
// over 200,000 draws of the noised scores (realNoise). The control variate
// ℓ'(s)·(s̃ − s), of mean exactly 0 (both noises keep the score's mean), is
// subtracted: an unbiased estimate with a much smaller variance.
func noisingMonteCarlo(t *testing.T, n Noising, nvec int, src rand.Source) {
	t.Helper()
	const samples, nf = 200000, 60
	r := rand.New(src)
	w := make(feature.Weights, nf)
	for j := range w {
		w[j] = 0.3 * r.NormFloat64()
	}
	xs := make([]feature.Vector, nvec)
	for i := range xs {
		d := make([]float64, nf)
		for j := range d {
			d[j] = 0.3 * r.NormFloat64()
		}
		xs[i] = feature.FromDense(d)
	}
	want := n.Penalty(w, xs, nil)
	base := Logistic(w, xs, nil)
	dots := make([]float64, len(xs))
	for i, x := range xs {
		dots[i] = x.Dot(w)
	}
	noised := realNoise(n)
	var sum, sum2 float64
	for range samples {
		var inc float64
		for i, x := range xs {
			s := noised(r, w, x, dots[i])
			inc += softplus(-s) + Sigmoid(-dots[i])*(s-dots[i])
		}
		inc -= base
		sum += inc
		sum2 += inc * inc
	}
	mean := sum / samples
	se := math.Sqrt((sum2/samples - mean*mean) / samples)
	t.Logf("R = %.7f, Monte Carlo %.7f ± %.7f (%.1f standard errors)", want, mean, se, math.Abs(want-mean)/se)
	if math.Abs(want-mean) > 4*se {
		t.Fatalf("R = %v, Monte-Carlo mean %v ± %v", want, mean, se)
	}
}

// TestSoftplusSigmoid: the pair from one exponential has the bits of
// softplus and Sigmoid computed apart, at the edges and at random points.
func TestSoftplusSigmoid(t *testing.T) {
	ts := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 0.5, -0.5, 1, -1, 20, -20, 36.7, -36.7, 709, -709, 746, -746,
		math.MaxFloat64, -math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN()}
	r := rand.New(rand.NewPCG(5, 6))
	for range 10000 {
		ts = append(ts, r.NormFloat64()*math.Pow(10, float64(r.IntN(8)-4)))
	}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
	}
	for _, x := range ts {
		sp, sg := softplusSigmoid(x)
		if !same(sp, softplus(x)) || !same(sg, Sigmoid(x)) {
			t.Errorf("softplusSigmoid(%v) = %v, %v; softplus and Sigmoid give %v, %v", x, sp, sg, softplus(x), Sigmoid(x))
		}
	}
}

// sinkFunc is a Sink that is not a Dense: addScaled calls its Add.
type sinkFunc func(id feature.ID, x float64)

func (f sinkFunc) Add(id feature.ID, x float64) { f(id, x) }

// TestAddScaledDense: the losses' gradients in a Dense (added in place)
// have the bits of the same gradients added through Sink.Add.
func TestAddScaledDense(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	xs := make([]feature.Vector, 200)
	for i := range xs {
		xs[i] = randVector(r, 1+r.IntN(dim))
	}
	w := randWeights(r, 1)
	for name, loss := range map[string]func(feature.Weights, []feature.Vector, Sink) float64{"Logistic": Logistic, "Hinge": Hinge} {
		dense := make(Dense, dim)
		viaAdd := make([]float64, dim)
		f1 := loss(w, xs, dense)
		f2 := loss(w, xs, sinkFunc(func(id feature.ID, x float64) { viaAdd[id] += x }))
		if math.Float64bits(f1) != math.Float64bits(f2) {
			t.Errorf("%s: loss %v and %v", name, f1, f2)
		}
		for j := range dense {
			if math.Float64bits(dense[j]) != math.Float64bits(viaAdd[j]) {
				t.Errorf("%s: gradient %d is %v in a Dense, %v through Add", name, j, dense[j], viaAdd[j])
			}
		}
	}
}

// TestLogisticRows: the loss and gradient over dense rows have the bits
// of Logistic over the same vectors kept sparse (zero entries absent),
// with negative, zero and positive weights.
func TestLogisticRows(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 20 {
		xs := make([]feature.Vector, 1+r.IntN(300))
		rows := make([]float64, len(xs)*dim)
		for i := range xs {
			xs[i] = randVector(r, r.IntN(dim+1))
			for k, id := range xs[i].IDs {
				rows[i*dim+int(id)] = xs[i].Vals[k]
			}
		}
		w := randWeights(r, float64(trial%4))
		for j := range w {
			if r.IntN(4) == 0 {
				w[j] = 0
			}
		}
		sparse := make(Dense, dim)
		dense := make([]float64, dim)
		f1 := Logistic(w, xs, sparse)
		f2 := LogisticRows(w, rows, dense)
		if math.Float64bits(f1) != math.Float64bits(f2) || math.Float64bits(f2) != math.Float64bits(LogisticRows(w, rows, nil)) {
			t.Fatalf("trial %d: loss %v over sparse vectors, %v over rows", trial, f1, f2)
		}
		for j := range dense {
			if math.Float64bits(dense[j]) != math.Float64bits(sparse[j]) {
				t.Fatalf("trial %d: gradient %d is %v over rows, %v over sparse vectors", trial, j, dense[j], sparse[j])
			}
		}
	}
}
