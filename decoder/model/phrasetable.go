package model

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/mtune/mtune/internal/par"
	"github.com/mtune/mtune/internal/textpos"
	"github.com/mtune/mtune/internal/wordhash"
	"github.com/mtune/mtune/io/storage"
)

// LowestScore is Moses' floor for the log of a score (LOWEST_SCORE): the
// log of a zero probability is this, not -Inf.
const LowestScore = -100

// LogScore returns the feature value Moses uses for a table score p:
// FloorScore(TransformScore(p)) = max(ln p, -100), computed in float32
// as Moses does. A zero probability gives LowestScore.
func LogScore(p float32) float32 {
	if !(p > 0) {
		return LowestScore
	}
	l := float32(math.Log(float64(p)))
	if l < LowestScore {
		return LowestScore
	}
	return l
}

// PhraseTable is a Moses phrase table in memory: the source and target
// vocabularies, the distinct source phrases, and for each of them a range
// of translation options in flat arrays. Options are numbered 0 … n-1 and
// the options of one source phrase are consecutive, in file order (or best
// first after Prune).
//
// A loaded table is read-only and safe for concurrent use, except for
// Prune and ReadReordering, which must not run concurrently with anything
// else on the table.
type PhraseTable struct {
	src, tgt  *Vocab
	numScores int
	numCounts int
	maxSrcLen int
	skipped   int

	// Source entries.
	srcHash  []uint64
	srcWords []int32
	srcOff   []int32 // len entries+1
	optOff   []int32 // len entries+1
	slots    []int32 // open addressing: entry+1, 0 empty

	// Options.
	tgtWords []int32
	tgtOff   []int32 // len options+1
	scores   []float32
	align    []uint8
	alignOff []int32 // in bytes; len options+1
	counts   []float32

	// Reordering scores attached by ReadReordering.
	numReord int
	reord    []float32
	hasReord []uint64
}

// PhraseTableOptions configures ReadPhraseTable and LoadPhraseTable.
type PhraseTableOptions struct {
	// NumScores is the number of scores every line must have (the
	// feature's num-features). Zero means as many as the first line has.
	NumScores int
	// TableLimit keeps only the TableLimit best options of each source
	// phrase, ranked by the weighted sum of their log scores with
	// PruneWeights (see Prune). Zero keeps every option.
	TableLimit int
	// PruneWeights are the weights of the log scores for TableLimit; nil
	// means 1 for each score. Its length must be the number of scores.
	PruneWeights []float32
	// Workers is the number of parsing goroutines; zero means GOMAXPROCS.
	Workers int
	// ChunkSize is the size in bytes of the blocks of lines handed to the
	// parsers; zero means 2 MiB.
	ChunkSize int
	// AllowEmpty accepts input without phrase pairs (a table filtered to
	// sentences that hold no known phrase): the table then has no source
	// phrase and NumScores scores. False makes it an ErrEmpty error.
	AllowEmpty bool
	// Keep, when not nil, reads only the lines whose source phrase is in
	// the set, as FilterPhraseTable keeps them: every line is still
	// checked for its 3 to 7 "|||" fields, and the rest of a line is
	// parsed and checked only when it is kept. Nil reads every line.
	Keep *PhraseSet
}

// LoadPhraseTable reads the phrase table at path (local or gs://, .gz and
// .zst decompressed by extension).
func LoadPhraseTable(ctx context.Context, path string, opts PhraseTableOptions) (*PhraseTable, error) {
	rc, err := storage.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	defer rc.Close()
	return ReadPhraseTable(ctx, rc, path, opts)
}

// ReadPhraseTable reads a phrase table from r; name is the file name for
// errors. One goroutine reads r and splits it into blocks of lines, which
// opts.Workers goroutines parse, each with its own vocabulary; the blocks
// are then merged in file order.
func ReadPhraseTable(ctx context.Context, r io.Reader, name string, opts PhraseTableOptions) (*PhraseTable, error) {
	if opts.NumScores < 0 || opts.TableLimit < 0 {
		return nil, fmt.Errorf("model: negative NumScores or TableLimit")
	}
	b := newPTBuilder(opts.NumScores, opts.Workers)
	parse := func(data []byte, firstLine int) (*ptChunk, error) {
		return parsePTChunk(data, firstLine, name, opts.NumScores, opts.Keep)
	}
	merge := func(c *ptChunk) error { return b.merge(c, name) }
	readErr := func(err error) error { return fmt.Errorf("model: reading %s: %w", name, err) }
	if err := runChunks(ctx, r, opts.Workers, opts.ChunkSize, parse, merge, readErr); err != nil {
		return nil, err
	}
	if b.nopt == 0 {
		// AllowEmpty accepts a table filtered to nothing, never a file
		// with no line at all (read with Keep, the file is not a table
		// filtered already).
		if !opts.AllowEmpty || opts.Keep != nil && b.lines == 0 {
			return nil, errAt(name, 0, 0, ErrEmpty, "no phrase pairs")
		}
		b.t.numScores = opts.NumScores
	}
	t, err := b.finish()
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	if opts.TableLimit > 0 {
		w := opts.PruneWeights
		if w != nil && len(w) != t.numScores {
			return nil, fmt.Errorf("model: %d prune weights for %d scores", len(w), t.numScores)
		}
		t.Prune(opts.TableLimit, WeightedLogScore(t, w))
	}
	return t, nil
}

// SourceVocab returns the vocabulary of the source phrases.
func (t *PhraseTable) SourceVocab() *Vocab { return t.src }

// TargetVocab returns the vocabulary of the target phrases.
func (t *PhraseTable) TargetVocab() *Vocab { return t.tgt }

// NumScores returns the number of scores of each option.
func (t *PhraseTable) NumScores() int { return t.numScores }

// NumCounts returns the number of counts of each option (0 when the table
// has no counts field).
func (t *PhraseTable) NumCounts() int { return t.numCounts }

// NumOptions returns the number of translation options (phrase pairs).
func (t *PhraseTable) NumOptions() int { return len(t.tgtOff) - 1 }

// NumSources returns the number of distinct source phrases.
func (t *PhraseTable) NumSources() int { return len(t.srcOff) - 1 }

// MaxSourceLen returns the length in words of the longest source phrase.
func (t *PhraseTable) MaxSourceLen() int { return t.maxSrcLen }

// Skipped returns the number of lines skipped because their source phrase
// is empty (Moses skips them too, with a warning).
func (t *PhraseTable) Skipped() int { return t.skipped }

// Lookup returns the options of the source phrase with word ids src as
// the range [start, end); start == end when the table does not have it.
// It does not allocate.
func (t *PhraseTable) Lookup(src []int32) (start, end int32) {
	e, ok := t.lookupEntry(src, wordhash.IDs(src))
	if !ok {
		return 0, 0
	}
	return t.optOff[e], t.optOff[e+1]
}

// LookupWords is Lookup for a phrase given as words; a word missing from
// the source vocabulary gives an empty range.
func (t *PhraseTable) LookupWords(words ...string) (start, end int32) {
	ids := make([]int32, len(words))
	for i, w := range words {
		id, ok := t.src.ID(w)
		if !ok {
			return 0, 0
		}
		ids[i] = id
	}
	return t.Lookup(ids)
}

func (t *PhraseTable) lookupEntry(src []int32, h uint64) (int32, bool) {
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		e := s - 1
		if t.srcHash[e] == h && slices.Equal(t.srcWords[t.srcOff[e]:t.srcOff[e+1]], src) {
			return e, true
		}
	}
}

// Source returns the word ids of source phrase e, 0 ≤ e < NumSources.
func (t *PhraseTable) Source(e int32) []int32 {
	return t.srcWords[t.srcOff[e]:t.srcOff[e+1]:t.srcOff[e+1]]
}

// Options returns the options of source phrase e as [start, end).
func (t *PhraseTable) Options(e int32) (start, end int32) { return t.optOff[e], t.optOff[e+1] }

// Target returns the target word ids of option o. The slice is shared:
// do not modify it.
func (t *PhraseTable) Target(o int32) []int32 {
	return t.tgtWords[t.tgtOff[o]:t.tgtOff[o+1]:t.tgtOff[o+1]]
}

// Scores returns the scores of option o as the file gives them
// (probabilities, not logs; see LogScore). The slice is shared.
func (t *PhraseTable) Scores(o int32) []float32 {
	n := int32(t.numScores)
	return t.scores[o*n : o*n+n : o*n+n]
}

// LogScores appends the feature values of option o's scores, LogScore of
// each, to dst.
func (t *PhraseTable) LogScores(dst []float32, o int32) []float32 {
	for _, p := range t.Scores(o) {
		dst = append(dst, LogScore(p))
	}
	return dst
}

// Counts returns the counts of option o; nil when the table has none.
func (t *PhraseTable) Counts(o int32) []float32 {
	if t.numCounts == 0 {
		return nil
	}
	n := int32(t.numCounts)
	return t.counts[o*n : o*n+n : o*n+n]
}

// Alignment is the word alignment of a phrase pair: source and target
// positions, one byte each, alternating.
type Alignment []uint8

// Len returns the number of alignment points.
func (a Alignment) Len() int { return len(a) / 2 }

// At returns alignment point i.
func (a Alignment) At(i int) (src, tgt int) { return int(a[2*i]), int(a[2*i+1]) }

// Alignment returns the alignment of option o (empty when the line had
// none). The slice is shared.
func (t *PhraseTable) Alignment(o int32) Alignment {
	return Alignment(t.align[t.alignOff[o]:t.alignOff[o+1]:t.alignOff[o+1]])
}

// WeightedLogScore returns the score function Σ w_i·LogScore(p_i) over
// option o's scores, for Prune; w nil means every weight is 1.
func WeightedLogScore(t *PhraseTable, w []float32) func(o int32) float32 {
	return func(o int32) float32 {
		var s float32
		for i, p := range t.Scores(o) {
			wi := float32(1)
			if w != nil {
				wi = w[i]
			}
			s += wi * LogScore(p)
		}
		return s
	}
}

// Prune keeps the limit best options of each source phrase by score
// (higher is better) and orders every source phrase's options best first;
// ties keep file order. limit ≤ 0 keeps every option and only sorts.
//
// Moses prunes each source phrase's options at load to table-limit
// (default 20) by the option's full weighted score in isolation: the
// weighted log phrase-table scores plus the word and phrase penalties and
// the language model's estimate of the target phrase
// (TargetPhrase::GetFutureScore, kept with std::nth_element, whose order
// among equal scores is unspecified). WeightedLogScore gives the first
// part only; a decoder passes a function that adds the rest.
//
// Prune returns the options kept, by their number before the call, in
// their new order: option i is old option order[i], so that arrays over
// the options a caller computed before Prune can follow it.
func (t *PhraseTable) Prune(limit int, score func(o int32) float32) (order []int32) {
	n := t.NumSources()
	order = make([]int32, 0, t.NumOptions())
	newOff := make([]int32, n+1)
	var buf []int32
	var sc []float32
	for e := range int32(n) {
		start, end := t.optOff[e], t.optOff[e+1]
		buf = buf[:0]
		sc = sc[:0]
		for o := start; o < end; o++ {
			buf = append(buf, o)
			sc = append(sc, score(o))
		}
		slices.SortStableFunc(buf, func(a, b int32) int {
			sa, sb := sc[a-start], sc[b-start]
			switch {
			case sa > sb:
				return -1
			case sa < sb:
				return 1
			}
			return 0
		})
		if limit > 0 && len(buf) > limit {
			buf = buf[:limit]
		}
		order = append(order, buf...)
		newOff[e+1] = int32(len(order))
	}
	t.reorderOptions(order)
	t.optOff = newOff
	return order
}

// reorderOptions rebuilds the option arrays to hold the options order
// lists, in that order (a subset, a permutation or both).
func (t *PhraseTable) reorderOptions(order []int32) {
	n := len(order)
	tgtLen := 0
	alLen := 0
	for _, o := range order {
		tgtLen += int(t.tgtOff[o+1] - t.tgtOff[o])
		alLen += int(t.alignOff[o+1] - t.alignOff[o])
	}
	tgtWords := make([]int32, 0, tgtLen)
	tgtOff := make([]int32, 1, n+1)
	align := make([]uint8, 0, alLen)
	alignOff := make([]int32, 1, n+1)
	scores := make([]float32, 0, n*t.numScores)
	var counts, reord []float32
	if t.numCounts > 0 {
		counts = make([]float32, 0, n*t.numCounts)
	}
	var hasReord []uint64
	if t.numReord > 0 {
		reord = make([]float32, n*t.numReord)
		hasReord = make([]uint64, (n+63)/64)
	}
	for i, o := range order {
		tgtWords = append(tgtWords, t.Target(o)...)
		tgtOff = append(tgtOff, int32(len(tgtWords)))
		align = append(align, t.Alignment(o)...)
		alignOff = append(alignOff, int32(len(align)))
		scores = append(scores, t.Scores(o)...)
		if t.numCounts > 0 {
			counts = append(counts, t.Counts(o)...)
		}
		if t.numReord > 0 {
			if r, ok := t.Reordering(o); ok {
				copy(reord[i*t.numReord:], r)
				hasReord[i/64] |= 1 << (i % 64)
			}
		}
	}
	t.tgtWords, t.tgtOff, t.align, t.alignOff, t.scores, t.counts = tgtWords, tgtOff, align, alignOff, scores, counts
	t.reord, t.hasReord = reord, hasReord
}

// ptChunk is what a parser makes of a block of lines: word ids of its own
// vocabularies, mapped to the table's when the block is merged.
type ptChunk struct {
	firstLine int
	srcVoc    localVocab
	tgtVoc    localVocab
	// Source phrases, one per run of lines with the same source.
	srcWords []int32
	srcOff   []int32
	// Options.
	optSrc    []int32
	tgtWords  []int32
	tgtOff    []int32
	scores    []float32
	align     []uint8
	alignOff  []int32
	counts    []float32
	numScores int // of the block's first line; -1 before it
	numCounts int
	lines     int // non-blank lines read, kept or not
	skipped   int
	// Set by merge and finish.
	optBase, tgtBase, alignBase int
	tgtMap                      []int32
}

// localVocab interns the words of one block.
type localVocab struct {
	ids   map[string]int32
	words []string
}

func (v *localVocab) id(w []byte) (int32, bool) {
	if id, ok := v.ids[string(w)]; ok {
		return id, true
	}
	if !utf8.Valid(w) {
		return 0, false
	}
	id := int32(len(v.words))
	s := string(w)
	v.words = append(v.words, s)
	v.ids[s] = id
	return id, true
}

// appendIDs appends the ids of ws to dst. bad is the index of the first
// word that is not valid UTF-8 (dst then holds the ids before it), or -1.
func (v *localVocab) appendIDs(dst []int32, ws [][]byte) (_ []int32, bad int) {
	for i, w := range ws {
		id, ok := v.id(w)
		if !ok {
			return dst, i
		}
		dst = append(dst, id)
	}
	return dst, -1
}

// parsePTChunk parses a block of phrase-table lines, those whose source
// phrase is in keep (every line when keep is nil).
func parsePTChunk(data []byte, firstLine int, name string, numScores int, keep *PhraseSet) (*ptChunk, error) {
	// Size the arrays for the block's lines; typical phrase pairs have a
	// few words a side and a few alignment points.
	nl := bytes.Count(data, []byte{'\n'}) + 1
	ns := numScores
	if ns == 0 {
		ns = 5
	}
	c := &ptChunk{
		firstLine: firstLine,
		srcVoc:    localVocab{ids: make(map[string]int32, 4096)},
		tgtVoc:    localVocab{ids: make(map[string]int32, 4096)},
		srcWords:  make([]int32, 0, 3*nl),
		srcOff:    append(make([]int32, 0, nl+1), 0),
		optSrc:    make([]int32, 0, nl),
		tgtWords:  make([]int32, 0, 4*nl),
		tgtOff:    append(make([]int32, 0, nl+1), 0),
		scores:    make([]float32, 0, ns*nl),
		align:     make([]uint8, 0, 8*nl),
		alignOff:  append(make([]int32, 0, nl+1), 0),
		counts:    make([]float32, 0, 3*nl),
		numScores: -1,
	}
	var p phraseLine
	var check func([]field, int) error // p.parse checks the lines of an unfiltered table
	if keep != nil {
		check = checkPhraseLine(name)
	}
	var err error
	c.lines, err = keptLines(data, firstLine, keep, check, func(line []byte, _ []field, num int) error {
		if err := p.parse(line); err != nil {
			return err.at(name, num)
		}
		if len(p.src) == 0 {
			c.skipped++
			return nil
		}
		switch {
		case numScores > 0 && len(p.scores) != numScores:
			return errAt(name, num, p.fields[2].off+1, ErrCount, "%d scores, want %d", len(p.scores), numScores)
		case c.numScores < 0:
			c.numScores = len(p.scores)
			c.numCounts = len(p.counts)
		case len(p.scores) != c.numScores:
			return errAt(name, num, p.fields[2].off+1, ErrCount, "%d scores, the lines before have %d", len(p.scores), c.numScores)
		case len(p.counts) != c.numCounts:
			col := 0
			if len(p.fields) > 4 {
				col = p.fields[4].off + 1
			}
			return errAt(name, num, col, ErrCount, "%d counts, the lines before have %d", len(p.counts), c.numCounts)
		}
		if p.newSrc || len(c.srcOff) == 1 {
			var bad int
			if c.srcWords, bad = c.srcVoc.appendIDs(c.srcWords, p.src); bad >= 0 {
				return errAt(name, num, int(p.srcCol[bad]), ErrUTF8, "word %s", textpos.Quote(p.src[bad]))
			}
			c.srcOff = append(c.srcOff, int32(len(c.srcWords)))
		}
		c.optSrc = append(c.optSrc, int32(len(c.srcOff)-2))
		var bad int
		if c.tgtWords, bad = c.tgtVoc.appendIDs(c.tgtWords, p.tgt); bad >= 0 {
			return errAt(name, num, int(p.tgtCol[bad]), ErrUTF8, "word %s", textpos.Quote(p.tgt[bad]))
		}
		c.tgtOff = append(c.tgtOff, int32(len(c.tgtWords)))
		c.scores = append(c.scores, p.scores...)
		c.align = append(c.align, p.align...)
		c.alignOff = append(c.alignOff, int32(len(c.align)))
		c.counts = append(c.counts, p.counts...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ptBuilder merges parsed blocks into a table in two phases: merge, in
// file order, maps each block's words to the table's vocabularies and its
// source phrases to entries; finish then copies every block's options into
// arrays of the exact total size, in parallel.
type ptBuilder struct {
	t          *PhraseTable
	workers    int
	numScores  int // -1 until the first option
	numCounts  int
	chunks     []*ptChunk
	nopt       int
	lines      int     // non-blank lines read, kept or not
	lastOpt    []int32 // last option of each entry
	contiguous bool
}

func newPTBuilder(numScores, workers int) *ptBuilder {
	return &ptBuilder{
		t: &PhraseTable{
			src:    newVocab(1 << 14),
			tgt:    newVocab(1 << 14),
			srcOff: []int32{0},
			slots:  make([]int32, 1<<16),
		},
		workers:    workerCount(workers),
		numScores:  -1,
		contiguous: true,
	}
}

func (b *ptBuilder) merge(c *ptChunk, name string) error {
	t := b.t
	t.skipped += c.skipped
	b.lines += c.lines
	if len(c.optSrc) == 0 {
		return nil
	}
	if b.numScores < 0 {
		b.numScores, b.numCounts = c.numScores, c.numCounts
		t.numScores, t.numCounts = c.numScores, c.numCounts
	} else if c.numScores != b.numScores || c.numCounts != b.numCounts {
		// The block's first phrase line disagrees with the table's first.
		return errAt(name, c.firstLine, 0, ErrCount, "%d scores and %d counts, the lines before have %d and %d (the first phrase line at or after this line)",
			c.numScores, c.numCounts, b.numScores, b.numCounts)
	}
	c.optBase = b.nopt
	if b.nopt+len(c.optSrc) > math.MaxInt32/max(t.numScores, t.numCounts, 8) {
		return errAt(name, c.firstLine, 0, errTooLarge, "")
	}
	b.nopt += len(c.optSrc)
	srcMap := mapVocab(make([]int32, 0, len(c.srcVoc.words)), t.src, c.srcVoc.words)
	c.tgtMap = mapVocab(make([]int32, 0, len(c.tgtVoc.words)), t.tgt, c.tgtVoc.words)
	c.srcVoc, c.tgtVoc = localVocab{}, localVocab{}

	entryOf := make([]int32, len(c.srcOff)-1)
	for s := range entryOf {
		ids := c.srcWords[c.srcOff[s]:c.srcOff[s+1]]
		for i, id := range ids {
			ids[i] = srcMap[id]
		}
		entryOf[s] = b.entry(ids)
	}
	if len(t.srcWords) > math.MaxInt32 {
		return errAt(name, c.firstLine, 0, errTooLarge, "")
	}
	c.srcWords, c.srcOff = nil, nil
	for i, s := range c.optSrc {
		e := entryOf[s]
		o := int32(c.optBase + i)
		if last := b.lastOpt[e]; last >= 0 && last != o-1 {
			b.contiguous = false
		}
		b.lastOpt[e] = o
		c.optSrc[i] = e // from now on: the option's entry
	}
	b.chunks = append(b.chunks, c)
	return nil
}

func mapVocab(dst []int32, v *Vocab, words []string) []int32 {
	for _, w := range words {
		dst = append(dst, v.add(w))
	}
	return dst
}

// entry returns the entry of source phrase ids, adding it if new.
func (b *ptBuilder) entry(ids []int32) int32 {
	t := b.t
	h := wordhash.IDs(ids)
	if e, ok := t.lookupEntry(ids, h); ok {
		return e
	}
	e := int32(len(t.srcHash))
	t.srcHash = append(t.srcHash, h)
	t.srcWords = append(t.srcWords, ids...)
	t.srcOff = append(t.srcOff, int32(len(t.srcWords)))
	b.lastOpt = append(b.lastOpt, -1)
	t.maxSrcLen = max(t.maxSrcLen, len(ids))
	if 2*len(t.srcHash) > len(t.slots) {
		t.slots = make([]int32, 2*len(t.slots))
		for i := range int32(len(t.srcHash)) {
			t.insertSlot(i)
		}
	} else {
		t.insertSlot(e)
	}
	return e
}

func (t *PhraseTable) insertSlot(e int32) {
	mask := len(t.slots) - 1
	i := int(t.srcHash[e]) & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = e + 1
}

// finish copies the blocks into the table's arrays, groups the options by
// source phrase and trims the arrays.
func (b *ptBuilder) finish() (*PhraseTable, error) {
	t := b.t
	var nTgt, nAlign int64
	for _, c := range b.chunks {
		c.tgtBase, c.alignBase = int(nTgt), int(nAlign)
		nTgt += int64(len(c.tgtWords))
		nAlign += int64(len(c.align))
	}
	if nTgt > math.MaxInt32 || nAlign > math.MaxInt32 {
		return nil, errTooLarge
	}
	n := b.nopt
	t.tgtWords = make([]int32, nTgt)
	t.tgtOff = make([]int32, n+1)
	t.align = make([]uint8, nAlign)
	t.alignOff = make([]int32, n+1)
	t.scores = make([]float32, n*t.numScores)
	t.counts = make([]float32, n*t.numCounts)
	optEntry := make([]int32, n)
	par.Do(len(b.chunks), b.workers, func(i int) {
		c := b.chunks[i]
		o := c.optBase
		copy(optEntry[o:], c.optSrc)
		dst := t.tgtWords[c.tgtBase:]
		for j, id := range c.tgtWords {
			dst[j] = c.tgtMap[id]
		}
		for j, off := range c.tgtOff[1:] {
			t.tgtOff[o+j+1] = int32(c.tgtBase) + off
		}
		copy(t.align[c.alignBase:], c.align)
		for j, off := range c.alignOff[1:] {
			t.alignOff[o+j+1] = int32(c.alignBase) + off
		}
		copy(t.scores[o*t.numScores:], c.scores)
		copy(t.counts[o*t.numCounts:], c.counts)
		b.chunks[i] = nil
	})
	b.chunks = nil
	ne := len(t.srcHash)
	t.optOff = make([]int32, ne+1)
	for _, e := range optEntry {
		t.optOff[e+1]++
	}
	for e := range ne {
		t.optOff[e+1] += t.optOff[e]
	}
	if !b.contiguous {
		// Stable counting sort of the options by entry.
		next := slices.Clone(t.optOff[:ne])
		order := make([]int32, n)
		for o, e := range optEntry {
			order[next[e]] = int32(o)
			next[e]++
		}
		t.reorderOptions(order)
	}
	b.lastOpt = nil
	t.srcHash = shrink(t.srcHash)
	t.srcWords = shrink(t.srcWords)
	t.srcOff = shrink(t.srcOff)
	t.src.words = shrink(t.src.words)
	t.tgt.words = shrink(t.tgt.words)
	return t, nil
}

// shrink returns s in an array of its own length when appending left much
// spare capacity.
func shrink[T any](s []T) []T {
	if cap(s)-len(s) <= len(s)/16 {
		return s
	}
	return slices.Clone(s)
}
