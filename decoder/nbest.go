package decoder

import (
	"slices"
	"strconv"
	"strings"

	"github.com/mtune/mtune/decoder/lm"
	"github.com/mtune/mtune/feature"
)

// nBestFactor is Moses' default n-best-factor: a distinct list looks at
// no more than this many derivations per hypothesis wanted.
const nBestFactor = 20

// tpath is a path through the search graph as Moses' TrellisPath: the
// path of its parent with node edge (counted from the final hypothesis)
// replaced by arc, followed by arc's own best predecessors. A path without
// parent is the best path ending in hypothesis arc.
type tpath struct {
	parent int32
	edge   int32
	arc    int32
	seq    int32
	score  float64
}

// kbest enumerates paths best first as Moses' Manager::CalcNBest does and
// returns the chosen ones, each as its hypotheses from the final one back
// to the empty one, with their scores.
func (x *searcher) kbest(final []int32, count int, distinct bool) ([][]int32, []float64) {
	var paths []tpath
	var heap []heapEntry
	push := func(p tpath) {
		id := int32(len(paths))
		paths = append(paths, p)
		heap = append(heap, heapEntry{p.score, id})
		heapUp(heap, len(heap)-1)
	}
	for _, h := range final {
		push(tpath{parent: -1, edge: -1, arc: h, score: x.hyps[h].total})
	}
	limit := count * nBestFactor
	var out [][]int32
	var scores []float64
	seen := map[string]bool{}
	var buf []int32
	var sb strings.Builder
	for iter := 0; len(out) < count && len(heap) > 0 && iter < limit; iter++ {
		p := heap[0].id
		last := len(heap) - 1
		heap[0] = heap[last]
		heap = heap[:last]
		heapDown(heap, 0)
		buf = x.pathNodes(buf, paths, p)
		from := 0
		if paths[p].parent >= 0 {
			from = int(paths[p].edge) + 1
		}
		for i := from; i < len(buf); i++ {
			win := buf[i]
			for a := x.hyps[win].arcHead; a >= 0; a = x.hyps[a].arcNext {
				push(tpath{parent: p, edge: int32(i), arc: a,
					score: paths[p].score - x.hyps[win].total + x.hyps[a].total})
			}
		}
		// Moses prunes the contenders after each step; no more than the
		// remaining steps can be popped, so the contenders beyond that
		// many best ones never are: dropping them now and then changes
		// nothing.
		if rest := limit - iter - 1; len(heap) > 2*rest+1024 {
			selectBest(heap, rest)
			heap = heap[:rest]
			for i := len(heap)/2 - 1; i >= 0; i-- {
				heapDown(heap, i)
			}
		}
		if distinct {
			sb.Reset()
			x.appendTarget(&sb, buf)
			t := sb.String()
			if seen[t] {
				continue
			}
			seen[t] = true
		}
		out = append(out, slices.Clone(buf))
		scores = append(scores, paths[p].score)
	}
	return out, scores
}

// heapEntry is a contender path in kbest's max-heap: better score first,
// then older first.
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

// chain returns the hypotheses from id back to the empty one.
func (x *searcher) chain(dst []int32, id int32) []int32 {
	dst = dst[:0]
	for h := id; h >= 0; h = x.hyps[h].prev {
		dst = append(dst, h)
	}
	return dst
}

// appendTarget writes the target words of the path nodes (final first).
func (x *searcher) appendTarget(sb *strings.Builder, nodes []int32) {
	first := true
	for i := len(nodes) - 1; i >= 0; i-- {
		h := &x.hyps[nodes[i]]
		if h.opt < 0 {
			continue
		}
		o := &x.st.opts[h.opt]
		for j := 0; j < int(o.tLen); j++ {
			if !first {
				sb.WriteByte(' ')
			}
			first = false
			sb.WriteString(x.targetWord(o, j))
		}
	}
}

func (x *searcher) targetWord(o *transOpt, j int) string {
	if o.opt < 0 {
		return x.st.words[o.s]
	}
	return x.m.pt.TargetVocab().Word(x.m.pt.Target(o.opt)[j])
}

// Segment is a phrase of a translation: source words [SrcStart, SrcEnd]
// translated as target words [TgtStart, TgtEnd] (TgtEnd = TgtStart-1 for
// an empty target).
type Segment struct {
	SrcStart, SrcEnd int
	TgtStart, TgtEnd int
	// Unknown marks a source word passed through untranslated.
	Unknown bool
}

// AlignPoint is a word alignment point of a translation: source word Src
// is aligned to target word Tgt (sentence positions).
type AlignPoint struct{ Src, Tgt int }

// Hypothesis is a translation with its derivation.
type Hypothesis struct {
	// Target is the translation, words separated by single spaces.
	Target string
	// Features holds every feature value of the derivation over the
	// model's Index: the dense ones (tuneable or not) and the sparse ones.
	// Score = Features · weights.
	Features feature.Vector
	// Score is the model score.
	Score float64
	// Segments are the phrases in target order.
	Segments []Segment
	// Alignment is the word alignment, from the phrase pairs' alignments,
	// in target phrase order.
	Alignment []AlignPoint
}

// SegmentationString formats the segmentation as Moses'
// include-segmentation-in-n-best does: "0=0 1-3=1-2 …", source range =
// target range for each phrase in target order.
func (h *Hypothesis) SegmentationString() string {
	var b []byte
	for i, s := range h.Segments {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendRange(b, s.SrcStart, s.SrcEnd)
		b = appendRange(append(b, '='), s.TgtStart, s.TgtEnd)
	}
	return string(b)
}

// appendRange appends "start" or, when end > start, "start-end".
func appendRange(b []byte, start, end int) []byte {
	b = strconv.AppendInt(b, int64(start), 10)
	if end > start {
		b = strconv.AppendInt(append(b, '-'), int64(end), 10)
	}
	return b
}

// AlignmentString formats the word alignment as Moses'
// print-alignment-info-in-n-best does: "src-tgt" pairs.
func (h *Hypothesis) AlignmentString() string {
	var b []byte
	for i, a := range h.Alignment {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(a.Src), 10)
		b = strconv.AppendInt(append(b, '-'), int64(a.Tgt), 10)
	}
	return string(b)
}

// hypothesis replays the derivation nodes (final first) and returns it as
// a Hypothesis with its features. score is the path's model score.
func (x *searcher) hypothesis(nodes []int32, score float64) Hypothesis {
	m := x.m
	vals := x.denseBuf()
	off := m.denseOff
	var b feature.Builder
	var sb strings.Builder
	var out Hypothesis
	out.Score = score
	tgtPos := 0
	var lmState lm.State
	if m.lm != nil {
		lmState = m.lm.BeginSentence()
	}
	first := true
	for i := len(nodes) - 2; i >= 0; i-- {
		prev := &x.hyps[nodes[i+1]]
		h := &x.hyps[nodes[i]]
		o := &x.st.opts[h.opt]
		s, e := int(o.s), int(o.e)
		complete := x.covs.count[h.cov] == x.st.n
		if o.opt >= 0 {
			tm := off[m.fTM]
			ns := m.pt.NumScores()
			for j, v := range m.optLogs[int(o.opt)*ns : int(o.opt)*ns+ns] {
				vals[tm+j] += float64(v)
			}
		} else if m.fUWP >= 0 {
			vals[off[m.fUWP]] += -100
		}
		if m.fWP >= 0 {
			vals[off[m.fWP]] -= float64(o.tLen)
		}
		if m.fPP >= 0 {
			vals[off[m.fPP]]++
		}
		if m.fLM >= 0 {
			var next lm.State
			ctx := x.lmContext(&next, &lmState, o, complete)
			lmState = next
			vals[off[m.fLM]] += float64(o.ngram) + float64(ctx)
		}
		if m.fDist >= 0 {
			vals[off[m.fDist]] += distortion(x.early, int(prev.s), int(prev.e), x.covs.firstGap[prev.cov], s, e)
		}
		if m.fLR >= 0 {
			lr := &m.lr
			base := off[m.fLR]
			var ori int
			if prev.opt < 0 {
				ori = lr.orientFirst(s)
			} else {
				ori = lr.orient(int(prev.s), int(prev.e), s, e)
				if p := x.st.opts[prev.opt].lr; lr.fwd && p != nil {
					vals[base+lr.offF+ori] += float64(p[lr.offF+ori])
				}
			}
			if lr.back && o.lr != nil {
				vals[base+lr.offB+ori] += float64(o.lr[lr.offB+ori])
			}
		}
		if m.tmpl.any() {
			x.sparseFeatures(&b, prev, h, o)
		}
		// Output: words, segment, alignment.
		for j := 0; j < int(o.tLen); j++ {
			if !first {
				sb.WriteByte(' ')
			}
			first = false
			sb.WriteString(x.targetWord(o, j))
		}
		out.Segments = append(out.Segments, Segment{SrcStart: s, SrcEnd: e,
			TgtStart: tgtPos, TgtEnd: tgtPos + int(o.tLen) - 1, Unknown: o.opt < 0})
		if o.opt >= 0 {
			al := m.pt.Alignment(o.opt)
			k0 := len(out.Alignment)
			for k := 0; k < al.Len(); k++ {
				si, ti := al.At(k)
				out.Alignment = append(out.Alignment, AlignPoint{Src: s + si, Tgt: tgtPos + ti})
			}
			pts := out.Alignment[k0:]
			slices.SortFunc(pts, func(a, b AlignPoint) int {
				if a.Src != b.Src {
					return a.Src - b.Src
				}
				return a.Tgt - b.Tgt
			})
		} else {
			out.Alignment = append(out.Alignment, AlignPoint{Src: s, Tgt: tgtPos})
		}
		tgtPos += int(o.tLen)
	}
	for fi, f := range m.feats {
		for j, id := range f.ids {
			b.Add(id, vals[off[fi]+j])
		}
	}
	out.Target = sb.String()
	out.Features = b.Vector()
	return out
}

func (x *searcher) denseBuf() []float64 {
	x.dense = resize(x.dense, x.m.denseLen)
	return x.dense
}

// sparseFeatures adds the sparse features of option o placed after prev.
func (x *searcher) sparseFeatures(b *feature.Builder, prev, h *hyp, o *transOpt) {
	m := x.m
	ori := msdOrient(int(prev.s), int(prev.e), int(o.s), int(o.e))
	if m.tmpl.Reordering && prev.opt >= 0 {
		if p := &x.st.opts[prev.opt]; p.opt >= 0 {
			psrc := x.st.words[p.s : p.e+1]
			b.Add(m.index.ID(string(m.loName(&x.sb, psrc, p.opt, msdFwd(ori)))), 1)
		}
	}
	if o.opt < 0 {
		return
	}
	src := x.st.words[o.s : o.e+1]
	m.eachStatic(&x.sb, src, o.opt, func(name []byte) {
		b.Add(m.index.ID(string(name)), 1)
	})
	if m.tmpl.Reordering {
		cb, cm := msdBack(ori)
		b.Add(m.index.ID(string(m.loName(&x.sb, src, o.opt, cb))), 1)
		b.Add(m.index.ID(string(m.loName(&x.sb, src, o.opt, cm))), 1)
	}
}
