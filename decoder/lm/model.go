package lm

import (
	"math"
	"unsafe"
)

// MaxOrder is the highest order a Model can have: a State holds up to
// MaxOrder-1 words of context. (KenLM's default build allows 6.)
const MaxOrder = 8

// DefaultUnknownLogProb is the log10 probability of <unk> in a model whose
// 1-grams do not list it, as KenLM substitutes (-100).
const DefaultUnknownLogProb = -100

// Model is an n-gram language model with back-off, read from an ARPA file
// or built from an ARPA value. It is immutable and safe for concurrent use.
//
// Unigrams are arrays indexed by WordID. The n-grams of each higher order
// are in an open-addressing hash table of fixed-size slots keyed exactly by
// (slot of the context in the table one order down, last word): see
// State for how scoring walks them.
type Model struct {
	order   int
	vocab   *Vocab
	prob    []float32 // unigram log10 probabilities by id
	backoff []float32 // unigram back-offs by id; -0: none and nobody's context
	mid     []midTable
	top     topTable
	counts  []int
	bos     WordID
	eos     WordID
	hasUnk  bool
	// open: some n-gram's suffix (its last n-1 words) is not listed, as in
	// pruned models, so scoring cannot stop at the first n-gram missing.
	open bool
}

// Order returns the order of the model.
func (m *Model) Order() int { return m.order }

// Counts returns the number of n-grams of each order that the model lists
// (the \data\ counts; <unk> is not counted when the model did not list it).
func (m *Model) Counts() []int { return append([]int(nil), m.counts...) }

// Vocab returns the model's vocabulary.
func (m *Model) Vocab() *Vocab { return m.vocab }

// Index returns the id of word, Unknown (<unk>) when the model lacks it.
func (m *Model) Index(word string) WordID { return m.vocab.Index(word) }

// IDs appends to dst the ids of words and returns the extended slice.
func (m *Model) IDs(dst []WordID, words []string) []WordID {
	for _, w := range words {
		dst = append(dst, m.vocab.Index(w))
	}
	return dst
}

// BOS returns the id of <s>, EOS that of </s>.
func (m *Model) BOS() WordID { return m.bos }

// EOS returns the id of </s>.
func (m *Model) EOS() WordID { return m.eos }

// HasUnknown reports whether the model lists <unk>; when it does not,
// <unk> has log10 probability DefaultUnknownLogProb (or Options.UnknownLogProb)
// and no back-off, as in KenLM.
func (m *Model) HasUnknown() bool { return m.hasUnk }

// Bytes returns the memory the model's arrays and tables hold.
func (m *Model) Bytes() int {
	n := m.vocab.size() + 4*cap(m.prob) + 4*cap(m.backoff)
	for i := range m.mid {
		n += int(unsafe.Sizeof(midEntry{})) * cap(m.mid[i].e)
	}
	return n + int(unsafe.Sizeof(topEntry{}))*cap(m.top.e)
}

// NGram returns the log10 probability and back-off that the model lists
// for the n-gram words (back-off 0 when none), and whether it lists it.
func (m *Model) NGram(words ...WordID) (prob, backoff float32, ok bool) {
	n := len(words)
	if n == 0 || n > m.order {
		return 0, 0, false
	}
	for _, w := range words {
		if w < 0 || int(w) >= len(m.prob) {
			return 0, 0, false
		}
	}
	if n == 1 {
		if words[0] == Unknown && !m.hasUnk {
			return 0, 0, false
		}
		return m.prob[words[0]], m.backoff[words[0]] + 0, true
	}
	ctx := int32(words[0])
	for k := 1; k < n-1; k++ {
		if ctx = m.mid[k-1].find(ctx, words[k]); ctx < 0 {
			return 0, 0, false
		}
	}
	if n == m.order {
		i := m.top.find(ctx, words[n-1])
		if i < 0 {
			return 0, 0, false
		}
		return m.top.e[i].prob, 0, true
	}
	t := &m.mid[n-2]
	i := t.find(ctx, words[n-1])
	if i < 0 {
		return 0, 0, false
	}
	return t.e[i].prob, t.e[i].backoff + 0, true
}

// builder fills a Model order by order: the 1-grams, then for each n ≥ 2
// start(n), the n-grams in any order, finish(n). Every (n-1)-gram must be
// in before the n-grams that use it as context.
type builder struct {
	m *Model
}

func newBuilder(counts []int, unkProb float32) *builder {
	order := len(counts)
	m := &Model{order: order, counts: counts, bos: -1, eos: -1}
	hint := min(counts[0], 1<<20) + 1
	m.vocab = newVocab(hint)
	m.vocab.add([]byte(UnknownWord))
	m.prob = make([]float32, 1, hint)
	m.backoff = make([]float32, 1, hint)
	m.prob[0], m.backoff[0] = unkProb, negZero
	if order > 2 {
		m.mid = make([]midTable, order-2)
	}
	return &builder{m: m}
}

// normBackoff maps a zero back-off to -0 ("nobody's context yet").
func normBackoff(b float32) float32 {
	if b == 0 {
		return negZero
	}
	return b
}

// unigram adds a 1-gram. <UNK> is taken for <unk>, as KenLM does.
func (b *builder) unigram(word []byte, prob, backoff float32) error {
	m := b.m
	if string(word) == UnknownWord || string(word) == "<UNK>" {
		if m.hasUnk {
			return errorf(ErrDuplicate, "%s", word)
		}
		m.hasUnk = true
		m.prob[0], m.backoff[0] = prob, normBackoff(backoff)
		return nil
	}
	if m.vocab.Len() >= math.MaxInt32 || len(word) > math.MaxUint32 {
		return errorf(ErrCount, "more than %d 1-grams, or a word of 4 GiB", math.MaxInt32-1)
	}
	id, isNew := m.vocab.add(word)
	if !isNew {
		return errorf(ErrDuplicate, "%s", word)
	}
	m.prob = append(m.prob, prob)
	m.backoff = append(m.backoff, normBackoff(backoff))
	switch string(word) {
	case BeginWord:
		m.bos = id
	case EndWord:
		m.eos = id
	}
	return nil
}

// finishUnigrams checks the special words.
func (b *builder) finishUnigrams() error {
	if b.m.bos < 0 {
		return errorf(ErrSpecialWord, "the 1-grams do not list %s", BeginWord)
	}
	if b.m.eos < 0 {
		return errorf(ErrSpecialWord, "the 1-grams do not list %s", EndWord)
	}
	return nil
}

// start prepares the table of order n ≥ 2 for its listed count, allocating
// at most 2^20 entries ahead: a header cannot make the reader allocate more
// than the input can fill.
func (b *builder) start(n int) {
	c := min(b.m.counts[n-1], 1<<20)
	if n == b.m.order {
		b.m.top.e = make([]topEntry, capacityFor(c))
	} else {
		b.m.mid[n-2].e = make([]midEntry, capacityFor(c))
	}
}

// finish shrinks a table that grew beyond its count.
func (b *builder) finish(n int) {
	if n == b.m.order {
		if t := &b.m.top; len(t.e) > capacityFor(t.n)+capacityFor(t.n)/4 {
			t.resize(t.n)
		}
		return
	}
	if t := &b.m.mid[n-2]; len(t.e) > capacityFor(t.n)+capacityFor(t.n)/4 {
		t.resize(t.n)
	}
}

// add inserts the n-gram words (n = len(words) ≥ 2), whose ids must be in
// the vocabulary.
func (b *builder) add(words []WordID, prob, backoff float32) error {
	ctx, ok := b.m.context(words)
	if !ok {
		return ErrMissingContext
	}
	if !b.m.open && !b.m.hasSuffix(words) {
		b.m.open = true
	}
	return b.addAt(len(words), ctx, words[len(words)-1], prob, backoff)
}

// context returns the slot of the context of the n-gram words (n ≥ 2) in
// the table of order n-1 (for n = 2, the first word's id). It only reads.
func (m *Model) context(words []WordID) (int32, bool) {
	ctx := int32(words[0])
	for k := 1; k < len(words)-1; k++ {
		if ctx = m.mid[k-1].find(ctx, words[k]); ctx < 0 {
			return -1, false
		}
	}
	return ctx, true
}

// hasSuffix reports whether the model lists the suffix of the n-gram words
// (its last n-1 words; n ≥ 2). It only reads the tables below order n.
func (m *Model) hasSuffix(words []WordID) bool {
	idx := int32(words[1])
	for k := 2; k < len(words); k++ {
		if idx = m.mid[k-2].find(idx, words[k]); idx < 0 {
			return false
		}
	}
	return true
}

// addAt inserts the n-gram whose context is in slot ctx of order n-1 and
// whose last word is w.
func (b *builder) addAt(n int, ctx int32, w WordID, prob, backoff float32) error {
	m := b.m
	// The context is somebody's context now: it must stay in states.
	if n == 2 {
		if bo := &m.backoff[ctx]; !extends(*bo) {
			*bo = 0
		}
	} else if bo := &m.mid[n-3].e[ctx].backoff; !extends(*bo) {
		*bo = 0
	}
	if n == m.order {
		t := &m.top
		if 3*(t.n+1) > 2*len(t.e) {
			t.resize(2*t.n + 16)
		}
		i, isNew := t.insert(ctx, w)
		if !isNew {
			return ErrDuplicate
		}
		t.e[i].prob = prob
		return nil
	}
	t := &m.mid[n-2]
	if 3*(t.n+1) > 2*len(t.e) {
		t.resize(2*t.n + 16)
	}
	i, isNew := t.insert(ctx, w)
	if !isNew {
		return ErrDuplicate
	}
	t.e[i].prob, t.e[i].backoff = prob, normBackoff(backoff)
	return nil
}

// isFinite reports whether f is neither NaN nor infinite.
func isFinite(f float32) bool {
	return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0)
}
