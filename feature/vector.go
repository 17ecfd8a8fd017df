package feature

import (
	"fmt"
	"math"
	"slices"
)

// Vector is a sparse feature vector: IDs in strictly increasing order and
// the value of each. Features absent from IDs are zero. The zero Vector is
// the empty vector.
//
// Vectors made by this package never hold an explicit zero value, so two
// vectors are equal as vectors exactly when Equal reports it.
type Vector struct {
	IDs  []ID
	Vals []float64
}

// Len returns the number of non-zero entries.
func (v Vector) Len() int { return len(v.IDs) }

// At returns the value of feature id (zero when absent). It costs O(log n).
func (v Vector) At(id ID) float64 {
	k, ok := slices.BinarySearch(v.IDs, id)
	if !ok {
		return 0
	}
	return v.Vals[k]
}

// Dot returns v·w. Ids past the end of w read as zero.
func (v Vector) Dot(w Weights) float64 {
	var s float64
	n := ID(len(w))
	for k, id := range v.IDs {
		if id < n {
			s += v.Vals[k] * w[id]
		}
	}
	return s
}

// DotVector returns the inner product of two sparse vectors.
func (v Vector) DotVector(u Vector) float64 {
	var s float64
	i, j := 0, 0
	for i < len(v.IDs) && j < len(u.IDs) {
		switch {
		case v.IDs[i] < u.IDs[j]:
			i++
		case v.IDs[i] > u.IDs[j]:
			j++
		default:
			s += v.Vals[i] * u.Vals[j]
			i++
			j++
		}
	}
	return s
}

// SquaredNorm returns Σ v_j².
func (v Vector) SquaredNorm() float64 {
	var s float64
	for _, x := range v.Vals {
		s += x * x
	}
	return s
}

// Equal reports whether u and v hold the same features with the same values.
func (v Vector) Equal(u Vector) bool {
	return slices.Equal(v.IDs, u.IDs) && slices.Equal(v.Vals, u.Vals)
}

// Clone returns a deep copy of v.
func (v Vector) Clone() Vector {
	return Vector{IDs: slices.Clone(v.IDs), Vals: slices.Clone(v.Vals)}
}

// Dense returns v as a dense slice of length n. It panics if v holds an id
// ≥ n.
func (v Vector) Dense(n int) []float64 {
	d := make([]float64, n)
	for k, id := range v.IDs {
		d[id] = v.Vals[k]
	}
	return d
}

// Validate reports whether v is well formed: equal lengths, strictly
// increasing non-negative ids, finite non-zero values.
func (v Vector) Validate() error {
	if len(v.IDs) != len(v.Vals) {
		return fmt.Errorf("feature: vector has %d ids and %d values", len(v.IDs), len(v.Vals))
	}
	for k, id := range v.IDs {
		if id < 0 || (k > 0 && id <= v.IDs[k-1]) {
			return fmt.Errorf("feature: vector ids not strictly increasing at entry %d", k)
		}
		if x := v.Vals[k]; x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("feature: vector entry %d has value %v", k, x)
		}
	}
	return nil
}

// AddScaled returns a + alpha·b as a new vector; entries that cancel to zero
// are dropped.
func AddScaled(a Vector, alpha float64, b Vector) Vector {
	out := Vector{
		IDs:  make([]ID, 0, len(a.IDs)+len(b.IDs)),
		Vals: make([]float64, 0, len(a.IDs)+len(b.IDs)),
	}
	i, j := 0, 0
	for i < len(a.IDs) || j < len(b.IDs) {
		var id ID
		var x float64
		switch {
		case j == len(b.IDs) || (i < len(a.IDs) && a.IDs[i] < b.IDs[j]):
			id, x = a.IDs[i], a.Vals[i]
			i++
		case i == len(a.IDs) || b.IDs[j] < a.IDs[i]:
			id, x = b.IDs[j], alpha*b.Vals[j]
			j++
		default:
			id, x = a.IDs[i], a.Vals[i]+alpha*b.Vals[j]
			i++
			j++
		}
		if x != 0 {
			out.IDs = append(out.IDs, id)
			out.Vals = append(out.Vals, x)
		}
	}
	return out
}

// Diff returns a − b, the difference vector of a pair of hypotheses.
func Diff(a, b Vector) Vector { return AddScaled(a, -1, b) }

// Scale returns alpha·v as a new vector (the empty vector when alpha is 0).
func Scale(alpha float64, v Vector) Vector {
	if alpha == 0 {
		return Vector{}
	}
	out := v.Clone()
	for k := range out.Vals {
		out.Vals[k] *= alpha
	}
	return out
}

// Builder collects (id, value) entries in any order and makes a Vector of
// them. Repeated ids are summed (in the order they were added) and zero sums
// dropped. A Builder can be reused after Vector; its zero value is ready to
// use.
type Builder struct {
	ids  []ID
	vals []float64
	keys []uint64 // scratch: id<<32 | position, for a stable sort
}

// Add adds x to feature id.
func (b *Builder) Add(id ID, x float64) {
	b.ids = append(b.ids, id)
	b.vals = append(b.vals, x)
}

// Len returns the number of entries added since the last Reset.
func (b *Builder) Len() int { return len(b.ids) }

// Reset empties the builder, keeping its buffers.
func (b *Builder) Reset() {
	b.ids = b.ids[:0]
	b.vals = b.vals[:0]
}

// Vector returns the entries added so far as a Vector with its own storage
// and resets the builder.
func (b *Builder) Vector() Vector {
	defer b.Reset()
	n := len(b.ids)
	if n == 0 {
		return Vector{}
	}
	out := Vector{IDs: make([]ID, 0, n), Vals: make([]float64, 0, n)}
	emit := func(id ID, x float64) {
		if x != 0 {
			out.IDs = append(out.IDs, id)
			out.Vals = append(out.Vals, x)
		}
	}
	if slices.IsSorted(b.ids) {
		for k := 0; k < n; {
			id, x := b.ids[k], b.vals[k]
			for k++; k < n && b.ids[k] == id; k++ {
				x += b.vals[k]
			}
			emit(id, x)
		}
	} else {
		// Sorting packed keys keeps equal ids in the order they were
		// added, so sums are the same as in the sorted case.
		b.keys = b.keys[:0]
		for k, id := range b.ids {
			b.keys = append(b.keys, uint64(uint32(id))<<32|uint64(k))
		}
		slices.Sort(b.keys)
		for k := 0; k < n; {
			id := ID(b.keys[k] >> 32)
			x := b.vals[uint32(b.keys[k])]
			for k++; k < n && ID(b.keys[k]>>32) == id; k++ {
				x += b.vals[uint32(b.keys[k])]
			}
			emit(id, x)
		}
	}
	if len(out.IDs) == 0 {
		return Vector{}
	}
	return Vector{IDs: slices.Clip(out.IDs), Vals: slices.Clip(out.Vals)}
}

// FromDense returns the sparse vector of the non-zero entries of d.
func FromDense(d []float64) Vector {
	var b Builder
	for i, x := range d {
		if x != 0 {
			b.Add(ID(i), x)
		}
	}
	return b.Vector()
}
