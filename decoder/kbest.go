package decoder

import "slices"

// nBestFactor is Moses' default n-best-factor: a distinct list looks at
// no more than this many derivations per hypothesis wanted.
const nBestFactor = 20

// tpath is a path through the search graph as Moses' TrellisPath: the
// path of its parent with node edge (counted from the final hypothesis)
// replaced by arc, followed by arc's own best predecessors. A path without
// parent is the best path ending in hypothesis arc.
type tpath struct {
	score  float64
	parent int32 // index in kbestState.paths; -1 for none
	edge   int32
	arc    int32
}

// Moses' Manager::CalcNBest pops the best contender path and makes, as
// new contenders, every deviation of it: each arc of each of its nodes
// from the deviated one on. kbest pops the same paths in the same order,
// but makes the deviations of a node as a group, sorted, and puts only
// the best of each group in its heap: when it is popped, the next one of
// its group takes its place. A distinct 100-best list pops up to 2,000
// paths with ~10⁵ deviations a sentence, of which few are ever popped;
// pushing them all, and selecting the best ones now and then to keep the
// heap small, was most of the cost of the enumeration.
//
// The order is the same: Moses' contenders are ordered by score, then by
// the order they were made in (its priority queue's insertion order), and
// kbest numbers each deviation by the place it would have had in that
// order: a group made when the contenders made so far were base has the
// numbers base … base+n-1 in arc-list order, and its sort breaks score
// ties by them.

// kgroup is the deviations of path parent at node edge, sorted best first
// in kbestState.devs[start : start+n]; a deviation's number is base plus
// its arc's place in the node's arc list.
type kgroup struct {
	parent, edge int32
	base         int32
	start, n     int32
}

// deviation is a contender path of a group: its score and arc.
type deviation struct {
	score float64
	arc   int32
	place int32 // of arc in its node's arc list (of the final hypothesis in the final stack)
}

// contender is a group's best deviation not yet popped: the k-th of group
// g, numbered id.
type contender struct {
	score float64
	id    int32
	g, k  int32
}

func (a contender) better(b contender) bool {
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
// searcher decodes.
type kbestState struct {
	paths  []tpath // the popped paths
	groups []kgroup
	devs   []deviation
	heap   []contender
	buf    []int32 // the hypotheses of the path popped last
	tgt    []byte  // its target
	seen   map[string]struct{}
	out    []kpath
	nodes  []int32
}

// kbest enumerates paths best first as Moses' Manager::CalcNBest does and
// returns the chosen ones (at most count; distinct: the best path of each
// target only, looking at no more than nBestFactor×count paths), each
// with its hypotheses from the final one back to the empty one, its score
// and its target.
func (x *searcher) kbest(final []int32, count int, distinct bool) []kpath {
	kb := &x.kb
	kb.paths, kb.groups, kb.devs, kb.heap = kb.paths[:0], kb.groups[:0], kb.devs[:0], kb.heap[:0]
	kb.out, kb.nodes = kb.out[:0], kb.nodes[:0]
	if kb.seen == nil {
		kb.seen = map[string]struct{}{}
	}
	clear(kb.seen)
	made := int32(0) // the contenders Moses would have made so far
	// The final hypotheses are the first group, best paths of their own.
	for i, h := range final {
		kb.devs = append(kb.devs, deviation{score: x.hyps[h].total, arc: h, place: int32(i)})
	}
	x.addGroup(-1, -1, &made)
	limit := count * nBestFactor
	for iter := 0; len(kb.out) < count && len(kb.heap) > 0 && iter < limit; iter++ {
		top := kb.heap[0]
		g := kb.groups[top.g]
		d := kb.devs[g.start+top.k]
		if k := top.k + 1; k < g.n {
			next := kb.devs[g.start+k]
			kb.heap[0] = contender{next.score, g.base + next.place, top.g, k}
		} else {
			last := len(kb.heap) - 1
			kb.heap[0] = kb.heap[last]
			kb.heap = kb.heap[:last]
		}
		siftDown(kb.heap, 0)
		P := tpath{score: d.score, parent: g.parent, edge: g.edge, arc: d.arc}
		p := int32(len(kb.paths))
		kb.paths = append(kb.paths, P)
		kb.buf = x.pathNodes(kb.buf, kb.paths, p)
		from := 0
		if P.parent >= 0 {
			from = int(P.edge) + 1
		}
		for i := from; i < len(kb.buf); i++ {
			win := kb.buf[i]
			place := int32(0)
			for a := x.hyps[win].arcHead; a >= 0; a = x.hyps[a].arcNext {
				kb.devs = append(kb.devs, deviation{score: P.score - x.hyps[win].total + x.hyps[a].total, arc: a, place: place})
				place++
			}
			if place > 0 {
				x.addGroup(p, int32(i), &made)
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

// addGroup makes the deviations appended to kb.devs since the last group
// the group of path parent at node edge: it sorts them, numbers them from
// *made on and puts the best in the heap.
func (x *searcher) addGroup(parent, edge int32, made *int32) {
	kb := &x.kb
	start := int32(0)
	if n := len(kb.groups); n > 0 {
		start = kb.groups[n-1].start + kb.groups[n-1].n
	}
	devs := kb.devs[start:]
	if len(devs) > 1 {
		slices.SortFunc(devs, func(a, b deviation) int {
			if a.score != b.score {
				if a.score > b.score {
					return -1
				}
				return 1
			}
			return int(a.place - b.place)
		})
	}
	g := kgroup{parent: parent, edge: edge, base: *made, start: start, n: int32(len(devs))}
	*made += g.n
	kb.groups = append(kb.groups, g)
	kb.heap = append(kb.heap, contender{devs[0].score, g.base + devs[0].place, int32(len(kb.groups) - 1), 0})
	siftUp(kb.heap, len(kb.heap)-1)
}

func siftUp(h []contender, i int) {
	for i > 0 {
		up := (i - 1) / 2
		if !h[i].better(h[up]) {
			return
		}
		h[i], h[up] = h[up], h[i]
		i = up
	}
}

func siftDown(h []contender, i int) {
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

// pathNodes returns the hypotheses of popped path p, final first.
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
