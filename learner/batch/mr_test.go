package batch

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/loss"
	"github.com/mtune/mtune/learner/sample"
	"github.com/mtune/mtune/metric"
)

// TestMRObjective checks the objective and its gradient against an
// independent computation (learner/loss's ExpectedBLEU summed over the
// lists, plus the L2 term) and the gradient against central finite
// differences of the objective.
func TestMRObjective(t *testing.T) {
	tests := []struct {
		name   string
		lay    layout
		sparse int
		opts   MROptions
	}{
		{"dense", layoutDense, 0, MROptions{}},
		{"sparse, sharp", layoutSparse, 20, MROptions{Scale: 4, Lambda: 0.1}},
		{"no regularisation, Moses BLEU+1", layoutAuto, 5, MROptions{Lambda: -1, Smoothing: metric.MosesPlusOne}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(31, uint64(len(tt.name))))
			lists := randomPool(r, 30, 15, 5, tt.sparse)
			o, err := tt.opts.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			c := mustCompile(t, lists, tt.lay)
			pr := newMRProblem(c, o)
			w := c.gather(randomWeights(r, 5+tt.sparse))
			grad := make([]float64, c.dim)
			f := pr.objective(w, nil, grad)

			// Independent: loss.ExpectedBLEU over the global weights.
			gw := c.scatter(nil, w)
			want := loss.L2(gw, o.lambda(), nil)
			wantGrad := make(loss.Dense, len(gw))
			loss.L2(gw, o.lambda(), wantGrad)
			for _, l := range lists {
				gains := sample.Gains(l, sample.PlusOne(o.Smoothing), nil)
				want += loss.ExpectedBLEU(gw, l, gains, o.Scale, wantGrad)
			}
			if math.Abs(f-want) > 1e-10*math.Abs(want) {
				t.Errorf("objective %v, loss package %v", f, want)
			}
			for j, id := range c.ids {
				if math.Abs(grad[j]-wantGrad[id]) > 1e-9*max(1, math.Abs(wantGrad[id])) {
					t.Errorf("gradient %d: %v, loss package %v", id, grad[j], wantGrad[id])
				}
			}
			// Central differences.
			const h = 1e-6
			for j := range w {
				wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
				wp[j] += h
				wm[j] -= h
				fd := (pr.objective(wp, nil, nil) - pr.objective(wm, nil, nil)) / (2 * h)
				if math.Abs(fd-grad[j]) > 1e-6*max(1, math.Abs(fd)) {
					t.Errorf("feature %d: gradient %v, finite difference %v", c.ids[j], grad[j], fd)
				}
			}
			// On a subset of the lists the L2 term is weighted by its share.
			sub := []int{3, 7, 11}
			var sum float64
			coef := make([]float64, 20)
			for _, l := range sub {
				sum += pr.sentence(l, w, 1, coef)
			}
			var sq float64
			for _, v := range w {
				sq += v * v
			}
			sum += float64(len(sub)) / float64(c.lists()) * o.lambda() / 2 * sq
			if got := pr.objective(w, sub, nil); math.Abs(got-sum) > 1e-12*math.Abs(sum) {
				t.Errorf("objective on %v: %v, want %v", sub, got, sum)
			}
		})
	}
}

// TestMRStep checks SGD steps on the scaled weights a·v against the plain
// update w ← w − η(λw + n∇ℓ_i(w)).
func TestMRStep(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	lists := randomPool(r, 12, 10, 4, 10)
	for _, lambda := range []float64{50, 0.3, -1} {
		o, _ := MROptions{Lambda: lambda, Scale: 2}.withDefaults()
		c, err := compile(lists)
		if err != nil {
			t.Fatal(err)
		}
		pr := newMRProblem(c, o)
		w := c.gather(randomWeights(r, 14))
		s := newScaled(w)
		order := []int{4, 0, 11, 4, 7, 2, 9}
		const eta0 = 0.004
		pr.sgd(s, order, eta0, 3, nil)
		n := float64(c.lists())
		coef := make([]float64, 10)
		for t0, l := range order {
			eta := eta0 / (1 + eta0*o.lambda()*float64(3+t0))
			g := make([]float64, c.dim)
			pr.sentence(l, w, 1, coef)
			for h := c.start[l]; h < c.start[l+1]; h++ {
				c.addTo(g, h, coef[h-c.start[l]])
			}
			for j := range w {
				w[j] -= eta * (o.lambda()*w[j] + n*g[j])
			}
		}
		got := s.weights()
		for j := range w {
			if math.Abs(got[j]-w[j]) > 1e-10*max(1, math.Abs(w[j])) {
				t.Errorf("lambda %v, feature %d: %v, want %v", lambda, j, got[j], w[j])
			}
		}
	}
	// The scale is folded back in when it gets tiny or reaches zero.
	s := newScaled([]float64{1, 2})
	s.shrink(1e-10)
	if s.a != 1 || math.Abs(s.v[1]-2e-10) > 1e-25 {
		t.Errorf("tiny scale: %+v", s)
	}
	s.shrink(0)
	if s.a != 1 || s.v[0] != 0 || s.v[1] != 0 {
		t.Errorf("zero scale: %+v", s)
	}
}

// TestMREuroparl100 runs MR from init.weights (13.68 BLEU); there is no
// Moses figure for it. The objective must go down.
func TestMREuroparl100(t *testing.T) {
	d := loadEuroparl100(t)
	for _, tt := range []MROptions{{}, {Lambda: 0.05}, {Lambda: 0.05, Scale: 10}} {
		m, err := NewMR(d.init, tt)
		w, bleu, took := d.learn(t, m, err)
		r := m.LastRun()
		t.Logf("λ %v, scale %v: BLEU %.2f (%.4f), objective %.4f → %.4f, %v, %d non-zero weights",
			m.Options().Lambda, m.Options().Scale, bleu, bleu, r.Initial, r.Final, took, w.NonZero())
		for _, rs := range r.Restarts {
			t.Logf("  η₀ %.3g, %d epochs, objective %.6f", rs.Eta0, rs.Epochs, rs.Objective)
		}
		if !(r.Final < r.Initial) {
			t.Errorf("objective %v → %v: no progress", r.Initial, r.Final)
		}
		if bleu < 13.68 {
			t.Errorf("BLEU %.4f, below the start's 13.68", bleu)
		}
	}
}

// TestMRFixedEta0 checks that a given η₀ is used as is.
func TestMRFixedEta0(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	lists := randomPool(r, 20, 10, 4, 0)
	m, err := NewMR(feature.Weights{0.1, 0.1, 0.1, 0.1}, MROptions{Eta0: 0.001, Restarts: 2, Epochs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Learn(context.Background(), lists); err != nil {
		t.Fatal(err)
	}
	for _, rs := range m.LastRun().Restarts {
		if rs.Eta0 != 0.001 {
			t.Errorf("η₀ %v, want 0.001", rs.Eta0)
		}
	}
}

func TestMROptions(t *testing.T) {
	checkBadOptions(t, NewMR, []MROptions{
		{Lambda: math.NaN()}, {Eta0: -1}, {TuneSample: -1}, {Scale: -1},
		{Restarts: -1}, {Epochs: -1}, {Tolerance: math.Inf(1)}, {Smoothing: 9}, {Threads: -1},
	})
}
