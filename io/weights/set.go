package weights

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mtune/mtune/feature"
)

// Set is a set of weights: the Index that names the features, the Weights
// indexed by it, and the dense layout. Several Sets may share one Index;
// each holds only its own weights (the others read zero).
type Set struct {
	// Index names the features. It is never nil in a Set returned by this
	// package.
	Index *feature.Index
	// Weights holds the value of each feature, by id; ids past its end are
	// zero.
	Weights feature.Weights
	// Groups is the dense layout in order of first appearance; each group's
	// features are feature.DenseName(Label, i) for i < Len.
	Groups []feature.Group
	// WeightFile is the path a moses.ini's [weight-file] section names
	// (Moses' sparse weights file), as written there; empty otherwise.
	// Nothing in this package reads it.
	WeightFile string
	// Lines holds the line of the file read on which each group's label
	// first appears (Moses weights and moses.ini files: ReadMoses); nil
	// when the reader does not record them (JSON, lists).
	Lines map[string]int
}

// Entry is a named weight.
type Entry struct {
	Name  string
	Value float64
}

// NewSet returns an empty Set over idx, or over a new Index if idx is nil.
func NewSet(idx *feature.Index) *Set {
	if idx == nil {
		idx = feature.NewIndex()
	}
	return &Set{Index: idx}
}

// Value returns the weight of the named feature, zero if it has none.
func (s *Set) Value(name string) float64 {
	id, ok := s.Index.Lookup(name)
	if !ok {
		return 0
	}
	return s.Weights.At(id)
}

// SetValue sets the weight of the named feature, interning the name.
func (s *Set) SetValue(name string, x float64) {
	s.Weights.Set(s.Index.ID(name), x)
}

// Group returns the group with the given label.
func (s *Set) Group(label string) (feature.Group, bool) {
	for _, g := range s.Groups {
		if g.Label == label {
			return g, true
		}
	}
	return feature.Group{}, false
}

// Dense returns the weights of the groups' features in layout order, the
// order of feature.GroupNames(s.Groups).
func (s *Set) Dense() []float64 {
	var out []float64
	for _, g := range s.Groups {
		for i := 0; i < g.Len; i++ {
			out = append(out, s.Value(feature.DenseName(g.Label, i)))
		}
	}
	return out
}

// groupIDs returns the ids of the interned features of s's groups.
func (s *Set) groupIDs() map[feature.ID]bool {
	ids := make(map[feature.ID]bool)
	for _, g := range s.Groups {
		for i := 0; i < g.Len; i++ {
			if id, ok := s.Index.Lookup(feature.DenseName(g.Label, i)); ok {
				ids[id] = true
			}
		}
	}
	return ids
}

// Sparse returns the non-zero weights of the features that no group names,
// sorted by name.
func (s *Set) Sparse() []Entry {
	inGroup := s.groupIDs()
	var out []Entry
	for id, x := range s.Weights {
		if x != 0 && !inGroup[feature.ID(id)] {
			out = append(out, Entry{Name: s.Index.Name(feature.ID(id)), Value: x})
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Clone returns a copy of s sharing its Index.
func (s *Set) Clone() *Set {
	return &Set{
		Index:      s.Index,
		Weights:    s.Weights.Clone(),
		Groups:     slices.Clone(s.Groups),
		WeightFile: s.WeightFile,
		Lines:      maps.Clone(s.Lines),
	}
}

// Merge copies o into s: o's groups not in s are appended, all of o's
// group weights (zeros included) and its non-zero other weights overwrite
// s's. Both must share one Index, and a label in both must have the same
// length. A typical use joins a Moses dense file with its sparse file.
func (s *Set) Merge(o *Set) error {
	if s.Index != o.Index {
		return errors.New("weights: merge of sets over different indexes")
	}
	for _, g := range o.Groups {
		if h, ok := s.Group(g.Label); ok {
			if h.Len != g.Len {
				return fmt.Errorf("weights: merge: group %s has %d values in one set and %d in the other", g.Label, h.Len, g.Len)
			}
			continue
		}
		s.Groups = append(s.Groups, g)
	}
	for _, g := range o.Groups {
		for i := 0; i < g.Len; i++ {
			name := feature.DenseName(g.Label, i)
			s.SetValue(name, o.Value(name))
		}
	}
	for id, x := range o.Weights {
		if x != 0 {
			s.Weights.Set(feature.ID(id), x)
		}
	}
	return nil
}

// Validate checks what every writer needs: labels unique and non-empty,
// every group has a value, every weight is finite.
func (s *Set) Validate() error {
	if s.Index == nil {
		return errors.New("weights: set has no index")
	}
	seen := make(map[string]bool, len(s.Groups))
	for _, g := range s.Groups {
		if g.Label == "" {
			return errors.New("weights: group with an empty label")
		}
		if seen[g.Label] {
			return fmt.Errorf("weights: group %s appears twice", g.Label)
		}
		seen[g.Label] = true
		if g.Len <= 0 {
			return fmt.Errorf("weights: group %s has %d values", g.Label, g.Len)
		}
	}
	if len(s.Weights) > s.Index.Len() {
		return fmt.Errorf("weights: %d weights but the index has %d names", len(s.Weights), s.Index.Len())
	}
	for id, x := range s.Weights {
		if !finite(x) {
			return fmt.Errorf("weights: feature %s has weight %v", s.Index.Name(feature.ID(id)), x)
		}
	}
	return nil
}

// GroupsOf returns the dense layout of a list of feature names: a label L
// forms a group when its names L_0 … L_{n-1} all appear (feature.DenseName),
// each once; groups are in order of first appearance. Other names are
// sparse and belong to no group. GroupsOf of the Moses mert FEATSTAT header
// "d_0 … d_6 lm_0 tm_0 … tm_4 w_0" is d (7), lm (1), tm (5), w (1).
func GroupsOf(names []string) []feature.Group {
	type acc struct {
		comps map[int]bool
		bad   bool
	}
	var order []string
	byLabel := make(map[string]*acc)
	for _, n := range names {
		label, i, ok := feature.SplitDenseName(n)
		if !ok {
			continue
		}
		a := byLabel[label]
		if a == nil {
			a = &acc{comps: make(map[int]bool)}
			byLabel[label] = a
			order = append(order, label)
		}
		if a.comps[i] {
			a.bad = true
		}
		a.comps[i] = true
	}
	var out []feature.Group
	for _, label := range order {
		a := byLabel[label]
		if a.bad {
			continue
		}
		n := len(a.comps)
		complete := true
		for i := 0; i < n; i++ {
			if !a.comps[i] {
				complete = false
				break
			}
		}
		if complete {
			out = append(out, feature.Group{Label: label, Len: n})
		}
	}
	return out
}

// denseBuilder appends dense values to a Set, a repeated label continuing
// its group.
type denseBuilder struct {
	s   *Set
	pos map[string]int
}

func newDenseBuilder(s *Set) *denseBuilder {
	return &denseBuilder{s: s, pos: make(map[string]int)}
}

func (b *denseBuilder) add(label string, x float64) {
	gi, ok := b.pos[label]
	if !ok {
		gi = len(b.s.Groups)
		b.s.Groups = append(b.s.Groups, feature.Group{Label: label})
		b.pos[label] = gi
	}
	g := &b.s.Groups[gi]
	b.s.SetValue(feature.DenseName(label, g.Len), x)
	g.Len++
}
