package lm

import "github.com/mtune/mtune/internal/strtab"

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

// Vocab maps words to ids and back: a strtab.Table (the words in an
// arena, the hash table holding ids only). It is safe for concurrent
// readers once built.
type Vocab struct {
	t *strtab.Table
}

func newVocab(capHint int) *Vocab { return &Vocab{t: strtab.New(capHint)} }

// Len returns the number of words, <unk> included.
func (v *Vocab) Len() int { return v.t.Len() }

// Word returns the word with id. It panics if id is out of range.
func (v *Vocab) Word(id WordID) string { return v.t.At(int32(id)) }

// ID returns the id of word and whether the vocabulary has it.
func (v *Vocab) ID(word string) (WordID, bool) {
	id, ok := v.t.LookupString(word)
	return WordID(id), ok
}

// Index returns the id of word, or Unknown if the vocabulary does not have
// it.
func (v *Vocab) Index(word string) WordID {
	id, _ := v.ID(word)
	return id
}

func (v *Vocab) lookup(word []byte) (WordID, bool) {
	id, ok := v.t.Lookup(word)
	return WordID(id), ok
}

// add appends word with the next id unless it is present; it returns the
// id and whether the word is new.
func (v *Vocab) add(word []byte) (WordID, bool) {
	id, isNew := v.t.Add(word)
	return WordID(id), isNew
}

// size returns the bytes the vocabulary holds.
func (v *Vocab) size() int { return v.t.Size() }
