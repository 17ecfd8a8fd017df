package feature

import (
	"strconv"
	"strings"
	"sync"

	"github.com/mtune/mtune/internal/strtab"
)

// ID is the dense id of a feature in an Index.
type ID = int32

// Index interns feature names as dense ids 0, 1, 2, … in order of first
// appearance. The zero value is not usable; call NewIndex.
//
// Lookups take a read lock only, so many goroutines can resolve names while
// one occasionally adds a new feature.
type Index struct {
	mu sync.RWMutex
	// names holds the names in an arena with a hash table of ids: 23
	// bytes a name beyond its own, where a map and a slice of strings
	// took 80 (package strtab). A worker's decoder interns every sparse
	// feature of every n-best hypothesis it makes: 1.6 million names in
	// a 4k epoch (docs/scale.md).
	names *strtab.Table
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{names: strtab.New(0)}
}

// NewIndexOf returns an index holding names in order; repeated names keep
// their first id.
func NewIndexOf(names ...string) *Index {
	x := NewIndex()
	for _, n := range names {
		x.ID(n)
	}
	return x
}

// ID returns the id of name, adding it to the index if it is new.
func (x *Index) ID(name string) ID {
	x.mu.RLock()
	id, ok := x.names.LookupString(name)
	x.mu.RUnlock()
	if ok {
		return id
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	// The table copies the name, so an index never pins a large line
	// buffer that name happens to be a slice of.
	id, _ = x.names.AddString(name)
	return id
}

// Lookup returns the id of name and whether the index holds it. It never
// adds a name.
func (x *Index) Lookup(name string) (ID, bool) {
	x.mu.RLock()
	id, ok := x.names.LookupString(name)
	x.mu.RUnlock()
	return id, ok
}

// Name returns the name of id. It panics if id is not in the index, which is
// a programming error.
func (x *Index) Name(id ID) string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.names.At(id)
}

// Len returns the number of features in the index.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.names.Len()
}

// Names returns a copy of the feature names in id order.
func (x *Index) Names() []string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	out := make([]string, x.names.Len())
	for i := range out {
		out[i] = x.names.At(ID(i))
	}
	return out
}

// DenseName returns the name of component i of a dense feature with the given
// label, the way Moses names it: DenseName("LM0", 0) == "LM0_0".
func DenseName(label string, i int) string {
	return label + "_" + strconv.Itoa(i)
}

// SplitDenseName splits a dense feature name made by DenseName into its
// label and component. ok is false for names without a "_N" suffix, which
// are sparse features.
func SplitDenseName(name string) (label string, i int, ok bool) {
	k := strings.LastIndexByte(name, '_')
	if k <= 0 || k == len(name)-1 {
		return "", 0, false
	}
	n, err := strconv.Atoi(name[k+1:])
	if err != nil || n < 0 || name[k+1] == '+' || (len(name)-k-1 > 1 && name[k+1] == '0') {
		return "", 0, false
	}
	return name[:k], n, true
}

// maxShortList bounds how many names ShortList gives.
const maxShortList = 20

// ShortList joins feature names with spaces for a message, at most 20 of
// them, then "… (N more)".
func ShortList(names []string) string {
	if len(names) <= maxShortList {
		return strings.Join(names, " ")
	}
	return strings.Join(names[:maxShortList], " ") + " … (" + strconv.Itoa(len(names)-maxShortList) + " more)"
}
