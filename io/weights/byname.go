package weights

import (
	"context"
	"fmt"
	"math"

	"github.com/mtune/mtune/feature"
)

// ByName are weights by feature name: the weight of feature Names[i] is
// Vals[i]. A feature.Index is private to a process, so ids never travel
// between processes (Beam workers, files): names do. It is the one
// weights type by name that crosses the pipeline's boundaries.
type ByName struct {
	Names []string
	Vals  []float64
}

// NewByName returns w over idx as ByName: every name of idx,
// zeros included, in id order (so that w's ids are the positions in
// Names).
func NewByName(idx *feature.Index, w feature.Weights) ByName {
	names := idx.Names()
	vals := make([]float64, len(names))
	copy(vals, w)
	return ByName{Names: names, Vals: vals}
}

// Validate checks that the weights have as many values as names, distinct
// non-empty names and finite values.
func (ww ByName) Validate() error {
	if len(ww.Names) != len(ww.Vals) {
		return fmt.Errorf("weights: weights have %d names and %d values", len(ww.Names), len(ww.Vals))
	}
	seen := make(map[string]struct{}, len(ww.Names))
	for i, n := range ww.Names {
		if n == "" {
			return fmt.Errorf("weights: weight %d has an empty name", i)
		}
		if _, dup := seen[n]; dup {
			return fmt.Errorf("weights: feature %q has two weights", n)
		}
		seen[n] = struct{}{}
		if x := ww.Vals[i]; math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("weights: weight of %q is %v", n, x)
		}
	}
	return nil
}

// Over returns the weights over idx, adding the names idx lacks.
func (ww ByName) Over(idx *feature.Index) (feature.Weights, error) {
	if err := ww.Validate(); err != nil {
		return nil, err
	}
	var w feature.Weights
	for i, n := range ww.Names {
		id := idx.ID(n)
		if ww.Vals[i] != 0 {
			w.Set(id, ww.Vals[i])
		}
	}
	return w, nil
}

// NonZero returns the weights without their zero ones, the others in
// order (sharing ww's names). Over gives the same non-zero weights for
// both, so a decoding, whose scores take no zero weight and do not depend
// on the ids of its index, is the same under either; a learner's index,
// whose ids order its sums, is not (Over adds the zero ones' names too).
func (ww ByName) NonZero() ByName {
	n := 0
	for _, x := range ww.Vals {
		if x != 0 {
			n++
		}
	}
	if n == len(ww.Vals) {
		return ww
	}
	out := ByName{Names: make([]string, 0, n), Vals: make([]float64, 0, n)}
	for i, x := range ww.Vals {
		if x != 0 {
			out.Names, out.Vals = append(out.Names, ww.Names[i]), append(out.Vals, x)
		}
	}
	return out
}

// Map returns the weights by name.
func (ww ByName) Map() map[string]float64 {
	m := make(map[string]float64, len(ww.Names))
	for i, n := range ww.Names {
		m[n] = ww.Vals[i]
	}
	return m
}

// ReadByName reads the weights file at path (local or gs://, any format
// Read detects) as ByName: every name, in the order of the file.
func ReadByName(ctx context.Context, path string) (ByName, error) {
	set, err := Read(ctx, path, nil)
	if err != nil {
		return ByName{}, err
	}
	ww := NewByName(set.Index, set.Weights)
	if err := ww.Validate(); err != nil {
		return ByName{}, fmt.Errorf("%w (%s)", err, path)
	}
	return ww, nil
}

// WriteByName writes ww to path (local or gs://) as mtune's JSON document,
// atomically; its dense layout is GroupsOf(ww.Names).
func WriteByName(ctx context.Context, path string, ww ByName) error {
	if err := ww.Validate(); err != nil {
		return err
	}
	set := NewSet(feature.NewIndexOf(ww.Names...))
	set.Weights = append(feature.Weights(nil), ww.Vals...)
	set.Groups = GroupsOf(ww.Names)
	return Write(ctx, path, set, JSON)
}
