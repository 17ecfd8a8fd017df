package metric

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"
)

// chrfSegment holds the references of one segment as one trie of their
// character n-grams (under node chrfCharRoot, one edge per code point) and
// word n-grams (under chrfWordRoot, one edge per reference word), each node
// counting how often its n-gram occurs in each reference. A hypothesis'
// n-grams starting at one position are then the nodes of one walk down the
// trie, which stops at the first n-gram no reference has: its extensions
// cannot be in any reference either. The trie is exact (edges are compared
// whole, n-grams are never reduced to a hash) and read-only once built, so
// a chrfSegment serves any number of goroutines.
type chrfSegment struct {
	c     ChrF
	nrefs int
	child chrfTable        // chrfEdge(parent, symbol) → node
	vocab map[string]int32 // reference word → its symbol
	count []int32          // count[node*nrefs+r]: occurrences of node's n-gram in reference r
	nodes int
	chars []int // per reference: its code points in character n-grams
	words []int // per reference: its words
}

// The two roots of a chrfSegment's trie; nodes 2, 3, … are n-grams.
const (
	chrfCharRoot = 0
	chrfWordRoot = 1
)

// chrfEdge is the key of the edge from node parent by symbol sym (a code
// point, or a word's symbol).
func chrfEdge(parent, sym int32) uint64 { return uint64(uint32(parent))<<32 | uint64(uint32(sym)) }

// chrfTable maps trie edges to nodes, exactly (keys are compared whole):
// an open-addressing table with linear probing, at most half full so that
// a probe always meets an empty slot. It is faster than a Go map for the
// hypothesis walk, which is most of the time Stats takes.
type chrfTable struct {
	keys  []uint64 // edge + 1; 0 marks an empty slot (edges are below 2^63)
	nodes []int32
	shift uint // 64 − log2(len(keys))
}

// newChrfTable holds the edges of m.
func newChrfTable(m map[uint64]int32) chrfTable {
	bits := uint(3)
	for 1<<bits < 2*len(m) {
		bits++
	}
	t := chrfTable{keys: make([]uint64, 1<<bits), nodes: make([]int32, 1<<bits), shift: 64 - bits}
	mask := len(t.keys) - 1
	for e, node := range m {
		i := t.slot(e + 1)
		for t.keys[i] != 0 {
			i = (i + 1) & mask
		}
		t.keys[i], t.nodes[i] = e+1, node
	}
	return t
}

// slot is the first slot key is looked for in (Fibonacci hashing).
func (t *chrfTable) slot(key uint64) int { return int((key * 0x9e3779b97f4a7c15) >> t.shift) }

// get returns the node edge e leads to.
func (t *chrfTable) get(e uint64) (int32, bool) {
	key, mask := e+1, len(t.keys)-1
	for i := t.slot(key); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case key:
			return t.nodes[i], true
		case 0:
			return 0, false
		}
	}
}

// chrfPunct marks the characters sacreBLEU's chrF splits off words: Python's
// string.punctuation, ASCII only.
var chrfPunct = func() (t [utf8.RuneSelf]bool) {
	for _, c := range "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" {
		t[c] = true
	}
	return t
}()

func isChrfPunct(r rune) bool { return r >= 0 && r < utf8.RuneSelf && chrfPunct[r] }

// chrfScratch is the working memory of one text's preparation and of one
// hypothesis' statistics.
type chrfScratch struct {
	runes   []rune     // the text, lower-cased if asked
	charBuf []rune     // the text without white space
	chars   []rune     // the code points of character n-grams (runes or charBuf)
	spans   [][2]int32 // the words as [start, end) ranges of runes
	word    []byte     // one word in UTF-8, for vocabulary look-ups
	syms    []int32    // the hypothesis words' symbols, -1 for a word no reference has
	used    []int32    // per trie node: its occurrences in the hypothesis so far
	match   []float64  // per reference and order: matches
}

var chrfPool = sync.Pool{New: func() any { return new(chrfScratch) }}

// text prepares s in sc as sacreBLEU prepares a segment: lower-cased if
// asked (Python's str.lower), its code points with white space removed
// unless c.Whitespace, and, for word orders, its str.split words with
// punctuation split off as _remove_punctuation does.
func (c ChrF) text(sc *chrfScratch, s string) {
	rs := sc.runes[:0]
	if c.Lowercase {
		rs = appendPyLower(rs, s)
	} else {
		for _, r := range s {
			rs = append(rs, r)
		}
	}
	sc.runes = rs
	if c.Whitespace {
		sc.chars = rs
	} else {
		cb := sc.charBuf[:0]
		for _, r := range rs {
			if !isPySpace(r) {
				cb = append(cb, r)
			}
		}
		sc.charBuf, sc.chars = cb, cb
	}
	spans := sc.spans[:0]
	if c.WordOrder > 0 {
		start := -1
		for i := 0; i <= len(rs); i++ {
			if i < len(rs) && !isPySpace(rs[i]) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start < 0 {
				continue
			}
			a, b := int32(start), int32(i)
			switch {
			case b-a == 1:
				spans = append(spans, [2]int32{a, b})
			case isChrfPunct(rs[b-1]):
				spans = append(spans, [2]int32{a, b - 1}, [2]int32{b - 1, b})
			case isChrfPunct(rs[a]):
				spans = append(spans, [2]int32{a, a + 1}, [2]int32{a + 1, b})
			default:
				spans = append(spans, [2]int32{a, b})
			}
			start = -1
		}
	}
	sc.spans = spans
}

// Segment prepares refs, one or more references of a segment. It fails if
// there is none or if c's orders are unusable (none, negative, or more
// than MaxStats statistics).
func (c ChrF) Segment(refs []string) (Segment, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return nil, errors.New("metric: chrF segment without references")
	}
	b := &chrfBuild{chrfSegment: chrfSegment{
		c:     c,
		nrefs: len(refs),
		vocab: make(map[string]int32),
		nodes: 2,
		chars: make([]int, len(refs)),
		words: make([]int, len(refs)),
	}}
	edges := 0 // a bound on the trie's edges
	for _, ref := range refs {
		edges += utf8.RuneCountInString(ref) * (c.CharOrder + c.WordOrder)
	}
	b.child = make(map[uint64]int32, edges)
	s := &b.chrfSegment
	s.count = make([]int32, 2*s.nrefs, (edges+2)*s.nrefs)
	sc := chrfPool.Get().(*chrfScratch)
	defer chrfPool.Put(sc)
	for r, ref := range refs {
		c.text(sc, ref)
		ch := sc.chars
		s.chars[r] = len(ch)
		for i := range ch {
			node := int32(chrfCharRoot)
			for n := 0; n < c.CharOrder && i+n < len(ch); n++ {
				node = b.add(node, ch[i+n], r)
			}
		}
		syms := sc.syms[:0]
		for _, sp := range sc.spans {
			w := string(sc.runes[sp[0]:sp[1]])
			id, ok := s.vocab[w]
			if !ok {
				id = int32(len(s.vocab))
				s.vocab[w] = id
			}
			syms = append(syms, id)
		}
		sc.syms = syms
		s.words[r] = len(syms)
		for i := range syms {
			node := int32(chrfWordRoot)
			for n := 0; n < c.WordOrder && i+n < len(syms); n++ {
				node = b.add(node, syms[i+n], r)
			}
		}
	}
	s.child = newChrfTable(b.child)
	s.count = slices.Clone(s.count) // keep no more than the nodes' counts
	return s, nil
}

// chrfBuild is a chrfSegment being built, its edges in a map.
type chrfBuild struct {
	chrfSegment
	child map[uint64]int32
}

// add counts one occurrence in reference r of the n-gram that extends
// parent's by sym, and returns its node.
func (b *chrfBuild) add(parent, sym int32, r int) int32 {
	s := &b.chrfSegment
	e := chrfEdge(parent, sym)
	node, ok := b.child[e]
	if !ok {
		node = int32(s.nodes)
		s.nodes++
		b.child[e] = node
		for range s.nrefs {
			s.count = append(s.count, 0)
		}
	}
	s.count[int(node)*s.nrefs+r]++
	return node
}

// Stats writes hyp's statistics (ChrF's layout) into dst: those against
// the reference whose sentence chrF is highest, the first of equal ones,
// as sacreBLEU's _compute_segment_statistics picks it. It allocates nothing
// in the steady state, and panics if len(dst) != Len().
func (s *chrfSegment) Stats(hyp string) Stats {
	st := Stats{N: s.c.Len()}
	s.fill(st.V[:st.N], hyp)
	return st
}

// fill writes hyp's statistics into dst, which has Len() numbers.
func (s *chrfSegment) fill(dst []float64, hyp string) {
	c := s.c
	if len(dst) != c.Len() {
		panic(fmt.Sprintf("metric: chrF statistics into %d numbers, want %d", len(dst), c.Len()))
	}
	sc := chrfPool.Get().(*chrfScratch)
	defer chrfPool.Put(sc)
	c.text(sc, hyp)

	orders := c.CharOrder + c.WordOrder
	nr := s.nrefs
	sc.used = zeroed(sc.used, s.nodes)
	sc.match = zeroed(sc.match, nr*orders)
	used, match := sc.used, sc.match

	// walk counts the n-grams seq[i:i+1], …, seq[i:i+maxN] found below root:
	// an n-gram's k-th occurrence in the hypothesis matches in reference r
	// if r has it at least k times, so each distinct n-gram matches
	// min(hyp count, ref count) times (chrF.py's _get_match_statistics).
	walk := func(root int32, seq []int32, maxN, first int) {
		for i := range seq {
			node := root
			for n := 0; n < maxN && i+n < len(seq); n++ {
				if seq[i+n] < 0 {
					break
				}
				next, ok := s.child.get(chrfEdge(node, seq[i+n]))
				if !ok {
					break
				}
				node = next
				used[node]++
				u := used[node]
				for r, cnt := range s.count[int(node)*nr : int(node)*nr+nr] {
					if u <= cnt {
						match[r*orders+first+n]++
					}
				}
			}
		}
	}
	walk(chrfCharRoot, sc.chars, c.CharOrder, 0)
	syms := sc.syms[:0]
	for _, sp := range sc.spans {
		w := sc.word[:0]
		for _, r := range sc.runes[sp[0]:sp[1]] {
			w = utf8.AppendRune(w, r)
		}
		sc.word = w
		id, ok := s.vocab[string(w)]
		if !ok {
			id = -1
		}
		syms = append(syms, id)
	}
	sc.syms = syms
	walk(chrfWordRoot, syms, c.WordOrder, c.CharOrder)

	var cur, best [MaxStats]float64
	bestF := -1.0
	for r := 0; r < nr; r++ {
		for k := 0; k < orders; k++ {
			hypLen, refLen, n := len(sc.chars), s.chars[r], k
			if k >= c.CharOrder {
				hypLen, refLen, n = len(syms), s.words[r], k-c.CharOrder
			}
			h, rf := max(hypLen-n, 0), max(refLen-n, 0)
			if rf == 0 {
				h = 0 // sacreBLEU counts no hypothesis n-grams of an order the reference lacks
			}
			cur[3*k], cur[3*k+1], cur[3*k+2] = float64(h), float64(rf), match[r*orders+k]
		}
		if f := c.score(cur[:len(dst)]); f > bestF {
			bestF, best = f, cur
		}
	}
	copy(dst, best[:len(dst)])
}

// zeroed returns s resized to n zeros, reusing its memory if it can.
func zeroed[T int32 | float64](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
