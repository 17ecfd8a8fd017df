package decoder

import (
	"slices"
	"strconv"

	"github.com/mtune/mtune/decoder/lm"
	"github.com/mtune/mtune/feature"
)

// chain returns the hypotheses from id back to the empty one.
func (x *searcher) chain(dst []int32, id int32) []int32 {
	dst = dst[:0]
	for h := id; h >= 0; h = x.hyps[h].prev {
		dst = append(dst, h)
	}
	return dst
}

// appendTarget appends the target words of the path nodes (final first),
// separated by single spaces: a hypothesis' Target.
func (x *searcher) appendTarget(dst []byte, nodes []int32) []byte {
	first := true
	for i := len(nodes) - 1; i >= 0; i-- {
		h := &x.hyps[nodes[i]]
		if h.opt < 0 {
			continue
		}
		o := &x.st.opts[h.opt]
		for j := 0; j < int(o.tLen); j++ {
			if !first {
				dst = append(dst, ' ')
			}
			first = false
			dst = append(dst, x.targetWord(o, j)...)
		}
	}
	return dst
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
// a Hypothesis with its features. score is the path's model score, target
// its words (appendTarget).
func (x *searcher) hypothesis(nodes []int32, score float64, target string) Hypothesis {
	m := x.m
	vals := x.denseBuf()
	off := m.denseOff
	b := &x.fb
	out := Hypothesis{Target: target, Score: score}
	if len(nodes) > 1 {
		out.Segments = make([]Segment, 0, len(nodes)-1)
	}
	tgtPos := 0
	var lmState lm.State
	if m.lm != nil {
		lmState = m.lm.BeginSentence()
	}
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
			x.sparseFeatures(b, prev, h, o)
		}
		// Output: segment, alignment.
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
	out.Features = b.Vector()
	return out
}

func (x *searcher) denseBuf() []float64 {
	x.dense = resize(x.dense, x.m.denseLen)
	return x.dense
}

// sparseFeatures adds the sparse features of option h.opt placed after
// prev. Their ids come from x.ids, interned once a sentence.
func (x *searcher) sparseFeatures(b *feature.Builder, prev, h *hyp, o *transOpt) {
	m := x.m
	ori := msdOrient(int(prev.s), int(prev.e), int(o.s), int(o.e))
	if m.tmpl.Reordering && prev.opt >= 0 && x.st.opts[prev.opt].opt >= 0 {
		b.Add(x.loID(prev.opt, msdFwd(ori)), 1)
	}
	if o.opt < 0 {
		return
	}
	for _, id := range x.staticIDs(h.opt) {
		b.Add(id, 1)
	}
	if m.tmpl.Reordering {
		cb, cm := msdBack(ori)
		b.Add(x.loID(h.opt, cb), 1)
		b.Add(x.loID(h.opt, cm), 1)
	}
}
