package model

import (
	"context"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/mtune/mtune/internal/textpos"
	"github.com/mtune/mtune/internal/wordhash"
)

// Filtering a table to the phrases of some sentences, as Moses'
// filter-model-given-input.pl does: a line is kept when its source phrase
// occurs, as a contiguous word sequence, in one of the sentences. The
// filter streams the table (one goroutine reads and decompresses, workers
// filter blocks of lines, the kept lines are written in file order), so
// memory holds a few blocks, never the table.
//
// Every line read is checked for its "|||" fields; a kept line is checked
// as the table's reader checks it (numbers, counts, alignment, UTF-8), so
// that a malformed line is reported at its file and line in the full
// table, not at a line of the filtered copy.

// PhraseSet is the set of word sequences of some sentences, up to a length:
// the source phrases a filtered table keeps. It is read-only once built and
// safe for concurrent use.
type PhraseSet struct {
	vocab  map[string]int32
	ngrams map[uint64]struct{} // wordhash.IDs of every sequence
	maxLen int
}

// NewPhraseSet returns the set of the contiguous word sequences of
// sentences (each given as its words) of at most maxLen words; maxLen ≤ 0
// means no limit.
func NewPhraseSet(sentences [][]string, maxLen int) *PhraseSet {
	s := &PhraseSet{vocab: map[string]int32{}, ngrams: map[uint64]struct{}{}, maxLen: maxLen}
	var ids []int32
	for _, words := range sentences {
		ids = ids[:0]
		for _, w := range words {
			id, ok := s.vocab[w]
			if !ok {
				id = int32(len(s.vocab))
				s.vocab[w] = id
			}
			ids = append(ids, id)
		}
		for i := range ids {
			for j := i + 1; j <= len(ids) && (maxLen <= 0 || j-i <= maxLen); j++ {
				s.ngrams[wordhash.IDs(ids[i:j])] = struct{}{}
			}
		}
	}
	return s
}

// Len returns the number of distinct sequences in the set.
func (s *PhraseSet) Len() int { return len(s.ngrams) }

// Contains reports whether the words are a sequence of the set.
func (s *PhraseSet) Contains(words ...string) bool {
	ids := make([]int32, 0, len(words))
	for _, w := range words {
		id, ok := s.vocab[w]
		if !ok {
			return false
		}
		ids = append(ids, id)
	}
	return s.containsIDs(ids)
}

func (s *PhraseSet) containsIDs(ids []int32) bool {
	if len(ids) == 0 || s.maxLen > 0 && len(ids) > s.maxLen {
		return false
	}
	_, ok := s.ngrams[wordhash.IDs(ids)]
	return ok
}

// containsField reports whether the words of f (split as the table readers
// split a phrase) are a sequence of the set; ids is scratch. Two different
// sequences with the same 64-bit hash would make it report true for a
// phrase the sentences lack, which keeps a line no sentence looks up: a
// bigger filtered table, never a different translation.
func (s *PhraseSet) containsField(ids []int32, f []byte) ([]int32, bool) {
	ids = ids[:0]
	for w, st, _ := nextWord(f, 0); w != nil; w, st, _ = nextWord(f, st+len(w)) {
		id, ok := s.vocab[string(w)]
		if !ok {
			return ids, false
		}
		ids = append(ids, id)
	}
	return ids, s.containsIDs(ids)
}

// sourceFilter tells, line after line of one block, whether a table line's
// source phrase is in a PhraseSet (all are when the set is nil). Tables
// list the lines of a source phrase together, so it keeps the answer for
// the previous line's source field and looks up only a new one.
type sourceFilter struct {
	set      *PhraseSet
	ids      []int32 // scratch
	prev     []byte  // the previous source field, a view into the block
	prevKeep bool
}

// keep reports whether the words of the source field f are in the set.
// f must stay valid until the next call (a view into the block read).
func (s *sourceFilter) keep(f []byte) bool {
	if s.set == nil {
		return true
	}
	if s.prev != nil && string(f) == string(s.prev) {
		return s.prevKeep
	}
	s.ids, s.prevKeep = s.set.containsField(s.ids, f)
	s.prev = f
	return s.prevKeep
}

// keptLines calls kept for each non-blank line of a table's block (data,
// whose first line is line firstLine) whose source phrase, the first "|||"
// field, is in set (every line when set is nil), with the line's fields;
// check checks the fields of every non-blank line first. With set and
// check nil, lines are not split (fields nil: kept parses them). It
// returns the number of non-blank lines: the one loop of the table
// filters and of the readers given a PhraseSet.
func keptLines(data []byte, firstLine int, set *PhraseSet, check func(fields []field, num int) error,
	kept func(line []byte, fields []field, num int) error) (lines int, err error) {
	sf := sourceFilter{set: set}
	var fields []field
	err = eachLine(data, firstLine, func(line []byte, num int) error {
		if len(trimBlank(line)) == 0 {
			return nil
		}
		lines++
		if set != nil || check != nil {
			fields = splitFields(fields, line)
			if check != nil {
				if err := check(fields, num); err != nil {
					return err
				}
			}
			if !sf.keep(fields[0].b) {
				return nil
			}
		}
		return kept(line, fields, num)
	})
	return lines, err
}

// checkPhraseLine returns keptLines' check of a phrase table's fields
// (name is the file name for errors).
func checkPhraseLine(name string) func(fields []field, num int) error {
	return func(fields []field, num int) error {
		if err := checkPhraseFields(fields); err != nil {
			return err.at(name, num)
		}
		return nil
	}
}

// checkReorderingLine returns keptLines' check of a reordering table's
// fields, nf of them for cond.
func checkReorderingLine(nf int, cond Condition, name string) func(fields []field, num int) error {
	return func(fields []field, num int) error {
		return checkReorderingFields(fields, nf, cond, name, num)
	}
}

// FilterOptions configures FilterPhraseTable and FilterReordering.
type FilterOptions struct {
	// NumScores is the number of scores every kept line must have; zero
	// means as many as the first kept line has.
	NumScores int
	// Condition is a reordering table's key (FilterReordering only).
	Condition Condition
	// Workers is the number of filtering goroutines; zero means GOMAXPROCS.
	Workers int
	// ChunkSize is the size in bytes of the blocks of lines handed to the
	// workers; zero means 2 MiB.
	ChunkSize int
}

// FilterStats counts what a filter read and kept.
type FilterStats struct {
	// Lines is the number of non-blank lines read; Kept the number
	// written.
	Lines, Kept int
	// Bytes is the size of the lines written, newlines included.
	Bytes int64
}

// filterChunk is a filtered block: its kept lines and the score and count
// numbers of its first kept line, for the check across blocks.
type filterChunk struct {
	out       []byte
	lines     int
	kept      int
	first     int // line number of the first kept line; 0 none
	numScores int
	numCounts int
}

// filterMerger writes filtered blocks in file order and checks that every
// kept line has the scores and counts of the first.
type filterMerger struct {
	w                    io.Writer
	name                 string
	stats                FilterStats
	numScores, numCounts int
	seen                 bool
}

func (m *filterMerger) merge(c *filterChunk) error {
	m.stats.Lines += c.lines
	if c.kept == 0 {
		return nil
	}
	if !m.seen {
		m.seen, m.numScores, m.numCounts = true, c.numScores, c.numCounts
	} else if c.numScores != m.numScores || c.numCounts != m.numCounts {
		return errAt(m.name, c.first, 0, ErrCount, "%d scores and %d counts, the lines kept before have %d and %d",
			c.numScores, c.numCounts, m.numScores, m.numCounts)
	}
	m.stats.Kept += c.kept
	m.stats.Bytes += int64(len(c.out))
	if _, err := m.w.Write(c.out); err != nil {
		return fmt.Errorf("model: filtering %s: %w", m.name, err)
	}
	return nil
}

// keepLine records a kept line's numbers in c, checking them against the
// block's first kept line; col is the column of the scores field.
func (c *filterChunk) keepLine(line []byte, num, numScores, numCounts, col int, name string) error {
	if c.kept == 0 {
		c.first, c.numScores, c.numCounts = num, numScores, numCounts
	} else if numScores != c.numScores || numCounts != c.numCounts {
		return errAt(name, num, col, ErrCount, "%d scores and %d counts, the lines kept before have %d and %d",
			numScores, numCounts, c.numScores, c.numCounts)
	}
	c.kept++
	c.out = append(c.out, line...)
	c.out = append(c.out, '\n')
	return nil
}

// FilterPhraseTable copies to w the lines of the phrase table read from r
// (name is the file name for errors) whose source phrase is in keep, in
// file order. Every line must have 3 to 7 "|||" fields; a kept line is
// checked as ReadPhraseTable checks it. Errors are *ParseError values
// naming the line of r.
func FilterPhraseTable(ctx context.Context, r io.Reader, name string, w io.Writer, keep *PhraseSet, opts FilterOptions) (FilterStats, error) {
	if opts.NumScores < 0 {
		return FilterStats{}, fmt.Errorf("model: negative NumScores")
	}
	parse := func(data []byte, firstLine int) (*filterChunk, error) {
		c := &filterChunk{}
		var p phraseLine
		var err error
		c.lines, err = keptLines(data, firstLine, keep, checkPhraseLine(name), func(line []byte, _ []field, num int) error {
			if err := p.parse(line); err != nil {
				return err.at(name, num)
			}
			for i, wd := range p.src {
				if !utf8.Valid(wd) {
					return errAt(name, num, int(p.srcCol[i]), ErrUTF8, "word %s", textpos.Quote(wd))
				}
			}
			for i, wd := range p.tgt {
				if !utf8.Valid(wd) {
					return errAt(name, num, int(p.tgtCol[i]), ErrUTF8, "word %s", textpos.Quote(wd))
				}
			}
			if opts.NumScores > 0 && len(p.scores) != opts.NumScores {
				return errAt(name, num, p.fields[2].off+1, ErrCount, "%d scores, want %d", len(p.scores), opts.NumScores)
			}
			return c.keepLine(line, num, len(p.scores), len(p.counts), p.fields[2].off+1, name)
		})
		return c, err
	}
	return runFilter(ctx, r, name, w, opts, parse)
}

// FilterReordering copies to w the lines of the lexicalized reordering
// table read from r (name is the file name for errors) whose source phrase
// is in keep, in file order. Every line must have the fields of
// opts.Condition; a kept line's scores and words are checked as
// ReadReordering checks them. Errors are *ParseError values naming the
// line of r.
func FilterReordering(ctx context.Context, r io.Reader, name string, w io.Writer, keep *PhraseSet, opts FilterOptions) (FilterStats, error) {
	if opts.NumScores < 0 {
		return FilterStats{}, fmt.Errorf("model: negative NumScores")
	}
	if opts.Condition != ConditionF && opts.Condition != ConditionFE {
		return FilterStats{}, fmt.Errorf("model: unknown reordering condition %v", opts.Condition)
	}
	nf := 3
	if opts.Condition == ConditionF {
		nf = 2
	}
	parse := func(data []byte, firstLine int) (*filterChunk, error) {
		c := &filterChunk{}
		var sc int
		var err error
		c.lines, err = keptLines(data, firstLine, keep, checkReorderingLine(nf, opts.Condition, name), func(line []byte, fields []field, num int) error {
			for _, f := range fields[:nf-1] {
				if !utf8.Valid(f.b) {
					return errAt(name, num, f.off+1, ErrUTF8, "phrase %s", textpos.Quote(trimBlank(f.b)))
				}
			}
			sf := fields[nf-1]
			sc = 0
			for wd, s, _ := nextWord(sf.b, 0); wd != nil; wd, s, _ = nextWord(sf.b, s+len(wd)) {
				if _, ok := parseProb(wd); !ok {
					return errAt(name, num, sf.off+s+1, ErrNumber, "score %s is not a finite number ≥ 0", textpos.Quote(wd))
				}
				sc++
			}
			switch {
			case sc == 0:
				return errAt(name, num, sf.off+1, ErrCount, "no scores")
			case opts.NumScores > 0 && sc != opts.NumScores:
				return errAt(name, num, sf.off+1, ErrCount, "%d scores, want %d", sc, opts.NumScores)
			}
			return c.keepLine(line, num, sc, 0, sf.off+1, name)
		})
		return c, err
	}
	return runFilter(ctx, r, name, w, opts, parse)
}

// runFilter runs a filter's parse over r's blocks and writes the kept
// lines to w in file order.
func runFilter(ctx context.Context, r io.Reader, name string, w io.Writer, opts FilterOptions,
	parse func(data []byte, firstLine int) (*filterChunk, error)) (FilterStats, error) {
	m := &filterMerger{w: w, name: name}
	readErr := func(err error) error { return fmt.Errorf("model: reading %s: %w", name, err) }
	if err := runChunks(ctx, r, opts.Workers, opts.ChunkSize, parse, m.merge, readErr); err != nil {
		return m.stats, err
	}
	if m.stats.Lines == 0 {
		return m.stats, errAt(name, 0, 0, ErrEmpty, "no lines")
	}
	return m.stats, nil
}
