package decoder

import (
	"math"

	"github.com/mtune/mtune/decoder/lm"
	"github.com/mtune/mtune/decoder/model"
)

// transOpt is a translation option of one sentence: a phrase-table option
// (or an unknown word passed through) for a source span.
type transOpt struct {
	s, e   int16 // source span [s, e]
	opt    int32 // phrase-table option; -1 for an unknown word
	tOff   int32 // target LM ids: sentence.tgt[tOff : tOff+tLen]
	tLen   int32
	static float64 // weighted score in isolation without the LM estimate
	future float64 // static + weighted LM estimate (Moses' future score)
	ngram  float32 // LM score inside the phrase (ln)
	// pre is the earlier option of the same span whose target shares the
	// longest prefix (preK words, up to order-1) with this one's; -1 none.
	pre  int16
	preK int8
	lr   []float32
	// end is the LM state after the phrase when tLen ≥ order-1: it does
	// not depend on the words before the phrase.
	end lm.State
}

// sentence is one input with its translation options and future costs.
type sentence struct {
	words  []string
	n      int
	srcIDs []int32
	opts   []transOpt
	// spans[s*maxLen+l-1] is the end of the options of span (s, length l);
	// they start where the previous span's end.
	spanEnd []int32
	maxLen  int
	tgt     []lm.WordID
	fc      []float64 // future cost of span [s, e] at s*n+e
	lo      []float64 // lo-template weights, numLO per option (nil when off)
}

// span returns the options of [s, s+l).
func (st *sentence) span(s, l int) []transOpt {
	k := s*st.maxLen + l - 1
	start := int32(0)
	if k > 0 {
		start = st.spanEnd[k-1]
	}
	return st.opts[start:st.spanEnd[k]]
}

// spanStart returns the index in opts of the first option of [s, s+l).
func (st *sentence) spanStart(s, l int) int32 {
	k := s*st.maxLen + l - 1
	if k == 0 {
		return 0
	}
	return st.spanEnd[k-1]
}

func (st *sentence) target(o *transOpt) []lm.WordID { return st.tgt[o.tOff : o.tOff+o.tLen] }

// collect builds the translation options of words into st (reusing its
// buffers): every phrase-table option of every span up to the maximum
// phrase length, and an unknown-word option for each word without a
// one-word option (TranslationOptionCollection::ProcessUnknownWord).
func (m *Model) collect(st *sentence, words []string, w *dense, sb *sparseScratch) {
	n := len(words)
	st.words, st.n = words, n
	st.maxLen = max(1, min(m.maxLen, m.pt.MaxSourceLen(), n))
	st.srcIDs = st.srcIDs[:0]
	sv := m.pt.SourceVocab()
	for _, w := range words {
		id, ok := sv.ID(w)
		if !ok {
			id = -1
		}
		st.srcIDs = append(st.srcIDs, id)
	}
	st.opts = st.opts[:0]
	st.tgt = st.tgt[:0]
	st.spanEnd = resize(st.spanEnd, n*st.maxLen)
	loOn := m.tmpl.Reordering && w.sparse
	st.lo = st.lo[:0]
	ns := m.pt.NumScores()
	order := 0
	if m.lm != nil {
		order = m.lm.Order()
	}
	for s := 0; s < n; s++ {
		for l := 1; l <= st.maxLen; l++ {
			k := s*st.maxLen + l - 1
			if s+l <= n && !hasNeg(st.srcIDs[s:s+l]) {
				a, b := m.pt.Lookup(st.srcIDs[s : s+l])
				for o := a; o < b; o++ {
					to := transOpt{s: int16(s), e: int16(s + l - 1), opt: o, tOff: int32(len(st.tgt)), pre: -1}
					for _, t := range m.pt.Target(o) {
						st.tgt = append(st.tgt, m.tgtLM[t])
					}
					to.tLen = int32(len(st.tgt)) - to.tOff
					logs := m.optLogs[int(o)*ns : int(o)*ns+ns]
					sc := 0.0
					for j, x := range logs {
						sc += w.tm[j] * float64(x)
					}
					sc += w.wp*float64(-to.tLen) + w.pp + w.lm*float64(m.optLMNgram[o])
					if m.tmpl.static() && w.sparse {
						sc += m.staticSparseWeight(sb, words[s:s+l], o, w.all)
					}
					to.static = sc
					to.future = sc + w.lm*float64(m.optLMEst[o])
					to.ngram = m.optLMNgram[o]
					if m.fLR >= 0 {
						if m.optHasLR[o/64]&(1<<(o%64)) != 0 {
							to.lr = m.optLR[int(o)*m.lr.n : int(o)*m.lr.n+m.lr.n]
						} else {
							to.lr = m.lr.def
						}
					}
					st.opts = append(st.opts, to)
					if loOn {
						for c := range numLO {
							st.lo = append(st.lo, m.loWeight(sb, words[s:s+l], o, c, w))
						}
					}
				}
			}
			if l == 1 && (k == 0 && len(st.opts) == 0 || k > 0 && int(st.spanEnd[k-1]) == len(st.opts)) {
				m.addUnknown(st, s, w)
				if loOn {
					for range numLO {
						st.lo = append(st.lo, 0)
					}
				}
			}
			st.spanEnd[k] = int32(len(st.opts))
		}
	}
	if m.lm != nil {
		m.prefixes(st, order-1)
		for i := range st.opts {
			o := &st.opts[i]
			if int(o.tLen) >= order-1 {
				var buf [2]lm.State // NullContext, then ScoreTo in turn
				c := 0
				for _, id := range st.target(o) {
					m.lm.ScoreTo(&buf[1-c], &buf[c], id)
					c = 1 - c
				}
				o.end = buf[c]
			}
		}
	}
	m.futureCosts(st)
}

// prefixes links each option to the earlier option of its span with the
// longest common target prefix of at most k words, so that the search
// scores shared prefixes in context once.
func (m *Model) prefixes(st *sentence, k int) {
	for s := 0; s < st.n; s++ {
		for l := 1; l <= st.maxLen; l++ {
			opts := st.span(s, l)
			for i := range opts {
				o := &opts[i]
				o.pre, o.preK = -1, 0
				ti := st.target(o)
				lim := min(k, len(ti))
				for j := 0; j < i && int(o.preK) < lim; j++ {
					tj := st.target(&opts[j])
					c := 0
					for c < lim && c < len(tj) && ti[c] == tj[c] {
						c++
					}
					if c > int(o.preK) {
						o.pre, o.preK = int16(j), int8(c)
					}
				}
			}
		}
	}
}

// addUnknown adds the pass-through option of word s: the source word as
// target, UnknownWordPenalty = LOWEST_SCORE (-100), no phrase-table scores.
func (m *Model) addUnknown(st *sentence, s int, w *dense) {
	to := transOpt{s: int16(s), e: int16(s), opt: -1, tOff: int32(len(st.tgt)), tLen: 1, pre: -1}
	id := lm.Unknown
	if m.lm != nil {
		id = m.lm.Index(st.words[s])
	}
	st.tgt = append(st.tgt, id)
	var est, ngram float32
	if m.lm != nil {
		est, ngram = mosesPhraseScore(m.lm, st.tgt[to.tOff:])
	}
	to.static = w.uwp*model.LowestScore + w.wp*-1 + w.pp + w.lm*float64(ngram)
	to.future = to.static + w.lm*float64(est)
	to.ngram = ngram
	if m.fLR >= 0 {
		to.lr = m.lr.def
	}
	st.opts = append(st.opts, to)
}

func (m *Model) loWeight(sb *sparseScratch, src []string, o int32, c int, w *dense) float64 {
	if id, ok := m.index.Lookup(string(m.loName(sb, src, o, c))); ok {
		return w.all.At(id)
	}
	return 0
}

func hasNeg(ids []int32) bool {
	for _, id := range ids {
		if id < 0 {
			return true
		}
	}
	return false
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// futureCosts fills st.fc as Moses' TranslationOptionCollection::
// CalcFutureScore does: the best option's future score of each span, then
// the best split of each longer span.
func (m *Model) futureCosts(st *sentence) {
	n := st.n
	st.fc = resize(st.fc, n*n)
	inf := math.Inf(-1)
	for i := range st.fc {
		st.fc[i] = inf
	}
	for i := range st.opts {
		o := &st.opts[i]
		k := int(o.s)*n + int(o.e)
		if o.future > st.fc[k] {
			st.fc[k] = o.future
		}
	}
	for width := 1; width < n; width++ {
		for s := 0; s+width < n; s++ {
			e := s + width
			best := st.fc[s*n+e]
			for j := s; j < e; j++ {
				if x := st.fc[s*n+j] + st.fc[(j+1)*n+e]; x > best {
					best = x
				}
			}
			st.fc[s*n+e] = best
		}
	}
}
