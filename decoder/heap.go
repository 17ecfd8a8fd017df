package decoder

// heapEntry is an entry of the decoder's max-heaps, cube pruning's queues
// and kbest's contenders: better score first, then smaller id. Cube
// pruning's id is the entry's index in cubeState.cands (older first);
// kbest's is the contender's number in Moses' order and ref its group
// (cube pruning leaves ref 0: the entry takes 16 bytes either way). One
// concrete type rather than a generic heap, whose comparisons would be
// dictionary calls, not inlined, on the decoder's hot path.
type heapEntry struct {
	score   float64
	id, ref int32
}

func (a heapEntry) better(b heapEntry) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.id < b.id
}

// heapUp and heapDown restore the heap order of h after h[i] moved.
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
