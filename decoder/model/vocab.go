package model

// Vocab maps the words of one side of a table to dense ids 0, 1, 2, … in
// order of first appearance in the file. It is read-only once a table is
// loaded and then safe for concurrent use.
type Vocab struct {
	words []string
	ids   map[string]int32
}

func newVocab(n int) *Vocab {
	return &Vocab{words: make([]string, 0, n), ids: make(map[string]int32, n)}
}

// ID returns the id of word and whether the vocabulary holds it.
func (v *Vocab) ID(word string) (int32, bool) {
	id, ok := v.ids[word]
	return id, ok
}

// IDBytes is ID for a word held in a byte slice; it does not allocate.
func (v *Vocab) IDBytes(word []byte) (int32, bool) {
	id, ok := v.ids[string(word)]
	return id, ok
}

// Word returns the word of id. It panics if id is out of range, which is
// a programming error.
func (v *Vocab) Word(id int32) string { return v.words[id] }

// Len returns the number of words.
func (v *Vocab) Len() int { return len(v.words) }

// add returns the id of word, adding it if it is new. The vocabulary keeps
// word itself, so word must not be an unsafe view.
func (v *Vocab) add(word string) int32 {
	if id, ok := v.ids[word]; ok {
		return id
	}
	id := int32(len(v.words))
	v.words = append(v.words, word)
	v.ids[word] = id
	return id
}
