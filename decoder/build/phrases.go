package build

import (
	"bytes"
	"slices"
)

// phraseSet interns the phrases (token sequences) of one side of the
// bitext by a 64-bit hash in an open-addressing table; equal hashes are
// checked token by token, so a collision never merges two phrases.
type phraseSet struct {
	toks  []int32  // the side's tokens (bitext.src or bitext.tgt)
	slots []int32  // id+1, or 0 for an empty slot
	hash  []uint64 // by id
	off   []int32  // by id: the phrase is toks[off:off+n]
	n     []uint8  // by id
}

func newPhraseSet(toks []int32, expect int) *phraseSet {
	size := 1024
	for size < 2*expect {
		size <<= 1
	}
	return &phraseSet{toks: toks, slots: make([]int32, size),
		hash: make([]uint64, 0, expect), off: make([]int32, 0, expect), n: make([]uint8, 0, expect)}
}

func (p *phraseSet) len() int { return len(p.off) }

func (p *phraseSet) phrase(id int32) []int32 {
	o := p.off[id]
	return p.toks[o : o+int32(p.n[id])]
}

// hashTokens is a multiply-xorshift hash of a token sequence.
func hashTokens(t []int32) uint64 {
	h := uint64(len(t))*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	for _, w := range t {
		h ^= uint64(uint32(w))
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 29
	}
	h *= 0x94d049bb133111eb
	return h ^ h>>32
}

// intern returns the id of the phrase toks[off:off+n], adding it if new.
func (p *phraseSet) intern(off int32, n uint8) int32 {
	t := p.toks[off : off+int32(n)]
	h := hashTokens(t)
	mask := uint64(len(p.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := p.slots[i]
		if s == 0 {
			id := int32(len(p.off))
			p.slots[i] = id + 1
			p.hash = append(p.hash, h)
			p.off = append(p.off, off)
			p.n = append(p.n, n)
			if 2*len(p.off) > len(p.slots) {
				p.grow()
			}
			return id
		}
		id := s - 1
		if p.hash[id] == h && p.n[id] == n && slices.Equal(p.phrase(id), t) {
			return id
		}
	}
}

func (p *phraseSet) grow() {
	p.slots = make([]int32, 2*len(p.slots))
	mask := uint64(len(p.slots) - 1)
	for id, h := range p.hash {
		i := h & mask
		for p.slots[i] != 0 {
			i = (i + 1) & mask
		}
		p.slots[i] = int32(id) + 1
	}
}

// phraseText holds the text of every phrase of a phraseSet: the words
// joined by single spaces, followed by " |||". That suffix makes the byte
// order of the texts the order in which Moses' LC_ALL=C sort puts the lines
// "f ||| e ||| …" of its extract files, and so its phrase table.
type phraseText struct {
	buf  []byte
	ends []int32 // text of id i is buf[ends[i-1]:ends[i]] (ends[-1] = 0)
}

const sortSuffix = " |||"

func newPhraseText(p *phraseSet, words []string) *phraseText {
	t := &phraseText{ends: make([]int32, p.len())}
	size := 0
	for id := range p.len() {
		for _, w := range p.phrase(int32(id)) {
			size += len(words[w]) + 1
		}
		size += len(sortSuffix)
	}
	t.buf = make([]byte, 0, size)
	for id := range p.len() {
		for k, w := range p.phrase(int32(id)) {
			if k > 0 {
				t.buf = append(t.buf, ' ')
			}
			t.buf = append(t.buf, words[w]...)
		}
		t.buf = append(t.buf, sortSuffix...)
		t.ends[id] = int32(len(t.buf))
	}
	return t
}

// key returns the sort key of id: its text and " |||".
func (t *phraseText) key(id int32) []byte {
	start := int32(0)
	if id > 0 {
		start = t.ends[id-1]
	}
	return t.buf[start:t.ends[id]]
}

// text returns the phrase text of id.
func (t *phraseText) text(id int32) []byte {
	k := t.key(id)
	return k[:len(k)-len(sortSuffix)]
}

// ranks returns the rank of every id in the byte order of the keys. It
// sorts by the keys' first 8 bytes packed in an integer, comparing whole
// keys only when those are equal.
func (t *phraseText) ranks() []int32 {
	type item struct {
		prefix uint64
		id     int32
	}
	items := make([]item, len(t.ends))
	for i := range items {
		k := t.key(int32(i))
		var p uint64
		for b := range 8 {
			p <<= 8
			if b < len(k) {
				p |= uint64(k[b])
			}
		}
		items[i] = item{p, int32(i)}
	}
	slices.SortFunc(items, func(a, b item) int {
		switch {
		case a.prefix < b.prefix:
			return -1
		case a.prefix > b.prefix:
			return 1
		}
		return bytes.Compare(t.key(a.id), t.key(b.id))
	})
	rank := make([]int32, len(items))
	for r, it := range items {
		rank[it.id] = int32(r)
	}
	return rank
}

// sortByRank returns the indices of keys ordered by (primary, secondary)
// rank, stably, by two counting-sort passes. primary and secondary map an
// index to a rank in [0, np) and [0, ns).
func sortByRank(n int, secondary func(int) int32, ns int, primary func(int) int32, np int) []int32 {
	tmp := make([]int32, n)
	counts := make([]int32, max(np, ns)+1)
	pass := func(dst, src []int32, key func(int) int32, nk int) {
		c := counts[:nk+1]
		clear(c)
		for _, i := range src {
			c[key(int(i))+1]++
		}
		for k := 1; k <= nk; k++ {
			c[k] += c[k-1]
		}
		for _, i := range src {
			k := key(int(i))
			dst[c[k]] = i
			c[k]++
		}
	}
	src := make([]int32, n)
	for i := range src {
		src[i] = int32(i)
	}
	pass(tmp, src, secondary, ns)
	pass(src, tmp, primary, np)
	return src
}
