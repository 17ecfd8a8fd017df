// Package strtab numbers distinct strings 0, 1, 2, … in the order they
// are added, at a few bytes a string beyond its own: the bytes live in
// chunks of an arena, and the hash table holds numbers only. It is the
// store of decoder/lm's vocabulary and of feature.Index.
//
// A Go map[string]int32 with a []string beside it costs 80 bytes a
// string beyond its bytes (the map's slots and growth, the string headers,
// each string's own allocation rounded up to its size class); a Table 23
// (12 of entry, 8 to 16 of hash table, the arena's last chunk's slack):
// Go heap after a collection, a million feature-like names of 30 bytes on
// average, 2026-11-29.
package strtab

import (
	"fmt"
	"hash/maphash"
	"unsafe"
)

// The arena's chunks double from minChunk bytes up to maxChunk, so that
// a small table stays small; a longer string gets a chunk of its own.
const (
	minChunk = 256
	maxChunk = 1 << 20
)

// Table numbers distinct strings in the order they are added. Its strings
// (At) are views of the arena, which is never written below what it
// holds, so they stay valid and unchanged for as long as they are used.
// A Table is not safe for concurrent use while strings are added; readers
// alone may share it.
type Table struct {
	chunks  [][]byte
	entries []entry
	slots   []int32 // open addressing, linear probing: number+1, 0 = empty
	seed    maphash.Seed
}

// entry locates string i: chunks[chunk][off:off+n].
type entry struct {
	chunk, off, n uint32
}

// New returns an empty table with room for about capHint strings before
// its hash table grows.
func New(capHint int) *Table {
	n := 16
	for n < 2*capHint {
		n <<= 1
	}
	return &Table{slots: make([]int32, n), seed: maphash.MakeSeed(), entries: make([]entry, 0, max(0, capHint))}
}

// Len returns the number of strings.
func (t *Table) Len() int { return len(t.entries) }

// At returns string i. It panics if i is out of range.
func (t *Table) At(i int32) string {
	b := t.bytesAt(i)
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func (t *Table) bytesAt(i int32) []byte {
	e := t.entries[i]
	return t.chunks[e.chunk][e.off : e.off+e.n]
}

// Lookup returns the number of s and whether the table holds it.
func (t *Table) Lookup(s []byte) (int32, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := maphash.Bytes(t.seed, s) & mask; ; i = (i + 1) & mask {
		k := t.slots[i]
		if k == 0 {
			return 0, false
		}
		if string(t.bytesAt(k-1)) == string(s) {
			return k - 1, true
		}
	}
}

// LookupString is Lookup of a string, without copying it.
func (t *Table) LookupString(s string) (int32, bool) {
	return t.Lookup(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// Add returns the number of s, adding a copy of it with the next number
// if the table does not hold it yet; isNew says which. It panics past
// 2³¹−1 strings or a string of 4 GiB, beyond any vocabulary or feature
// index.
func (t *Table) Add(s []byte) (i int32, isNew bool) {
	if i, ok := t.Lookup(s); ok {
		return i, false
	}
	if len(t.entries) == 1<<31-1 || uint64(len(s)) >= 1<<32 {
		panic(fmt.Sprintf("strtab: %d strings, or one of %d bytes", len(t.entries), len(s)))
	}
	c := len(t.chunks) - 1
	if c < 0 || len(t.chunks[c])+len(s) > cap(t.chunks[c]) {
		size := minChunk
		if c >= 0 {
			size = min(maxChunk, 2*cap(t.chunks[c]))
		}
		t.chunks = append(t.chunks, make([]byte, 0, max(size, len(s))))
		c++
	}
	off := len(t.chunks[c])
	t.chunks[c] = append(t.chunks[c], s...)
	i = int32(len(t.entries))
	t.entries = append(t.entries, entry{chunk: uint32(c), off: uint32(off), n: uint32(len(s))})
	if 2*len(t.entries) > len(t.slots) {
		t.grow()
	} else {
		t.place(i)
	}
	return i, true
}

// AddString is Add of a string.
func (t *Table) AddString(s string) (int32, bool) {
	return t.Add(unsafe.Slice(unsafe.StringData(s), len(s)))
}

func (t *Table) place(i int32) {
	mask := uint64(len(t.slots) - 1)
	k := maphash.Bytes(t.seed, t.bytesAt(i)) & mask
	for t.slots[k] != 0 {
		k = (k + 1) & mask
	}
	t.slots[k] = i + 1
}

func (t *Table) grow() {
	t.slots = make([]int32, 2*len(t.slots))
	for i := int32(0); i < int32(len(t.entries)); i++ {
		t.place(i)
	}
}

// Size returns the bytes the table holds.
func (t *Table) Size() int {
	n := 12*cap(t.entries) + 4*cap(t.slots) + 24*cap(t.chunks)
	for _, c := range t.chunks {
		n += cap(c)
	}
	return n
}
