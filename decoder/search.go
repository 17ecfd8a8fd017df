package decoder

import (
	"context"
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/mtune/mtune/decoder/lm"
	"github.com/mtune/mtune/feature"
)

// hyp is a partial translation: a path from the empty hypothesis through
// translation options. Hypotheses live in searcher.hyps and refer to each
// other by index.
type hyp struct {
	lm    lm.State
	score float64 // model score so far
	total float64 // score + future cost estimate of the uncovered words
	prev  int32   // predecessor; -1 for the empty hypothesis
	opt   int32   // translation option (index in sentence.opts); -1 for the empty hypothesis
	cov   int32   // coverage id
	// Arcs: the hypotheses that lost recombination to this one, a linked
	// list through arcNext (Moses' ArcList, kept for n-best lists).
	arcHead, arcTail, arcNext int32
	s, e                      int16 // source span of the last phrase; -1, -1 for the empty hypothesis
}

// recKey is what two hypotheses must share to be recombined: coverage,
// language-model state, the end of the last phrase (Distortion) and, with
// lexicalized reordering, its start and the previous option's forward
// scores (Moses' PhraseBasedReorderingState). It has no padding of its own
// so that its bytes can be hashed (see hashKey).
type recKey struct {
	lm   lm.State
	cov  int32
	lrf  [4]uint32 // forward reordering scores (bits); lrf[3] = 1 when present
	s, e int16
	_    int32
}

// hashKey hashes the bytes of a key. Equal keys have equal bytes: the LM
// state's back-off cache is a function of its context slots, so == and
// the bytes agree.
func hashKey(k *recKey) uint64 {
	b := unsafe.Slice((*byte)(unsafe.Pointer(k)), unsafe.Sizeof(*k))
	h := uint64(0x9e3779b97f4a7c15)
	for len(b) >= 8 {
		h ^= binary.LittleEndian.Uint64(b)
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 31
		b = b[8:]
	}
	for _, c := range b {
		h = (h ^ uint64(c)) * 0x94d049bb133111eb
	}
	h ^= h >> 29
	return h
}

// stack holds the hypotheses covering the same number of source words,
// with an open-addressing index of their recombination keys.
type stack struct {
	ids         []int32
	keys        []recKey
	hashes      []uint64
	slots       []int32 // position in ids + 1; 0 is empty
	best, worst float64
}

// find returns the position of the hypothesis with key k, or -1.
func (st *stack) find(k *recKey, h uint64) int {
	if len(st.slots) == 0 {
		return -1
	}
	mask := len(st.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		p := st.slots[i]
		if p == 0 {
			return -1
		}
		if st.hashes[p-1] == h && st.keys[p-1] == *k {
			return int(p - 1)
		}
	}
}

// insert indexes position p, whose key and hash are stored.
func (st *stack) insert(p int) {
	if 2*len(st.ids) > len(st.slots) {
		st.rehash(max(1024, 4*len(st.ids)))
		return // rehash indexed every position
	}
	mask := len(st.slots) - 1
	for i := int(st.hashes[p]) & mask; ; i = (i + 1) & mask {
		if st.slots[i] == 0 {
			st.slots[i] = int32(p + 1)
			return
		}
	}
}

// rehash rebuilds the index with size slots (a power of two ≥ size).
func (st *stack) rehash(size int) {
	n := 1
	for n < size {
		n <<= 1
	}
	st.slots = resize(st.slots, n)
	mask := n - 1
	for p, h := range st.hashes {
		for i := int(h) & mask; ; i = (i + 1) & mask {
			if st.slots[i] == 0 {
				st.slots[i] = int32(p + 1)
				break
			}
		}
	}
}

// searcher is the state of one decode; it is reused across sentences.
type searcher struct {
	m  *Model
	w  *dense
	st sentence
	sb sparseScratch

	hyps   []hyp
	free   []int32
	stacks []stack
	covs   covTable

	keepArcs  bool
	arcLimit  int // prune arc lists longer than 5×arcLimit to arcLimit (0: never)
	stackSize int
	cubing    bool    // cube pruning (cube.go) instead of the stack search
	beam      float64 // ln(beam threshold); -Inf for none
	limit     int     // distortion limit; negative: none
	early     bool
	order     int
	loOn      bool
	lmBound   bool // the LM weight is ≥ 0: the LM can only lower a score
	eos       lm.WordID

	sortBuf []int32
	dense   []float64
	// LM prefix memo of one expandAll call: for option i of the span and
	// prefix length j+1, the state and score after its first j+1 words.
	memoState []lm.State
	memoSum   []float32
	memoLen   []int8

	cube cubeState

	// The replay of derivations into hypotheses (nbest.go): k-best
	// enumeration, sparse feature ids, feature builder.
	kb  kbestState
	ids sparseIDs
	fb  feature.Builder
}

func (m *Model) newSearcher() *searcher {
	x := &searcher{m: m}
	if m.lm != nil {
		x.order = m.lm.Order()
		x.eos = m.lm.EOS()
	}
	return x
}

// setup prepares x for a sentence with the given weights and settings.
func (x *searcher) setup(words []string, w *dense, so SearchOptions, nbest int, distinct bool) {
	m := x.m
	x.w = w
	x.stackSize = so.StackSize
	if so.BeamThreshold > 0 {
		x.beam = math.Log(so.BeamThreshold)
	} else {
		x.beam = math.Inf(-1)
	}
	x.limit = *so.DistortionLimit
	x.early = *so.EarlyDistortionCost
	x.keepArcs = nbest > 0
	x.arcLimit = 0
	if nbest > 0 && !distinct {
		x.arcLimit = nbest
	}
	x.loOn = m.tmpl.Reordering && w.sparse
	x.lmBound = w.lm >= 0
	x.cubing = so.Algorithm == CubePruning
	m.collect(&x.st, words, w, &x.sb)
	if m.tmpl.any() {
		x.ids.reset(len(x.st.opts), m.tmpl.Reordering)
	}
	n := len(words)
	x.hyps = x.hyps[:0]
	x.free = x.free[:0]
	x.covs.reset(n, x.st.fc)
	if cap(x.stacks) < n+1 {
		grown := make([]stack, n+1)
		copy(grown, x.stacks[:cap(x.stacks)])
		x.stacks = grown
	}
	x.stacks = x.stacks[:n+1]
	for i := range x.stacks {
		st := &x.stacks[i]
		*st = stack{ids: st.ids[:0], keys: st.keys[:0], hashes: st.hashes[:0], slots: st.slots[:0],
			best: math.Inf(-1), worst: math.Inf(-1)}
	}
	if x.cubing {
		x.cube.setup(x, so)
	}
}

// run decodes the sentence of setup with the stack search or cube
// pruning and returns the final stack sorted best first.
func (x *searcher) run(ctx context.Context) ([]int32, error) {
	n := x.st.n
	x.addRoot()
	for k := 0; k <= n; k++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("decoder: %w", err)
		}
		if x.cubing {
			if k > 0 {
				x.cube.fill(x, k)
			}
			x.closeStack(k)
			if k < n {
				x.cube.forward(x, k)
			}
			continue
		}
		// Moses' SearchNormal::Decode: the stacks in order, each pruned to
		// the stack size, then every hypothesis expanded.
		x.closeStack(k)
		if k == n {
			break
		}
		for _, id := range x.stacks[k].ids {
			x.processOne(id)
		}
	}
	final := x.stacks[n].ids
	if len(final) == 0 {
		return nil, fmt.Errorf("decoder: %w", ErrNoTranslation)
	}
	return final, nil
}

// addRoot puts the empty hypothesis in the first stack.
func (x *searcher) addRoot() {
	root := hyp{prev: -1, opt: -1, cov: x.covs.empty(), s: -1, e: -1, arcHead: -1, arcTail: -1, arcNext: -1}
	if x.m.lm != nil {
		root.lm = x.m.lm.BeginSentence()
	}
	var key recKey
	x.keyOf(&key, &root)
	x.add(&x.stacks[0], &root, &key, hashKey(&key))
}

// closeStack ends the additions to stack k: it is pruned to the stack
// size, sorted best first and its arc lists cleaned up.
func (x *searcher) closeStack(k int) {
	st := &x.stacks[k]
	x.prune(st, x.stackSize)
	x.sortStack(st)
	if x.arcLimit > 0 {
		for _, id := range st.ids {
			x.cleanupArcs(id)
		}
	}
	st.slots = st.slots[:0] // no more additions
}

// sortStack orders a stack's hypotheses best first (ties: older first).
func (x *searcher) sortStack(st *stack) {
	slices.SortFunc(st.ids, x.byTotal)
}

// byTotal orders hypotheses a and b best first (ties: older first).
func (x *searcher) byTotal(a, b int32) int {
	ta, tb := x.hyps[a].total, x.hyps[b].total
	switch {
	case ta > tb:
		return -1
	case ta < tb:
		return 1
	}
	return int(a - b)
}

// processOne is SearchNormal::ProcessOneHypothesis: every span that the
// hypothesis leaves uncovered and the distortion limit allows.
func (x *searcher) processOne(id int32) {
	h := &x.hyps[id]
	for s, e := range x.spans(h.cov, int(h.e)) {
		x.expandAll(id, s, e)
	}
}

// anyEnd is the previous end to pass to searcher.spans for spans that may
// start anywhere: cube pruning checks the jump from each hypothesis' end
// to the span itself.
const anyEnd = math.MinInt

// spans yields the spans [s, e] that can extend coverage cov, by start then
// length as Moses' loops visit them: spans of uncovered words that have
// translation options and, under the distortion limit, leave the first gap
// reachable from their end. pe is the end of the last phrase translated (-1
// for none) and the limit also bounds the jump from it to s; anyEnd leaves
// the start free. The loop body may add coverages to x.covs.
func (x *searcher) spans(cov int32, pe int) iter.Seq2[int, int] {
	return func(yield func(s, e int) bool) {
		n := x.st.n
		g := x.covs.firstGap[cov]
		bitsOf := x.covs.get(cov)
		for s := g; s < n; s++ {
			if has(bitsOf, s) {
				continue
			}
			if x.limit >= 0 && pe != anyEnd && jump(pe, s) > x.limit {
				continue
			}
			for l := 1; l <= x.st.maxLen && s+l <= n; l++ {
				e := s + l - 1
				if has(bitsOf, e) {
					break // overlap: so do the longer spans
				}
				if len(x.st.span(s, l)) == 0 {
					continue
				}
				// Starting right of the first gap: the gap must stay
				// reachable from the end of this phrase.
				if x.limit >= 0 && s != g && jump(e, g) > x.limit {
					break
				}
				if !yield(s, e) {
					return
				}
				bitsOf = x.covs.get(cov) // the table may have grown
			}
		}
	}
}

// expandAll is SearchNormal::ExpandAllHypotheses with ExpandHypothesis:
// every option of span [s, e] applied to hypothesis id.
func (x *searcher) expandAll(id int32, s, e int) {
	w := x.w
	h := x.hyps[id] // a copy: x.hyps may grow below
	ncov := x.covs.extend(h.cov, s, e)
	fut := x.covs.future[ncov]
	count := x.covs.count[ncov]
	st := &x.stacks[count]
	complete := count == x.st.n
	t := x.stepFrom(&h, s, e)
	start := x.st.spanStart(s, e-s+1)
	opts := x.st.span(s, e-s+1)
	var key recKey
	K := max(x.order-1, 0)
	x.memoLen = resize(x.memoLen, len(opts))
	if cap(x.memoState) < len(opts)*K {
		x.memoState = make([]lm.State, len(opts)*K)
		x.memoSum = make([]float32, len(opts)*K)
	}
	var nh hyp // the new hypothesis; lmContextMemo writes its LM state
	for i := range opts {
		sc := x.optionScore(&t, start+int32(i))
		if x.lmBound && sc+fut < st.worst {
			continue // the language model can only make it worse
		}
		lmScore := x.lmContextMemo(&nh.lm, &h.lm, opts, i, K, complete)
		sc += w.lm * float64(lmScore)
		total := sc + fut
		if total < st.worst || math.IsInf(total, -1) {
			continue
		}
		nh.score, nh.total, nh.prev, nh.opt, nh.cov = sc, total, id, start+int32(i), ncov
		nh.s, nh.e, nh.arcHead, nh.arcTail, nh.arcNext = int16(s), int16(e), -1, -1, -1
		x.keyOf(&key, &nh)
		x.add(st, &nh, &key, hashKey(&key))
	}
}

// step is what the scores of the options of one span applied to one
// hypothesis share: the hypothesis' score plus the distortion cost of the
// jump and the forward reordering scores of its last phrase (base), and
// the orientations of the span after its last phrase.
type step struct {
	base          float64
	ori, loB, loM int
}

// stepFrom returns the step from hypothesis h to the span [s, e].
func (x *searcher) stepFrom(h *hyp, s, e int) step {
	m, w := x.m, x.w
	first := h.opt < 0
	t := step{base: h.score}
	if m.fDist >= 0 {
		t.base += w.dist * distortion(x.early, int(h.s), int(h.e), x.covs.firstGap[h.cov], s, e)
	}
	lr := &m.lr
	if m.fLR >= 0 {
		if first {
			t.ori = lr.orientFirst(s)
		} else {
			t.ori = lr.orient(int(h.s), int(h.e), s, e)
			if lr.fwd {
				if p := x.st.opts[h.opt].lr; p != nil {
					t.base += w.lr[lr.offF+t.ori] * float64(p[lr.offF+t.ori])
				}
			}
		}
	}
	if x.loOn {
		t.loB, t.loM = msdBack(msdOrient(int(h.s), int(h.e), s, e))
		if !first {
			t.base += x.st.lo[int(h.opt)*numLO+msdFwd(msdOrient(int(h.s), int(h.e), s, e))]
		}
	}
	return t
}

// optionScore is the score of the hypothesis of step t extended with
// option oi, but for the language model's score in context: the option's
// score in isolation and its backward reordering scores.
func (x *searcher) optionScore(t *step, oi int32) float64 {
	o := &x.st.opts[oi]
	sc := t.base + o.static
	if lr := &x.m.lr; lr.back && o.lr != nil {
		sc += x.w.lr[lr.offB+t.ori] * float64(o.lr[lr.offB+t.ori])
	}
	if x.loOn {
		k := int(oi) * numLO
		sc += x.st.lo[k+t.loB] + x.st.lo[k+t.loM]
	}
	return sc
}

// lmContext scores the first words of o's target in the context of state
// *st, and </s> when the translation is complete, as Moses'
// LanguageModelKen::EvaluateWhenApplied does; it writes the state after
// the phrase to *dst (not st), such as the new hypothesis' own, and
// returns the score (ln).
func (x *searcher) lmContext(dst, st *lm.State, o *transOpt, complete bool) float32 {
	l := x.m.lm
	if l == nil || o.tLen == 0 {
		*dst = *st
		return 0
	}
	tgt := x.st.target(o)
	k := min(len(tgt), x.order-1)
	if k == 0 {
		*dst = *st
	}
	// The states after each word in turn go to dst and tmp, the last to
	// dst: with an even number of words the first goes to tmp.
	var tmp lm.State
	to, other := dst, &tmp
	if k%2 == 0 {
		to, other = other, to
	}
	var sum float32
	from := st
	for j := 0; j < k; j++ {
		sum += l.ScoreTo(to, from, tgt[j])
		from = to
		to, other = other, to
	}
	return x.lmEnd(dst, o, len(tgt) > x.order-1, sum, complete)
}

// lmEnd ends lmContext and lmContextMemo: sum is the score of the first
// words of o's target in context and *st the state after them. When past
// (the target is longer than the context) the state after the phrase is
// o's own end state; a complete translation adds </s>. It leaves the state
// after the phrase in *st and returns the score in ln.
func (x *searcher) lmEnd(st *lm.State, o *transOpt, past bool, sum float32, complete bool) float32 {
	if past {
		*st = o.end
	}
	if complete {
		var next lm.State
		sum += x.m.lm.ScoreTo(&next, st, x.eos)
		*st = next
	}
	return sum * ln10
}

// lmContextMemo is lmContext for option i of opts, reusing the scores of
// the prefix it shares with an earlier option (transOpt.pre) and recording
// its own. The sums are the same float32 sums lmContext makes. It writes
// the state after the phrase to *dst (not st).
func (x *searcher) lmContextMemo(dst, st *lm.State, opts []transOpt, i, K int, complete bool) float32 {
	l := x.m.lm
	o := &opts[i]
	if l == nil || o.tLen == 0 {
		*dst = *st
		return 0
	}
	tgt := x.st.target(o)
	k := min(len(tgt), K)
	var sum float32
	j := 0
	if p := int(o.pre); p >= 0 && int(x.memoLen[p]) >= int(o.preK) && o.preK > 0 {
		j = int(o.preK)
		copy(x.memoState[i*K:i*K+j], x.memoState[p*K:p*K+j])
		copy(x.memoSum[i*K:i*K+j], x.memoSum[p*K:p*K+j])
		sum = x.memoSum[i*K+j-1]
	}
	for ; j < k; j++ {
		prev := st
		if j > 0 {
			prev = &x.memoState[i*K+j-1]
		}
		sum += l.ScoreTo(&x.memoState[i*K+j], prev, tgt[j])
		x.memoSum[i*K+j] = sum
	}
	x.memoLen[i] = int8(k)
	if k > 0 {
		*dst = x.memoState[i*K+k-1]
	} else {
		*dst = *st
	}
	return x.lmEnd(dst, o, len(tgt) > K, sum, complete)
}

// keyOf sets k to the recombination key of h.
func (x *searcher) keyOf(k *recKey, h *hyp) {
	*k = recKey{lm: h.lm, cov: h.cov, e: h.e}
	if x.m.fLR >= 0 {
		k.s = h.s
		lr := &x.m.lr
		if lr.fwd && h.opt >= 0 {
			if p := x.st.opts[h.opt].lr; p != nil {
				k.lrf[3] = 1
				for j, v := range p[lr.offF:lr.n] {
					k.lrf[j] = math.Float32bits(v)
				}
			}
		}
	}
}

// newHyp stores h and returns its index.
func (x *searcher) newHyp(h *hyp) int32 {
	if k := len(x.free); k > 0 {
		id := x.free[k-1]
		x.free = x.free[:k-1]
		x.hyps[id] = *h
		return id
	}
	x.hyps = append(x.hyps, *h)
	return int32(len(x.hyps) - 1)
}

// release frees a hypothesis that was pruned, with its arcs.
func (x *searcher) release(id int32) {
	for a := x.hyps[id].arcHead; a >= 0; {
		next := x.hyps[a].arcNext
		x.free = append(x.free, a)
		a = next
	}
	x.free = append(x.free, id)
}

// add is HypothesisStackNormal::AddPrune (after the threshold test): a new
// hypothesis joins the stack, or recombines with the one that has its key.
// It reports whether h is a new entry of the stack (not recombined).
func (x *searcher) add(st *stack, h *hyp, key *recKey, hash uint64) bool {
	if pos := st.find(key, hash); pos >= 0 {
		old := st.ids[pos]
		if h.total > x.hyps[old].total {
			id := x.newHyp(h)
			if x.keepArcs {
				x.addArc(id, old)
			} else {
				x.free = append(x.free, old)
			}
			st.ids[pos] = id
			x.noteBest(st, h.total)
		} else if x.keepArcs {
			id := x.newHyp(h)
			x.addArc(old, id)
		}
		return false
	}
	id := x.newHyp(h)
	st.ids = append(st.ids, id)
	st.keys = append(st.keys, *key)
	st.hashes = append(st.hashes, hash)
	st.insert(len(st.ids) - 1)
	x.noteBest(st, h.total)
	if len(st.ids) > 2*x.stackSize-1 {
		x.prune(st, x.stackSize)
	}
	return true
}

func (x *searcher) noteBest(st *stack, total float64) {
	if total > st.best {
		st.best = total
		if st.best+x.beam > st.worst {
			st.worst = st.best + x.beam
		}
	}
}

// addArc makes loser an arc of winner, taking over the loser's arcs
// (Hypothesis::AddArc).
func (x *searcher) addArc(winner, loser int32) {
	wh, lh := &x.hyps[winner], &x.hyps[loser]
	if lh.arcHead >= 0 {
		if wh.arcHead < 0 {
			wh.arcHead, wh.arcTail = lh.arcHead, lh.arcTail
		} else {
			x.hyps[wh.arcTail].arcNext = lh.arcHead
			wh.arcTail = lh.arcTail
		}
		lh.arcHead, lh.arcTail = -1, -1
	}
	lh.arcNext = -1
	if wh.arcHead < 0 {
		wh.arcHead = loser
	} else {
		x.hyps[wh.arcTail].arcNext = loser
	}
	wh.arcTail = loser
}

// prune is HypothesisStackNormal::PruneToSize: when the stack holds more
// than size hypotheses, keep the best size of them that are within the
// beam of the best, and raise the stack's threshold to the worst kept.
func (x *searcher) prune(st *stack, size int) {
	if len(st.ids) <= size {
		return
	}
	x.sortStack(st)
	thr := st.best + x.beam
	keep := 0
	for keep < len(st.ids) && keep < size && x.hyps[st.ids[keep]].total > thr {
		keep++
	}
	if keep == size {
		st.worst = x.hyps[st.ids[keep-1]].total
	}
	for _, id := range st.ids[keep:] {
		x.release(id)
	}
	st.ids = st.ids[:keep]
	// The keys and hashes follow the sorted order of ids.
	st.keys = st.keys[:0]
	st.hashes = st.hashes[:0]
	var k recKey
	for _, id := range st.ids {
		x.keyOf(&k, &x.hyps[id])
		st.keys = append(st.keys, k)
		st.hashes = append(st.hashes, hashKey(&k))
	}
	if len(st.slots) > 0 {
		st.rehash(len(st.slots))
	}
}

// cleanupArcs is Hypothesis::CleanupArcList for lists of all derivations:
// an arc list longer than 5×n keeps its n best arcs.
func (x *searcher) cleanupArcs(id int32) {
	n := 0
	for a := x.hyps[id].arcHead; a >= 0; a = x.hyps[a].arcNext {
		n++
	}
	if n <= 5*x.arcLimit {
		return
	}
	arcs := x.sortBuf[:0]
	for a := x.hyps[id].arcHead; a >= 0; a = x.hyps[a].arcNext {
		arcs = append(arcs, a)
	}
	slices.SortFunc(arcs, x.byTotal)
	for _, a := range arcs[x.arcLimit:] {
		x.free = append(x.free, a)
	}
	arcs = arcs[:x.arcLimit]
	h := &x.hyps[id]
	h.arcHead, h.arcTail = arcs[0], arcs[len(arcs)-1]
	for i, a := range arcs {
		next := int32(-1)
		if i+1 < len(arcs) {
			next = arcs[i+1]
		}
		x.hyps[a].arcNext = next
	}
	x.sortBuf = arcs
}

// covTable interns the coverage bitmaps of one sentence and caches, for
// each, the number of covered words, the first gap and the future cost of
// the gaps (SquareMatrix::CalcFutureScore).
type covTable struct {
	words    int // uint64s per bitmap
	n        int
	fc       []float64
	bits     []uint64
	hashes   []uint64
	slots    []int32 // id+1; 0 empty
	count    []int
	firstGap []int
	future   []float64
	scratch  []uint64
}

func (c *covTable) reset(n int, fc []float64) {
	c.n, c.fc = n, fc
	c.words = max(1, (n+63)/64)
	c.bits = c.bits[:0]
	c.hashes = c.hashes[:0]
	c.count = c.count[:0]
	c.firstGap = c.firstGap[:0]
	c.future = c.future[:0]
	c.slots = resize(c.slots, 1024)
	c.scratch = resize(c.scratch, c.words)
}

func (c *covTable) get(id int32) []uint64 {
	return c.bits[int(id)*c.words : int(id+1)*c.words]
}

func (c *covTable) empty() int32 {
	clear(c.scratch)
	return c.intern(c.scratch)
}

// extend returns the id of coverage id plus [s, e].
func (c *covTable) extend(id int32, s, e int) int32 {
	copy(c.scratch, c.get(id))
	for i := s; i <= e; i++ {
		c.scratch[i>>6] |= 1 << (i & 63)
	}
	return c.intern(c.scratch)
}

func has(b []uint64, i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }

func hashBits(b []uint64) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, w := range b {
		h ^= w
		h *= 0xff51afd7ed558ccd
		h ^= h >> 32
	}
	return h
}

func (c *covTable) intern(b []uint64) int32 {
	h := hashBits(b)
	mask := len(c.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		sl := c.slots[i]
		if sl == 0 {
			break
		}
		id := sl - 1
		if c.hashes[id] == h && slices.Equal(c.get(id), b) {
			return id
		}
	}
	id := int32(len(c.hashes))
	c.bits = append(c.bits, b...)
	c.hashes = append(c.hashes, h)
	cnt, gap, fut := 0, c.n, 0.0
	for i, w := range b {
		cnt += bits.OnesCount64(w)
		if gap == c.n && w != ^uint64(0) {
			if g := i*64 + bits.TrailingZeros64(^w); g < c.n {
				gap = g
			}
		}
	}
	// The future cost of the maximal uncovered runs.
	for i := gap; i < c.n; {
		if has(b, i) {
			i++
			continue
		}
		j := i
		for j+1 < c.n && !has(b, j+1) {
			j++
		}
		fut += c.fc[i*c.n+j]
		i = j + 1
	}
	c.count = append(c.count, cnt)
	c.firstGap = append(c.firstGap, gap)
	c.future = append(c.future, fut)
	if 2*len(c.hashes) > len(c.slots) {
		c.grow()
	} else {
		for i := int(h) & mask; ; i = (i + 1) & mask {
			if c.slots[i] == 0 {
				c.slots[i] = id + 1
				break
			}
		}
	}
	return id
}

func (c *covTable) grow() {
	c.slots = make([]int32, 2*len(c.slots))
	mask := len(c.slots) - 1
	for id, h := range c.hashes {
		for i := int(h) & mask; ; i = (i + 1) & mask {
			if c.slots[i] == 0 {
				c.slots[i] = int32(id) + 1
				break
			}
		}
	}
}
