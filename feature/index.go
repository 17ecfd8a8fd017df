package feature

import (
	"strconv"
	"strings"
	"sync"
)

// ID is the dense id of a feature in an Index.
type ID = int32

// Index interns feature names as dense ids 0, 1, 2, … in order of first
// appearance. The zero value is not usable; call NewIndex.
//
// Lookups take a read lock only, so many goroutines can resolve names while
// one occasionally adds a new feature.
type Index struct {
	mu    sync.RWMutex
	ids   map[string]ID
	names []string
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{ids: make(map[string]ID)}
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
	id, ok := x.ids[name]
	x.mu.RUnlock()
	if ok {
		return id
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if id, ok := x.ids[name]; ok {
		return id
	}
	id = ID(len(x.names))
	// Copy the name so that an index never pins a large line buffer that
	// name happens to be a slice of.
	name = strings.Clone(name)
	x.ids[name] = id
	x.names = append(x.names, name)
	return id
}

// Lookup returns the id of name and whether the index holds it. It never
// adds a name.
func (x *Index) Lookup(name string) (ID, bool) {
	x.mu.RLock()
	id, ok := x.ids[name]
	x.mu.RUnlock()
	return id, ok
}

// Name returns the name of id. It panics if id is not in the index, which is
// a programming error.
func (x *Index) Name(id ID) string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.names[id]
}

// Len returns the number of features in the index.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.names)
}

// Names returns a copy of the feature names in id order.
func (x *Index) Names() []string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return append([]string(nil), x.names...)
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
