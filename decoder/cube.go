package decoder

import (
	"cmp"
	"math"
	"slices"
)

// Cube pruning (Huang and Chiang 2007, §5) as Moses' SearchCubePruning
// does it for phrase-based decoding (BitmapContainer, BackwardsEdge,
// HypothesisStackCubePruning). The stacks, the recombination, the
// pruning, the distortion limit and the future costs are the stack
// search's; what differs is which hypotheses are built.
//
// When a stack is closed, its hypotheses are grouped by coverage, each
// group best first. For every group and every span the group may
// translate next (the first-gap rule of the distortion limit), an edge
// joins the group's hypotheses that may jump to the span (ordered by
// score plus the weighted distortion cost of the jump when there is a
// distortion limit, as Moses orders them) with the span's options
// (ordered by future score): a cube whose corner (0, 0) is the most
// promising extension. The edge feeds the stack of the extended coverage.
//
// Filling a stack builds the corner of each of its edges, then pops the
// best built hypothesis (by total score) up to the pop limit: it joins the
// stack as in the stack search (the beam threshold, recombination,
// histogram pruning), and its two neighbours in its cube, (i+1, j) and
// (i, j+1), are built unless built before. Moses keeps one queue per
// coverage and a queue of these queues ordered by their best; one queue of
// every built hypothesis pops the same hypotheses. With a diversity d, each
// coverage then pops from its own remaining hypotheses until d of them
// have joined the stack as new entries (BitmapContainer::
// EnsureMinStackHyps).

// cubeEdge is Moses' BackwardsEdge: the hypotheses of one coverage of a
// closed stack that may extend with the options of one span.
type cubeEdge struct {
	hOff, hLen int32 // hypotheses: cubeState.hyps[hOff : hOff+hLen], best first
	oOff, oLen int32 // options: cubeState.order[oOff : oOff+oLen], best first
	ncov       int32 // coverage after the span
	s, e       int16
	cells      uint64 // number of the edge's cell (0, 0) in its stack
}

// cubeCand is a built hypothesis waiting in a queue: hypothesis i of edge
// extended with its option j.
type cubeCand struct {
	h          hyp
	edge, i, j int32
}

// cubeState is the state of cube pruning in a searcher, reused across
// sentences.
type cubeState struct {
	popLimit, diversity int
	// order lists each span's options best future score first, with the
	// layout of sentence.opts.
	order []int32
	edges [][]cubeEdge // by the stack they feed
	hyps  []int32      // the edges' hypotheses
	cands []cubeCand   // built hypotheses of the stack being filled
	queue []heapEntry  // (total, index in cands)
	local []heapEntry  // one coverage's queue (diversity)
	seen  cellSet      // the cells built in the stack being filled
	// inserted counts the new entries of the stack being filled per
	// coverage (diversity only).
	inserted []int32
	keyed    []keyedHyp
	// Grouping a stack by coverage: the hypotheses, and for each coverage
	// its group (when covMark is the stack's mark) and the groups' ends.
	group, covGroup, covMark, groupEnd []int32
}

type keyedHyp struct {
	key float64
	id  int32
}

// setup prepares c for the sentence of x.
func (c *cubeState) setup(x *searcher, so SearchOptions) {
	c.popLimit, c.diversity = so.CubePruningPopLimit, so.CubePruningDiversity
	st := &x.st
	c.order = resize(c.order, len(st.opts))
	for i := range c.order {
		c.order[i] = int32(i)
	}
	byFuture := func(a, b int32) int {
		if c := cmp.Compare(st.opts[b].future, st.opts[a].future); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
	start := int32(0)
	for _, end := range st.spanEnd {
		slices.SortFunc(c.order[start:end], byFuture)
		start = end
	}
	n := st.n
	if cap(c.edges) < n+1 {
		grown := make([][]cubeEdge, n+1)
		copy(grown, c.edges[:cap(c.edges)])
		c.edges = grown
	}
	c.edges = c.edges[:n+1]
	for i := range c.edges {
		c.edges[i] = c.edges[i][:0]
	}
	c.hyps = c.hyps[:0]
	clear(c.covMark)
}

// forward is SearchCubePruning::CreateForwardTodos for the closed stack k:
// the edges from each of its coverages to the stacks after it.
func (c *cubeState) forward(x *searcher, k int) {
	g := c.groupByCoverage(x, k)
	a := int32(0)
	for _, b := range c.groupEnd {
		cov := x.hyps[g[a]].cov
		for s, e := range x.spans(cov, anyEnd) {
			c.addEdge(x, g[a:b], cov, s, e)
		}
		a = b
	}
}

// groupByCoverage returns the hypotheses of the closed stack k grouped by
// coverage, in the order of their first hypothesis, each group best first
// (as the stack is); c.groupEnd holds the end of each group.
func (c *cubeState) groupByCoverage(x *searcher, k int) []int32 {
	ids := x.stacks[k].ids
	if len(c.covMark) < len(x.covs.count) {
		c.covMark = slices.Grow(c.covMark, len(x.covs.count)-len(c.covMark))[:len(x.covs.count)]
		c.covGroup = slices.Grow(c.covGroup, len(x.covs.count)-len(c.covGroup))[:len(x.covs.count)]
	}
	mark := int32(k + 1)
	ends := c.groupEnd[:0] // sizes, then ends
	for _, id := range ids {
		cov := x.hyps[id].cov
		if c.covMark[cov] != mark {
			c.covMark[cov], c.covGroup[cov] = mark, int32(len(ends))
			ends = append(ends, 0)
		}
		ends[c.covGroup[cov]]++
	}
	sum := int32(0)
	for i, size := range ends {
		ends[i] = sum // start, then filled to the end
		sum += size
	}
	g := resize(c.group, len(ids))
	for _, id := range ids {
		gi := c.covGroup[x.hyps[id].cov]
		g[ends[gi]] = id
		ends[gi]++
	}
	c.group, c.groupEnd = g, ends
	return g
}

// addEdge adds the edge from the hypotheses of group (coverage cov, best
// first) to span [s, e], keeping those that the distortion limit lets jump
// to s (BackwardsEdge's constructor).
func (c *cubeState) addEdge(x *searcher, group []int32, cov int32, s, e int) {
	off := len(c.hyps)
	for _, id := range group {
		if x.limit < 0 || jump(int(x.hyps[id].e), s) <= x.limit {
			c.hyps = append(c.hyps, id)
		}
	}
	hs := c.hyps[off:]
	if len(hs) == 0 {
		return
	}
	if x.limit >= 0 && len(hs) > 1 {
		// Moses orders them by score plus the weighted distortion cost of
		// the jump (HypothesisScoreOrdererWithDistortion), and only when
		// there is a distortion limit.
		keyed := c.keyed[:0]
		gap := x.covs.firstGap[cov]
		for _, id := range hs {
			h := &x.hyps[id]
			key := h.score
			if x.m.fDist >= 0 {
				key += x.w.dist * distortion(x.early, int(h.s), int(h.e), gap, s, e)
			}
			keyed = append(keyed, keyedHyp{key, id})
		}
		slices.SortFunc(keyed, func(a, b keyedHyp) int {
			if c := cmp.Compare(b.key, a.key); c != 0 {
				return c
			}
			return cmp.Compare(a.id, b.id)
		})
		for i, kh := range keyed {
			hs[i] = kh.id
		}
		c.keyed = keyed
	}
	ncov := x.covs.extend(cov, s, e)
	l := e - s + 1
	to := x.covs.count[ncov]
	c.edges[to] = append(c.edges[to], cubeEdge{
		hOff: int32(off), hLen: int32(len(hs)),
		oOff: x.st.spanStart(s, l), oLen: int32(len(x.st.span(s, l))),
		ncov: ncov, s: int16(s), e: int16(e),
	})
}

// fill fills stack k from its edges (the loop of SearchCubePruning::Decode
// over one stack).
func (c *cubeState) fill(x *searcher, k int) {
	c.cands = c.cands[:0]
	c.queue = c.queue[:0]
	edges := c.edges[k]
	c.seen.reset(len(edges) + 2*min(c.popLimit, 1<<16)) // it grows if need be
	if c.diversity > 0 {
		c.inserted = resize(c.inserted, len(x.covs.count))
	}
	cells := uint64(0)
	for ei := range edges {
		ed := &edges[ei]
		ed.cells = cells
		cells += uint64(ed.hLen) * uint64(ed.oLen)
		c.seen.add(ed.cells)
		c.build(x, k, int32(ei), 0, 0, &c.queue)
	}
	for pops := 0; pops < c.popLimit && len(c.queue) > 0; pops++ {
		c.pop(x, k, &c.queue)
	}
	if c.diversity > 0 && len(c.queue) > 0 {
		c.diversify(x, k)
	}
}

// diversify pops, for each coverage of stack k, its own best remaining
// hypotheses until diversity of them have joined the stack as new entries.
func (c *cubeState) diversify(x *searcher, k int) {
	rest := c.queue
	slices.SortFunc(rest, func(a, b heapEntry) int {
		if c := cmp.Compare(c.cands[a.id].h.cov, c.cands[b.id].h.cov); c != 0 {
			return c
		}
		if a.better(b) {
			return -1
		}
		return 1
	})
	for a := 0; a < len(rest); {
		cov := c.cands[rest[a].id].h.cov
		b := a + 1
		for b < len(rest) && c.cands[rest[b].id].h.cov == cov {
			b++
		}
		// Sorted best first, a run is a heap; the neighbours of its
		// hypotheses have its coverage.
		local := append(c.local[:0], rest[a:b]...)
		for len(local) > 0 && int(c.inserted[cov]) < c.diversity {
			c.pop(x, k, &local)
		}
		c.local = local
		a = b
	}
	c.queue = c.queue[:0]
}

// build builds hypothesis i of edge ei extended with its option j and
// queues it (BackwardsEdge::CreateHypothesis, BitmapContainer::Enqueue).
func (c *cubeState) build(x *searcher, k int, ei, i, j int32, queue *[]heapEntry) {
	ed := &c.edges[k][ei]
	id := c.hyps[ed.hOff+i]
	oi := c.order[ed.oOff+j]
	h := &x.hyps[id]
	t := x.stepFrom(h, int(ed.s), int(ed.e))
	sc := x.optionScore(&t, oi)
	// The candidate takes the LM state in place.
	c.cands = append(c.cands, cubeCand{edge: ei, i: i, j: j})
	cd := &c.cands[len(c.cands)-1]
	lmScore := x.lmContext(&cd.h.lm, &h.lm, &x.st.opts[oi], k == x.st.n)
	sc += x.w.lm * float64(lmScore)
	total := sc + x.covs.future[ed.ncov]
	cd.h.score, cd.h.total, cd.h.prev, cd.h.opt, cd.h.cov = sc, total, id, oi, ed.ncov
	cd.h.s, cd.h.e, cd.h.arcHead, cd.h.arcTail, cd.h.arcNext = ed.s, ed.e, -1, -1, -1
	*queue = append(*queue, heapEntry{score: total, id: int32(len(c.cands) - 1)})
	heapUp(*queue, len(*queue)-1)
}

// pop takes the best hypothesis of queue into stack k (HypothesisStack
// CubePruning::AddPrune) and builds its neighbours in its cube
// (BackwardsEdge::PushSuccessors).
func (c *cubeState) pop(x *searcher, k int, queue *[]heapEntry) {
	q := *queue
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	heapDown(q, 0)
	*queue = q
	cd := &c.cands[top.id]
	st := &x.stacks[k]
	if total := cd.h.total; total >= st.worst && !math.IsInf(total, -1) {
		var key recKey
		x.keyOf(&key, &cd.h)
		if x.add(st, &cd.h, &key, hashKey(&key)) && c.diversity > 0 {
			c.inserted[cd.h.cov]++
		}
	}
	ei, i, j := cd.edge, cd.i, cd.j // cd moves when cands grows
	ed := &c.edges[k][ei]
	cell := ed.cells + uint64(i)*uint64(ed.oLen) + uint64(j)
	if j+1 < ed.oLen && c.seen.add(cell+1) {
		c.build(x, k, ei, i, j+1, queue)
	}
	if i+1 < ed.hLen && c.seen.add(cell+uint64(ed.oLen)) {
		c.build(x, k, ei, i+1, j, queue)
	}
}

// cellSet is a set of cube cells (open addressing).
type cellSet struct {
	slots []uint64 // cell+1; 0 is empty
	used  []int32  // the positions filled
	shift uint     // 64 - log2(len(slots))
}

// reset empties the set, making room for about n cells.
func (s *cellSet) reset(n int) {
	for _, p := range s.used {
		s.slots[p] = 0
	}
	s.used = s.used[:0]
	if size := max(1024, 4*n); len(s.slots) < size {
		s.alloc(size)
	}
}

func (s *cellSet) alloc(size int) {
	bits := uint(10)
	for 1<<bits < size {
		bits++
	}
	s.slots = make([]uint64, 1<<bits)
	s.shift = 64 - bits
}

// add adds cell and reports whether it was not in the set.
func (s *cellSet) add(cell uint64) bool {
	if 2*len(s.used) >= len(s.slots) {
		s.grow()
	}
	key := cell + 1
	mask := len(s.slots) - 1
	for p := int((key * 0x9e3779b97f4a7c15) >> s.shift); ; p = (p + 1) & mask {
		switch s.slots[p] {
		case 0:
			s.slots[p] = key
			s.used = append(s.used, int32(p))
			return true
		case key:
			return false
		}
	}
}

func (s *cellSet) grow() {
	old := s.slots
	used := s.used
	s.alloc(2 * len(old))
	s.used = make([]int32, 0, 2*cap(used))
	for _, p := range used {
		key := old[p]
		mask := len(s.slots) - 1
		q := int((key * 0x9e3779b97f4a7c15) >> s.shift)
		for s.slots[q] != 0 {
			q = (q + 1) & mask
		}
		s.slots[q] = key
		s.used = append(s.used, int32(q))
	}
}
