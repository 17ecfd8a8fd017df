package online

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mtune/mtune/feature"
)

// TestPAKKT solves random instances of the QP of Watanabe's eq. 12/16 and
// checks the KKT conditions of the primal at the solution
// w = w0 + Σ α_i x_i, ξ_i = max(0, b_i − x_i·w):
// primal feasibility (x_i·w ≥ b_i − ξ_i, ξ_i ≥ 0, by construction), dual
// bounds 0 ≤ α_i ≤ c, complementary slackness α_i·(x_i·w − b_i + ξ_i) = 0
// and (c − α_i)·ξ_i = 0, to 1e-6; and a zero duality gap.
func TestPAKKT(t *testing.T) {
	tests := []struct {
		name       string
		n, dim, nz int
		c          float64
		scale      float64 // feature magnitude
		cuts       bool    // random targets (cutting planes) instead of 1
	}{
		{"hinge small", 5, 4, 3, 0.2, 1, false},
		{"hinge many pairs", 300, 15, 15, 0.2, 10, false},
		{"hinge sparse", 200, 500, 6, 0.05, 1, false},
		{"hinge tight cap", 100, 10, 5, 1e-3, 5, false},
		{"hinge loose cap", 50, 30, 8, 100, 1, false},
		{"cutting planes", 16, 40, 20, 0.2, 3, true},
		{"more rows than columns", 400, 8, 8, 0.5, 2, false},
		{"large sparse: coordinate descent", 600, 2000, 5, 0.2, 1, false},
		{"large sparse cuts: coordinate descent", 500, 3000, 4, 0.1, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.dim)))
			var worstKKT, worstGap float64
			for trial := range 5 {
				w0 := make(feature.Weights, tc.dim)
				for j := range w0 {
					w0[j] = r.NormFloat64()
				}
				xs := make([]feature.Vector, tc.n)
				b := make([]float64, tc.n)
				m := make([]float64, tc.n)
				var bl feature.Builder
				for i := range xs {
					for range tc.nz {
						bl.Add(feature.ID(r.IntN(tc.dim)), tc.scale*r.NormFloat64())
					}
					xs[i] = bl.Vector()
					b[i] = 1
					if tc.cuts {
						b[i] = 5 * r.Float64()
					}
					m[i] = xs[i].Dot(w0)
				}
				alpha := solvePA(xs, m, b, tc.c)
				w := w0.Clone()
				for i, x := range xs {
					w.AddScaled(alpha[i], x)
				}
				var primal, dual, u2 float64
				for j := range w {
					d := w[j] - w0[j]
					u2 += d * d
				}
				worst := 0.0
				for i, x := range xs {
					a := alpha[i]
					if a < 0 || a > tc.c {
						t.Fatalf("trial %d: α_%d = %v outside [0, %v]", trial, i, a, tc.c)
					}
					margin := x.Dot(w)
					xi := max(0, b[i]-margin)
					worst = max(worst, a*(margin-b[i]+xi), (tc.c-a)*xi)
					primal += tc.c * xi
					dual += a * (b[i] - m[i])
				}
				primal += u2 / 2
				dual -= u2 / 2
				worstKKT = max(worstKKT, worst)
				worstGap = max(worstGap, math.Abs(primal-dual))
				if worst > 1e-6 {
					t.Fatalf("trial %d: complementary slackness violated by %g", trial, worst)
				}
				if gap := primal - dual; gap < -1e-9 || gap > 1e-6*math.Max(1, math.Abs(primal)) {
					t.Fatalf("trial %d: duality gap %g (primal %v, dual %v)", trial, gap, primal, dual)
				}
			}
			t.Logf("largest KKT violation %.2g, duality gap %.2g", worstKKT, worstGap)
		})
	}
}

func TestPAEdgeCases(t *testing.T) {
	x := feature.FromDense([]float64{1, 1})
	tests := []struct {
		name string
		xs   []feature.Vector
		m, b []float64
		c    float64
		want []float64
	}{
		{"satisfied", []feature.Vector{x}, []float64{2}, []float64{1}, 0.5, []float64{0}},
		// Margin 0: α = (1 − 0)/‖x‖² = 0.5 makes the margin 1.
		{"one step", []feature.Vector{x}, []float64{0}, []float64{1}, 1, []float64{0.5}},
		{"clipped", []feature.Vector{x}, []float64{0}, []float64{1}, 0.1, []float64{0.1}},
		{"empty vector violated", []feature.Vector{{}}, []float64{0}, []float64{1}, 0.3, []float64{0.3}},
		{"empty vector met", []feature.Vector{{}}, []float64{2}, []float64{1}, 0.3, []float64{0}},
		{"no rows", nil, nil, nil, 1, []float64{}},
	}
	for _, tc := range tests {
		got := solvePA(tc.xs, tc.m, tc.b, tc.c)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %v, want %v", tc.name, got, tc.want)
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}
	}
}
