package nbest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAppendNumMatchesC checks the fast paths of appendNum against Go's
// %.Ng, which formats as C's printf does, on values like those in n-best
// lists and on random bit patterns.
func TestAppendNumMatchesC(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -14, 999999, 1e6, 1234567, 0.5, -7.66174, 8.99907,
		0.0001, 0.00012345, 1e-5, 123456.5, 100000.5, 1e21, 1e22, 3.14159265, -2.5e-7, 1e15, 1e16}
	r := rand.New(rand.NewPCG(1, 1))
	for range 20000 {
		vals = append(vals, math.Float64frombits(r.Uint64()))
		x, _ := parseNumString(fmt.Sprintf("%.*g", 1+r.IntN(9), r.NormFloat64()*math.Pow(10, float64(r.IntN(16)-8))))
		vals = append(vals, x)
	}
	for _, x := range vals {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		for _, prec := range []int{0, 3, 6, 10} {
			p := prec
			if p == 0 {
				p = 6
			}
			want := fmt.Sprintf("%.*g", p, x)
			if got := string(appendNum(nil, x, prec)); got != want {
				t.Fatalf("appendNum(%v, %d) = %q, want %q", x, prec, got, want)
			}
		}
	}
}

func parseNumString(s string) (float64, error) {
	var x float64
	_, err := fmt.Sscan(s, &x)
	return x, err
}
