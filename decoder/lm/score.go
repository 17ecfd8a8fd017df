package lm

import "math"

// Ln10 converts log10 scores to the natural-log scores of Moses' KENLM
// feature: Moses reports log10 p × ln 10.
const Ln10 = math.Ln10

// State is the language-model context of a hypothesis, minimised as KenLM
// does: it keeps the last k words for the largest k such that the model
// lists the k-gram ending at the last word and that k-gram has a non-zero
// back-off or is the context of a (k+1)-gram (words further back cannot
// change any later score). KenLM, which fills in missing lower-order
// n-grams of pruned models, may keep a longer state there; scores are the
// same. Two
// hypotheses whose States are equal (==) give every continuation the same
// score, so State is the language model's part of a recombination key; it
// is a small comparable value and can be a map key.
//
// Element k describes the (k+1)-gram ending at the last word: ctx[k] is its
// slot in the model's table of order k+1 (for k = 0 the word id itself, so
// the slots identify the words exactly) and bo[k] its back-off, cached as
// KenLM's state caches it. A slot of -1 marks a k-gram the model lacks
// between longer ones it has. Entries at and beyond Len are zero. A State
// belongs to the Model that made it.
type State struct {
	ctx [MaxOrder - 1]int32
	bo  [MaxOrder - 1]float32
	n   uint8
}

// Len returns the number of context words the state keeps.
func (s State) Len() int { return int(s.n) }

// NullContext returns the empty state: no context at all, the state of a
// phrase scored in isolation. It is the zero State.
func (m *Model) NullContext() State { return State{} }

// BeginSentence returns the state after <s>: the context of a sentence's
// first word. Like KenLM it keeps <s> even when no n-gram extends it.
func (m *Model) BeginSentence() State {
	var s State
	s.ctx[0] = int32(m.bos)
	s.bo[0] = m.backoff[m.bos]
	s.n = 1
	return s
}

// Words returns the context words a state keeps, most recent last.
func (m *Model) Words(s State) []WordID {
	out := make([]WordID, s.n)
	// The longest kept n-gram names all the words: walk its contexts.
	k := int(s.n) - 1
	if k < 0 {
		return out
	}
	slot := s.ctx[k]
	for j := k; j >= 1; j-- {
		var e midEntry
		if j+1 == m.order {
			t := m.top.e[slot]
			e = midEntry{ctx: t.ctx, word: t.word}
		} else {
			e = m.mid[j-1].e[slot]
		}
		out[j] = WordID(e.word - 1)
		slot = e.ctx
	}
	out[0] = WordID(slot)
	// out holds the (k+1)-gram in reading order.
	return out
}

// Score returns log10 p(w | context of st) and the state after w, as
// KenLM's FullScore: the probability of the longest n-gram ending in w
// that the model lists, plus the back-offs of the longer contexts. A word
// outside the vocabulary (w < 0 or ≥ Vocab().Len()) scores as <unk>.
func (m *Model) Score(st State, w WordID) (float32, State) {
	p, _, next := m.FullScore(st, w)
	return p, next
}

// FullScore is Score that also returns the length of the n-gram matched
// (1 for a unigram). The length counts n-grams the model lists; KenLM also
// counts the missing lower-order n-grams it fills in for pruned models
// ("blanks"), with the same probability.
func (m *Model) FullScore(st State, w WordID) (prob float32, length int, next State) {
	prob, length = m.fullScore(&next, &st, w)
	return prob, length, next
}

// ScoreTo is Score writing the state after w to *next, which must not be
// st: a search that scores many words in turn passes two States back and
// forth instead of copying them.
func (m *Model) ScoreTo(next, st *State, w WordID) float32 {
	p, _ := m.fullScore(next, st, w)
	return p
}

// fullScore is FullScore writing the state after w to *next (not st).
func (m *Model) fullScore(next, st *State, w WordID) (prob float32, length int) {
	if w < 0 || int(w) >= len(m.prob) {
		w = Unknown
	}
	prob = m.prob[w]
	length = 1
	next.ctx[0] = int32(w)
	next.bo[0] = m.backoff[w]
	next.n = 0
	if extends(next.bo[0]) {
		next.n = 1
	}
	L := min(int(st.n), m.order-1)
	for k := 0; k < L; k++ {
		// The (k+2)-gram: context st.ctx[k], then w. A context with back-off
		// -0 is nobody's context: no n-gram extends it.
		if !extends(st.bo[k]) {
			if !m.open {
				break // nor any longer one: its suffix would be this one
			}
			next.ctx[k+1], next.bo[k+1] = -1, negZero
			continue
		}
		n := k + 2
		if n == m.order {
			if i := m.top.find(st.ctx[k], w); i >= 0 {
				prob, length = m.top.e[i].prob, n
			}
			break
		}
		t := &m.mid[k]
		i := t.find(st.ctx[k], w)
		if i < 0 {
			if !m.open {
				break
			}
			next.ctx[k+1], next.bo[k+1] = -1, negZero
			continue
		}
		e := &t.e[i]
		prob, length = e.prob, n
		next.ctx[k+1], next.bo[k+1] = i, e.backoff
		if extends(e.backoff) {
			next.n = uint8(n)
		}
	}
	for j := length - 1; j < L; j++ {
		prob += st.bo[j]
	}
	// Entries at and beyond n are zero (whatever *next held before).
	for j := int(next.n); j < len(next.ctx); j++ {
		next.ctx[j], next.bo[j] = 0, 0
	}
	return prob, length
}

// EndSentence returns log10 p(</s> | context of st).
func (m *Model) EndSentence(st State) float32 {
	p, _ := m.Score(st, m.eos)
	return p
}

// ScoreWords scores words in turn from st and returns the sum of their
// log10 probabilities and the final state.
func (m *Model) ScoreWords(st State, words []WordID) (float64, State) {
	var sum float64
	for _, w := range words {
		var p float32
		p, st = m.Score(st, w)
		sum += float64(p)
	}
	return sum, st
}

// SentenceScore returns log10 p(words </s> | <s>): the words scored from
// BeginSentence, then EndSentence. <s> itself is not scored.
func (m *Model) SentenceScore(words []WordID) float64 {
	sum, st := m.ScoreWords(m.BeginSentence(), words)
	return sum + float64(m.EndSentence(st))
}

// MosesScore returns the value Moses' KENLM feature (LM0= in its n-best
// lists) has for a complete translation: SentenceScore × ln 10. Moses does
// not score <s> and scores </s> when the source is covered.
func (m *Model) MosesScore(words []WordID) float64 {
	return m.SentenceScore(words) * Ln10
}

// PhraseScore scores a target phrase in isolation as Moses'
// LanguageModel::CalcScore does with a KenLM model: the words are scored
// left to right from NullContext (the first word by its unigram
// probability, the second given the first, …: lower-order estimates with no
// back-off charged for the unknown context to the left). estimate is the sum
// over the first min(Order()-1, len(words)) words, whose score depends on
// the context the phrase will get; ngram is the sum over the remaining
// words, which have their full context inside the phrase and score exactly.
// Moses adds ngram×ln10 to the hypothesis when the phrase is applied and
// uses estimate×ln10 in the future cost; applying the phrase rescoring the
// first words in context then gives SentenceScore exactly. A phrase that
// begins with <s> is scored from BeginSentence from its second word on.
//
// Sums are float32, as in Moses, and ngram is full-estimate as Moses
// computes it. (KenLM's RuleScore adds "rest" costs for the first words;
// for the probing models read from ARPA files they equal these
// probabilities.)
func (m *Model) PhraseScore(words []WordID) (estimate, ngram float32) {
	// Two states in turn (ScoreTo): buf[c] is the context.
	var buf [2]State
	c := 0
	pos := 0
	if len(words) > 0 && words[0] == m.bos {
		buf[0] = m.BeginSentence()
		pos = 1
	}
	var full float32
	boundary := min(m.order-1, len(words))
	for ; pos < boundary; pos++ {
		full += m.ScoreTo(&buf[1-c], &buf[c], words[pos])
		c = 1 - c
	}
	estimate = full
	for ; pos < len(words); pos++ {
		full += m.ScoreTo(&buf[1-c], &buf[c], words[pos])
		c = 1 - c
	}
	return estimate, full - estimate
}
