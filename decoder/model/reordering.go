package model

import (
	"context"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mtune/mtune/internal/enum"
	"github.com/mtune/mtune/internal/textpos"
	"github.com/mtune/mtune/internal/wordhash"
	"github.com/mtune/mtune/io/storage"
)

// OrientationModel is the set of orientations of a lexicalized reordering
// model.
type OrientationModel int

const (
	// MSD distinguishes monotone, swap and discontinuous (3 scores a
	// direction), the model of msd-bidirectional-fe.
	MSD OrientationModel = iota + 1
	// MSLR distinguishes monotone, swap, discontinuous-left and
	// discontinuous-right (4 scores a direction).
	MSLR
	// Monotonicity distinguishes monotone and non-monotone (2 scores).
	Monotonicity
	// LeftRight distinguishes left and right (2 scores).
	LeftRight
)

// orientations is the number of scores a direction of m has.
func (m OrientationModel) orientations() int {
	switch m {
	case MSD:
		return 3
	case MSLR:
		return 4
	case Monotonicity, LeftRight:
		return 2
	}
	return 0
}

func (m OrientationModel) String() string {
	return enum.Name(m, orientationNames, "OrientationModel")
}

// orientationNames, directionNames and conditionNames are the parts of a
// reordering type that name the values, as String returns them.
var (
	orientationNames = []string{MSD: "msd", MSLR: "mslr", Monotonicity: "monotonicity", LeftRight: "leftright"}
	directionNames   = []string{Backward: "backward", Forward: "forward", Bidirectional: "bidirectional"}
	conditionNames   = []string{ConditionFE: "fe", ConditionF: "f"}
)

// Direction says which neighbours a reordering model scores the
// orientation against.
type Direction int

const (
	// Backward scores the orientation of a phrase with respect to the
	// previous one (Moses' default; "unidirectional" is a synonym).
	Backward Direction = iota
	// Forward scores it with respect to the next one.
	Forward
	// Bidirectional does both: the backward scores, then the forward ones.
	Bidirectional
)

func (d Direction) String() string {
	return enum.Name(d, directionNames, "Direction")
}

// Condition says what a reordering table's entries are keyed by.
type Condition int

const (
	// ConditionFE keys the entries by source and target phrase:
	// "src ||| tgt ||| scores" (the zero value).
	ConditionFE Condition = iota
	// ConditionF keys them by the source phrase only: "src ||| scores".
	ConditionF
)

func (c Condition) String() string {
	return enum.Name(c, conditionNames, "Condition")
}

// ReorderingType is the type= of a LexicalReordering feature, such as
// "msd-bidirectional-fe" or "wbe-msd-bidirectional-fe-allff", parsed as
// Moses' LRModel does: '-'-separated parts in any order.
type ReorderingType struct {
	Model     OrientationModel
	Direction Direction
	Condition Condition
	// Collapse is set by "collapseff": one score a direction instead of
	// one per orientation ("allff", the default, clears it).
	Collapse bool
	// WordBased is set by "wbe": the table was extracted word-based. It
	// matters to training only; Moses decodes it like "phrase".
	WordBased bool
	// Text is the string parsed.
	Text string
}

// ParseReorderingType parses a Moses lexicalized reordering type. The
// parts are: msd, mslr, monotonicity, leftright (one required);
// backward (default), unidirectional (= backward), forward, bidirectional;
// f, fe (one required); allff (default), collapseff; phrase (default),
// wbe. "hier" (hierarchical reordering) and unknown parts are ErrUnsupported
// errors.
func ParseReorderingType(s string) (ReorderingType, error) {
	rt := ReorderingType{Text: s}
	cond := false
	for part := range strings.SplitSeq(s, "-") {
		if m := slices.Index(orientationNames, part); m > 0 { // 0 is ""
			rt.Model = OrientationModel(m)
			continue
		}
		if d := slices.Index(directionNames, part); d >= 0 {
			rt.Direction = Direction(d)
			continue
		}
		if c := slices.Index(conditionNames, part); c >= 0 {
			rt.Condition, cond = Condition(c), true
			continue
		}
		switch part {
		case "phrase":
		case "wbe":
			rt.WordBased = true
		case "unidirectional":
			rt.Direction = Backward
		case "collapseff":
			rt.Collapse = true
		case "allff":
			rt.Collapse = false
		case "hier":
			return ReorderingType{}, fmt.Errorf("%w: hierarchical reordering %q", ErrUnsupported, s)
		default:
			return ReorderingType{}, fmt.Errorf("%w: part %q of reordering type %q", ErrUnsupported, part, s)
		}
	}
	if rt.Model == 0 {
		return ReorderingType{}, fmt.Errorf("%w: reordering type %q names no model (msd, mslr, monotonicity, leftright)", ErrConfig, s)
	}
	if !cond {
		return ReorderingType{}, fmt.Errorf("%w: reordering type %q names no condition (f or fe)", ErrConfig, s)
	}
	return rt, nil
}

// NumScores returns the number of scores of the model: per direction one
// per orientation (one if Collapse), twice that if bidirectional.
func (rt ReorderingType) NumScores() int {
	n := rt.Model.orientations()
	if rt.Collapse {
		n = 1
	}
	if rt.Direction == Bidirectional {
		n *= 2
	}
	return n
}

// ReorderingOptions configures ReadReordering.
type ReorderingOptions struct {
	// Condition is the key of the table's entries; the zero value is
	// ConditionFE ("src ||| tgt ||| scores").
	Condition Condition
	// NumScores is the number of scores every line must have (the
	// ReorderingType's NumScores). Zero means as many as the first line has.
	NumScores int
	// Workers is the number of parsing goroutines; zero means GOMAXPROCS.
	Workers int
	// ChunkSize is the size of the blocks of lines handed to the parsers;
	// zero means 2 MiB.
	ChunkSize int
	// AllowEmpty accepts input without entries (a table filtered to
	// sentences that hold no known phrase): no option then has reordering
	// scores. False makes it an ErrEmpty error.
	AllowEmpty bool
	// Keep, when not nil, reads only the lines whose source phrase is in
	// the set, as FilterReordering keeps them: every line is still checked
	// for the fields of its Condition, and its scores and words are parsed
	// and checked only when it is kept; a line not kept counts as
	// Unmatched. Nil reads every line.
	Keep *PhraseSet
}

// ReorderingStats reports how a reordering table fitted the phrase table.
type ReorderingStats struct {
	// Lines is the number of entries read.
	Lines int
	// Attached is the number of options that have reordering scores.
	Attached int
	// Unmatched is the number of entries whose phrase pair (or source
	// phrase, for ConditionF) the phrase table does not hold: pruned,
	// absent, or with a word the table does not know.
	Unmatched int
	// Duplicates is the number of entries for a pair that an earlier entry
	// already gave scores to; as in Moses, the last one wins.
	Duplicates int
}

// LoadReordering reads the lexicalized reordering table at path (local or
// gs://, .gz and .zst decompressed) and attaches its scores to t's options.
func (t *PhraseTable) LoadReordering(ctx context.Context, path string, opts ReorderingOptions) (ReorderingStats, error) {
	rc, err := storage.Open(ctx, path)
	if err != nil {
		return ReorderingStats{}, fmt.Errorf("model: %w", err)
	}
	defer rc.Close()
	return t.ReadReordering(ctx, rc, path, opts)
}

// ReadReordering reads a lexicalized reordering table from r (name is the
// file name for errors) and attaches each entry's scores to the option of
// t with the same source and target phrase (with ConditionF: to every
// option of the source phrase), so that Reordering returns them with the
// option. A table holds one set of reordering scores: a second call
// replaces the first. The scores are kept as the file gives them
// (probabilities; see LogScore). Entries for pairs t does not hold are
// counted in ReorderingStats.Unmatched and dropped; options no entry names
// have no reordering scores (Moses then scores them 0, or with the
// feature's default-scores).
//
// Every line is checked (field count, numbers, UTF-8) whether it matches or
// not, except that with opts.Keep a line not kept is checked for its
// fields only; errors are *ParseError values.
func (t *PhraseTable) ReadReordering(ctx context.Context, r io.Reader, name string, opts ReorderingOptions) (ReorderingStats, error) {
	if opts.NumScores < 0 {
		return ReorderingStats{}, fmt.Errorf("model: negative NumScores")
	}
	if opts.Condition != ConditionF && opts.Condition != ConditionFE {
		return ReorderingStats{}, fmt.Errorf("model: unknown reordering condition %v", opts.Condition)
	}
	var idx *pairIndex
	if opts.Condition == ConditionFE {
		idx = t.buildPairIndex()
	}
	nopt := t.NumOptions()
	m := &reordMerger{t: t, numScores: opts.NumScores, cond: opts.Condition}
	if opts.NumScores > 0 {
		m.start(opts.NumScores, nopt)
	}
	parse := func(data []byte, firstLine int) (*roChunk, error) {
		return t.parseROChunk(data, firstLine, name, opts, idx)
	}
	merge := func(c *roChunk) error { return m.merge(c, name) }
	readErr := func(err error) error { return fmt.Errorf("model: reading %s: %w", name, err) }
	if err := runChunks(ctx, r, opts.Workers, opts.ChunkSize, parse, merge, readErr); err != nil {
		return ReorderingStats{}, err
	}
	if m.stats.Lines == 0 && !opts.AllowEmpty {
		return ReorderingStats{}, errAt(name, 0, 0, ErrEmpty, "no reordering entries")
	}
	for _, w := range m.has {
		m.stats.Attached += bits.OnesCount64(w)
	}
	t.numReord, t.reord, t.hasReord = m.numScores, m.reord, m.has
	return m.stats, nil
}

// NumReordering returns the number of reordering scores of each option,
// 0 when no reordering table was read.
func (t *PhraseTable) NumReordering() int { return t.numReord }

// Reordering returns the reordering scores of option o as the table gives
// them (probabilities), and whether the reordering table has an entry for
// it. The slice is shared.
func (t *PhraseTable) Reordering(o int32) ([]float32, bool) {
	if t.numReord == 0 || t.hasReord[o/64]&(1<<(o%64)) == 0 {
		return nil, false
	}
	n := int32(t.numReord)
	return t.reord[o*n : o*n+n : o*n+n], true
}

// pairIndex finds an option by source entry and target phrase.
type pairIndex struct {
	slots []int32 // option+1, 0 empty
	// dups is set when some source phrase has the same target twice.
	dups bool
}

func (t *PhraseTable) buildPairIndex() *pairIndex {
	idx := &pairIndex{slots: make([]int32, tableSize(t.NumOptions()))}
	mask := len(idx.slots) - 1
	for e := range int32(t.NumSources()) {
		start := t.optOff[e]
		for o := start; o < t.optOff[e+1]; o++ {
			tgt := t.Target(o)
			i := int(pairHash(e, wordhash.IDs(tgt))) & mask
			for idx.slots[i] != 0 {
				if o2 := idx.slots[i] - 1; o2 >= start && slices.Equal(t.Target(o2), tgt) {
					idx.dups = true
				}
				i = (i + 1) & mask
			}
			idx.slots[i] = o + 1
		}
	}
	return idx
}

// matchWords reports whether the words of f are the words of ids in v.
func matchWords(v *Vocab, ids []int32, f []byte) bool {
	p := 0
	for _, id := range ids {
		w, s, _ := nextWord(f, p)
		if w == nil || string(w) != v.words[id] {
			return false
		}
		p = s + len(w)
	}
	w, _, _ := nextWord(f, p)
	return w == nil
}

// appendPairs appends to dst every option of entry e whose target is tgt
// (a table may list a pair twice; Moses looks reordering scores up by the
// pair's text, so each copy gets them).
func (t *PhraseTable) appendPairs(dst []int32, idx *pairIndex, e int32, tgt []int32) []int32 {
	mask := len(idx.slots) - 1
	start, end := t.optOff[e], t.optOff[e+1]
	for i := int(pairHash(e, wordhash.IDs(tgt))) & mask; ; i = (i + 1) & mask {
		s := idx.slots[i]
		if s == 0 {
			return dst
		}
		if o := s - 1; o >= start && o < end && slices.Equal(t.Target(o), tgt) {
			dst = append(dst, o)
		}
	}
}

// roChunk is a parsed block of reordering lines: the option (or source
// entry, for ConditionF) each matching line names and its scores.
type roChunk struct {
	firstLine int
	numScores int // of the block's first line; -1 before it
	target    []int32
	scores    []float32
	lines     int
	unmatched int
}

func (t *PhraseTable) parseROChunk(data []byte, firstLine int, name string, opts ReorderingOptions, idx *pairIndex) (*roChunk, error) {
	c := &roChunk{firstLine: firstLine, numScores: -1}
	var ids []int32
	var sc []float32
	var prevSrc []byte // source of the previous line
	prevEntry, prevOK := int32(0), false
	lastOpt := int32(-1) // option the previous line matched
	nf := 3
	if opts.Condition == ConditionF {
		nf = 2
	}
	kept := 0
	lines, err := keptLines(data, firstLine, opts.Keep, checkReorderingLine(nf, opts.Condition, name), func(_ []byte, fields []field, num int) error {
		kept++
		sf := fields[nf-1]
		sc = sc[:0]
		for w, s, _ := nextWord(sf.b, 0); w != nil; w, s, _ = nextWord(sf.b, s+len(w)) {
			x, ok := parseProb(w)
			if !ok {
				return errAt(name, num, sf.off+s+1, ErrNumber, "score %s is not a finite number ≥ 0", textpos.Quote(w))
			}
			sc = append(sc, x)
		}
		switch {
		case len(sc) == 0:
			return errAt(name, num, sf.off+1, ErrCount, "no scores")
		case opts.NumScores > 0 && len(sc) != opts.NumScores:
			return errAt(name, num, sf.off+1, ErrCount, "%d scores, want %d", len(sc), opts.NumScores)
		case c.numScores < 0:
			c.numScores = len(sc)
		case len(sc) != c.numScores:
			return errAt(name, num, sf.off+1, ErrCount, "%d scores, the lines before have %d", len(sc), c.numScores)
		}
		n0 := len(c.target)
		// Fast path: reordering tables are usually in the phrase table's
		// order, so the source is the previous line's or the next entry,
		// and the pair the next option; compare words, no hashing.
		srcB := trimBlank(fields[0].b)
		switch {
		case prevSrc != nil && string(srcB) == string(prevSrc):
		case prevOK && prevEntry+1 < int32(t.NumSources()) && matchWords(t.src, t.Source(prevEntry+1), srcB):
			prevEntry++
			lastOpt = t.optOff[prevEntry] - 1
		default:
			var ok bool
			var err error
			ids = ids[:0]
			if ids, ok, err = lookupWords(ids, t.src, fields[0]); err != nil {
				return err.(*lineError).at(name, num)
			}
			if ok {
				prevEntry, ok = t.lookupEntry(ids, wordhash.IDs(ids))
			}
			prevOK = ok
			if ok {
				lastOpt = t.optOff[prevEntry] - 1
			}
		}
		prevSrc = srcB
		e := prevEntry
		if opts.Condition == ConditionF {
			if prevOK {
				c.target = append(c.target, e)
			}
		} else if !prevOK {
			if !utf8.Valid(fields[1].b) {
				return errAt(name, num, fields[1].off+1, ErrUTF8, "target phrase")
			}
		} else if o := lastOpt + 1; !idx.dups && o < t.optOff[e+1] && matchWords(t.tgt, t.Target(o), fields[1].b) {
			c.target = append(c.target, o)
			lastOpt = o
		} else {
			ids = ids[:0]
			var ok bool
			var err error
			if ids, ok, err = lookupWords(ids, t.tgt, fields[1]); err != nil {
				return err.(*lineError).at(name, num)
			}
			if ok {
				c.target = t.appendPairs(c.target, idx, e, ids)
				if len(c.target) > n0 {
					lastOpt = c.target[len(c.target)-1]
				}
			}
		}
		if len(c.target) == n0 {
			c.unmatched++
			return nil
		}
		for range len(c.target) - n0 {
			c.scores = append(c.scores, sc...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.lines = lines
	c.unmatched += lines - kept // the lines not in opts.Keep
	return c, nil
}

// lookupWords appends the ids of f's words in v; ok is false if a word is
// missing or the phrase is empty. A missing word that is not valid UTF-8 is
// an error.
func lookupWords(dst []int32, v *Vocab, f field) (_ []int32, ok bool, err error) {
	ok = true
	for w, s, _ := nextWord(f.b, 0); w != nil; w, s, _ = nextWord(f.b, s+len(w)) {
		id, found := v.IDBytes(w)
		if !found {
			if !utf8.Valid(w) {
				return dst, false, lineErr(f.off+s+1, ErrUTF8, "word %s", textpos.Quote(w))
			}
			ok = false
			continue
		}
		dst = append(dst, id)
	}
	return dst, ok, nil
}

// reordMerger writes parsed blocks into the reordering arrays.
type reordMerger struct {
	t         *PhraseTable
	cond      Condition
	numScores int
	reord     []float32
	has       []uint64
	stats     ReorderingStats
}

func (m *reordMerger) start(numScores, nopt int) {
	m.numScores = numScores
	m.reord = make([]float32, nopt*numScores)
	m.has = make([]uint64, (nopt+63)/64)
}

func (m *reordMerger) merge(c *roChunk, name string) error {
	m.stats.Lines += c.lines
	m.stats.Unmatched += c.unmatched
	if c.numScores < 0 {
		return nil
	}
	if m.reord == nil {
		m.start(c.numScores, m.t.NumOptions())
	} else if c.numScores != m.numScores {
		return errAt(name, c.firstLine, 0, ErrCount, "%d scores, the lines before have %d (the first entry at or after this line)", c.numScores, m.numScores)
	}
	n := m.numScores
	for i, x := range c.target {
		sc := c.scores[i*n : i*n+n]
		start, end := x, x+1
		if m.cond == ConditionF {
			start, end = m.t.optOff[x], m.t.optOff[x+1]
		}
		if m.has[start/64]&(1<<(start%64)) != 0 {
			m.stats.Duplicates++
		}
		for o := start; o < end; o++ {
			m.has[o/64] |= 1 << (o % 64)
			copy(m.reord[int(o)*n:], sc)
		}
	}
	return nil
}

// ReorderingEntry is one line of a lexicalized reordering table.
type ReorderingEntry struct {
	// Source and Target are the phrases; Target is nil for ConditionF.
	Source, Target []string
	// Scores are the orientation probabilities as the file gives them.
	Scores []float32
}

// ParseReorderingLine parses one line of a reordering table,
// "src ||| tgt ||| scores" (ConditionFE) or "src ||| scores" (ConditionF),
// without its newline. Errors are *ParseError values with the column set.
func ParseReorderingLine(line string, cond Condition) (ReorderingEntry, error) {
	b, perr := oneLine(line)
	if perr != nil {
		return ReorderingEntry{}, perr
	}
	fs := splitFields(nil, b)
	nf := 3
	if cond == ConditionF {
		nf = 2
	}
	if len(fs) != nf {
		return ReorderingEntry{}, errAt("", 0, 0, ErrSyntax, "%d fields, want %d", len(fs), nf)
	}
	var e ReorderingEntry
	var err *ParseError
	src, srcCol := words(nil, nil, fs[0])
	if len(src) == 0 {
		return ReorderingEntry{}, errAt("", 0, 1, ErrSyntax, "empty source phrase")
	}
	if e.Source, err = wordStrings(src, srcCol); err != nil {
		return ReorderingEntry{}, err
	}
	if cond == ConditionFE {
		tgt, tgtCol := words(nil, nil, fs[1])
		if e.Target, err = wordStrings(tgt, tgtCol); err != nil {
			return ReorderingEntry{}, err
		}
	}
	sf := fs[nf-1]
	for w, s, _ := nextWord(sf.b, 0); w != nil; w, s, _ = nextWord(sf.b, s+len(w)) {
		x, ok := parseProb(w)
		if !ok {
			return ReorderingEntry{}, errAt("", 0, sf.off+s+1, ErrNumber, "score %s is not a finite number ≥ 0", textpos.Quote(w))
		}
		e.Scores = append(e.Scores, x)
	}
	if len(e.Scores) == 0 {
		return ReorderingEntry{}, errAt("", 0, sf.off+1, ErrCount, "no scores")
	}
	return e, nil
}

// AppendReorderingLine appends e to dst as a reordering-table line with
// its newline, "src ||| tgt ||| scores", or "src ||| scores" when cond is
// ConditionF. It refuses entries ParseReorderingLine could not read back.
func AppendReorderingLine(dst []byte, e ReorderingEntry, cond Condition) ([]byte, error) {
	if err := checkEntry(e.Source, e.Target, e.Scores); err != nil {
		return dst, err
	}
	dst = appendWords(dst, e.Source)
	dst = append(dst, " ||| "...)
	if cond == ConditionFE {
		dst = appendWords(dst, e.Target)
		dst = append(dst, " ||| "...)
	}
	dst = appendFloats(dst, e.Scores)
	return append(dst, '\n'), nil
}

// checkReorderingFields checks that line num of the reordering table name
// has the nf fields of its condition: "source ||| scores" (2) or "source
// ||| target ||| scores" (3).
func checkReorderingFields(fields []field, nf int, cond Condition, name string, num int) error {
	if len(fields) == nf {
		return nil
	}
	if len(fields) == nf+1 && cond == ConditionFE {
		return errAt(name, num, fields[3].off-2, ErrUnsupported, "4 fields: context-conditioned reordering tables")
	}
	return errAt(name, num, 0, ErrSyntax, "%d fields, want %d (%s)", len(fields), nf,
		map[int]string{2: "source ||| scores", 3: "source ||| target ||| scores"}[nf])
}
