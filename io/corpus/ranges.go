package corpus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"

	"github.com/mtune/mtune/io/storage"
)

// Index is what Scan learns of a tuning set without holding it: its size,
// each file's checksum and, every RangeLines lines, where the line starts
// in each file. Its memory grows with Lines/RangeLines only.
type Index struct {
	// Source and RefPaths are the files: the source and the reference
	// files, folders and prefixes expanded (ResolveRefs).
	Source   string
	RefPaths []string
	// Lines is the number of sentences.
	Lines int
	// SHA256 holds the hex SHA-256 of each file's content (decompressed),
	// the source's first and then the references' in RefPaths order.
	SHA256 []string
	// RangeLines is the number of lines of a range but the last.
	RangeLines int
	// Starts[k][f] is the byte offset of line k·RangeLines in file f (the
	// source, then the references), or -1 for a compressed file.
	Starts [][]int64
}

// Range is a run of consecutive sentences of a tuning set that ReadRange
// reads on its own: Lines sentences from the 0-based line First.
type Range struct {
	Source string
	Refs   []string
	First  int
	Lines  int
	// Offsets[f] is where line First starts in file f (the source, then
	// Refs), or -1 to read file f from its start.
	Offsets []int64
	// Last marks the range that ends the files: ReadRange checks that no
	// line follows it.
	Last bool
}

// A compressed file has no offsets: each range reads it from its start,
// so a set of R ranges decompresses it R times. Give the workers plain
// files (local or gs://) when the set is large.

// Scan reads the tuning set src and refs (see Load) as a stream: it counts
// the sentences, checks every line as Load does (valid UTF-8, every file
// the same number of lines, at least one), checksums each file and records
// where every rangeLines-th line starts. With maxWords > 0 it refuses, as
// a decoder would, a blank source line (empty or white space only:
// ErrEmptyLine) and one of more than maxWords words (ErrLongLine), naming
// the file and line. It holds one line of each file at a time.
func Scan(ctx context.Context, src string, refs []string, rangeLines int, maxWords int) (*Index, error) {
	if rangeLines < 1 {
		return nil, fmt.Errorf("corpus: scan %s: %d lines a range", src, rangeLines)
	}
	paths, err := ResolveRefs(ctx, refs)
	if err != nil {
		return nil, err
	}
	files := append([]string{src}, paths...)
	ix := &Index{Source: src, RefPaths: paths, RangeLines: rangeLines, SHA256: make([]string, len(files))}
	readers := make([]*Reader, len(files))
	hashes := make([]hashedFile, len(files))
	for f, p := range files {
		rc, err := storage.Open(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
		defer rc.Close()
		hashes[f] = hashedFile{h: sha256.New(), seekable: storage.Seekable(p)}
		readers[f] = NewReader(io.TeeReader(rc, hashes[f].h))
	}
	for line := 0; ; line++ {
		if line%(1<<14) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("corpus: scan %s: %w", src, err)
			}
		}
		if line%rangeLines == 0 {
			starts := make([]int64, len(files))
			for f, r := range readers {
				starts[f] = -1
				if hashes[f].seekable {
					starts[f] = r.Offset()
				}
			}
			ix.Starts = append(ix.Starts, starts)
		}
		ended := 0
		for f, r := range readers {
			b, err := r.ReadBytes()
			switch {
			case err == io.EOF:
				ended++
			case err != nil:
				return nil, withPath(err, files[f])
			case f == 0 && maxWords > 0:
				if n := countWords(b); n == 0 {
					return nil, &ParseError{File: src, Line: line + 1, Err: ErrEmptyLine}
				} else if n > maxWords {
					return nil, &ParseError{File: src, Line: line + 1, Err: fmt.Errorf("%w: %d words, at most %d", ErrLongLine, n, maxWords)}
				}
			}
		}
		if ended == len(files) {
			if line%rangeLines == 0 {
				ix.Starts = ix.Starts[:len(ix.Starts)-1]
			}
			ix.Lines = line
			break
		}
		if ended > 0 {
			return nil, lineCountError(files, readers, line)
		}
	}
	if ix.Lines == 0 {
		return nil, fmt.Errorf("corpus: source %s: %w", src, ErrEmpty)
	}
	for f := range files {
		ix.SHA256[f] = hex.EncodeToString(hashes[f].h.Sum(nil))
	}
	return ix, nil
}

// hashedFile is a file Scan reads: its running checksum, and whether
// ranges can start inside it.
type hashedFile struct {
	h interface {
		io.Writer
		Sum([]byte) []byte
	}
	seekable bool
}

// lineCountError names the files that ended before the others after line
// sentences, and their line counts.
func lineCountError(files []string, readers []*Reader, line int) error {
	short, long := "", ""
	for f, r := range readers {
		if r.Line() == line {
			short = files[f]
		} else if long == "" {
			long = files[f]
		}
	}
	return fmt.Errorf("corpus: %s has %d lines but %s has more: %w", short, line, long, ErrLineCount)
}

// Ranges returns the ranges that cover the set, in order.
func (ix *Index) Ranges() []Range {
	out := make([]Range, len(ix.Starts))
	for k, starts := range ix.Starts {
		first := k * ix.RangeLines
		out[k] = Range{Source: ix.Source, Refs: ix.RefPaths, First: first, Lines: min(ix.RangeLines, ix.Lines-first),
			Offsets: starts, Last: k == len(ix.Starts)-1}
	}
	return out
}

// ReadRange reads the sentences of r: a Corpus of r.Lines sentences, its
// sentence i being line r.First+i of the files. It seeks to the recorded
// offsets where it can and reads the other files from their start. It
// checks each line as Load does and that the files still hold the lines
// Scan saw there: a line must start at each offset, every file must
// have the range's lines, and the last range must end the files. Errors
// name the file and the line in it.
func ReadRange(ctx context.Context, r Range) (*Corpus, error) {
	files := append([]string{r.Source}, r.Refs...)
	if r.First < 0 || r.Lines < 1 || len(r.Offsets) != len(files) {
		return nil, fmt.Errorf("corpus: read %s: bad range of %d lines from line %d with %d offsets for %d files",
			r.Source, r.Lines, r.First+1, len(r.Offsets), len(files))
	}
	c := &Corpus{Source: make([]string, r.Lines), Refs: make([][]string, r.Lines), SourcePath: r.Source, RefPaths: r.Refs}
	all := make([]string, r.Lines*len(r.Refs))
	for i := range c.Refs {
		c.Refs[i] = all[i*len(r.Refs) : (i+1)*len(r.Refs) : (i+1)*len(r.Refs)]
	}
	for f, p := range files {
		err := readLines(ctx, p, r, r.Offsets[f], func(i int, line string) {
			if f == 0 {
				c.Source[i] = line
			} else {
				c.Refs[i][f-1] = line
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return c, nil
}

// errMoved is the error of a range whose offsets no longer fall at the
// start of a line.
var errMoved = errors.New("the file changed since it was scanned: no line starts at the recorded offset")

// readLines reads the lines of range r from file p, starting at byte off
// (the start of line r.First) or, if off is negative, from the start of
// the file, and calls put with each line's index in the range.
func readLines(ctx context.Context, p string, r Range, off int64, put func(i int, line string)) error {
	skip := r.First
	var rc io.ReadCloser
	var err error
	if off >= 0 {
		// Read from the byte before the range: it must end a line.
		skip = 0
		if off > 0 {
			rc, err = storage.OpenAt(ctx, p, off-1)
		} else {
			rc, err = storage.OpenAt(ctx, p, 0)
		}
	} else {
		rc, err = storage.Open(ctx, p)
	}
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	defer rc.Close()
	if off > 0 {
		var b [1]byte
		if _, err := io.ReadFull(rc, b[:]); err != nil || b[0] != '\n' {
			return &ParseError{File: p, Line: r.First + 1, Err: errMoved}
		}
	}
	rd := NewReader(rc)
	base := 0 // lines of the file before rd's first
	if off >= 0 {
		rd.lr.Continued = off > 0
		base = r.First
	}
	for i := -skip; i < r.Lines; i++ {
		if i%(1<<14) == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("corpus: read %s: %w", p, err)
			}
		}
		b, err := rd.ReadBytes()
		if err == io.EOF {
			return fmt.Errorf("corpus: %s ends after line %d, inside the range of lines %d to %d: %w",
				p, base+rd.Line(), r.First+1, r.First+r.Lines, ErrLineCount)
		}
		if err != nil {
			return withPath(rebase(err, base), p)
		}
		if i >= 0 {
			put(i, string(b))
		}
	}
	if r.Last {
		if _, err := rd.ReadBytes(); err != io.EOF {
			if err != nil {
				return withPath(rebase(err, base), p)
			}
			return fmt.Errorf("corpus: %s has more than the %d lines it had when it was scanned: %w", p, r.First+r.Lines, ErrLineCount)
		}
	}
	return nil
}

// rebase adds base to the line of a *ParseError in err.
func rebase(err error, base int) error {
	var pe *ParseError
	if errors.As(err, &pe) && pe.Line > 0 {
		pe.Line += base
	}
	return err
}

// withPath sets the file of a *ParseError in err to p, or names p in
// another error.
func withPath(err error, p string) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		pe.File = p
		return err
	}
	return fmt.Errorf("corpus: read %s: %w", p, err)
}

// countWords returns the number of words of b, a valid UTF-8 line: its
// runs of non-space characters, as strings.Fields splits them (and so the
// decoder).
func countWords(b []byte) int {
	n, in := 0, false
	for len(b) > 0 {
		r, size := rune(b[0]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b)
		}
		space := unicode.IsSpace(r)
		if !space && !in {
			n++
		}
		in = !space
		b = b[size:]
	}
	return n
}
