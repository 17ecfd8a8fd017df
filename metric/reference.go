package metric

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sync"
)

// asciiSpace marks the bytes that separate tokens: the ASCII white space
// characters, which are what multi-bleu.perl's split and Moses split on.
var asciiSpace = [256]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

// nextField returns the bounds [start, end) of the first token of s, with
// start == end == len(s) when there is none.
func nextField(s string) (start, end int) {
	i := 0
	for i < len(s) && asciiSpace[s[i]] {
		i++
	}
	j := i
	for j < len(s) && !asciiSpace[s[j]] {
		j++
	}
	return i, j
}

// AppendFields appends the tokens of s, separated by ASCII white space, to
// dst and returns the extended slice. The tokens share the memory of s: with
// a dst of enough capacity nothing is allocated.
func AppendFields(dst []string, s string) []string {
	for {
		i, j := nextField(s)
		if i == j {
			return dst
		}
		dst = append(dst, s[i:j])
		s = s[j:]
	}
}

// Hashing. Tokens are hashed to 64 bits with a fixed-key, wyhash-style
// multiply-mix (deterministic across processes and machines), and an n-gram's
// hash chains its (n-1)-gram prefix's hash with the hash of its last token.
// The table keeps 63 bits of it (the lowest bit is forced to 1 so that 0 can
// mark empty slots), and reference n-grams are looked up by hash alone: two
// different n-grams with equal hashes would be counted as the same. With
// well-mixed hashes the chance that any of a hypothesis' ~100 n-grams meets
// one of its reference's few hundred is about 100·400/2^63 ≈ 4e-15, one
// wrong count in some 10^14 hypotheses, far below anything that shows in a
// BLEU score.
const (
	hashK0 = 0xa0761d6478bd642f
	hashK1 = 0xe7037ed1a0b428db
	hashK2 = 0x8ebc6af09c88c6e3
	hashK3 = 0x589965cc75374cc3
)

// mix multiplies a and b to 128 bits and folds the halves together.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

// hashToken hashes a token's bytes. It is injective on the bytes up to the
// 64-bit mixing: every chunk read is a fixed function of the length.
func hashToken(s string) uint64 {
	h := hashK0 ^ uint64(len(s))*hashK3
	for len(s) > 8 {
		h = mix(le64(s)^hashK1, h^hashK2)
		s = s[8:]
	}
	var v uint64
	switch n := len(s); {
	case n >= 4:
		v = le32(s)<<32 | le32(s[n-4:])
	case n > 0:
		v = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	}
	return mix(v^hashK1, h^hashK2)
}

// extend returns the hash of an n-gram from the hash of its first n-1 tokens
// and the hash of its last token.
func extend(prefix, last uint64) uint64 {
	return mix(prefix^hashK3, last^hashK0)
}

// Reference holds one sentence's references, prepared for scoring many
// hypotheses against them: for each n-gram of order 1..Order() found in any
// reference the largest number of times it occurs in one reference (the
// clipping count), and the references' lengths. It is immutable once made and
// safe for concurrent use.
//
// N-grams are compared by 63-bit hashes, not by their text: a hash collision
// could count a wrong match, with a chance of about 4e-15 per hypothesis.
type Reference struct {
	order int
	lens  []int
	// An open-addressing hash table of the reference n-grams: keys[i] is an
	// n-gram hash with its lowest bit set (0 marks an empty slot) and
	// clip[i] its clipping count.
	// At most half of the slots are used, and the table has at least one
	// empty slot, so a probe always ends.
	keys  []uint64
	clip  []int32
	shift uint
}

// NewReference prepares the tokenised references of one sentence for n-gram
// order order (0 means DefaultOrder). It fails if order is outside
// 0..MaxOrder or if there is no reference. An empty reference is allowed:
// its length is 0.
func NewReference(order int, refs ...[]string) (*Reference, error) {
	if order == 0 {
		order = DefaultOrder
	}
	if order < 1 || order > MaxOrder {
		return nil, fmt.Errorf("metric: n-gram order %d is not in 1..%d", order, MaxOrder)
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("metric: no references")
	}
	r := &Reference{order: order, lens: make([]int, len(refs))}
	// Count each reference's n-grams by sorting their hashes, then keep the
	// largest count of each n-gram over the references.
	type gramCount struct {
		h uint64
		c int32
	}
	total := 0
	for _, ref := range refs {
		total += len(ref)
	}
	hashes := make([]uint64, 0, total)
	grams := make([]uint64, 0, order*total)
	counts := make([]gramCount, 0, order*total)
	for k, ref := range refs {
		r.lens[k] = len(ref)
		hashes = hashes[:0]
		for _, tok := range ref {
			hashes = append(hashes, hashToken(tok))
		}
		grams = grams[:0]
		for i := range hashes {
			h := hashes[i]
			for n := 0; n < order && i+n < len(hashes); n++ {
				if n > 0 {
					h = extend(h, hashes[i+n])
				}
				grams = append(grams, h|1)
			}
		}
		slices.Sort(grams)
		for i := 0; i < len(grams); {
			j := i + 1
			for j < len(grams) && grams[j] == grams[i] {
				j++
			}
			counts = append(counts, gramCount{grams[i], int32(j - i)})
			i = j
		}
	}
	slices.SortFunc(counts, func(a, b gramCount) int { return cmp.Compare(a.h, b.h) })
	distinct := 0
	for i := range counts {
		if i == 0 || counts[i].h != counts[distinct-1].h {
			counts[distinct] = counts[i]
			distinct++
		} else if counts[i].c > counts[distinct-1].c {
			counts[distinct-1].c = counts[i].c
		}
	}
	size := 2
	for size < 2*distinct+1 {
		size *= 2
	}
	r.keys = make([]uint64, size)
	r.clip = make([]int32, size)
	r.shift = uint(64 - bits.TrailingZeros(uint(size)))
	mask := size - 1
	for _, g := range counts[:distinct] {
		i := int(g.h>>r.shift) & mask
		for r.keys[i] != 0 {
			i = (i + 1) & mask
		}
		r.keys[i], r.clip[i] = g.h, g.c
	}
	return r, nil
}

// NewReferenceText is NewReference on untokenised reference lines, which it
// splits on ASCII white space (see AppendFields).
func NewReferenceText(order int, refs ...string) (*Reference, error) {
	toks := make([][]string, len(refs))
	for i, ref := range refs {
		toks[i] = AppendFields(nil, ref)
	}
	return NewReference(order, toks...)
}

// Order returns the n-gram order the reference was prepared for.
func (r *Reference) Order() int { return r.order }

// Lengths returns the lengths of the references, in the order given.
func (r *Reference) Lengths() []int { return append([]int(nil), r.lens...) }

// ClosestLength returns the reference length closest to hypLen; of two
// equally close, the shorter (as multi-bleu.perl, Moses and sacreBLEU do).
func (r *Reference) ClosestLength(hypLen int) int {
	best, bestDiff := 0, -1
	for _, l := range r.lens {
		d := l - hypLen
		if d < 0 {
			d = -d
		}
		if bestDiff < 0 || d < bestDiff || (d == bestDiff && l < best) {
			best, bestDiff = l, d
		}
	}
	return best
}

// scratch is the per-call working memory of Stats.
type scratch struct {
	hashes  []uint64
	used    []int32 // per table slot: occurrences in the hypothesis so far
	touched []int32 // the slots whose used count is non-zero
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// Stats returns the statistics of the tokenised hypothesis hyp against r.
// It allocates nothing in the steady state.
func (r *Reference) Stats(hyp []string) Stats {
	sc := scratchPool.Get().(*scratch)
	h := sc.hashes[:0]
	for _, tok := range hyp {
		h = append(h, hashToken(tok))
	}
	sc.hashes = h
	s := r.stats(h, sc)
	scratchPool.Put(sc)
	return s
}

// StatsString returns the statistics of the hypothesis hyp, split on ASCII
// white space, against r. It allocates nothing in the steady state.
func (r *Reference) StatsString(hyp string) Stats {
	sc := scratchPool.Get().(*scratch)
	h := sc.hashes[:0]
	for {
		i, j := nextField(hyp)
		if i == j {
			break
		}
		h = append(h, hashToken(hyp[i:j]))
		hyp = hyp[j:]
	}
	sc.hashes = h
	s := r.stats(h, sc)
	scratchPool.Put(sc)
	return s
}

// stats counts the n-grams of the hypothesis whose token hashes are g.
func (r *Reference) stats(g []uint64, sc *scratch) Stats {
	s := Stats{N: 2*r.order + 1}
	L := len(g)
	for n := 0; n < r.order && n < L; n++ {
		s.V[2*n+1] = float64(L - n)
	}
	s.V[2*r.order] = float64(r.ClosestLength(L))
	if len(sc.used) < len(r.keys) {
		sc.used = make([]int32, len(r.keys))
	}
	used, touched := sc.used, sc.touched[:0]
	keys, clip := r.keys, r.clip
	mask := len(keys) - 1
	var matches [MaxOrder]int32
	for i := 0; i < L; i++ {
		h := g[i]
		for n := 0; n < r.order && i+n < L; n++ {
			if n > 0 {
				h = extend(h, g[i+n])
			}
			key := h | 1
			slot := int(key>>r.shift) & mask
			k := keys[slot]
			for k != key && k != 0 {
				slot = (slot + 1) & mask
				k = keys[slot]
			}
			if k == 0 {
				// Every prefix of a reference n-gram is a reference
				// n-gram, so no longer n-gram starting at i matches.
				break
			}
			c := used[slot] + 1
			if c == 1 {
				touched = append(touched, int32(slot))
			}
			used[slot] = c
			if c <= clip[slot] {
				matches[n]++
			}
		}
	}
	for _, t := range touched {
		used[t] = 0
	}
	sc.touched = touched
	for n := 0; n < r.order; n++ {
		s.V[2*n] = float64(matches[n])
	}
	return s
}
