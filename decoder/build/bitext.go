package build

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mtune/mtune/internal/textpos"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/storage"
)

// nullWord is the word Moses' lexical tables explain unaligned words by. It
// has id 0 in both vocabularies; a corpus token "NULL" is the same word, as
// it is for Moses (train-model.perl keys its tables by the string).
const nullWord = "NULL"

// vocab interns the words of one side of the bitext.
type vocab struct {
	ids   map[string]int32
	words []string
}

func newVocab() *vocab {
	v := &vocab{ids: make(map[string]int32, 1<<14)}
	v.intern([]byte(nullWord))
	return v
}

// intern returns the id of w, adding it if new. The lookup of a known word
// does not allocate.
func (v *vocab) intern(w []byte) int32 {
	if id, ok := v.ids[string(w)]; ok {
		return id
	}
	s := string(w)
	id := int32(len(v.words))
	v.ids[s] = id
	v.words = append(v.words, s)
	return id
}

// bitext holds the selected sentence pairs as word ids in flat arrays.
// Sentence s has source tokens src[srcOff[s]:srcOff[s+1]] and target tokens
// tgt[tgtOff[s]:tgtOff[s+1]]. The alignment is stored by target token, as
// Moses' extract holds it (alignedToT): the source positions aligned to the
// target token with global index k = tgtOff[s]+j are atF[atOff[k]:atOff[k+1]],
// in the order of the alignment line, duplicates kept.
type bitext struct {
	sv, tv         *vocab
	src, tgt       []int32
	srcOff, tgtOff []int32
	atOff          []int32
	atF            []uint16
}

func (b *bitext) len() int { return len(b.srcOff) - 1 }

func (b *bitext) srcSent(s int) []int32 { return b.src[b.srcOff[s]:b.srcOff[s+1]] }
func (b *bitext) tgtSent(s int) []int32 { return b.tgt[b.tgtOff[s]:b.tgtOff[s+1]] }

// alignedTo returns the source positions aligned to target position j of
// sentence s.
func (b *bitext) alignedTo(s, j int) []uint16 {
	k := int(b.tgtOff[s]) + j
	return b.atF[b.atOff[k]:b.atOff[k+1]]
}

func newBitext() *bitext {
	return &bitext{sv: newVocab(), tv: newVocab(), srcOff: []int32{0}, tgtOff: []int32{0}, atOff: []int32{0}}
}

// lineReader reads one of the three files.
type lineReader struct {
	path string
	rc   io.ReadCloser
	r    *corpus.Reader
}

func openLines(ctx context.Context, path string) (*lineReader, error) {
	rc, err := storage.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	return &lineReader{path: path, rc: rc, r: corpus.NewReader(rc)}, nil
}

// next returns the next line, io.EOF after the last one, or an error naming
// the file.
func (l *lineReader) next() ([]byte, error) {
	b, err := l.r.ReadBytes()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		var pe *corpus.ParseError
		if errors.As(err, &pe) {
			return nil, &ParseError{File: l.path, Line: pe.Line, Column: pe.Column, Err: pe.Err}
		}
		return nil, fmt.Errorf("build: %s: %w", l.path, err)
	}
	return b, nil
}

// readBitext reads the sentence pairs of lines from the three files,
// streaming them in lock-step.
func readBitext(ctx context.Context, srcPath, tgtPath, alignPath string, lines LineRange) (*bitext, error) {
	var rs [3]*lineReader
	for i, p := range []string{srcPath, tgtPath, alignPath} {
		r, err := openLines(ctx, p)
		if err != nil {
			for _, o := range rs[:i] {
				o.rc.Close()
			}
			return nil, err
		}
		rs[i] = r
	}
	defer func() {
		for _, r := range rs {
			r.rc.Close()
		}
	}()
	return readLines(ctx, rs, lines)
}

// readLines reads the sentence pairs of lines from the source, target and
// alignment readers rs.
func readLines(ctx context.Context, rs [3]*lineReader, lines LineRange) (*bitext, error) {
	srcPath := rs[0].path
	b := newBitext()
	var p alignParser
	for n := 1; ; n++ {
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("build: reading %s: %w", srcPath, err)
			}
		}
		in, past := lines.contains(n)
		if past {
			break
		}
		var text [3][]byte
		eof := 0
		for i, r := range rs {
			t, err := r.next()
			if err == io.EOF {
				eof++
				continue
			}
			if err != nil {
				return nil, err
			}
			text[i] = t
		}
		if eof == 3 {
			if lines.Last > 0 {
				return nil, fmt.Errorf("build: %w: line range %s, but %s has %d lines", ErrLineCount, lines, srcPath, n-1)
			}
			break
		}
		if eof > 0 {
			var short []string
			for i, r := range rs {
				if text[i] == nil {
					short = append(short, r.path)
				}
			}
			return nil, fmt.Errorf("build: %w: %v end at line %d, before the other files", ErrLineCount, short, n-1)
		}
		if !in {
			continue
		}
		if err := b.add(n, text[0], text[1], text[2], rs[0].path, rs[1].path, rs[2].path, &p); err != nil {
			return nil, err
		}
	}
	if b.len() == 0 {
		return nil, fmt.Errorf("build: %w: %s has no line in range %q", ErrEmpty, srcPath, lines.String())
	}
	return b, nil
}

// add appends the sentence pair of file line n.
func (b *bitext) add(n int, src, tgt, align []byte, srcPath, tgtPath, alignPath string, p *alignParser) error {
	var bad int
	if b.src, bad = tokenize(b.src, src, b.sv); bad > 0 {
		return errAt(srcPath, n, bad, ErrToken, "")
	}
	if b.tgt, bad = tokenize(b.tgt, tgt, b.tv); bad > 0 {
		return errAt(tgtPath, n, bad, ErrToken, "")
	}
	nf := len(b.src) - int(b.srcOff[len(b.srcOff)-1])
	ne := len(b.tgt) - int(b.tgtOff[len(b.tgtOff)-1])
	if nf > 65535 {
		return errAt(srcPath, n, 0, ErrTooLong, "%d tokens", nf)
	}
	if ne > 65535 {
		return errAt(tgtPath, n, 0, ErrTooLong, "%d tokens", ne)
	}
	b.srcOff = append(b.srcOff, int32(len(b.src)))
	b.tgtOff = append(b.tgtOff, int32(len(b.tgt)))
	pts, err := p.parse(align, nf, ne)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.File, pe.Line = alignPath, n
		}
		return err
	}
	// Bucket the points by target position, keeping the line's order.
	base := len(b.atOff) - 1
	for range ne {
		b.atOff = append(b.atOff, 0)
	}
	cnt := b.atOff[base+1:]
	for _, pt := range pts {
		cnt[pt.e]++
	}
	start := b.atOff[base]
	for j := range cnt {
		c := cnt[j]
		cnt[j] = start
		start += c
	}
	// cnt[j] is now the start of position j; fill, then shift to ends.
	b.atF = append(b.atF, make([]uint16, len(pts))...)
	for _, pt := range pts {
		b.atF[cnt[pt.e]] = pt.f
		cnt[pt.e]++
	}
	return nil
}

// tokenize appends the ids of the space- or tab-separated tokens of line to
// dst, as Moses' tokenize does (runs of separators are one, leading and
// trailing ones are dropped). A token "|||", which would break the tables'
// format, stops it: bad is then its 1-based column.
func tokenize(dst []int32, line []byte, v *vocab) (out []int32, bad int) {
	i := 0
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		if j-i == 3 && string(line[i:j]) == "|||" {
			return dst, i + 1
		}
		if j > i {
			dst = append(dst, v.intern(line[i:j]))
		}
		i = j
	}
	return dst, 0
}

type point struct{ f, e uint16 }

// alignParser parses alignment lines, reusing its buffer.
type alignParser struct{ pts []point }

// parse parses "i-j i-j …" for a sentence pair of nf source and ne target
// tokens. Errors are *ParseError with the column set.
func (p *alignParser) parse(line []byte, nf, ne int) ([]point, error) {
	p.pts = p.pts[:0]
	i := 0
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) {
			break
		}
		col := i + 1
		f, ok1, j := atoiAt(line, i)
		if !ok1 || j >= len(line) || line[j] != '-' {
			return nil, errAt("", 0, col, ErrAlignment, "%s", textpos.Quote(tokenAt(line, i)))
		}
		e, ok2, k := atoiAt(line, j+1)
		if !ok2 || (k < len(line) && line[k] != ' ' && line[k] != '\t') {
			return nil, errAt("", 0, col, ErrAlignment, "%s", textpos.Quote(tokenAt(line, i)))
		}
		if f >= nf || e >= ne {
			return nil, errAt("", 0, col, ErrOutOfRange, "%d-%d in a pair of %d source and %d target tokens", f, e, nf, ne)
		}
		p.pts = append(p.pts, point{uint16(f), uint16(e)})
		i = k
	}
	return p.pts, nil
}

// atoiAt parses the decimal digits at line[i:], returning the value,
// whether there was at least one digit (and no overflow past 1<<20), and
// the index after the digits.
func atoiAt(line []byte, i int) (int, bool, int) {
	v, j := 0, i
	for j < len(line) && line[j] >= '0' && line[j] <= '9' {
		v = v*10 + int(line[j]-'0')
		if v > 1<<20 {
			return 0, false, j
		}
		j++
	}
	return v, j > i, j
}

// tokenAt returns the token starting at line[i], for error messages.
func tokenAt(line []byte, i int) string {
	j := i
	for j < len(line) && line[j] != ' ' && line[j] != '\t' {
		j++
	}
	return string(line[i:j])
}
