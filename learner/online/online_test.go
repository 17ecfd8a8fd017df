package online

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/internal/statecodec"
	"github.com/mtune/mtune/learner/loss"
	"github.com/mtune/mtune/learner/sample"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/floattest"
	"github.com/mtune/mtune/testsupport/learntest"
)

// randLists returns nl synthetic n-best lists: a few dense features whose
// weighted sum tracks BLEU plus noise, and sparse indicators over sparse ids
// starting at 10.
func randLists(r *rand.Rand, nl, nh, sparse int) []pool.List {
	return learntest.Lists(nl, func() int { return nh }, func(b *feature.Builder) metric.Stats {
		st := learntest.RandStats(r)
		bleu := metric.BLEUPlusOne(st, metric.LinOch)
		for j := range 5 {
			b.Add(feature.ID(j), 3*bleu*float64(j%2*2-1)+r.NormFloat64())
		}
		for range 3 {
			b.Add(feature.ID(10+r.IntN(sparse)), 1)
		}
		return st
	})
}

// eagerAdaGrad is the reference FOBOS update: the gradient step on the
// gradient's coordinates, then the proximal step on every coordinate with
// G_j > 0.
type eagerAdaGrad struct {
	w, G               []float64
	rate, l1, l2, arow float64
}

func (e *eagerAdaGrad) r(G float64) float64 {
	if e.arow > 0 {
		return e.rate / (e.arow + G)
	}
	return e.rate / math.Sqrt(G)
}

func (e *eagerAdaGrad) apply(g feature.Vector) {
	for k, id := range g.IDs {
		e.G[id] += g.Vals[k] * g.Vals[k]
		e.w[id] -= e.r(e.G[id]) * g.Vals[k]
	}
	for j := range e.w {
		if e.G[j] > 0 {
			r := e.r(e.G[j])
			e.w[j] = loss.SoftThreshold(e.w[j], r*e.l1) / (1 + r*e.l2)
		}
	}
}

func TestLazyFOBOSEqualsEager(t *testing.T) {
	tests := []struct {
		name         string
		l1, l2, arow float64
	}{
		{"L1", 0.05, 0, 0},
		{"L1 and L2", 0.03, 0.4, 0},
		{"L2", -1, 0.6, 0},
		{"none", -1, 0, 0},
		{"AROW L1", 0.05, 0, 1},
		{"AROW L1 and L2", 0.05, 1, 0.5},
	}
	const dim, touched, steps = 60, 45, 1000
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			w0 := make(feature.Weights, dim)
			for j := range w0 {
				w0[j] = 2 * r.NormFloat64()
			}
			a, err := NewAdaGrad(w0, AdaGradOptions{Rate: 0.1, L1: tc.l1, L2: tc.l2, AROW: tc.arow})
			if err != nil {
				t.Fatal(err)
			}
			e := &eagerAdaGrad{w: slices.Clone(w0), G: make([]float64, dim), rate: 0.1, l1: max(tc.l1, 0), l2: tc.l2, arow: tc.arow}
			var b feature.Builder
			worst := 0.0
			zeros := 0
			for step := range steps {
				// Coordinates touched/... stay untouched: G_j = 0, no
				// proximal step, their initial weight kept. Rare
				// coordinates leave long idle gaps.
				for range 1 + r.IntN(6) {
					j := r.IntN(touched)
					if j >= 30 && r.IntN(20) != 0 {
						continue
					}
					b.Add(feature.ID(j), r.NormFloat64())
				}
				g := b.Vector()
				a.Apply(g)
				e.apply(g)
				if step%7 == 0 || step == steps-1 {
					got := a.Current()
					for j := range dim {
						worst = max(worst, math.Abs(got[j]-e.w[j]))
					}
				}
				if step == 500 {
					a.flush() // as at the end of an epoch
				}
			}
			if worst > 1e-12 {
				t.Fatalf("lazy and eager differ by %g", worst)
			}
			w := a.Weights()
			for j := touched; j < dim; j++ {
				if w[j] != w0[j] {
					t.Fatalf("untouched coordinate %d moved from %v to %v", j, w0[j], w[j])
				}
			}
			for _, x := range w {
				if x == 0 {
					zeros++
				}
			}
			if tc.l1 > 0 && zeros == 0 {
				t.Fatal("L1 zeroed no weight: the clamp is not exercised")
			}
			t.Logf("largest difference %.2g over %d updates, %d weights at zero", worst, steps, zeros)
		})
	}
}

// newLearners returns fresh learners of every kind from w.
func newLearners(t testing.TB, w feature.Weights) map[string]learner.Online {
	t.Helper()
	out := map[string]learner.Online{}
	add := func(name string, l learner.Online, err error) {
		if err != nil {
			t.Fatal(err)
		}
		out[name] = l
	}
	sgd, err := NewSGD(w, SGDOptions{L2: 0.01, BatchSize: 7, Seed1: 1})
	add("SGD", sgd, err)
	ada, err := NewAdaGrad(w, AdaGradOptions{BatchSize: 7, L2: 0.05, Seed1: 2})
	add("AdaGrad", ada, err)
	noise, err := NewAdaGrad(w, AdaGradOptions{BatchSize: 5, Objective: Pairwise{Noising: loss.Noising{Level: 0.1}, UnlabeledPairs: 3}, Seed1: 3})
	add("AdaGrad noising", noise, err)
	gauss, err := NewAdaGrad(w, AdaGradOptions{BatchSize: 5, Objective: Pairwise{Noising: loss.Noising{Type: loss.Gaussian, Level: 0.2}, UnlabeledPairs: 2}, Seed1: 11})
	add("AdaGrad Gaussian noising", gauss, err)
	hinge, err := NewAdaGrad(w, AdaGradOptions{BatchSize: 5, Objective: Pairwise{Hinge: true, Sampler: &sample.PRO{Gamma: 300, Xi: 20}}, Seed1: 4})
	add("AdaGrad hinge", hinge, err)
	mira, err := NewMIRA(w, MIRAOptions{Seed1: 5})
	add("MIRA", mira, err)
	mira3, err := NewMIRA(w, MIRAOptions{BatchSize: 3, Seed1: 6})
	add("MIRA batch 3", mira3, err)
	miraBLEU, err := NewMIRA(w, MIRAOptions{Gain: sample.PlusOne(metric.LinOch), Seed1: 7})
	add("MIRA BLEU+1", miraBLEU, err)
	wat, err := NewWatanabe(w, WatanabeOptions{BatchSize: 8, Lambda: 1e-3, Seed1: 8})
	add("Watanabe hinge", wat, err)
	soft, err := NewWatanabe(w, WatanabeOptions{Softmax: true, BatchSize: 8, Seed1: 9})
	add("Watanabe softmax", soft, err)
	exact, err := NewWatanabe(w, WatanabeOptions{Exact: true, BatchSize: 8, Seed1: 10})
	add("Watanabe exact", exact, err)
	return out
}

func initWeights(n int) feature.Weights {
	w := make(feature.Weights, n)
	for j := range w {
		w[j] = 0.1 * float64(j%3+1)
	}
	return w
}

// TestResume trains two epochs uninterrupted, and one epoch, a save, a
// restore into a fresh learner and a second epoch: the weights must be
// bit-identical.
func TestResume(t *testing.T) {
	ctx := context.Background()
	lists := randLists(rand.New(rand.NewPCG(9, 9)), 40, 25, 30)
	w0 := initWeights(12)
	straight := newLearners(t, w0)
	first := newLearners(t, w0)
	fresh := newLearners(t, feature.Weights{5})
	for name, l := range straight {
		t.Run(name, func(t *testing.T) {
			for range 2 {
				if err := l.Learn(ctx, lists); err != nil {
					t.Fatal(err)
				}
			}
			f := first[name]
			if err := f.Learn(ctx, lists); err != nil {
				t.Fatal(err)
			}
			state, err := f.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			g := fresh[name]
			if err := g.UnmarshalBinary(state); err != nil {
				t.Fatal(err)
			}
			if err := g.Learn(ctx, lists); err != nil {
				t.Fatal(err)
			}
			if !floattest.SameBits(l.Weights(), g.Weights()) || !floattest.SameBits(l.Current(), g.Current()) || l.Updates() != g.Updates() {
				t.Fatalf("resumed run differs:\n%v\n%v", l.Weights(), g.Weights())
			}
			a, _ := l.MarshalBinary()
			b, _ := g.MarshalBinary()
			if !bytes.Equal(a, b) {
				t.Fatal("states differ after the same training")
			}
			if floattest.SameBits(l.Weights(), w0) {
				t.Fatal("two epochs left the weights unchanged")
			}
		})
	}
}

// TestUpdateIsGradientApply checks Update(batch) against
// Apply(Gradient(Current(), batch, seed)) bit for bit, which exercises the
// lazy state that Update reads in place.
func TestUpdateIsGradientApply(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(4, 4))
	lists := randLists(r, 30, 20, 40)
	w0 := initWeights(12)
	a := newLearners(t, w0)
	b := newLearners(t, w0)
	seeds := map[string]*rand.Rand{
		"SGD": rand.New(rand.NewPCG(1, 0)), "AdaGrad": rand.New(rand.NewPCG(2, 0)),
		"AdaGrad noising": rand.New(rand.NewPCG(3, 0)), "AdaGrad hinge": rand.New(rand.NewPCG(4, 0)),
		"AdaGrad Gaussian noising": rand.New(rand.NewPCG(11, 0)),
	}
	for name, la := range a {
		t.Run(name, func(t *testing.T) {
			lb := b[name]
			for step := range 12 {
				batch := lists[step*2 : step*2+3+step%3]
				if err := la.Update(ctx, batch); err != nil {
					t.Fatal(err)
				}
				var seed uint64
				if s := seeds[name]; s != nil {
					seed = s.Uint64()
				}
				g, err := lb.Gradient(lb.Current(), batch, seed)
				if err != nil {
					t.Fatal(err)
				}
				if m, ok := lb.(*MIRA); ok {
					_, hopes, _ := m.Step(m.Current(), batch)
					m.ApplyStep(g, hopes)
				} else {
					lb.Apply(g)
				}
				if !floattest.SameBits(la.Current(), lb.Current()) {
					t.Fatalf("step %d: Update and Apply(Gradient) differ", step)
				}
			}
			if la.Updates() != 12 {
				t.Fatalf("%d updates, want 12", la.Updates())
			}
		})
	}
}

// TestGradientConcurrent calls Gradient from several goroutines while
// another goroutine applies updates (run with -race).
func TestGradientConcurrent(t *testing.T) {
	lists := randLists(rand.New(rand.NewPCG(5, 5)), 16, 20, 40)
	for name, l := range newLearners(t, initWeights(12)) {
		t.Run(name, func(t *testing.T) {
			w := l.Current()
			want, err := l.Gradient(w, lists[:4], 77)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(func() {
					for range 5 {
						g, err := l.Gradient(w, lists[:4], 77)
						if err != nil {
							t.Error(err)
							return
						}
						// MIRA's and Watanabe's depend on the learner's
						// pseudo-corpus and η_k too.
						if !stateful(l) && !g.Equal(want) {
							t.Error("Gradient is not a function of its arguments")
							return
						}
					}
				})
			}
			for i := range 5 {
				if err := l.Update(context.Background(), lists[4+i:6+i]); err != nil {
					t.Error(err)
				}
				_ = l.Weights()
			}
			wg.Wait()
		})
	}
}

func stateful(l learner.Online) bool {
	switch l.(type) {
	case *MIRA, *Watanabe:
		return true
	}
	return false
}

func TestMIRAStep(t *testing.T) {
	v := func(xs ...float64) feature.Vector { return feature.FromDense(xs) }
	st := func(m float64) metric.Stats {
		return metric.NewBLEUStats(1, []float64{m}, []float64{4}, 4)
	}
	l := pool.List{Hyps: []pool.Hyp{
		pool.NewHyp(v(1, 0), st(1)),
		pool.NewHyp(v(0, 1), st(4)),
		pool.NewHyp(v(2, 2), st(2)),
	}}
	tests := []struct {
		name string
		c    float64
		w    feature.Weights
	}{
		{"clipped", 0.01, feature.Weights{1, -1}},
		{"unclipped", 100, feature.Weights{1, -1}},
		{"separated", 0.01, feature.Weights{-5, 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewMIRA(tc.w, MIRAOptions{C: tc.c, Order: 1})
			if err != nil {
				t.Fatal(err)
			}
			bg := metric.NewBackground(1)
			gains := sample.Gains(l, bg.BLEU, nil)
			lossv, hope, fear := loss.StructuredHinge(tc.w, l, gains, nil)
			if err := m.Update(context.Background(), []pool.List{l}); err != nil {
				t.Fatal(err)
			}
			want := tc.w.Clone()
			if lossv > 0 {
				diff := feature.Diff(l.Hyps[hope].Features, l.Hyps[fear].Features)
				eta := min(tc.c, lossv/diff.SquaredNorm())
				want.AddScaled(eta, diff)
			}
			if got := m.Current(); !slices.Equal(got, want) {
				t.Fatalf("weights %v, want %v (loss %v, hope %d, fear %d)", got, want, lossv, hope, fear)
			}
			bg.Update(l.Hyps[hope].Stats())
			if m.bg.Stats != bg.Stats {
				t.Fatalf("background %v, want %v", m.bg.Stats, bg.Stats)
			}
		})
	}
}

// TestMIRAAveraging compares the lazily averaged weights with the mean of
// the weights recorded after every update.
func TestMIRAAveraging(t *testing.T) {
	lists := randLists(rand.New(rand.NewPCG(6, 6)), 50, 20, 40)
	m, err := NewMIRA(initWeights(12), MIRAOptions{C: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Weights(), initWeights(12)) {
		t.Fatal("average before any update is not the initial weights")
	}
	var sum feature.Weights
	for i, l := range lists {
		if err := m.Update(context.Background(), []pool.List{l}); err != nil {
			t.Fatal(err)
		}
		cur := m.Current()
		sum.Grow(len(cur))
		for j, x := range cur {
			sum[j] += x
		}
		avg := m.Weights()
		for j := range sum {
			if want := sum[j] / float64(i+1); math.Abs(avg.At(feature.ID(j))-want) > 1e-12 {
				t.Fatalf("update %d: average %v at %d, want %v", i, avg.At(feature.ID(j)), j, want)
			}
		}
	}
	m.SetWeights(feature.Weights{1, 2})
	if got := m.Weights(); got[0] != 1 || got[1] != 2 || got.NonZero() != 2 || m.Updates() != len(lists) {
		t.Fatalf("after SetWeights: %v, %d updates", got, m.Updates())
	}
}

// TestWatanabeSteps checks the L2 step, the projection and the norm kept
// along the updates.
func TestWatanabeSteps(t *testing.T) {
	const lambda = 0.01
	l, err := NewWatanabe(feature.Weights{3, 4}, WatanabeOptions{Lambda: lambda, Rate: 0.5, Period: 4, Decay: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	// An empty gradient: only the L2 step, w ← (1 − η₀λ)·w.
	l.Apply(feature.Vector{})
	if got, want := l.Current(), (feature.Weights{3 * 0.995, 4 * 0.995}); math.Abs(got[0]-want[0]) > 1e-15 || math.Abs(got[1]-want[1]) > 1e-15 {
		t.Fatalf("after the L2 step: %v, want %v", got, want)
	}
	if got := l.Rate(); math.Abs(got-0.5*math.Pow(0.5, 0.25)) > 1e-15 {
		t.Fatalf("η_1 = %v", got)
	}
	// A huge step: projected onto the ball of radius 1/√λ = 10.
	l.Apply(feature.FromDense([]float64{-1000, 0, 0, -2000}))
	w := l.Current()
	var n2 float64
	for _, x := range w {
		n2 += x * x
	}
	if math.Abs(math.Sqrt(n2)-10) > 1e-12 {
		t.Fatalf("‖w‖ = %v after projection, want 10", math.Sqrt(n2))
	}
	if math.Abs(l.w.sqnorm()-n2) > 1e-9 {
		t.Fatalf("tracked ‖w‖² %v, recomputed %v", l.w.sqnorm(), n2)
	}
}

func TestOptionErrors(t *testing.T) {
	w := feature.Weights{1}
	tests := []struct {
		name string
		err  error
	}{
		{"AdaGrad negative rate", func() error { _, err := NewAdaGrad(w, AdaGradOptions{Rate: -1}); return err }()},
		{"AdaGrad hinge with noising", func() error {
			_, err := NewAdaGrad(w, AdaGradOptions{Objective: Pairwise{Hinge: true, Noising: loss.Noising{Level: 0.1}}})
			return err
		}()},
		{"AdaGrad dropout 1", func() error {
			_, err := NewAdaGrad(w, AdaGradOptions{Objective: Pairwise{Noising: loss.Noising{Level: 1}}})
			return err
		}()},
		{"AdaGrad Gaussian σ < 0", func() error {
			_, err := NewAdaGrad(w, AdaGradOptions{Objective: Pairwise{Noising: loss.Noising{Type: loss.Gaussian, Level: -1}}})
			return err
		}()},
		{"AdaGrad Gaussian noising on the hinge", func() error {
			_, err := NewAdaGrad(w, AdaGradOptions{Objective: Pairwise{Hinge: true, Noising: loss.Noising{Type: loss.Gaussian, Level: 0.5}}})
			return err
		}()},
		{"SGD unlabelled pairs without noising", func() error {
			_, err := NewSGD(w, SGDOptions{Objective: Pairwise{UnlabeledPairs: 3}})
			return err
		}()},
		{"AdaGrad NaN weights", func() error { _, err := NewAdaGrad(feature.Weights{math.NaN()}, AdaGradOptions{}); return err }()},
		{"SGD decay past 1", func() error { _, err := NewSGD(w, SGDOptions{Rate: 1, L2: 2}); return err }()},
		{"MIRA order 7", func() error { _, err := NewMIRA(w, MIRAOptions{Order: 7}); return err }()},
		{"MIRA decay 2", func() error { _, err := NewMIRA(w, MIRAOptions{Decay: 2}); return err }()},
		{"Watanabe decay 0", func() error { _, err := NewWatanabe(w, WatanabeOptions{Decay: -1}); return err }()},
		{"Watanabe ηλ ≥ 1", func() error { _, err := NewWatanabe(w, WatanabeOptions{Rate: 1, Lambda: 1}); return err }()},
	}
	for _, tc := range tests {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestNonFinite(t *testing.T) {
	l := pool.List{Hyps: []pool.Hyp{
		pool.NewHyp(feature.Vector{IDs: []feature.ID{0}, Vals: []float64{math.Inf(1)}}, learntest.RandStats(rand.New(rand.NewPCG(1, 1)))),
		pool.NewHyp(feature.FromDense([]float64{1}), metric.NewBLEUStats(4, nil, nil, 3)),
	}}
	for name, lr := range newLearners(t, feature.Weights{1}) {
		before := lr.Current()
		err := lr.Update(context.Background(), []pool.List{l, l, l})
		switch {
		case err != nil && !errors.Is(err, ErrNotFinite):
			t.Errorf("%s: error %v, want ErrNotFinite", name, err)
		case err != nil && !floattest.SameBits(before, lr.Current()):
			t.Errorf("%s: failed update changed the weights", name)
		case err == nil && !lr.Current().Finite():
			t.Errorf("%s: non-finite weights without an error", name)
		}
	}
}

func TestUnmarshalErrors(t *testing.T) {
	w := initWeights(4)
	for name, l := range newLearners(t, w) {
		state, err := l.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range [][]byte{nil, state[:len(state)-1], append(slices.Clone(state), 0), []byte("mtune/online.Nope\x00\x01\x00\x00\x00")} {
			if err := l.UnmarshalBinary(bad); !errors.Is(err, ErrState) {
				t.Errorf("%s: %d bytes: error %v, want ErrState", name, len(bad), err)
			}
		}
		if !floattest.SameBits(l.Current(), w) {
			t.Errorf("%s: failed restore changed the learner", name)
		}
	}
	// Another learner's state.
	a, _ := NewAdaGrad(w, AdaGradOptions{})
	s, _ := NewSGD(w, SGDOptions{})
	state, _ := s.MarshalBinary()
	if err := a.UnmarshalBinary(state); !errors.Is(err, ErrState) {
		t.Errorf("AdaGrad restored SGD state: %v", err)
	}
	// Another version.
	state, _ = a.MarshalBinary()
	state[len(adagradMagic)+1] = 9
	if err := a.UnmarshalBinary(state); !errors.Is(err, ErrState) {
		t.Errorf("version 9 accepted: %v", err)
	}
}

func FuzzUnmarshal(f *testing.F) {
	lists := randLists(rand.New(rand.NewPCG(1, 1)), 6, 5, 5)
	for _, l := range newLearners(f, initWeights(3)) {
		_ = l.Learn(context.Background(), lists)
		state, _ := l.MarshalBinary()
		f.Add(state)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, l := range newLearners(t, feature.Weights{1}) {
			if !learntest.RoundTrip(t, l, data) {
				continue
			}
			_ = l.Weights()
			_ = l.Update(context.Background(), lists[:2])
		}
	})
}

// TestUnmarshalInconsistentLengths: states whose slices disagree in length
// are errors (AdaGrad's decoder once indexed G past its end on them).
func TestUnmarshalInconsistentLengths(t *testing.T) {
	tests := []struct {
		name    string
		w, sumG []float64
		last    []int64
		t       int64
	}{
		{"last longer", nil, nil, []int64{0}, 0},
		{"G shorter", []float64{1}, nil, []int64{0}, 0},
		{"G longer", []float64{1}, []float64{1, 2}, []int64{0}, 0},
		{"negative count", []float64{1}, []float64{1}, []int64{0}, -1},
	}
	for _, tc := range tests {
		e := statecodec.NewEncoder(adagradMagic, adagradVersion)
		e.I64(tc.t)
		e.F64s(tc.w)
		e.F64s(tc.sumG)
		e.I64s(tc.last)
		e.PCG(rand.NewPCG(1, 2))
		state, err := e.Finish()
		if err != nil {
			t.Fatal(err)
		}
		a, _ := NewAdaGrad(feature.Weights{1}, AdaGradOptions{})
		if err := a.UnmarshalBinary(state); !errors.Is(err, ErrState) {
			t.Errorf("%s: error %v, want ErrState", tc.name, err)
		}
	}
}

// TestPairsSampled: the learners of the pairwise objective count the pairs
// their gradients sample (what each gradient's sampler draws for its seed);
// the others are no PairSampler.
func TestPairsSampled(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	batch := randLists(r, 6, 12, 4)
	w := initWeights(12)
	for name, l := range newLearners(t, w) {
		ps, ok := l.(learner.PairSampler)
		pairwise := !strings.HasPrefix(name, "MIRA") && !strings.HasPrefix(name, "Watanabe")
		if ok != pairwise {
			t.Errorf("%s: PairSampler %v, want %v", name, ok, pairwise)
			continue
		}
		if !ok {
			continue
		}
		var obj Pairwise
		switch l := l.(type) {
		case *AdaGrad:
			obj = l.opts.Objective
		case *SGD:
			obj = l.opts.Objective
		}
		s := sample.Green()
		if obj.Sampler != nil {
			s = *obj.Sampler
		}
		var want int64
		for _, seed := range []uint64{1, 2, 3} {
			want += int64(len(s.Sample(seeded(seed), batch, nil)))
			if _, err := l.Gradient(w, batch, seed); err != nil {
				t.Fatal(err)
			}
		}
		if got := ps.PairsSampled(); got != want || want == 0 {
			t.Errorf("%s: %d pairs counted, %d sampled", name, got, want)
		}
	}
}

// TestUnlabeledPairs: the unlabelled pairs of Pairwise enter the noising
// regulariser of either noise (the objective's value and gradient change),
// and nothing else: the labelled pairs are sampled as without them.
func TestUnlabeledPairs(t *testing.T) {
	lists := randLists(rand.New(rand.NewPCG(6, 6)), 8, 20, 30)
	w := initWeights(30)
	for _, typ := range []loss.NoiseType{loss.Dropout, loss.Gaussian} {
		n := loss.Noising{Type: typ, Level: 0.2}
		plain := Pairwise{Noising: n}
		semi := Pairwise{Noising: n, UnlabeledPairs: 4}
		g0, v0, pairs0, err := plain.gradientPairs(w, lists, 42)
		if err != nil {
			t.Fatal(err)
		}
		g1, v1, pairs1, err := semi.gradientPairs(w, lists, 42)
		if err != nil {
			t.Fatal(err)
		}
		if pairs0 != pairs1 {
			t.Errorf("%v: %d labelled pairs with unlabelled ones, %d without", typ, pairs1, pairs0)
		}
		if v0 == v1 || floattest.SameBits(feature.Weights(g0.Vals), feature.Weights(g1.Vals)) {
			t.Errorf("%v: the unlabelled pairs changed nothing: value %v", typ, v0)
		}
		// The logistic loss of the labelled pairs is the same: only the
		// regulariser moved.
		off := Pairwise{}
		_, vl, _, err := off.gradientPairs(w, lists, 42)
		if err != nil {
			t.Fatal(err)
		}
		if r0, r1 := v0-vl, v1-vl; !(r0 > 0 && r1 > 0) {
			t.Errorf("%v: regulariser %v without unlabelled pairs, %v with", typ, r0, r1)
		}
	}
}
