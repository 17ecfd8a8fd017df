package lm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/mtune/mtune/internal/textpos"
	"github.com/mtune/mtune/internal/wordhash"
)

// Discount holds the modified Kneser–Ney discounts of one order: D[1] for
// n-grams seen once, D[2] twice, D[3] three times or more; D[0] is 0.
type Discount [4]float32

// FallbackDiscount is lmplz's --discount_fallback default, used for an
// order whose counts-of-counts give no valid discounts when
// EstimateOptions.Fallback asks for it.
var FallbackDiscount = Discount{0, 0.5, 1, 1.5}

// ErrDiscount marks counts from which Kneser–Ney discounts cannot be
// estimated (too little or artificial data), as lmplz reports.
var ErrDiscount = errors.New("cannot estimate Kneser–Ney discounts")

// EstimateOptions configure estimation. A nil *EstimateOptions is the zero
// value: every field at its default.
type EstimateOptions struct {
	// Order is the order of the model, for Estimate and EstimateSentences
	// (NewCounter takes it as an argument). Zero means 5.
	Order int
	// Fallback, when set, gives the discounts of an order whose
	// counts-of-counts cannot (some n1, n2 or n3 is zero, or a discount D_j
	// falls outside (0, j]), as lmplz --discount_fallback does; FallbackDiscount is
	// lmplz's default. Nil means such data is an error wrapping ErrDiscount,
	// lmplz's behaviour without the option.
	Fallback *Discount
}

// gram is an n-gram as an exact map key: the word ids, zero-padded.
type gram [MaxOrder]int32

// gramSet numbers distinct n-grams of one length. The index maps a 64-bit
// hash of the words to the number of the n-gram stored there, whose words
// are compared on every hit; an n-gram whose hash another one holds goes
// to an exact overflow map, so a collision costs time, never correctness.
type gramSet struct {
	n     int
	words []int32 // n per n-gram
	index map[uint64]int32
	over  map[gram]int32
}

func newGramSet(n, capHint int) *gramSet {
	return &gramSet{n: n, index: make(map[uint64]int32, capHint)}
}

func (s *gramSet) len() int {
	if s.n == 0 {
		return len(s.index)
	}
	return len(s.words) / s.n
}

func (s *gramSet) at(i int32) []int32 { return s.words[int(i)*s.n : int(i+1)*s.n] }

func equalWords(a, b []int32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// find returns the number of w, or -1.
func (s *gramSet) find(w []int32) int32 {
	i, ok := s.index[wordhash.IDs(w)]
	if !ok {
		return -1
	}
	if equalWords(s.at(i), w) {
		return i
	}
	var g gram
	copy(g[:], w)
	if j, ok := s.over[g]; ok {
		return j
	}
	return -1
}

// add returns the number of w, adding it if new.
func (s *gramSet) add(w []int32) (int32, bool) {
	h := wordhash.IDs(w)
	i, ok := s.index[h]
	if ok && equalWords(s.at(i), w) {
		return i, false
	}
	var g gram
	if ok {
		copy(g[:], w)
		if j, found := s.over[g]; found {
			return j, false
		}
	}
	j := int32(s.len())
	if s.n == 0 {
		j = 0 // the one empty n-gram
	}
	s.words = append(s.words, w...)
	if ok {
		if s.over == nil {
			s.over = make(map[gram]int32)
		}
		s.over[g] = j
	} else {
		s.index[h] = j
	}
	return j, true
}

// Counter counts the n-grams of a corpus, one sentence at a time, for
// interpolated modified Kneser–Ney estimation (Counter.Estimate). Words
// are numbered as lmplz numbers them: <unk> 0, <s> 1, </s> 2, then the
// corpus' words in order of first appearance. Counting is in memory: a hash
// map of the distinct n-grams of the highest order.
type Counter struct {
	order  int
	vocab  *Vocab
	full   *gramSet
	counts []uint64
	window gram
	tokens int
	lines  int
	ids    []WordID
}

// Word ids of the special words in a Counter.
const (
	kUnk WordID = 0
	kBOS WordID = 1
	kEOS WordID = 2
)

// NewCounter returns a Counter for a model of the given order. It panics
// unless 1 ≤ order ≤ MaxOrder.
func NewCounter(order int) *Counter {
	if order < 1 || order > MaxOrder {
		panic(fmt.Sprintf("lm: NewCounter: order %d outside [1, %d]", order, MaxOrder))
	}
	c := &Counter{order: order, vocab: newVocab(1 << 12), full: newGramSet(order, 1<<12)}
	c.vocab.add([]byte(UnknownWord))
	c.vocab.add([]byte(BeginWord))
	c.vocab.add([]byte(EndWord))
	return c
}

// ErrSpecialInCorpus marks <s>, </s> or <unk> in the text to estimate from:
// lmplz refuses them by default.
var ErrSpecialInCorpus = errors.New("special word in the corpus")

// delims are lmplz's token delimiters: space, tab, CR, LF, NUL.
var delims = textpos.Separators{' ': true, '\t': true, '\r': true, '\n': true, 0: true}

// AddLine adds one sentence, split into words at spaces, tabs, CRs and NULs
// as lmplz splits them. It must be valid UTF-8.
func (c *Counter) AddLine(line []byte) error {
	if !utf8.Valid(line) {
		return ErrInvalidUTF8
	}
	c.ids = c.ids[:0]
	for _, w := range delims.Tokens(line) {
		id, _ := c.vocab.add(w)
		if id <= kEOS {
			return errorf(ErrSpecialInCorpus, "%s", textpos.Quote(w))
		}
		c.ids = append(c.ids, id)
	}
	c.addIDs(c.ids)
	return nil
}

// Add adds one sentence of words (each must be non-empty, valid UTF-8 and
// free of lmplz's delimiters).
func (c *Counter) Add(words []string) error {
	c.ids = c.ids[:0]
	for _, w := range words {
		if w == "" || !utf8.ValidString(w) || bytes.ContainsFunc([]byte(w), func(r rune) bool { return r < 128 && delims[r] }) {
			return errorf(ErrSyntax, "bad word %s", textpos.Quote(w))
		}
		id, _ := c.vocab.add([]byte(w))
		if id <= kEOS {
			return errorf(ErrSpecialInCorpus, "%s", textpos.Quote(w))
		}
		c.ids = append(c.ids, id)
	}
	c.addIDs(c.ids)
	return nil
}

// addIDs counts the order-grams of <s>…<s> ids </s> (order-1 <s>).
func (c *Counter) addIDs(ids []WordID) {
	n := c.order
	for i := 0; i < n-1; i++ {
		c.window[i] = int32(kBOS)
	}
	for i := 0; i <= len(ids); i++ {
		w := kEOS
		if i < len(ids) {
			w = ids[i]
		}
		c.window[n-1] = int32(w)
		if i, isNew := c.full.add(c.window[:n]); isNew {
			c.counts = append(c.counts, 1)
		} else {
			c.counts[i]++
		}
		copy(c.window[:n-1], c.window[1:n])
	}
	c.tokens += len(ids)
	c.lines++
}

// Estimate reads sentences from r, one a line, and estimates a model as
// NewCounter, AddLine and Counter.Estimate do. Errors in the text are
// *ParseError values with the line.
func Estimate(ctx context.Context, r io.Reader, opts *EstimateOptions) (*ARPA, error) {
	c := NewCounter(estimateOrder(opts))
	br := bufio.NewReaderSize(r, 1<<16)
	var acc []byte
	for line := 1; ; line++ {
		if line%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			acc = append(acc[:0], b...)
			for err == bufio.ErrBufferFull {
				b, err = br.ReadSlice('\n')
				acc = append(acc, b...)
			}
			b = acc
		}
		if err != nil && err != io.EOF {
			return nil, &ParseError{Line: line, Err: err}
		}
		if len(b) > 0 {
			if e := c.AddLine(b); e != nil {
				return nil, &ParseError{Line: line, Err: e}
			}
		}
		if err == io.EOF {
			break
		}
	}
	return c.Estimate(opts)
}

// EstimateSentences estimates a model from sentences of words.
func EstimateSentences(sentences [][]string, opts *EstimateOptions) (*ARPA, error) {
	c := NewCounter(estimateOrder(opts))
	for i, s := range sentences {
		if err := c.Add(s); err != nil {
			return nil, fmt.Errorf("lm: sentence %d: %w", i+1, err)
		}
	}
	return c.Estimate(opts)
}

func estimateOrder(opts *EstimateOptions) int {
	if opts == nil || opts.Order == 0 {
		return 5
	}
	return opts.Order
}

// level holds the n-grams of one order during estimation.
type level struct {
	n     int
	set   *gramSet
	count []uint64 // adjusted counts (raw for the highest order and <s>…)
	kept  []bool   // highest order only: false for the <s> <s> … padding grams
	prob  []float32
	// The contexts (first n-1 words) and their sums.
	ctx   *gramSet
	ctxOf []int32 // context of each n-gram
	gamma []float32
	denom []float32
}

// add adds w with count c, or adds c to its count.
func (l *level) add(w []int32, c uint64) {
	if i, isNew := l.set.add(w); isNew {
		l.count = append(l.count, c)
	} else {
		l.count[i] += c
	}
}

// Estimate computes an interpolated modified Kneser–Ney model (Chen and
// Goodman, "An empirical study of smoothing techniques for language
// modeling", 1998) from the counts, reproducing KenLM's lmplz (Heafield et
// al., "Scalable modified Kneser-Ney language model estimation", 2013)
// without pruning, with its float32 arithmetic:
//
//   - Sentences are padded with order-1 <s> and one </s>. The n-grams of
//     the highest order keep their raw counts, except those starting
//     "<s> <s>", which are padding and are dropped.
//   - A lower-order n-gram starting with <s> keeps its raw count; any other
//     gets its continuation count, the number of distinct words (<s>
//     included) seen before it.
//   - Per order, from the numbers n1…n4 of n-grams with (adjusted) count
//     1…4: Y = n1/(n1+2 n2), D_j = j − (j+1) Y n_{j+1}/n_j for j = 1, 2, 3+.
//   - For a context c with n-grams c·w: p'(w|c) = (a(c·w) − D(a))/Σ a(c·x),
//     γ(c) = (D1 N1(c·) + D2 N2(c·) + D3 N3+(c·))/Σ a(c·x); then
//     p(w|c) = p'(w|c) + γ(c) p(w|c minus its first word), and for unigrams
//     p(w) = p'(w) + γ 1/(|V|−1) (|V| counts <unk> and <s>, the uniform
//     distribution leaves out <s>).
//   - <s> gets probability 1 (log10 0): it is only ever context. <unk> gets
//     count 0, hence p(<unk>) = γ/(|V|−1), the mass the uniform
//     distribution gives an unseen word.
//   - The back-off of an n-gram is log10 γ of it as a context, 0 when it is
//     no context (those ending in </s>); probabilities are written as
//     min(0, log10 p).
//
// Where lmplz would write a non-finite value (a discount of exactly 0 can
// make γ = 0), Estimate treats the discount as invalid instead: the
// Fallback, or an error wrapping ErrDiscount. Logarithms are correctly
// rounded; lmplz's come from glibc's log10f, which is not, so about one
// value in eight differs from lmplz's in the last bit of its float32.
//
// The result lists the 1-grams by id and each higher order sorted by last
// word, then the word before, …, as lmplz writes them. Estimate leaves the
// counts as they are: more sentences may be added and Estimate called again.
func (c *Counter) Estimate(opts *EstimateOptions) (*ARPA, error) {
	N := c.order
	if c.lines == 0 {
		return nil, fmt.Errorf("lm: %w: no sentences", ErrDiscount)
	}
	lv := make([]*level, N+1)
	for n := 1; n < N; n++ {
		lv[n] = &level{n: n, set: newGramSet(n, c.full.len())}
	}
	// The highest order: the counted n-grams as they are (the Counter's,
	// left unchanged).
	top := &level{n: N, set: c.full, count: c.counts}
	if N == 1 {
		top = &level{n: 1, set: newGramSet(1, c.full.len()+2)}
		top.add([]int32{int32(kUnk)}, 0)
		top.add([]int32{int32(kBOS)}, 0)
		for i, cnt := range c.counts {
			top.add(c.full.at(int32(i)), cnt)
		}
	}
	lv[N] = top
	top.kept = make([]bool, len(top.count))
	for i := range top.kept {
		top.kept[i] = N == 1 || top.set.words[i*N+1] != int32(kBOS)
	}
	if N > 1 {
		u := lv[1]
		u.add([]int32{int32(kUnk)}, 0)
		u.add([]int32{int32(kBOS)}, 0)
		// <s>-initial suffixes of the padding grams keep raw counts.
		for i, kept := range top.kept {
			if kept {
				continue
			}
			w := top.set.words[i*N : (i+1)*N]
			b := 1
			for w[b+1] == int32(kBOS) {
				b++
			}
			lv[N-b].add(w[b:], top.count[i])
		}
		// Continuation counts: one per distinct left extension.
		for n := N - 1; n >= 1; n-- {
			up := lv[n+1]
			for i := 0; i < len(up.count); i++ {
				w := up.set.words[i*(n+1) : (i+1)*(n+1)]
				if w[1] == int32(kBOS) {
					continue
				}
				lv[n].add(w[1:], 1)
			}
		}
	}
	// Discounts.
	disc := make([]Discount, N+1)
	for n := 1; n <= N; n++ {
		var nc [5]uint64
		l := lv[n]
		for i, cnt := range l.count {
			if l.kept != nil && !l.kept[i] {
				continue
			}
			if cnt < 5 {
				nc[cnt]++
			}
		}
		d, err := discounts(nc)
		if err != nil {
			if opts == nil || opts.Fallback == nil {
				return nil, fmt.Errorf("lm: %d-grams: %w", n, err)
			}
			d = *opts.Fallback
		}
		disc[n] = d
	}

	// Context sums and gammas.
	for n := 1; n <= N; n++ {
		l := lv[n]
		d := disc[n]
		l.ctx = newGramSet(n-1, len(l.count)/2)
		l.ctxOf = make([]int32, len(l.count))
		var denom []uint64
		var nc [][4]uint64
		for i, cnt := range l.count {
			if l.kept != nil && !l.kept[i] {
				continue
			}
			j, isNew := l.ctx.add(l.set.words[i*n : i*n+n-1])
			if isNew {
				denom = append(denom, 0)
				nc = append(nc, [4]uint64{})
			}
			l.ctxOf[i] = j
			denom[j] += cnt
			if cnt > 0 {
				nc[j][min(cnt, 3)]++
			}
		}
		l.gamma = make([]float32, len(denom))
		l.denom = make([]float32, len(denom))
		for j := range denom {
			var gamma float32
			for k := 1; k <= 3; k++ {
				gamma += float32(d[k] * float32(nc[j][k]))
			}
			den := float32(denom[j])
			l.gamma[j] = gamma / den
			l.denom[j] = den
		}
	}

	// Interpolated probabilities, lowest order first.
	vocabSize := len(lv[1].count)
	uniform := float32(1.0 / float64(float32(vocabSize-1)))
	for n := 1; n <= N; n++ {
		l := lv[n]
		d := disc[n]
		l.prob = make([]float32, len(l.count))
		for i, cnt := range l.count {
			if l.kept != nil && !l.kept[i] {
				continue
			}
			w := l.set.words[i*n : (i+1)*n]
			gamma, den := l.gamma[l.ctxOf[i]], l.denom[l.ctxOf[i]]
			uninterp := (float32(cnt) - d[min(cnt, 3)]) / den
			var lower float32
			if n == 1 {
				lower = uniform
				switch WordID(w[0]) {
				case kBOS:
					l.prob[i] = 1
					continue
				case kUnk:
					uninterp = 0
				}
			} else {
				lower = lv[n-1].prob[lv[n-1].set.find(w[1:])]
			}
			l.prob[i] = uninterp + float32(gamma*lower)
		}
	}

	// Output.
	a := &ARPA{Words: make([]string, c.vocab.Len()), Orders: make([]NGrams, N), Discounts: disc[1:]}
	for i := range a.Words {
		a.Words[i] = c.vocab.Word(WordID(i))
	}
	for n := 1; n <= N; n++ {
		l := lv[n]
		g := &a.Orders[n-1]
		var perm []int
		for i := range l.count {
			if l.kept != nil && !l.kept[i] {
				continue
			}
			perm = append(perm, len(g.Prob))
			w := l.set.words[i*n : (i+1)*n]
			p := min(0, log10f(l.prob[i]))
			if !isFinite(p) {
				return nil, fmt.Errorf("lm: %w: %d-gram with probability %g", ErrDiscount, n, l.prob[i])
			}
			g.Words = append(g.Words, w...)
			g.Prob = append(g.Prob, p)
			if n < N {
				var bo float32
				last := WordID(w[n-1])
				if j := lv[n+1].ctx.find(w); j >= 0 && last != kUnk && last != kEOS {
					if bo = log10f(lv[n+1].gamma[j]); !isFinite(bo) {
						return nil, fmt.Errorf("lm: %w: %d-gram with back-off weight %g", ErrDiscount, n, lv[n+1].gamma[j])
					}
				}
				g.Backoff = append(g.Backoff, bo)
			}
		}
		if n == 1 {
			sortUnigrams(g)
		} else {
			sortSuffix(g, n, perm)
		}
	}
	return a, nil
}

// sortUnigrams sorts 1-grams by id.
func sortUnigrams(g *NGrams) {
	sortSuffix(g, 1, make([]int, g.Len()))
}

func log10f(x float32) float32 { return float32(math.Log10(float64(x))) }

// discounts computes the modified Kneser–Ney discounts from the numbers of
// n-grams with counts 0…4 as lmplz does, in float32 (Chen and Goodman,
// equation 26).
func discounts(nc [5]uint64) (Discount, error) {
	var d Discount
	for j := 1; j <= 3; j++ {
		if nc[j] == 0 {
			return d, fmt.Errorf("%w: no n-grams with adjusted count %d", ErrDiscount, j)
		}
	}
	y := float32(nc[1]) / float32(float64(nc[1])+2.0*float64(nc[2]))
	for j := 1; j <= 3; j++ {
		x := float32(float32(j+1) * y)
		x = float32(x * float32(nc[j+1]))
		x = x / float32(nc[j])
		d[j] = float32(j) - x
		// lmplz accepts D = 0, which can make a back-off weight 0 (log10
		// -inf, which KenLM then refuses to load): not here.
		if d[j] <= 0 || d[j] > float32(j) {
			return d, fmt.Errorf("%w: discount D%d = %g out of range", ErrDiscount, j, d[j])
		}
	}
	return d, nil
}
