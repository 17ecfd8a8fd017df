package lm

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/mtune/mtune/internal/textpos"
)

// ARPA is an n-gram model as an ARPA file lists it: what Estimate makes,
// WriteARPA writes, NewModel loads and Model.ARPA exports.
type ARPA struct {
	// Words is the vocabulary; the n-grams refer to words by index in it.
	Words []string
	// Orders[k] holds the (k+1)-grams, in the order they are written.
	Orders []NGrams
	// Discounts[k] are the Kneser–Ney discounts of order k+1 when Estimate
	// made the model; nil otherwise.
	Discounts []Discount
}

// NGrams are the n-grams of one order in flat arrays.
type NGrams struct {
	// Words holds n indices into ARPA.Words per n-gram.
	Words []int32
	// Prob holds the log10 probabilities.
	Prob []float32
	// Backoff holds the log10 back-offs (0: none). It is nil for the
	// highest order, which has none.
	Backoff []float32
}

// Len returns the number of n-grams.
func (g *NGrams) Len() int { return len(g.Prob) }

// Order returns the order of the model.
func (a *ARPA) Order() int { return len(a.Orders) }

// Counts returns the number of n-grams of each order.
func (a *ARPA) Counts() []int {
	c := make([]int, len(a.Orders))
	for i := range a.Orders {
		c[i] = a.Orders[i].Len()
	}
	return c
}

// check reports an inconsistent ARPA value.
func (a *ARPA) check() error {
	if len(a.Orders) == 0 || len(a.Orders) > MaxOrder {
		return fmt.Errorf("lm: %w: order %d", ErrOrder, len(a.Orders))
	}
	for k := range a.Orders {
		g := &a.Orders[k]
		n := k + 1
		if len(g.Words) != n*len(g.Prob) {
			return fmt.Errorf("lm: %d-grams: %d word indices for %d n-grams", n, len(g.Words), len(g.Prob))
		}
		if n < len(a.Orders) && len(g.Backoff) != len(g.Prob) {
			return fmt.Errorf("lm: %d-grams: %d back-offs for %d n-grams", n, len(g.Backoff), len(g.Prob))
		}
		for _, w := range g.Words {
			if w < 0 || int(w) >= len(a.Words) {
				return fmt.Errorf("lm: %d-grams: word index %d out of range", n, w)
			}
		}
		for i, p := range g.Prob {
			if !isFinite(p) || (n < len(a.Orders) && !isFinite(g.Backoff[i])) {
				return fmt.Errorf("lm: %d-grams: %w: not finite", n, ErrNumber)
			}
		}
	}
	return nil
}

// appendFloat formats f as KenLM's lmplz does: the shortest decimal that
// reads back as the same float32, zero as "0", exponent notation below
// 1e-6.
func appendFloat(b []byte, f float32) []byte {
	if f == 0 {
		return append(b, '0')
	}
	if a := math.Abs(float64(f)); a < 1e-6 {
		return strconv.AppendFloat(b, float64(f), 'e', -1, 32)
	}
	return strconv.AppendFloat(b, float64(f), 'f', -1, 32)
}

// WriteARPA writes a in the ARPA format: the \data\ counts, then each order
// in the order a lists it, back-offs on every order but the highest (0 when
// none, as lmplz writes them), then \end\.
func WriteARPA(w io.Writer, a *ARPA) error {
	if err := a.check(); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	b := []byte("\\data\\\n")
	for k := range a.Orders {
		b = fmt.Appendf(b, "ngram %d=%d\n", k+1, a.Orders[k].Len())
	}
	for k := range a.Orders {
		g := &a.Orders[k]
		n := k + 1
		b = fmt.Appendf(b, "\n\\%d-grams:\n", n)
		for i := range g.Prob {
			b = appendFloat(b, g.Prob[i])
			b = append(b, '\t')
			for j, id := range g.Words[i*n : (i+1)*n] {
				if j > 0 {
					b = append(b, ' ')
				}
				b = append(b, a.Words[id]...)
			}
			if n < len(a.Orders) {
				b = append(b, '\t')
				b = appendFloat(b, g.Backoff[i])
			}
			b = append(b, '\n')
			if len(b) > 1<<15 {
				if _, err := bw.Write(b); err != nil {
					return fmt.Errorf("lm: write: %w", err)
				}
				b = b[:0]
			}
		}
	}
	b = append(b, "\n\\end\\\n"...)
	if _, err := bw.Write(b); err != nil {
		return fmt.Errorf("lm: write: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("lm: write: %w", err)
	}
	return nil
}

// NewModel builds a Model from a, as Read would from the file WriteARPA
// writes. opts may be nil; only UnknownLogProb counts. Errors name the
// order and index of the offending n-gram.
func NewModel(a *ARPA, opts *Options) (*Model, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	unk := float32(DefaultUnknownLogProb)
	if opts != nil && opts.UnknownLogProb != 0 {
		unk = opts.UnknownLogProb
	}
	counts := a.Counts()
	b := newBuilder(counts, unk)
	top := len(counts) == 1
	ids := make([]WordID, len(a.Words))
	for i := range ids {
		ids[i] = -1
	}
	g := &a.Orders[0]
	for i, p := range g.Prob {
		var bo float32
		if !top {
			bo = g.Backoff[i]
		}
		if p > 0 {
			return nil, fmt.Errorf("lm: 1-gram %d: %w: positive log probability", i, ErrNumber)
		}
		word := a.Words[g.Words[i]]
		if err := b.unigram([]byte(word), p, bo); err != nil {
			return nil, fmt.Errorf("lm: 1-gram %d: %w", i, err)
		}
		ids[g.Words[i]] = b.m.vocab.Index(word)
	}
	if err := b.finishUnigrams(); err != nil {
		return nil, fmt.Errorf("lm: %w", err)
	}
	words := make([]WordID, 0, MaxOrder)
	for k := 1; k < len(a.Orders); k++ {
		n := k + 1
		g := &a.Orders[k]
		b.start(n)
		for i, p := range g.Prob {
			if p > 0 {
				return nil, fmt.Errorf("lm: %d-gram %d: %w: positive log probability", n, i, ErrNumber)
			}
			words = words[:0]
			for _, x := range g.Words[i*n : (i+1)*n] {
				if ids[x] < 0 {
					return nil, fmt.Errorf("lm: %d-gram %d: %w: %s", n, i, ErrUnknownWord, textpos.Quote(a.Words[x]))
				}
				words = append(words, ids[x])
			}
			var bo float32
			if n < len(a.Orders) {
				bo = g.Backoff[i]
			}
			if err := b.add(words, p, bo); err != nil {
				return nil, fmt.Errorf("lm: %d-gram %d: %w", n, i, err)
			}
		}
		b.finish(n)
	}
	return b.m, nil
}

// ARPA exports the model: its vocabulary (by WordID; <unk> is listed only
// if the model lists it), the 1-grams by id and each higher order sorted as
// lmplz writes them, by last word, then the word before, and so on.
func (m *Model) ARPA() *ARPA {
	a := &ARPA{Words: make([]string, m.vocab.Len()), Orders: make([]NGrams, m.order)}
	for i := range a.Words {
		a.Words[i] = m.vocab.Word(WordID(i))
	}
	top := m.order == 1
	u := &a.Orders[0]
	for id := range m.prob {
		if id == 0 && !m.hasUnk {
			continue
		}
		u.Words = append(u.Words, int32(id))
		u.Prob = append(u.Prob, m.prob[id])
		if !top {
			u.Backoff = append(u.Backoff, m.backoff[id]+0)
		}
	}
	// words[s] of the previous order: the n-gram in slot s.
	prev := make([][]int32, len(m.prob))
	for id := range prev {
		prev[id] = []int32{int32(id)}
	}
	for n := 2; n <= m.order; n++ {
		g := &a.Orders[n-1]
		var slots int
		if n == m.order {
			slots = len(m.top.e)
		} else {
			slots = len(m.mid[n-2].e)
		}
		cur := make([][]int32, slots)
		var order []int
		for s := 0; s < slots; s++ {
			var ctx, word int32
			var p, bo float32
			if n == m.order {
				e := m.top.e[s]
				ctx, word, p = e.ctx, e.word, e.prob
			} else {
				e := m.mid[n-2].e[s]
				ctx, word, p, bo = e.ctx, e.word, e.prob, e.backoff+0
			}
			if word == 0 {
				continue
			}
			ws := append(append(make([]int32, 0, n), prev[ctx]...), word-1)
			cur[s] = ws
			order = append(order, len(g.Prob))
			g.Words = append(g.Words, ws...)
			g.Prob = append(g.Prob, p)
			if n < m.order {
				g.Backoff = append(g.Backoff, bo)
			}
		}
		sortSuffix(g, n, order)
		prev = cur
	}
	return a
}

// sortSuffix sorts the n-grams of g (n words each) by last word, then the
// word before, … (lmplz's suffix order); perm is scratch of length Len.
func sortSuffix(g *NGrams, n int, perm []int) {
	for i := range perm {
		perm[i] = i
	}
	w := g.Words
	slices.SortFunc(perm, func(x, y int) int {
		a, b := w[x*n:(x+1)*n], w[y*n:(y+1)*n]
		for j := n - 1; j >= 0; j-- {
			if a[j] != b[j] {
				if a[j] < b[j] {
					return -1
				}
				return 1
			}
		}
		return 0
	})
	words := make([]int32, 0, len(w))
	prob := make([]float32, 0, len(perm))
	var bo []float32
	if g.Backoff != nil {
		bo = make([]float32, 0, len(perm))
	}
	for _, i := range perm {
		words = append(words, w[i*n:(i+1)*n]...)
		prob = append(prob, g.Prob[i])
		if bo != nil {
			bo = append(bo, g.Backoff[i])
		}
	}
	g.Words, g.Prob, g.Backoff = words, prob, bo
}
