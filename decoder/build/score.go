package build

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// model is the extracted phrase pairs, grouped and ready to be scored.
type model struct {
	b         *bitext
	lex       *lexTable
	occs      []occ
	srcID     []int32 // by occurrence
	tgtID     []int32 // by occurrence
	srcs      *phraseSet
	tgts      *phraseSet
	srcText   *phraseText
	tgtText   *phraseText
	countE    []int32 // occurrences by target phrase id: Moses' count(e)
	order     []int32 // occurrences sorted by (source text, target text)
	smoothing float64
}

// group interns the phrases of the occurrences, ranks them in Moses' sort
// order and sorts the occurrences by (source, target).
func group(b *bitext, lex *lexTable, occs []occ, smoothing float64) *model {
	m := &model{b: b, lex: lex, occs: occs, smoothing: smoothing,
		srcID: make([]int32, len(occs)), tgtID: make([]int32, len(occs))}
	var srcRank, tgtRank []int32
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // source side
		defer wg.Done()
		m.srcs = newPhraseSet(b.src, len(occs)/2)
		for k, o := range occs {
			m.srcID[k] = m.srcs.intern(b.srcOff[o.sent]+int32(o.fs), o.fl)
		}
		m.srcText = newPhraseText(m.srcs, b.sv.words)
		srcRank = m.srcText.ranks()
	}()
	go func() { // target side
		defer wg.Done()
		m.tgts = newPhraseSet(b.tgt, len(occs)/2)
		for k, o := range occs {
			m.tgtID[k] = m.tgts.intern(b.tgtOff[o.sent]+int32(o.es), o.el)
		}
		m.countE = make([]int32, m.tgts.len())
		for _, id := range m.tgtID {
			m.countE[id]++
		}
		m.tgtText = newPhraseText(m.tgts, b.tv.words)
		tgtRank = m.tgtText.ranks()
	}()
	wg.Wait()
	m.order = sortByRank(len(occs),
		func(i int) int32 { return tgtRank[m.tgtID[i]] }, len(tgtRank),
		func(i int) int32 { return srcRank[m.srcID[i]] }, len(srcRank))
	return m
}

// scoreScratch is a formatting worker's reusable memory.
type scoreScratch struct {
	str            []byte
	ents           []alignEnt
	cur, best, tmp []uint16
	probs          map[uint64]string // formatted c/n by packed (c, n)
	orients        map[uint64]string // formatted orientation probabilities by packed counts
	num            []byte
}

// prob appends the phrase translation probability c/n (in float32, as
// Moses' consolidate computes it), remembering its text.
func (sc *scoreScratch) prob(dst []byte, c, n int32) []byte {
	key := uint64(uint32(c))<<32 | uint64(uint32(n))
	if s, ok := sc.probs[key]; ok {
		return append(dst, s...)
	}
	sc.num = g6(sc.num[:0], float64(countRound(c)/countRound(n)))
	if sc.probs == nil {
		sc.probs = make(map[uint64]string)
	}
	if len(sc.probs) < 1<<20 {
		sc.probs[key] = string(sc.num)
	}
	return append(dst, sc.num...)
}

// orientations appends the three smoothed orientation probabilities of the
// counts cnt, as Moses' lexical-reordering-score (Model::score_fe)
// computes them, remembering their text.
func (sc *scoreScratch) orientations(dst []byte, cnt [3]int32, smoothing float64) []byte {
	key := uint64(0)
	memo := true
	for _, c := range cnt {
		if c >= 1<<21 {
			memo = false
		}
		key = key<<21 | uint64(c)
	}
	if memo {
		if s, ok := sc.orients[key]; ok {
			return append(dst, s...)
		}
	}
	var s [3]float64
	sum := 0.0
	for i := range s {
		s[i] = float64(cnt[i]) + smoothing
		sum += s[i]
	}
	sc.num = sc.num[:0]
	for i := range s {
		if i > 0 {
			sc.num = append(sc.num, ' ')
		}
		sc.num = g6(sc.num, s[i]/sum)
	}
	if memo {
		if sc.orients == nil {
			sc.orients = make(map[uint64]string)
		}
		if len(sc.orients) < 1<<20 {
			sc.orients[key] = string(sc.num)
		}
	}
	return append(dst, sc.num...)
}

type alignEnt struct{ start, end, occ int32 }

// appendAlignString appends the alignment of occurrence o as Moses' extract
// writes it after the second "|||": " i-j" for each point, by target
// position j and, for each, in the order of the alignment line (inverse:
// " j-i", as in extract.inv).
func (m *model) appendAlignString(dst []byte, o occ, inverse bool) []byte {
	for j := range int(o.el) {
		for _, i := range m.b.alignedTo(int(o.sent), int(o.es)+j) {
			a, c := int(i)-int(o.fs), j
			if inverse {
				a, c = c, a
			}
			dst = append(dst, ' ')
			dst = strconv.AppendInt(dst, int64(a), 10)
			dst = append(dst, '-')
			dst = strconv.AppendInt(dst, int64(c), 10)
		}
	}
	return dst
}

// canon appends the alignment of o as Moses' score holds it: a vector over
// target positions of sets of source positions (inverse: over source
// positions of sets of target positions), flattened to sorted, unique
// (index, member) pairs.
func (m *model) canon(dst []uint16, o occ, inverse bool) []uint16 {
	dst = dst[:0]
	for j := range int(o.el) {
		for _, i := range m.b.alignedTo(int(o.sent), int(o.es)+j) {
			a, c := j, int(i)-int(o.fs)
			if inverse {
				a, c = c, a
			}
			dst = append(dst, uint16(a), uint16(c))
		}
	}
	// Insertion sort of the pairs (phrases are short), then unique.
	for k := 2; k < len(dst); k += 2 {
		for l := k; l >= 2 && (dst[l-2] > dst[l] || dst[l-2] == dst[l] && dst[l-1] > dst[l+1]); l -= 2 {
			dst[l-2], dst[l] = dst[l], dst[l-2]
			dst[l-1], dst[l+1] = dst[l+1], dst[l-1]
		}
	}
	w := 0
	for k := 0; k < len(dst); k += 2 {
		if w > 0 && dst[w-2] == dst[k] && dst[w-1] == dst[k+1] {
			continue
		}
		dst[w], dst[w+1] = dst[k], dst[k+1]
		w += 2
	}
	return dst[:w]
}

// cmpVecSet compares two canonical alignments as C++ compares
// vector<set<size_t>> values: position by position, each set
// lexicographically, a proper prefix first.
func cmpVecSet(a, b []uint16) int {
	ia, ib := 0, 0
	for ia < len(a) || ib < len(b) {
		// The next position at which either has members.
		var pa, pb = 1 << 30, 1 << 30
		if ia < len(a) {
			pa = int(a[ia])
		}
		if ib < len(b) {
			pb = int(b[ib])
		}
		if pa != pb {
			// At position min(pa, pb) one set is empty: empty < non-empty.
			if pa < pb {
				return 1
			}
			return -1
		}
		for {
			aIn := ia < len(a) && int(a[ia]) == pa
			bIn := ib < len(b) && int(b[ib]) == pa
			if !aIn && !bIn {
				break
			}
			if !aIn {
				return -1
			}
			if !bIn {
				return 1
			}
			if a[ia+1] != b[ib+1] {
				if a[ia+1] < b[ib+1] {
					return -1
				}
				return 1
			}
			ia += 2
			ib += 2
		}
	}
	return 0
}

// bestAlignment returns the alignment Moses' score picks for a phrase pair
// seen as the occurrences grp: it reads the pair's extract lines sorted by
// their alignment strings, counts each run of equal alignments (a run ends
// at the first different one: the same alignment after another one starts a
// new entry) and takes the entry with the highest count, ties going to the
// greatest alignment (ExtractionPhrasePair::FindBestAlignmentTargetToSource).
func (m *model) bestAlignment(grp []int32, inverse bool, sc *scoreScratch) []uint16 {
	if len(grp) == 1 {
		sc.best = m.canon(sc.best, m.occs[grp[0]], inverse)
		return sc.best
	}
	sc.str, sc.ents = sc.str[:0], sc.ents[:0]
	for _, k := range grp {
		start := int32(len(sc.str))
		sc.str = m.appendAlignString(sc.str, m.occs[k], inverse)
		sc.ents = append(sc.ents, alignEnt{start, int32(len(sc.str)), k})
	}
	str := sc.str
	slices.SortFunc(sc.ents, func(x, y alignEnt) int {
		return bytes.Compare(str[x.start:x.end], str[y.start:y.end])
	})
	bestCount, runCount := 0, 0
	sc.best = sc.best[:0]
	for k, e := range sc.ents {
		sc.tmp = m.canon(sc.tmp, m.occs[e.occ], inverse)
		if k > 0 && slices.Equal(sc.tmp, sc.cur) {
			runCount++
			continue
		}
		if k > 0 && (runCount > bestCount || runCount == bestCount && cmpVecSet(sc.cur, sc.best) > 0) {
			bestCount = runCount
			sc.best = append(sc.best[:0], sc.cur...)
		}
		sc.cur, sc.tmp = sc.tmp, sc.cur
		runCount = 1
	}
	if runCount > bestCount || runCount == bestCount && cmpVecSet(sc.cur, sc.best) > 0 {
		sc.best = append(sc.best[:0], sc.cur...)
	}
	return sc.best
}

// lexEF is Moses' lexical weight lex(e|f) of occurrence o's phrases under
// the (target-indexed) alignment a: the product over target words of the
// average w(e|f) over their aligned source words, w(e|NULL) if unaligned.
func (m *model) lexEF(o occ, a []uint16) float64 { return m.lexWeight(o, a, true) }

// lexFE is lex(f|e) under the source-indexed alignment a.
func (m *model) lexFE(o occ, a []uint16) float64 { return m.lexWeight(o, a, false) }

// lexWeight is lexEF when ef is set, lexFE when not.
func (m *model) lexWeight(o occ, a []uint16, ef bool) float64 {
	this := m.b.srcSent(int(o.sent))[o.fs:]
	other := m.b.tgtSent(int(o.sent))[o.es:]
	probs, n := m.lex.fe, int(o.fl)
	if ef {
		this, other = other, this
		probs, n = m.lex.ef, int(o.el)
	}
	score, k := 1.0, 0
	for i := range n {
		if k >= len(a) || int(a[k]) != i {
			score *= m.lex.w(probs, this[i], 0, ef)
			continue
		}
		sum, c := 0.0, 0
		for ; k < len(a) && int(a[k]) == i; k += 2 {
			sum += m.lex.w(probs, this[i], other[a[k+1]], ef)
			c++
		}
		score *= sum / float64(c)
	}
	return score
}

// g6 appends x as C++'s ostream (and printf "%g") prints it with the
// default precision of 6 significant digits.
func g6(dst []byte, x float64) []byte { return strconv.AppendFloat(dst, x, 'g', 6, 64) }

// countRound is a count as it survives being printed with 6 significant
// digits and read back, which Moses' consolidate does with the counts of
// the two half tables.
func countRound(c int32) float32 {
	if c < 1000000 {
		return float32(c)
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(float32(c)), 'g', 6, 64), 32)
	return float32(v)
}

// formatRange formats the phrase-table and reordering-table lines of the
// occurrences order[lo:hi], which must start and end at source phrase
// boundaries, and returns the number of phrase pairs.
func (m *model) formatRange(lo, hi int, pt, reo []byte, sc *scoreScratch) ([]byte, []byte, int) {
	pairs := 0
	for a := lo; a < hi; {
		src := m.srcID[m.order[a]]
		b := a
		for b < hi && m.srcID[m.order[b]] == src {
			b++
		}
		countF := int32(b - a)
		srcText := m.srcText.text(src)
		for g := a; g < b; {
			tgt := m.tgtID[m.order[g]]
			h := g
			for h < b && m.tgtID[m.order[h]] == tgt {
				h++
			}
			grp := m.order[g:h]
			pt, reo = m.formatPair(pt, reo, grp, srcText, tgt, countF, sc)
			pairs++
			g = h
		}
		a = b
	}
	return pt, reo, pairs
}

func (m *model) formatPair(pt, reo []byte, grp []int32, srcText []byte, tgt int32, countF int32, sc *scoreScratch) ([]byte, []byte) {
	tgtText := m.tgtText.text(tgt)
	c := int32(len(grp))
	countE := m.countE[tgt]
	o := m.occs[grp[0]]

	inv := m.bestAlignment(grp, true, sc)
	lexFE := m.lexFE(o, inv) // o's words are the pair's words
	dir := m.bestAlignment(grp, false, sc)
	lexEF := m.lexEF(o, dir)

	pt = append(pt, srcText...)
	pt = append(pt, " ||| "...)
	pt = append(pt, tgtText...)
	pt = append(pt, " ||| "...)
	pt = sc.prob(pt, c, countE)
	pt = append(pt, ' ')
	pt = g6(pt, float64(float32(lexFE)))
	pt = append(pt, ' ')
	pt = sc.prob(pt, c, countF)
	pt = append(pt, ' ')
	pt = g6(pt, float64(float32(lexEF)))
	pt = append(pt, " ||| "...)
	for k := 0; k < len(dir); k += 2 {
		pt = strconv.AppendInt(pt, int64(dir[k+1]), 10)
		pt = append(pt, '-')
		pt = strconv.AppendInt(pt, int64(dir[k]), 10)
		pt = append(pt, ' ')
	}
	pt = append(pt, "||| "...)
	pt = g6(pt, float64(countRound(countE)))
	pt = append(pt, ' ')
	pt = g6(pt, float64(countRound(countF)))
	pt = append(pt, ' ')
	pt = g6(pt, float64(countRound(c)))
	pt = append(pt, " ||| |||\n"...)

	// Reordering: msd orientation counts with constant smoothing.
	var prev, next [3]int32
	for _, k := range grp {
		ori := m.occs[k].ori
		prev[ori/3]++
		next[ori%3]++
	}
	reo = append(reo, srcText...)
	reo = append(reo, " ||| "...)
	reo = append(reo, tgtText...)
	reo = append(reo, " ||| "...)
	reo = sc.orientations(reo, prev, m.smoothing)
	reo = append(reo, ' ')
	reo = sc.orientations(reo, next, m.smoothing)
	reo = append(reo, '\n')
	return pt, reo
}

// chunkOut is the text of one chunk of the tables.
type chunkOut struct {
	lo, hi  int
	pt, reo []byte
	pairs   int
	done    chan struct{}
	left    atomic.Int32 // writers still to write it
}

// write formats the two tables with the given number of workers and writes
// them, in order, to pt and reo (each from its own goroutine, so the two
// compress in parallel). It returns the number of phrase pairs.
func (m *model) write(ctx context.Context, pt, reo io.Writer, workers int) (int, error) {
	const target = 1 << 14 // occurrences a chunk, about 1 MB of text
	var chunks []*chunkOut
	for lo := 0; lo < len(m.order); {
		hi := min(lo+target, len(m.order))
		for hi < len(m.order) && m.srcID[m.order[hi]] == m.srcID[m.order[hi-1]] {
			hi++
		}
		c := &chunkOut{lo: lo, hi: hi, done: make(chan struct{})}
		c.left.Store(2)
		chunks = append(chunks, c)
		lo = hi
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	window := make(chan struct{}, 2*workers+2) // chunks in memory
	jobs := make(chan *chunkOut)
	var wg sync.WaitGroup
	go func() { // dispatcher
		defer close(jobs)
		for _, c := range chunks {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- c:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range workers {
		wg.Go(func() {
			var sc scoreScratch
			for c := range jobs {
				c.pt, c.reo, c.pairs = m.formatRange(c.lo, c.hi, getBuf(), getBuf(), &sc)
				close(c.done)
			}
		})
	}
	errs := make([]error, 2)
	var ww sync.WaitGroup
	for d, w := range []io.Writer{pt, reo} {
		ww.Go(func() {
			for _, c := range chunks {
				select {
				case <-c.done:
				case <-ctx.Done():
					if errs[d] == nil {
						errs[d] = ctx.Err()
					}
					return
				}
				buf := &c.pt // each writer touches its own field only
				if d == 1 {
					buf = &c.reo
				}
				if errs[d] == nil {
					if _, err := w.Write(*buf); err != nil {
						errs[d] = err
						cancel()
					}
				}
				putBuf(*buf)
				*buf = nil
				if c.left.Add(-1) == 0 {
					<-window
				}
			}
		})
	}
	ww.Wait()
	cancel()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	pairs := 0
	for _, c := range chunks {
		pairs += c.pairs
	}
	return pairs, nil
}

// bufPool recycles the chunks' text buffers.
var bufPool sync.Pool

func getBuf() []byte {
	if b, ok := bufPool.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, 2<<20)
}

func putBuf(b []byte) { bufPool.Put(&b) }
