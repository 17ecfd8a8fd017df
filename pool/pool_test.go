package pool

import (
	"testing"

	"github.com/mtune/mtune/feature"
)

func TestBest(t *testing.T) {
	v := func(x float64) feature.Vector { return feature.FromDense([]float64{x}) }
	l := List{Hyps: []Hyp{{Features: v(1)}, {Features: v(3)}, {Features: v(3)}, {Features: v(2)}}}
	tests := []struct {
		name string
		w    feature.Weights
		want int
	}{
		{"max", feature.Weights{1}, 1},
		{"negative", feature.Weights{-1}, 0},
		{"zero weights tie to the first", feature.Weights{0}, 0},
	}
	for _, tc := range tests {
		if got := Best(l, tc.w); got != tc.want {
			t.Errorf("%s: Best = %d, want %d", tc.name, got, tc.want)
		}
	}
	if Best(List{}, nil) != -1 {
		t.Error("Best of an empty list is not -1")
	}
}
