package feature

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestIndexConcurrent(t *testing.T) {
	x := NewIndex()
	const workers, names = 8, 2000
	var wg sync.WaitGroup
	ids := make([][]ID, workers)
	for g := range workers {
		wg.Go(func() {
			for i := range names {
				ids[g] = append(ids[g], x.ID("f"+strconv.Itoa(i)))
			}
		})
	}
	wg.Wait()
	if x.Len() != names {
		t.Fatalf("Len = %d, want %d", x.Len(), names)
	}
	for g := 1; g < workers; g++ {
		if !slices.Equal(ids[g], ids[0]) {
			t.Fatalf("worker %d saw different ids", g)
		}
	}
	for i, id := range ids[0] {
		if got := x.Name(id); got != "f"+strconv.Itoa(i) {
			t.Fatalf("Name(%d) = %q", id, got)
		}
		if got, ok := x.Lookup("f" + strconv.Itoa(i)); !ok || got != id {
			t.Fatalf("Lookup(f%d) = %d, %v", i, got, ok)
		}
	}
	if _, ok := x.Lookup("absent"); ok {
		t.Fatal("Lookup added or found an absent name")
	}
	if x.Len() != names {
		t.Fatal("Lookup changed the index")
	}
}

func TestSplitDenseName(t *testing.T) {
	tests := []struct {
		name  string
		label string
		i     int
		ok    bool
	}{
		{"LM0_0", "LM0", 0, true},
		{"TranslationModel0_3", "TranslationModel0", 3, true},
		{"d_12", "d", 12, true},
		{"a_b_7", "a_b", 7, true},
		{"pp_le", "", 0, false},
		{"x_", "", 0, false},
		{"_3", "", 0, false},
		{"x_03", "", 0, false},
		{"x_+3", "", 0, false},
		{"x_-3", "", 0, false},
		{"plain", "", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			label, i, ok := SplitDenseName(tc.name)
			if label != tc.label || i != tc.i || ok != tc.ok {
				t.Fatalf("SplitDenseName(%q) = %q, %d, %v; want %q, %d, %v", tc.name, label, i, ok, tc.label, tc.i, tc.ok)
			}
			if ok && DenseName(label, i) != tc.name {
				t.Fatalf("DenseName does not invert SplitDenseName for %q", tc.name)
			}
		})
	}
}

func TestBuilder(t *testing.T) {
	tests := []struct {
		name string
		ids  []ID
		vals []float64
		want Vector
	}{
		{"empty", nil, nil, Vector{}},
		{"sorted", []ID{1, 4, 9}, []float64{1, -2, 3}, Vector{[]ID{1, 4, 9}, []float64{1, -2, 3}}},
		{"unsorted", []ID{9, 1, 4}, []float64{3, 1, -2}, Vector{[]ID{1, 4, 9}, []float64{1, -2, 3}}},
		{"repeats summed", []ID{2, 2, 5, 2}, []float64{1, 2, 1, 0.5}, Vector{[]ID{2, 5}, []float64{3.5, 1}}},
		{"zeros dropped", []ID{3, 1, 3}, []float64{1, 0, -1}, Vector{}},
	}
	var b Builder
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k := range tc.ids {
				b.Add(tc.ids[k], tc.vals[k])
			}
			got := b.Vector()
			if !got.Equal(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if err := got.Validate(); err != nil {
				t.Fatal(err)
			}
			if b.Len() != 0 {
				t.Fatal("builder not reset")
			}
		})
	}
}

func randomVector(r *rand.Rand, dim, nnz int) (Vector, []float64) {
	d := make([]float64, dim)
	var b Builder
	for range nnz {
		id := ID(r.IntN(dim))
		x := float64(r.IntN(19) - 9)
		d[id] += x
		b.Add(id, x)
	}
	return b.Vector(), d
}

// TestAgainstDense checks every sparse operation against the same operation
// on dense slices, over random vectors whose entries are small integers so
// that float arithmetic is exact.
func TestAgainstDense(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		dim := 1 + r.IntN(40)
		a, da := randomVector(r, dim, r.IntN(dim+1))
		b, db := randomVector(r, dim, r.IntN(dim+1))
		alpha := float64(r.IntN(7) - 3)
		w := make(Weights, r.IntN(dim+1)) // shorter than dim: missing ids read 0
		for i := range w {
			w[i] = float64(r.IntN(11) - 5)
		}
		var wantDot, wantDotVec float64
		for i := range dim {
			if i < len(w) {
				wantDot += da[i] * w[i]
			}
			wantDotVec += da[i] * db[i]
		}
		if got := a.Dot(w); got != wantDot {
			t.Fatalf("trial %d: Dot = %v, want %v", trial, got, wantDot)
		}
		if got := a.DotVector(b); got != wantDotVec {
			t.Fatalf("trial %d: DotVector = %v, want %v", trial, got, wantDotVec)
		}
		sum := AddScaled(a, alpha, b)
		if err := sum.Validate(); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		diff := Diff(a, b)
		for i := range dim {
			if got, want := sum.At(ID(i)), da[i]+alpha*db[i]; got != want {
				t.Fatalf("trial %d: AddScaled[%d] = %v, want %v", trial, i, got, want)
			}
			if got, want := diff.At(ID(i)), da[i]-db[i]; got != want {
				t.Fatalf("trial %d: Diff[%d] = %v, want %v", trial, i, got, want)
			}
		}
		if !FromDense(a.Dense(dim)).Equal(a) {
			t.Fatalf("trial %d: FromDense(Dense) is not the identity", trial)
		}
		w2 := w.Clone()
		w2.AddScaled(alpha, b)
		for i := range dim {
			want := alpha * db[i]
			if i < len(w) {
				want += w[i]
			}
			if got := w2.At(ID(i)); got != want {
				t.Fatalf("trial %d: Weights.AddScaled[%d] = %v, want %v", trial, i, got, want)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	bad := []struct {
		name string
		v    Vector
	}{
		{"lengths", Vector{IDs: []ID{1}, Vals: nil}},
		{"order", Vector{IDs: []ID{2, 1}, Vals: []float64{1, 1}}},
		{"repeat", Vector{IDs: []ID{1, 1}, Vals: []float64{1, 1}}},
		{"negative id", Vector{IDs: []ID{-1}, Vals: []float64{1}}},
		{"zero", Vector{IDs: []ID{1}, Vals: []float64{0}}},
		{"nan", Vector{IDs: []ID{1}, Vals: []float64{math.NaN()}}},
		{"inf", Vector{IDs: []ID{1}, Vals: []float64{math.Inf(1)}}},
	}
	for _, tc := range bad {
		if tc.v.Validate() == nil {
			t.Errorf("%s: Validate accepted %v", tc.name, tc.v)
		}
	}
}

func TestWeights(t *testing.T) {
	var w Weights
	if w.At(5) != 0 {
		t.Fatal("empty weights read non-zero")
	}
	w.Set(3, 2)
	if len(w) != 4 || w.At(3) != 2 || w.NonZero() != 1 {
		t.Fatalf("Set grew to %v", w)
	}
	if !w.Sparse().Equal(Vector{IDs: []ID{3}, Vals: []float64{2}}) {
		t.Fatalf("Sparse = %v", w.Sparse())
	}
	if !w.Finite() {
		t.Fatal("finite weights reported non-finite")
	}
	w.Set(0, math.NaN())
	if w.Finite() {
		t.Fatal("NaN weight reported finite")
	}
}

func TestGroupNames(t *testing.T) {
	got := GroupNames([]Group{{"LM0", 1}, {"TranslationModel0", 2}})
	want := []string{"LM0_0", "TranslationModel0_0", "TranslationModel0_1"}
	if !slices.Equal(got, want) {
		t.Fatalf("GroupNames = %v, want %v", got, want)
	}
}

// BenchmarkDot measures a sparse dot product whose cost depends on the
// vector's non-zeros only, not on the size of the weights.
func BenchmarkDot(b *testing.B) {
	for _, dim := range []int{10_000, 10_000_000} {
		b.Run(strconv.Itoa(dim), func(b *testing.B) {
			r := rand.New(rand.NewPCG(3, 4))
			w := make(Weights, dim)
			var vb Builder
			for range 300 {
				vb.Add(ID(r.IntN(dim)), 1)
			}
			v := vb.Vector()
			var s float64
			for b.Loop() {
				s += v.Dot(w)
			}
			_ = s
		})
	}
}

func TestNormalizeL1(t *testing.T) {
	tests := []struct {
		name    string
		in, out Weights
	}{
		{"mixed signs", Weights{2, -1, 0, 1}, Weights{0.5, -0.25, 0, 0.25}},
		{"zero stays zero", Weights{0, 0}, Weights{0, 0}},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.in.Clone()
			w.NormalizeL1()
			for i := range tt.out {
				if w[i] != tt.out[i] {
					t.Fatalf("got %v, want %v", w, tt.out)
				}
			}
		})
	}
}

func TestShortList(t *testing.T) {
	var names []string
	for i := range 23 {
		names = append(names, DenseName("f", i))
	}
	if got := ShortList(names[:2]); got != "f_0 f_1" {
		t.Errorf("ShortList of 2: %q", got)
	}
	if got := ShortList(names); !strings.HasSuffix(got, "f_19 … (3 more)") {
		t.Errorf("ShortList of 23: %q", got)
	}
}
