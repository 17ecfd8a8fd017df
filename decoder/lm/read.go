package lm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mtune/mtune/internal/fastnum"
	"github.com/mtune/mtune/internal/textpos"
	"github.com/mtune/mtune/io/storage"
)

// Options configure Read and Load. A nil *Options is the zero value: every
// field at its default.
type Options struct {
	// Workers is the number of goroutines parsing the n-grams of orders 2
	// and up. Zero means runtime.GOMAXPROCS(0).
	Workers int
	// UnknownLogProb is the log10 probability of <unk> when the 1-grams do
	// not list it. Zero means DefaultUnknownLogProb (-100, as KenLM).
	UnknownLogProb float32
}

// Load reads the ARPA model at path (local or gs://, .gz and .zst
// decompressed by extension; see io/storage). Errors in the file are
// *ParseError values naming path and line.
func Load(ctx context.Context, path string, opts *Options) (*Model, error) {
	rc, err := storage.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("lm: %w", err)
	}
	defer rc.Close()
	return Read(ctx, rc, path, opts)
}

// Read reads an ARPA model from r; name is the file name for errors. The
// decompressed text is read in chunks by one goroutine; 1-grams are parsed
// in order by another (they number the vocabulary); chunks of the higher
// orders are parsed by Options.Workers goroutines and put into the tables
// in file order, so errors are deterministic: the first bad line wins.
func Read(ctx context.Context, r io.Reader, name string, opts *Options) (*Model, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.UnknownLogProb == 0 {
		o.UnknownLogProb = DefaultUnknownLogProb
	}
	return read(ctx, r, name, o, chunkSize)
}

// read is Read with the options defaulted and the chunk size given.
func read(ctx context.Context, r io.Reader, name string, o Options, chunk int) (*Model, error) {
	rd := &reader{opts: o, failed: make(chan struct{})}
	m, err := rd.run(ctx, r, chunk)
	if err != nil {
		return nil, textpos.WithFile[pkgPrefix](err, name)
	}
	return m, nil
}

const chunkSize = 1 << 20

type chunk struct {
	data []byte // whole lines; the last one may lack '\n' at the end of input
	line int    // number of the first line
	err  error  // a read error after data
}

// produce cuts r into chunks of whole lines.
func produce(r io.Reader, size int, out chan<- chunk, stop <-chan struct{}) {
	defer close(out)
	send := func(c chunk) bool {
		select {
		case out <- c:
			return true
		case <-stop:
			return false
		}
	}
	line := 1
	var carry []byte
	for {
		buf := make([]byte, max(size, 2*len(carry))) // a long line doubles it
		n := copy(buf, carry)
		var err error
		for empty := 0; n < len(buf) && err == nil; {
			var k int
			k, err = r.Read(buf[n:])
			n += k
			if k > 0 {
				empty = 0
			} else if empty++; empty == 100 && err == nil {
				err = io.ErrNoProgress // as bufio gives up
			}
		}
		buf = buf[:n]
		cut := n
		if err != io.EOF {
			// Whole lines only; a line cut by a read error is not parsed.
			cut = bytes.LastIndexByte(buf, '\n') + 1
			if cut == 0 && err == nil { // one line longer than the buffer
				carry = buf
				continue
			}
		}
		carry = buf[cut:]
		if cut > 0 {
			if !send(chunk{data: buf[:cut], line: line}) {
				return
			}
			line += bytes.Count(buf[:cut], []byte{'\n'})
		}
		if err != nil {
			if err != io.EOF {
				send(chunk{line: line, err: err})
			}
			return
		}
	}
}

// Phases of the line handler.
const (
	phPreamble = iota // before \data\
	phCounts          // ngram N=C lines
	phHeader          // expecting \N-grams: or \end\
	phUnigrams        // in \1-grams:
	phNGrams          // in \N-grams: for N ≥ 2 (the lines go to workers)
	phEnd             // after \end\
)

type reader struct {
	opts   Options
	b      *builder
	counts []int
	phase  int
	n      int // order of the current or last section
	got    int // 1-grams read
	last   int // last line number seen

	jobs     chan *job
	queue    chan item
	failed   chan struct{}   // closed by the inserter when it fails
	complete []chan struct{} // complete[n] is closed when order n is in
	free     chan *batch     // batches to reuse
	open     atomic.Bool     // some n-gram's suffix is missing
}

type job struct {
	n    int
	data []byte
	line int
	res  chan *batch
}

// Kinds of queue items.
const (
	itemStart = iota // a section of order n ≥ 2 begins
	itemJob          // the result of a job
	itemEnd          // the section ends at line
)

type item struct {
	kind int
	n    int
	line int
	res  chan *batch
}

// batch holds the parsed n-grams of a job.
type batch struct {
	words []WordID // n per n-gram
	ctx   []int32  // slot of each n-gram's context, -1 if missing
	prob  []float32
	bo    []float32
	lines []int
	err   error // the parse error that ended the job, after the n-grams
}

func (rd *reader) run(ctx context.Context, r io.Reader, size int) (*Model, error) {
	chunks := make(chan chunk, 2)
	stop := make(chan struct{})
	go produce(r, size, chunks, stop)
	defer func() {
		close(stop)
		for range chunks {
		}
	}()

	rd.jobs = make(chan *job, rd.opts.Workers)
	rd.queue = make(chan item, 2*rd.opts.Workers+2)
	rd.free = make(chan *batch, 2*rd.opts.Workers+2)
	var workers sync.WaitGroup
	for range rd.opts.Workers {
		workers.Go(func() {
			for j := range rd.jobs {
				j.res <- rd.parseJob(j)
			}
		})
	}
	done := make(chan error, 1)
	go func() { done <- rd.insert() }()

	err := rd.feed(ctx, chunks)
	close(rd.jobs)
	close(rd.queue)
	insErr := <-done
	workers.Wait()
	if insErr != nil {
		return nil, insErr // earlier in the file than anything feed saw
	}
	if err != nil {
		return nil, err
	}
	rd.b.m.open = rd.open.Load()
	return rd.b.m, nil
}

var errStopped = errors.New("stopped")

// feed reads the chunks: the header and the 1-grams line by line, the
// higher orders as jobs.
func (rd *reader) feed(ctx context.Context, chunks <-chan chunk) error {
	for ch := range chunks {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ch.err != nil {
			return &ParseError{Line: ch.line, Err: ch.err}
		}
		data, line := ch.data, ch.line
		for pos := 0; pos < len(data); {
			if rd.phase == phNGrams {
				if end := findHeader(data, pos); end > pos {
					if !rd.dispatch(data[pos:end], line) {
						return errStopped
					}
					line += bytes.Count(data[pos:end], []byte{'\n'})
					if data[end-1] != '\n' {
						line++ // the last line of the input, without '\n'
					}
					rd.last = line - 1
					pos = end
					continue
				}
			}
			next := len(data)
			l := data[pos:]
			if i := bytes.IndexByte(l, '\n'); i >= 0 {
				l, next = l[:i], pos+i+1
			}
			if err := rd.handle(trimCR(l), line); err != nil {
				if err == errStopped {
					return err
				}
				return &ParseError{Line: line, Err: err}
			}
			rd.last = line
			pos = next
			line++
		}
	}
	if rd.phase != phEnd {
		what := "missing \\end\\"
		switch rd.phase {
		case phPreamble:
			what = "empty input"
			if rd.last > 0 {
				what = "no \\data\\ header"
			}
		case phUnigrams, phNGrams:
			what = fmt.Sprintf("in the %d-grams, missing \\end\\", rd.n)
		}
		return &ParseError{Line: rd.last, Err: fmt.Errorf("%w: %s: %w", ErrSyntax, what, io.ErrUnexpectedEOF)}
	}
	return nil
}

// findHeader returns the start of the first line at or after pos that
// begins with '\', or len(data).
func findHeader(data []byte, pos int) int {
	if data[pos] == '\\' {
		return pos
	}
	if i := bytes.Index(data[pos:], []byte("\n\\")); i >= 0 {
		return pos + i + 1
	}
	return len(data)
}

func (rd *reader) send(it item) bool {
	select {
	case rd.queue <- it:
		return true
	case <-rd.failed:
		return false
	}
}

func (rd *reader) dispatch(data []byte, line int) bool {
	res := make(chan *batch, 1)
	select {
	case rd.jobs <- &job{n: rd.n, data: data, line: line, res: res}:
	case <-rd.failed:
		return false
	}
	return rd.send(item{kind: itemJob, n: rd.n, res: res})
}

func trimCR(l []byte) []byte {
	if len(l) > 0 && l[len(l)-1] == '\r' {
		return l[:len(l)-1]
	}
	return l
}

// spaceTab is the white space trimmed off a line: space, tab and CR.
// Like KenLM's kARPASpaces it leaves VT and FF alone: lmplz splits words
// at spaces, tabs, CRs, LFs and NULs only, so a word may hold them, and
// one made only of them would otherwise vanish from its line.
var spaceTab = textpos.Separators{' ': true, '\t': true, '\r': true}

// field returns the first field of l (separated by spaces or tabs) and the
// rest after it.
func field(l []byte) (f, rest []byte) {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	j := i
	for j < len(l) && l[j] != ' ' && l[j] != '\t' {
		j++
	}
	return l[i:j], l[j:]
}

// handle processes one line outside the n-gram sections of order ≥ 2 (or
// the header line ending one).
func (rd *reader) handle(l []byte, line int) error {
	if !utf8.Valid(l) {
		return ErrInvalidUTF8
	}
	t := spaceTab.Trim(l)
	switch rd.phase {
	case phPreamble:
		// Like KenLM: blank lines and lines starting with '#' may come first.
		if len(t) == 0 || t[0] == '#' {
			return nil
		}
		if string(t) != `\data\` {
			return errorf(ErrSyntax, "first non-blank line is not \\data\\ (want an ARPA file)")
		}
		rd.phase = phCounts
	case phCounts:
		if len(t) == 0 || t[0] == '\\' {
			if len(rd.counts) == 0 {
				if len(t) == 0 {
					return nil
				}
				return errorf(ErrSyntax, "no \"ngram N=count\" lines after \\data\\")
			}
			if len(rd.counts) > MaxOrder {
				return errorf(ErrOrder, "order %d is above %d", len(rd.counts), MaxOrder)
			}
			rd.b = newBuilder(rd.counts, rd.opts.UnknownLogProb)
			rd.complete = make([]chan struct{}, len(rd.counts)+1)
			for i := range rd.complete {
				rd.complete[i] = make(chan struct{})
			}
			rd.phase = phHeader
			return rd.handle(l, line)
		}
		return rd.countLine(t)
	case phHeader:
		if len(t) == 0 {
			return nil
		}
		if rd.n == len(rd.counts) {
			if string(t) != `\end\` {
				return errorf(ErrSyntax, "expected \\end\\ after the %d-grams", rd.n)
			}
			rd.phase = phEnd
			return nil
		}
		want := rd.n + 1
		if n, ok := parseHeader(t); !ok || n != want {
			return errorf(ErrSyntax, "expected \\%d-grams:", want)
		}
		rd.n = want
		if want == 1 {
			rd.phase = phUnigrams
			return nil
		}
		rd.phase = phNGrams
		if !rd.send(item{kind: itemStart, n: want, line: line}) {
			return errStopped
		}
	case phUnigrams:
		if len(t) == 0 {
			return nil
		}
		if t[0] == '\\' {
			if rd.got != rd.counts[0] {
				return errorf(ErrCount, "the 1-grams section has %d 1-grams, \\data\\ says %d", rd.got, rd.counts[0])
			}
			if err := rd.b.finishUnigrams(); err != nil {
				return err
			}
			close(rd.complete[1])
			rd.phase = phHeader
			return rd.handle(l, line)
		}
		if rd.got == rd.counts[0] {
			return errorf(ErrCount, "more 1-grams than the %d \\data\\ says", rd.counts[0])
		}
		rd.got++
		prob, rest, err := parseProb(t)
		if err != nil {
			return err
		}
		word, rest := field(rest)
		if len(word) == 0 {
			return errorf(ErrSyntax, "a 1-gram needs a word")
		}
		bo, err := parseBackoff(rest, 1 == len(rd.counts))
		if err != nil {
			return err
		}
		if err := rd.b.unigram(word, prob, bo); err != nil {
			return err
		}
	case phNGrams:
		// A line starting with '\' ends the section.
		if !rd.send(item{kind: itemEnd, n: rd.n, line: line}) {
			return errStopped
		}
		rd.phase = phHeader
		return rd.handle(l, line)
	case phEnd:
		if len(t) != 0 {
			return errorf(ErrSyntax, "text after \\end\\")
		}
	}
	return nil
}

// maxCount bounds a header count: slots are int32.
const maxCount = 1 << 30

// countLine parses "ngram N=count".
func (rd *reader) countLine(t []byte) error {
	rest, ok := bytes.CutPrefix(t, []byte("ngram"))
	if !ok || len(rest) == 0 || (rest[0] != ' ' && rest[0] != '\t') {
		return errorf(ErrSyntax, "count line does not start with \"ngram \" (want \"ngram N=count\")")
	}
	ns, cs, ok := bytes.Cut(rest, []byte("="))
	if !ok {
		return errorf(ErrSyntax, "count line has no '=' (want \"ngram N=count\")")
	}
	n, err1 := strconv.Atoi(string(spaceTab.Trim(ns)))
	c, err2 := strconv.Atoi(string(spaceTab.Trim(cs)))
	if err1 != nil || err2 != nil || c < 0 {
		return errorf(ErrSyntax, "bad count line (want \"ngram N=count\", N and count integers, count ≥ 0)")
	}
	if n != len(rd.counts)+1 {
		return errorf(ErrSyntax, "count line for order %d: want order %d (orders must be 1, 2, … in turn)", n, len(rd.counts)+1)
	}
	if c > maxCount {
		return errorf(ErrCount, "%d %d-grams are more than %d", c, n, maxCount)
	}
	rd.counts = append(rd.counts, c)
	return nil
}

// parseHeader parses "\N-grams:".
func parseHeader(t []byte) (int, bool) {
	s, ok := bytes.CutPrefix(t, []byte{'\\'})
	if !ok {
		return 0, false
	}
	s, ok = bytes.CutSuffix(s, []byte("-grams:"))
	if !ok || len(s) == 0 || len(s) > 3 {
		return 0, false
	}
	n, err := strconv.Atoi(string(s))
	return n, err == nil && n > 0
}

// parseNumber parses a decimal number: digits, '.', 'e', 'E', signs (no
// "inf", "nan" or hexadecimal), finite as a float32, rounded as
// strconv.ParseFloat(s, 32) does.
func parseNumber(f []byte) (float32, error) {
	if v, ok := fastnum.ParseFloat32(f); ok {
		return v, nil
	}
	if len(f) == 0 {
		return 0, errorf(ErrNumber, "missing number")
	}
	return 0, errorf(ErrNumber, "%s", textpos.Quote(f))
}

// parseProb parses the probability at the start of a line.
func parseProb(l []byte) (float32, []byte, error) {
	f, rest := field(l)
	p, err := parseNumber(f)
	if err != nil {
		return 0, nil, err
	}
	if p > 0 {
		// KenLM rejects these by default (an IRSTLM bug makes them).
		return 0, nil, errorf(ErrNumber, "positive log probability %s", textpos.Quote(f))
	}
	return p, rest, nil
}

// parseBackoff parses the optional back-off after the words and checks
// nothing follows. The highest order may carry only a zero back-off, as
// KenLM allows.
func parseBackoff(rest []byte, top bool) (float32, error) {
	f, rest := field(rest)
	if len(f) == 0 {
		return 0, nil
	}
	bo, err := parseNumber(f)
	if err != nil {
		return 0, err
	}
	if top && bo != 0 {
		return 0, errorf(ErrSyntax, "back-off %s on an n-gram of the highest order", textpos.Quote(f))
	}
	if g, _ := field(rest); len(g) != 0 {
		return 0, errorf(ErrSyntax, "unexpected %s after the back-off", textpos.Quote(g))
	}
	return bo, nil
}

// parseJob parses the n-gram lines of a job.
func (rd *reader) parseJob(j *job) *batch {
	var b *batch
	select {
	case b = <-rd.free:
	default:
		b = new(batch)
	}
	b.words, b.ctx, b.prob, b.bo, b.lines, b.err = b.words[:0], b.ctx[:0], b.prob[:0], b.bo[:0], b.lines[:0], nil
	v := rd.b.m.vocab
	top := j.n == len(rd.counts)
	data, line := j.data, j.line
	for pos := 0; pos < len(data); line++ {
		next := len(data)
		l := data[pos:]
		if i := bytes.IndexByte(l, '\n'); i >= 0 {
			l, next = l[:i], pos+i+1
		}
		l = trimCR(l)
		pos = next
		if err := rd.parseLine(b, v, j.n, top, l, line); err != nil {
			b.err = &ParseError{Line: line, Err: err}
			break
		}
	}
	// The contexts are in the table one order down: wait until it is
	// complete (or the inserter gave up, when they no longer matter).
	select {
	case <-rd.complete[j.n-1]:
	case <-rd.failed:
		return b
	}
	m := rd.b.m
	open := false
	for i := range b.prob {
		words := b.words[i*j.n : (i+1)*j.n]
		ctx, ok := m.context(words)
		if !ok {
			ctx = -1
		}
		b.ctx = append(b.ctx, ctx)
		if !open && !m.hasSuffix(words) {
			open = true
		}
	}
	if open {
		rd.open.Store(true)
	}
	return b
}

func (rd *reader) parseLine(b *batch, v *Vocab, n int, top bool, l []byte, line int) error {
	if len(spaceTab.Trim(l)) == 0 {
		return nil
	}
	if !utf8.Valid(l) {
		return ErrInvalidUTF8
	}
	prob, rest, err := parseProb(l)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		var w []byte
		w, rest = field(rest)
		if len(w) == 0 {
			b.words = b.words[:len(b.words)-i]
			return errorf(ErrSyntax, "a %d-gram needs %d words", n, n)
		}
		id, ok := v.lookup(w)
		if !ok || (id == Unknown && !rd.b.m.hasUnk) {
			b.words = b.words[:len(b.words)-i]
			return errorf(ErrUnknownWord, "%s", textpos.Quote(w))
		}
		b.words = append(b.words, id)
	}
	bo, err := parseBackoff(rest, top)
	if err != nil {
		b.words = b.words[:len(b.words)-n]
		return err
	}
	b.prob = append(b.prob, prob)
	b.bo = append(b.bo, bo)
	b.lines = append(b.lines, line)
	return nil
}

// insert puts the parsed n-grams into the tables in file order. After a
// failure it drains the queue.
func (rd *reader) insert() error {
	var err error
	fail := func(e error) {
		err = e
		close(rd.failed)
	}
	inserted := 0
	for it := range rd.queue {
		if err != nil {
			if it.kind == itemJob {
				<-it.res
			}
			continue
		}
		switch it.kind {
		case itemStart:
			rd.b.start(it.n)
			inserted = 0
		case itemEnd:
			if want := rd.counts[it.n-1]; inserted != want {
				fail(&ParseError{Line: it.line, Err: errorf(ErrCount, "the %d-grams section has %d n-grams, \\data\\ says %d", it.n, inserted, want)})
				continue
			}
			rd.b.finish(it.n)
			close(rd.complete[it.n])
		case itemJob:
			b := <-it.res
			n, want := it.n, rd.counts[it.n-1]
			for i := range b.prob {
				if inserted == want {
					fail(&ParseError{Line: b.lines[i], Err: errorf(ErrCount, "more %d-grams than the %d \\data\\ says", n, want)})
					break
				}
				words := b.words[i*n : (i+1)*n]
				e := ErrMissingContext
				if b.ctx[i] >= 0 {
					e = rd.b.addAt(n, b.ctx[i], words[n-1], b.prob[i], b.bo[i])
				}
				if e != nil {
					fail(&ParseError{Line: b.lines[i], Err: fmt.Errorf("%w: %s", e, textpos.Quote(rd.text(words)))})
					break
				}
				inserted++
			}
			if err == nil && b.err != nil {
				fail(b.err)
			}
			select {
			case rd.free <- b:
			default:
			}
		}
	}
	return err
}

// text returns the words of an n-gram.
func (rd *reader) text(words []WordID) string {
	var sb []byte
	for i, w := range words {
		if i > 0 {
			sb = append(sb, ' ')
		}
		sb = append(sb, rd.b.m.vocab.Word(w)...)
	}
	return string(sb)
}
