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
// but makes the deviations of a node as a group and puts only the best of
// each group in its heap: when it is popped, the next one of its group
// takes its place. A distinct 100-best list pops up to 2,000 paths with
// ~10⁵ deviations a sentence, of which few are ever popped; pushing them
// all, and selecting the best ones now and then to keep the heap small,
// was most of the cost of the enumeration.
//
// The deviations of path P at node win score P.score - win.total +
// arc.total: a group follows the order of its node's arcs sorted by total
// (winArcs, sorted once a sentence for all the groups at that node).
// Moses' contenders are ordered by score, then by the order they were
// made in (its priority queue's insertion order); kbest numbers each
// deviation by the place it would have had in that order: a group made
// when the contenders made so far were base has the numbers base …
// base+n-1 in arc-list order. Two arcs of different totals may round to
// the same score; then the number decides, and a group whose next
// deviations tie so sorts its remaining ones by score and number (own).

// kgroup is the deviations of path parent at node edge: the arcs
// kbestState.arcs[start : start+n] with scores c + total, or, when own,
// kbestState.devs[start : start+n] with their scores, sorted best first.
// A deviation's number is base plus its arc's place in the node's arc
// list. A group has at most one deviation in kbest's heap, its k-th: the
// best one not yet popped, a heapEntry with the deviation's score, its
// number as id and the group as ref.
type kgroup struct {
	c            float64
	parent, edge int32
	base         int32
	start, n     int32
	k            int32
	own          bool
}

// deviation is an arc with its total (in kbestState.arcs) or a contender
// path with its score (in kbestState.devs).
type deviation struct {
	score float64
	arc   int32
	place int32 // of arc in its node's arc list (of the final hypothesis in the final stack)
}

func byScore(a, b deviation) int {
	if a.score != b.score {
		if a.score > b.score {
			return -1
		}
		return 1
	}
	return int(a.place - b.place)
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
	heap   []heapEntry // the groups' best deviations not yet popped
	// arcs holds the sorted arcs of each node a group needed so far, at
	// arcsOf[node] (end 0: not yet).
	arcs   []deviation
	arcsOf []idSpan
	devs   []deviation // the own groups' deviations
	buf    []int32     // the hypotheses of the path popped last
	tgt    []byte      // its target
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
	kb.paths, kb.groups, kb.heap, kb.arcs, kb.devs = kb.paths[:0], kb.groups[:0], kb.heap[:0], kb.arcs[:0], kb.devs[:0]
	kb.out, kb.nodes = kb.out[:0], kb.nodes[:0]
	kb.arcsOf = resize(kb.arcsOf, len(x.hyps))
	if kb.seen == nil {
		kb.seen = map[string]struct{}{}
	}
	clear(kb.seen)
	// The final hypotheses are the first group, best paths of their own.
	for i, h := range final {
		kb.devs = append(kb.devs, deviation{score: x.hyps[h].total, arc: h, place: int32(i)})
	}
	slices.SortFunc(kb.devs, byScore)
	kb.groups = append(kb.groups, kgroup{parent: -1, edge: -1, n: int32(len(final)), own: true})
	x.enter(0, 0)
	made := int32(len(final)) // the contenders Moses would have made so far
	limit := count * nBestFactor
	for iter := 0; len(kb.out) < count && len(kb.heap) > 0 && iter < limit; iter++ {
		top := kb.heap[0]
		g := &kb.groups[top.ref]
		k := g.k
		P := tpath{score: top.score, parent: g.parent, edge: g.edge, arc: x.deviationArc(g, k)}
		last := len(kb.heap) - 1
		kb.heap[0] = kb.heap[last]
		kb.heap = kb.heap[:last]
		heapDown(kb.heap, 0)
		x.enter(top.ref, k+1) // the next of its group takes its place
		p := int32(len(kb.paths))
		kb.paths = append(kb.paths, P)
		kb.buf = x.pathNodes(kb.buf, kb.paths, p)
		from := 0
		if P.parent >= 0 {
			from = int(P.edge) + 1
		}
		for i := from; i < len(kb.buf); i++ {
			win := kb.buf[i]
			if x.hyps[win].arcHead < 0 {
				continue
			}
			arcs := x.winArcs(win)
			n := arcs.end - arcs.start
			kb.groups = append(kb.groups, kgroup{c: P.score - x.hyps[win].total, parent: p, edge: int32(i),
				base: made, start: arcs.start, n: n})
			made += n
			x.enter(int32(len(kb.groups)-1), 0)
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

// winArcs returns the span in kb.arcs of the arcs of hypothesis win with
// their totals and places, sorted by total, best first, then by place.
func (x *searcher) winArcs(win int32) idSpan {
	kb := &x.kb
	if sp := kb.arcsOf[win]; sp.end > 0 {
		return sp
	}
	start := len(kb.arcs)
	place := int32(0)
	for a := x.hyps[win].arcHead; a >= 0; a = x.hyps[a].arcNext {
		kb.arcs = append(kb.arcs, deviation{score: x.hyps[a].total, arc: a, place: place})
		place++
	}
	slices.SortFunc(kb.arcs[start:], byScore)
	sp := idSpan{int32(start), int32(len(kb.arcs))}
	kb.arcsOf[win] = sp
	return sp
}

// deviationArc returns the arc of deviation k of group g.
func (x *searcher) deviationArc(g *kgroup, k int32) int32 {
	if g.own {
		return x.kb.devs[g.start+k].arc
	}
	return x.kb.arcs[g.start+k].arc
}

// enter puts deviation k of group gi in the heap, if the group has one.
// When the scores of its next deviations tie and their numbers are out of
// order, the group first sorts its remaining ones by score and number.
func (x *searcher) enter(gi, k int32) {
	kb := &x.kb
	g := &kb.groups[gi]
	if k >= g.n {
		return
	}
	if !g.own {
		arcs := kb.arcs[g.start+k : g.start+g.n]
		s := g.c + arcs[0].score
		for j := 1; j < len(arcs) && g.c+arcs[j].score == s; j++ {
			if arcs[j].place < arcs[0].place {
				start := int32(len(kb.devs))
				for _, a := range arcs {
					kb.devs = append(kb.devs, deviation{score: g.c + a.score, arc: a.arc, place: a.place})
				}
				slices.SortFunc(kb.devs[start:], byScore)
				g.own, g.start, g.n, k = true, start, int32(len(arcs)), 0
				break
			}
		}
	}
	var d deviation
	if g.own {
		d = kb.devs[g.start+k]
	} else {
		d = kb.arcs[g.start+k]
		d.score += g.c
	}
	g.k = k
	kb.heap = append(kb.heap, heapEntry{score: d.score, id: g.base + d.place, ref: gi})
	heapUp(kb.heap, len(kb.heap)-1)
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
