package nbest

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
)

// Pool gathers the n-best lists of several tuning iterations, keeping each
// distinct hypothesis of a sentence once, as Moses' extractor does when it
// merges an iteration's list with the earlier ones.
//
// Two hypotheses of a sentence are the same when their targets are equal
// and their feature vectors are equal (same features, same float64
// values); the first one added is kept, and a sentence's hypotheses stay
// in the order they were first added. All vectors must use ids of one
// Index. A Pool is not safe for concurrent use.
//
// Moses compares the dense features and the metric's statistics instead
// of the target (Data::removeDuplicates), and it moves the last hypothesis
// into the place of each duplicate it drops, so its order differs after
// the first duplicate; see the package documentation.
type Pool struct {
	seed  maphash.Seed
	h     maphash.Hash
	buf   []byte
	sents map[int]*poolSent
	n     int

	// testHash replaces hash in tests, to force collisions.
	testHash func(*Hypothesis) uint64
}

type poolSent struct {
	hyps []Hypothesis
	head map[uint64]int32 // hash → first hypothesis with that hash
	next []int32          // next hypothesis with the same hash, or -1
}

// NewPool returns an empty pool.
func NewPool() *Pool {
	p := &Pool{seed: maphash.MakeSeed(), sents: make(map[int]*poolSent)}
	p.h.SetSeed(p.seed)
	return p
}

func (p *Pool) hash(h *Hypothesis) uint64 {
	p.h.Reset()
	p.h.WriteString(h.Target)
	b := p.buf[:0]
	b = binary.LittleEndian.AppendUint64(b, uint64(len(h.Features.IDs)))
	for k, id := range h.Features.IDs {
		b = binary.LittleEndian.AppendUint32(b, uint32(id))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(h.Features.Vals[k]))
		if len(b) >= 1024 {
			p.h.Write(b)
			b = b[:0]
		}
	}
	p.h.Write(b)
	p.buf = b
	return p.h.Sum64()
}

// Add adds h to the list of sentence sent unless the list already holds
// the same hypothesis. It returns the position of h (or of its twin) in
// Hyps(sent) and whether h was added. The pool keeps h as it is, sharing
// its slices.
func (p *Pool) Add(sent int, h Hypothesis) (idx int, added bool) {
	s := p.sents[sent]
	if s == nil {
		s = &poolSent{head: make(map[uint64]int32)}
		p.sents[sent] = s
	}
	var key uint64
	if p.testHash != nil {
		key = p.testHash(&h)
	} else {
		key = p.hash(&h)
	}
	first, ok := s.head[key]
	if ok {
		for k := first; k >= 0; k = s.next[k] {
			o := &s.hyps[k]
			if o.Target == h.Target && o.Features.Equal(h.Features) {
				return int(k), false
			}
		}
	}
	k := int32(len(s.hyps))
	s.hyps = append(s.hyps, h)
	if ok {
		// Chain behind the existing head.
		s.next = append(s.next, s.next[first])
		s.next[first] = k
	} else {
		s.next = append(s.next, -1)
		s.head[key] = k
	}
	p.n++
	return int(k), true
}

// Sentences returns the ids of the sentences in the pool, sorted.
func (p *Pool) Sentences() []int {
	ids := make([]int, 0, len(p.sents))
	for id := range p.sents {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Hyps returns the distinct hypotheses of sentence sent in order of first
// addition (nil for an unknown sentence). The slice belongs to the pool:
// do not modify it, and do not keep it across calls to Add.
func (p *Pool) Hyps(sent int) []Hypothesis {
	if s := p.sents[sent]; s != nil {
		return s.hyps
	}
	return nil
}

// Len returns the number of hypotheses in the pool, over all sentences.
func (p *Pool) Len() int { return p.n }
