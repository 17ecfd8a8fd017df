package lm

import (
	"hash/maphash"
	"unsafe"
)

// WordID identifies a word of a model's vocabulary. <unk> is always 0; the
// other words are numbered from 1 in the order the 1-grams list them.
type WordID int32

// Unknown is the id of <unk>, to which every word outside the vocabulary
// maps.
const Unknown WordID = 0

// The special words of ARPA models.
const (
	UnknownWord = "<unk>"
	BeginWord   = "<s>"
	EndWord     = "</s>"
)

// Vocab maps words to ids and back. The words live in one byte arena; the
// hash table holds ids only. It is safe for concurrent readers once built.
type Vocab struct {
	arena []byte
	offs  []uint32 // word i is arena[offs[i]:offs[i+1]]
	slots []int32  // open addressing, linear probing: id+1, 0 = empty
	seed  maphash.Seed
}

func newVocab(capHint int) *Vocab {
	v := &Vocab{seed: maphash.MakeSeed(), offs: make([]uint32, 1, capHint+2)}
	n := 16
	for n < 2*capHint {
		n <<= 1
	}
	v.slots = make([]int32, n)
	return v
}

// Len returns the number of words, <unk> included.
func (v *Vocab) Len() int { return len(v.offs) - 1 }

// Word returns the word with id. It panics if id is out of range.
func (v *Vocab) Word(id WordID) string {
	b := v.arena[v.offs[id]:v.offs[id+1]]
	if len(b) == 0 {
		return ""
	}
	// The arena is never modified below its length, so the view is stable.
	return unsafe.String(&b[0], len(b))
}

// ID returns the id of word and whether the vocabulary has it.
func (v *Vocab) ID(word string) (WordID, bool) {
	return v.lookup(unsafe.Slice(unsafe.StringData(word), len(word)))
}

// Index returns the id of word, or Unknown if the vocabulary does not have
// it.
func (v *Vocab) Index(word string) WordID {
	id, _ := v.ID(word)
	return id
}

func (v *Vocab) bytesAt(id int32) []byte { return v.arena[v.offs[id]:v.offs[id+1]] }

func (v *Vocab) lookup(word []byte) (WordID, bool) {
	mask := uint64(len(v.slots) - 1)
	for i := maphash.Bytes(v.seed, word) & mask; ; i = (i + 1) & mask {
		s := v.slots[i]
		if s == 0 {
			return Unknown, false
		}
		if string(v.bytesAt(s-1)) == string(word) {
			return WordID(s - 1), true
		}
	}
}

// add appends word with the next id unless it is present; it returns the
// id and whether the word is new.
func (v *Vocab) add(word []byte) (WordID, bool) {
	if id, ok := v.lookup(word); ok {
		return id, false
	}
	id := int32(v.Len())
	v.arena = append(v.arena, word...)
	v.offs = append(v.offs, uint32(len(v.arena)))
	if 2*v.Len() > len(v.slots) {
		v.grow()
	} else {
		v.place(id)
	}
	return WordID(id), true
}

func (v *Vocab) place(id int32) {
	mask := uint64(len(v.slots) - 1)
	i := maphash.Bytes(v.seed, v.bytesAt(id)) & mask
	for v.slots[i] != 0 {
		i = (i + 1) & mask
	}
	v.slots[i] = id + 1
}

func (v *Vocab) grow() {
	v.slots = make([]int32, 2*len(v.slots))
	for id := int32(0); id < int32(v.Len()); id++ {
		v.place(id)
	}
}

// size returns the bytes the vocabulary holds.
func (v *Vocab) size() int {
	return cap(v.arena) + 4*cap(v.offs) + 4*cap(v.slots)
}
