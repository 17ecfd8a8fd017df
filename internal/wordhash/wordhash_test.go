package wordhash

import "testing"

// TestIDs checks that prefixes, permutations and the empty sequence hash
// apart, and that a sequence hashes the same twice.
func TestIDs(t *testing.T) {
	seqs := [][]int32{{}, {0}, {0, 0}, {1, 2}, {2, 1}, {1, 2, 3}, {-1}}
	seen := map[uint64][]int32{}
	for _, s := range seqs {
		h := IDs(s)
		if o, ok := seen[h]; ok {
			t.Errorf("%v and %v hash alike", o, s)
		}
		seen[h] = s
		if IDs(append([]int32(nil), s...)) != h {
			t.Errorf("%v hashes differently twice", s)
		}
	}
	if Pair(1, 2) == Pair(2, 1) {
		t.Error("Pair(1, 2) = Pair(2, 1)")
	}
}
