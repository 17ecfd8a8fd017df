package strtab

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTable: strings are numbered in the order they are first added,
// found again by bytes and by string, and read back unchanged while the
// table grows (across chunks, with strings longer than a chunk, the empty
// string among them); strings never added are not found.
func TestTable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, hint := range []int{0, 1, 1000} {
		tab := New(hint)
		var want []string
		seen := map[string]int32{}
		var views []string
		for k := range 20000 {
			var s string
			switch {
			case k == 7:
				s = ""
			case k%997 == 0:
				s = strings.Repeat("x", maxChunk+k) // longer than a chunk
			case k%3 == 0 && len(want) > 0:
				s = want[r.IntN(len(want))] // again
			default:
				s = fmt.Sprintf("feat_%d_%s", r.IntN(1<<20), strings.Repeat("y", r.IntN(40)))
			}
			i, isNew := tab.AddString(s)
			j, known := seen[s]
			switch {
			case known && (isNew || i != j):
				t.Fatalf("hint %d: %q added again: %d, new %v; want %d", hint, s, i, isNew, j)
			case !known && (!isNew || int(i) != len(want)):
				t.Fatalf("hint %d: new %q: %d, new %v; want %d", hint, s, i, isNew, len(want))
			case !known:
				seen[s] = i
				want = append(want, s)
				views = append(views, tab.At(i))
			}
		}
		if tab.Len() != len(want) {
			t.Fatalf("hint %d: %d strings, want %d", hint, tab.Len(), len(want))
		}
		for i, s := range want {
			if got := tab.At(int32(i)); got != s {
				t.Fatalf("hint %d: At(%d) = %.40q, want %.40q", hint, i, got, s)
			}
			if views[i] != s {
				t.Fatalf("hint %d: string %d read when added changed to %.40q", hint, i, views[i])
			}
			if j, ok := tab.Lookup([]byte(s)); !ok || int(j) != i {
				t.Fatalf("hint %d: Lookup(%.40q) = %d, %v", hint, s, j, ok)
			}
			if j, ok := tab.LookupString(s); !ok || int(j) != i {
				t.Fatalf("hint %d: LookupString(%.40q) = %d, %v", hint, s, j, ok)
			}
		}
		for _, s := range []string{"feat_", "never added", "x"} {
			if _, ok := tab.LookupString(s); ok {
				t.Errorf("hint %d: %q found", hint, s)
			}
		}
		if tab.Size() < tab.Len() {
			t.Errorf("hint %d: Size %d for %d strings", hint, tab.Size(), tab.Len())
		}
	}
}

// TestSmallTable: a table of a few short strings takes a few hundred
// bytes, not a chunk of a megabyte (indexes are made per bundle).
func TestSmallTable(t *testing.T) {
	tab := New(0)
	tab.AddString("LM0_0")
	tab.AddString("TM0_1")
	if n := tab.Size(); n > 1024 {
		t.Errorf("two short strings take %d bytes", n)
	}
}

func BenchmarkAdd(b *testing.B) {
	names := make([]string, 100000)
	for i := range names {
		names[i] = fmt.Sprintf("pt_%d~%d", i, i*7)
	}
	b.ReportAllocs()
	for b.Loop() {
		tab := New(0)
		for _, s := range names {
			tab.AddString(s)
		}
	}
}
