package tune

import (
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/mert"
)

// TestLineKey: a round's line keys are distinct and decode back however
// many directions a run searches (MERT over a million sparse features
// searches more than 2^20 lines a run).
func TestLineKey(t *testing.T) {
	dims := make([]feature.ID, 1<<20+3)
	for j := range dims {
		dims[j] = feature.ID(j)
	}
	p := mert.Pass{Dims: dims, Runs: []mert.RunPass{{Search: true}, {Search: true, Random: make([]feature.Weights, 2)}, {}}}
	stride := LineStride(p)
	if stride != len(dims)+2 {
		t.Fatalf("stride %d, want %d", stride, len(dims)+2)
	}
	seen := map[int]bool{}
	for i, r := range p.Runs {
		for _, d := range []int{0, 1 << 20, r.Directions(len(dims)) - 1} {
			if d < 0 {
				continue
			}
			k := LineKey(i, d, stride)
			if seen[k] || k/stride != i || k%stride != d {
				t.Errorf("run %d line %d: key %d decodes to %d, %d (or repeats)", i, d, k, k/stride, k%stride)
			}
			seen[k] = true
		}
	}
}
