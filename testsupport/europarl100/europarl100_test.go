package europarl100

import (
	"slices"
	"testing"

	"github.com/mtune/mtune/pool"
)

// TestLoad: Load and Shared give the same pool of 100 sentences in id
// order over the 15 dense features of init.weights, and Shared's init is
// the caller's own copy.
func TestLoad(t *testing.T) {
	lists, init, idx := Load(t)
	if len(lists) != 100 {
		t.Fatalf("%d lists, want 100", len(lists))
	}
	for i, l := range lists {
		if l.Sent != i {
			t.Fatalf("list %d has sentence id %d", i, l.Sent)
		}
	}
	if len(init) != 15 || idx.Len() != 15 {
		t.Errorf("init has %d weights, index %d names; want 15 each", len(init), idx.Len())
	}
	sl, si, sidx := Shared(t)
	if pool.OneBest(sl, si) != pool.OneBest(lists, init) || !slices.Equal(si, init) || sidx.Len() != idx.Len() {
		t.Error("Shared differs from Load")
	}
	si[0]++
	if _, again, _ := Shared(t); again[0] != init[0] {
		t.Errorf("Shared's init was changed through an earlier copy: %v, want %v", again[0], init[0])
	}
}
