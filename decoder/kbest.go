package decoder

// nBestFactor is Moses' default n-best-factor: a distinct list looks at
// no more than this many derivations per hypothesis wanted.
const nBestFactor = 20

// tpath is a path through the search graph as Moses' TrellisPath: the
// path of its parent with node edge (counted from the final hypothesis)
// replaced by arc, followed by arc's own best predecessors. A path without
// parent is the best path ending in hypothesis arc.
type tpath struct {
	score  float64
	parent int32
	edge   int32
	arc    int32
}

// heapEntry is an entry of kbest's contenders and of cube pruning's
// queues (cube.go), a max-heap: better score first, then older first (id
// counts the entries in the order they were made).
type heapEntry struct {
	score float64
	id    int32
}

func (a heapEntry) better(b heapEntry) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.id < b.id
}

// kpath is a path kbest chose: its hypotheses from the final one back to
// the empty one are kbestState.nodes[start:end].
type kpath struct {
	start, end int32
	score      float64
	target     string
}

// kbestState holds kbest's buffers, reused across the sentences a
// searcher decodes: a 100-best list makes ~10⁵ contender paths a sentence,
// and growing their slice anew for each sentence cost more than the
// enumeration itself.
type kbestState struct {
	paths []tpath // every contender made, popped or not; its id is its index
	heap  []heapEntry
	buf   []int32 // the hypotheses of the path popped last
	tgt   []byte  // its target
	seen  map[string]struct{}
	out   []kpath
	nodes []int32
}

// kbest enumerates paths best first as Moses' Manager::CalcNBest does and
// keeps the chosen ones in x.kb.out, each with its hypotheses from the
// final one back to the empty one, its score and its target.
func (x *searcher) kbest(final []int32, count int, distinct bool) []kpath {
	kb := &x.kb
	kb.paths, kb.heap, kb.out, kb.nodes = kb.paths[:0], kb.heap[:0], kb.out[:0], kb.nodes[:0]
	if kb.seen == nil {
		kb.seen = map[string]struct{}{}
	}
	clear(kb.seen)
	push := func(p tpath) {
		id := int32(len(kb.paths))
		kb.paths = append(kb.paths, p)
		kb.heap = append(kb.heap, heapEntry{p.score, id})
		heapUp(kb.heap, len(kb.heap)-1)
	}
	for _, h := range final {
		push(tpath{parent: -1, edge: -1, arc: h, score: x.hyps[h].total})
	}
	limit := count * nBestFactor
	for iter := 0; len(kb.out) < count && len(kb.heap) > 0 && iter < limit; iter++ {
		p := kb.heap[0].id
		last := len(kb.heap) - 1
		kb.heap[0] = kb.heap[last]
		kb.heap = kb.heap[:last]
		heapDown(kb.heap, 0)
		kb.buf = x.pathNodes(kb.buf, kb.paths, p)
		P := kb.paths[p]
		from := 0
		if P.parent >= 0 {
			from = int(P.edge) + 1
		}
		for i := from; i < len(kb.buf); i++ {
			win := kb.buf[i]
			for a := x.hyps[win].arcHead; a >= 0; a = x.hyps[a].arcNext {
				push(tpath{parent: p, edge: int32(i), arc: a,
					score: P.score - x.hyps[win].total + x.hyps[a].total})
			}
		}
		// Moses prunes the contenders after each step; no more than the
		// remaining steps can be popped, so the contenders beyond that
		// many best ones never are: dropping them now and then changes
		// nothing.
		if rest := limit - iter - 1; len(kb.heap) > 2*rest+1024 {
			selectBest(kb.heap, rest)
			kb.heap = kb.heap[:rest]
			for i := len(kb.heap)/2 - 1; i >= 0; i-- {
				heapDown(kb.heap, i)
			}
		}
		kb.tgt = x.appendTarget(kb.tgt[:0], kb.buf)
		if distinct {
			if _, dup := kb.seen[string(kb.tgt)]; dup {
				continue // the lookup converts without allocating
			}
		}
		target := string(kb.tgt)
		if distinct {
			kb.seen[target] = struct{}{}
		}
		start := int32(len(kb.nodes))
		kb.nodes = append(kb.nodes, kb.buf...)
		kb.out = append(kb.out, kpath{start: start, end: int32(len(kb.nodes)), score: P.score, target: target})
	}
	return kb.out
}

func heapUp(h []heapEntry, i int) {
	for i > 0 {
		up := (i - 1) / 2
		if !h[i].better(h[up]) {
			return
		}
		h[i], h[up] = h[up], h[i]
		i = up
	}
}

func heapDown(h []heapEntry, i int) {
	for {
		l, r, best := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].better(h[best]) {
			best = l
		}
		if r < len(h) && h[r].better(h[best]) {
			best = r
		}
		if best == i {
			return
		}
		h[i], h[best] = h[best], h[i]
		i = best
	}
}

// selectBest moves the k best entries of h to its front (quickselect).
func selectBest(h []heapEntry, k int) {
	lo, hi := 0, len(h)-1
	for lo < hi {
		pivot := h[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for h[i].better(pivot) {
				i++
			}
			for pivot.better(h[j]) {
				j--
			}
			if i <= j {
				h[i], h[j] = h[j], h[i]
				i++
				j--
			}
		}
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			return
		}
	}
}

// pathNodes returns the hypotheses of path p, final first.
func (x *searcher) pathNodes(dst []int32, paths []tpath, p int32) []int32 {
	P := paths[p]
	if P.parent < 0 {
		dst = dst[:0]
	} else {
		dst = x.pathNodes(dst, paths, P.parent)[:P.edge]
	}
	for h := P.arc; h >= 0; h = x.hyps[h].prev {
		dst = append(dst, h)
	}
	return dst
}
