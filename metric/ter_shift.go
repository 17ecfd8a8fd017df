package metric

import "math"

// Translation edit rate with tercom's shift search, as sacreBLEU's
// metrics/lib_ter.py computes it (translation_edit_rate): the fewest
// insertions, deletions, substitutions and block shifts that turn the
// hypothesis into the reference (Snover et al. 2006, §2), found greedily as
// tercom finds it:
//
//  1. the edit distance is a Levenshtein distance restricted to a beam
//     around the pseudo-diagonal j = ⌊i·|ref|/|hyp|⌋ of the (hypothesis ×
//     reference) matrix, terBeamWidth cells each side (more when the lengths
//     differ by a factor above 50), the last row complete;
//  2. a shift moves a block of 1..terMaxShiftSize hypothesis words that
//     equals a block of the reference starting at most terMaxShiftDist words
//     away; it is tried only if the block is misaligned in both (an error in
//     the hypothesis and in the reference under the alignment of the edit
//     distance's trace) and not already aligned to itself, to each position
//     just after the hypothesis word aligned with the reference word before
//     each word of the reference block (or to the start);
//  3. the shift that lowers the edit distance most is made, ties going to
//     the longer block, then the earlier block, then the earlier target, and
//     the search repeats until no shift lowers it;
//  4. after terMaxShiftCandidates shifted hypotheses have been scored in all
//     (counted across the rounds), the search stops without making the shift
//     of its last round.
//
// The number of edits is the shifts made plus the edit distance of the
// shifted hypothesis. sacreBLEU caches matrix rows of hypothesis prefixes
// across calls; rows depend only on the prefix (every hypothesis scored is a
// permutation of the same length), so here a shifted hypothesis reuses the
// rows of the current one up to where the two first differ, which gives the
// same numbers.

// Tercom's limits, as lib_ter.py sets them. Each edit costs 1.
const (
	terMaxShiftSize       = 10   // _MAX_SHIFT_SIZE: the longest block shifted
	terMaxShiftDist       = 50   // _MAX_SHIFT_DIST: the farthest a block's reference match starts
	terBeamWidth          = 25   // _BEAM_WIDTH: cells each side of the pseudo-diagonal
	terMaxShiftCandidates = 1000 // _MAX_SHIFT_CANDIDATES: shifted hypotheses scored per pair
	terInf                = 1 << 30
)

// Edit operations of the trace, rewriting the hypothesis into the reference.
const (
	terOpNop = iota // the words match
	terOpSub        // substitution
	terOpIns        // a reference word is inserted
	terOpDel        // a hypothesis word is deleted
)

// terWork is the working memory of one edit count, reused from call to call.
type terWork struct {
	nh, nr int
	cur    []int32 // the hypothesis with the shifts made so far
	cand   []int32 // a shifted hypothesis being scored
	// cost holds the beam cells of cur's edit-distance matrix: row i (the
	// first i hypothesis words) has cells lo[i] <= j < hi[i], at
	// cost[off[i]+j-lo[i]]; the others are infinite. Storing the beam alone
	// keeps the memory linear in the lengths.
	cost        []int32
	lo, hi, off []int
	rowA, rowB  []int32 // rows of a shifted hypothesis
	path        []byte  // the trace, last operation first
	align       []int   // per reference word, the hypothesis word it is aligned to (or the one before)
	hypErr      []bool  // per hypothesis word: not matched
	refErr      []bool  // per reference word: not matched
}

// terShift is a block shift and its ranking.
type terShift struct {
	gain, length, start, target int
	ok                          bool
}

// better reports whether a ranks above b: the larger gain, then the longer
// block, the earlier start, the earlier target (lib_ter.py's candidate
// tuples, compared with >).
func (a terShift) better(b terShift) bool {
	if a.gain != b.gain {
		return a.gain > b.gain
	}
	if a.length != b.length {
		return a.length > b.length
	}
	if a.start != b.start {
		return a.start < b.start
	}
	return a.target < b.target
}

// terRef is a reference as word ids (0..n-1 for n distinct words), with
// where each word occurs.
type terRef struct {
	ids []int32
	// The positions of word v are pos[start[v]:start[v+1]], in order.
	start, pos []int32
}

// newTERRef indexes the reference ids, whose values are below n.
func newTERRef(ids []int32, n int) terRef {
	r := terRef{ids: ids, start: make([]int32, n+1), pos: make([]int32, len(ids))}
	for _, v := range ids {
		r.start[v+1]++
	}
	for v := range n {
		r.start[v+1] += r.start[v]
	}
	next := append([]int32(nil), r.start[:n]...)
	for j, v := range ids {
		r.pos[next[v]] = int32(j)
		next[v]++
	}
	return r
}

// positions returns where word v (-1 for a word in no reference) occurs.
func (r *terRef) positions(v int32) []int32 {
	if v < 0 || int(v)+1 >= len(r.start) {
		return nil
	}
	return r.pos[r.start[v]:r.start[v+1]]
}

// edits returns the number of TER edits that turn hyp into ref, word ids
// that are equal exactly when the words are (a hypothesis word in no
// reference is -1). An empty reference takes len(hyp) edits.
func (w *terWork) edits(hyp []int32, rf *terRef) int {
	ref := rf.ids
	nh, nr := len(hyp), len(ref)
	if nr == 0 {
		return nh
	}
	w.setup(nh, nr)
	w.cur = append(w.cur[:0], hyp...)
	w.fill(ref, 0)
	shifts, checked := 0, 0
	for {
		var best terShift
		best, checked = w.bestShift(rf, checked)
		if checked >= terMaxShiftCandidates || best.gain <= 0 {
			break
		}
		shifts++
		w.cand = performShift(w.cand[:0], w.cur, best.start, best.length, best.target)
		w.cur, w.cand = w.cand, w.cur
		w.fill(ref, min(best.start, best.target))
	}
	return shifts + int(w.at(nh, nr))
}

// setup sizes the buffers for a hypothesis of nh words and a reference of
// nr, and lays out the beam of each row (BeamEditDistance._edit_distance).
func (w *terWork) setup(nh, nr int) {
	w.nh, w.nr = nh, nr
	w.align = grow(w.align, nr)
	w.hypErr, w.refErr = grow(w.hypErr, nh), grow(w.refErr, nr)
	w.lo, w.hi, w.off = grow(w.lo, nh+1), grow(w.hi, nh+1), grow(w.off, nh+2)
	ratio := 1.0
	if nh > 0 {
		ratio = float64(nr) / float64(nh)
	}
	beam := terBeamWidth
	if terBeamWidth < ratio/2 {
		// Lengths so different that neighbouring rows' beams might not
		// overlap.
		beam = int(math.Ceil(ratio/2 + terBeamWidth))
	}
	w.lo[0], w.hi[0] = 0, nr+1
	w.off[0], w.off[1] = 0, nr+1
	widest := nr + 1
	for i := 1; i <= nh; i++ {
		diag := int(math.Floor(float64(i) * ratio))
		w.lo[i], w.hi[i] = max(0, diag-beam), min(nr+1, diag+beam)
		if i == nh {
			w.hi[i] = nr + 1
		}
		w.off[i+1] = w.off[i] + w.hi[i] - w.lo[i]
		widest = max(widest, w.hi[i]-w.lo[i])
	}
	w.cost = grow(w.cost, w.off[nh+1])
	w.rowA, w.rowB = grow(w.rowA, widest), grow(w.rowB, widest)
}

// row returns the cells of row i of cur's matrix.
func (w *terWork) row(i int) []int32 { return w.cost[w.off[i]:w.off[i+1]] }

// grow returns s with length n, reallocated if its capacity is short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// fill computes rows p+1..nh of cur's matrix from row p (row 0 when p is 0).
func (w *terWork) fill(ref []int32, p int) {
	if p == 0 {
		for j := range w.nr + 1 {
			w.cost[j] = int32(j)
		}
	}
	for i := p + 1; i <= w.nh; i++ {
		terRow(w.row(i-1), w.lo[i-1], w.hi[i-1], w.row(i), w.lo[i], w.hi[i], w.cur[i-1], ref)
	}
}

// shiftedCost returns the edit distance of cur with its words
// [start, start+length) shifted to target, from the rows the two share.
func (w *terWork) shiftedCost(ref []int32, start, length, target int) int {
	w.cand = performShift(w.cand[:0], w.cur, start, length, target)
	p := min(start, target) // cand[:p] == cur[:p]
	if p == w.nh {
		return int(w.at(w.nh, w.nr))
	}
	prev, plo, phi := w.row(p), w.lo[p], w.hi[p]
	row, other := w.rowA, w.rowB
	for i := p + 1; i <= w.nh; i++ {
		terRow(prev, plo, phi, row, w.lo[i], w.hi[i], w.cand[i-1], ref)
		prev, plo, phi = row, w.lo[i], w.hi[i]
		row, other = other, row
	}
	return int(prev[w.nr-plo])
}

// terRow computes the cells lo <= j < hi of a row of the edit-distance
// matrix, row[j-lo], for hypothesis word word, from the previous row's
// cells plo <= j < phi, prev[j-plo]; cells outside those ranges are
// infinite. Each row's range
// starts at most one cell after the previous row's ends (the pseudo-diagonal
// moves at most ⌈|ref|/|hyp|⌉ <= 2·beam a row) and row 0 is finite, so
// every cell in range is finite and a cell is the minimum of its three
// neighbours' costs.
func terRow(prev []int32, plo, phi int, row []int32, lo, hi int, word int32, ref []int32) {
	left := int32(terInf)
	j := lo
	if j == 0 {
		up := int32(terInf)
		if plo == 0 && phi > 0 {
			up = prev[0]
		}
		row[0] = up + 1
		left = row[0]
		j = 1
	}
	for ; j < hi && j <= plo; j++ {
		left = terCell(prev, plo, phi, j, left, word, ref[j-1])
		row[j-lo] = left
	}
	// Both neighbours in the previous row are in range.
	if end := min(hi, phi); j < end {
		p, r, out := prev[j-1-plo:end-plo], ref[j-1:end-1], row[j-lo:end-lo]
		_ = p[len(out)]
		for k := range out {
			c := p[k]
			if word != r[k] {
				c++
			}
			c = min(c, p[k+1]+1, left+1)
			out[k] = c
			left = c
		}
		j = end
	}
	for ; j < hi; j++ {
		left = terCell(prev, plo, phi, j, left, word, ref[j-1])
		row[j-lo] = left
	}
}

// terCell returns cell j > 0 of a row from the previous row (cells
// plo <= j < phi at prev[j-plo]) and the cell on its left.
func terCell(prev []int32, plo, phi, j int, left, word, refWord int32) int32 {
	diag, up := int32(terInf), int32(terInf)
	if j > plo && j <= phi {
		diag = prev[j-1-plo]
	}
	if j >= plo && j < phi {
		up = prev[j-plo]
	}
	if word != refWord {
		diag++
	}
	return min(terInf, diag, up+1, left+1)
}

// at returns cell (i, j) of cur's matrix.
func (w *terWork) at(i, j int) int32 {
	if j < w.lo[i] || j >= w.hi[i] {
		return terInf
	}
	return w.cost[w.off[i]+j-w.lo[i]]
}

// opAt returns the operation the trace takes at cell (i, j): the first of
// match/substitution, deletion, insertion that reaches the cell's cost, the
// order of tercom's preference in which lib_ter.py keeps the first of equal
// costs (deletion and insertion swapped, as its trace is flipped).
func (w *terWork) opAt(i, j int, ref []int32) byte {
	if i == 0 {
		return terOpIns
	}
	if j == 0 {
		return terOpDel
	}
	c := w.at(i, j)
	d := w.at(i-1, j-1)
	match := w.cur[i-1] == ref[j-1]
	if !match {
		d++
	}
	switch {
	case d == c && match:
		return terOpNop
	case d == c:
		return terOpSub
	case w.at(i-1, j)+1 == c:
		return terOpDel
	default:
		return terOpIns
	}
}

// alignment traces cur's edit distance back from the last cell and sets
// align, hypErr and refErr (lib_ter.py's trace_to_alignment of the flipped
// trace).
func (w *terWork) alignment(ref []int32) {
	w.path = w.path[:0]
	for i, j := w.nh, w.nr; i > 0 || j > 0; {
		op := w.opAt(i, j, ref)
		w.path = append(w.path, op)
		switch op {
		case terOpNop, terOpSub:
			i, j = i-1, j-1
		case terOpIns:
			j--
		default:
			i--
		}
	}
	h, r := -1, -1
	for k := len(w.path) - 1; k >= 0; k-- {
		switch op := w.path[k]; op {
		case terOpNop, terOpSub:
			h, r = h+1, r+1
			w.align[r] = h
			w.hypErr[h], w.refErr[r] = op == terOpSub, op == terOpSub
		case terOpIns: // a reference word alone: aligned to the hypothesis word before
			r++
			w.align[r] = h
			w.refErr[r] = true
		default: // a hypothesis word alone
			h++
			w.hypErr[h] = true
		}
	}
}

// bestShift returns the best shift of cur (lib_ter.py's _shift) and the
// number of shifted hypotheses scored so far, checked on entry. The gain is
// 0 and ok false when no shift was tried.
func (w *terWork) bestShift(rf *terRef, checked int) (terShift, int) {
	ref := rf.ids
	nh, nr, cur := w.nh, w.nr, w.cur
	pre := int(w.at(nh, nr))
	w.alignment(ref)
	var best terShift
	for sh := range nh {
		// The reference positions sr, in order, with ref[sr] == cur[sh]
		// and |sr - sh| <= terMaxShiftDist.
		for _, p := range rf.positions(cur[sh]) {
			sr := int(p)
			if sr < sh-terMaxShiftDist {
				continue
			}
			if sr > sh+terMaxShiftDist {
				break
			}
			// Blocks cur[sh:sh+l] == ref[sr:sr+l], l = 1, 2, ...
			for l := 1; l <= terMaxShiftSize && sh+l <= nh && sr+l <= nr && cur[sh+l-1] == ref[sr+l-1]; l++ {
				if !anyTrue(w.hypErr[sh:sh+l]) || !anyTrue(w.refErr[sr:sr+l]) {
					continue
				}
				if a := w.align[sr]; sh <= a && a < sh+l {
					continue // the block is aligned to itself
				}
				prev := -1
				for off := -1; off < l; off++ {
					target := 0 // before the first word
					if sr+off >= 0 {
						target = w.align[sr+off] + 1
					}
					if target == prev {
						continue
					}
					prev = target
					c := terShift{gain: pre - w.shiftedCost(ref, sh, l, target), length: l, start: sh, target: target, ok: true}
					checked++
					if !best.ok || c.better(best) {
						best = c
					}
				}
				if checked >= terMaxShiftCandidates {
					return best, checked
				}
			}
		}
	}
	return best, checked
}

func anyTrue(b []bool) bool {
	for _, v := range b {
		if v {
			return true
		}
	}
	return false
}

// performShift appends to dst the words w with the block [start,
// start+length) moved, as lib_ter.py's _perform_shift moves it (with
// Python's slice clamping): before word target if target < start, before
// word target of the original if target > start+length, and otherwise
// after the target-start words that follow the block.
func performShift(dst, w []int32, start, length, target int) []int32 {
	switch {
	case target < start:
		dst = append(dst, pySlice(w, 0, target)...)
		dst = append(dst, pySlice(w, start, start+length)...)
		dst = append(dst, pySlice(w, target, start)...)
		return append(dst, pySlice(w, start+length, len(w))...)
	case target > start+length:
		dst = append(dst, pySlice(w, 0, start)...)
		dst = append(dst, pySlice(w, start+length, target)...)
		dst = append(dst, pySlice(w, start, start+length)...)
		return append(dst, pySlice(w, target, len(w))...)
	default:
		dst = append(dst, pySlice(w, 0, start)...)
		dst = append(dst, pySlice(w, start+length, length+target)...)
		dst = append(dst, pySlice(w, start, start+length)...)
		return append(dst, pySlice(w, length+target, len(w))...)
	}
}

// pySlice is Python's w[a:b] for a, b >= 0: the bounds clamped to len(w),
// empty when a >= b.
func pySlice(w []int32, a, b int) []int32 {
	a, b = min(a, len(w)), min(b, len(w))
	if a >= b {
		return nil
	}
	return w[a:b]
}
