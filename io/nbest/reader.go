package nbest

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/textpos"
)

// Hypothesis is one line of an n-best list.
type Hypothesis struct {
	// Sentence is the 0-based id of the input sentence.
	Sentence int
	// Target is the translation, without the spaces around it.
	Target string
	// Features holds the non-zero feature values, with ids from the
	// reader's Index.
	Features feature.Vector
	// Score is the decoder's total model score; it is meaningful only when
	// HasScore is true (lists without a fourth field, as cdec writes, have
	// none).
	Score    float64
	HasScore bool
	// Alignment is everything after the fourth field, spaces trimmed,
	// unparsed: Moses' word or phrase alignment ("0-0 1-2 …"), or
	// Marian's hard or soft alignment field (MarianReader). Empty when
	// absent.
	Alignment string
	// Detok is the detokenized target, where a list has one besides the
	// target (fairseq's D- lines); empty otherwise.
	Detok string
	// File and Line say where a Reader read it (the reader's name and
	// the 1-based line), for errors found later; zero when not read.
	File string
	Line int
}

// Pos returns "file:line" of where h was read.
func (h Hypothesis) Pos() string { return fmt.Sprintf("%s:%d", h.File, h.Line) }

// Reader reads hypotheses from a Moses, cdec or Joshua n-best list. See
// the package documentation for the format.
type Reader struct {
	lr   lineReader
	name string
	idx  *feature.Index
	err  error // sticky

	ents  []entry    // the current line's features
	keys  []uint64   // scratch for makeVector
	cache *nameCache // recently used sparse names

	// Dense groups seen so far, in order of first appearance.
	groups  []groupState
	byLabel map[string]int
	touched []int // groups used on the current line

	// The dense layout every line must have: the number of components of
	// each group (by index in groups) on layoutLine, the first line read.
	layout     []int
	layoutLine int

	g        grouper // ReadSentence's state
	lastLine int     // line of the hypothesis last returned by Read
}

type groupState struct {
	label string
	ids   []feature.ID // ids of label_0, label_1, … interned so far
	max   int          // most components seen on one line
	n     int          // components on the current line
}

// NewReader returns a Reader reading from r. name (a file name, or "")
// appears in errors. Feature names are interned in idx, which may be
// shared with other readers.
func NewReader(r io.Reader, name string, idx *feature.Index) *Reader {
	return &Reader{
		lr:      newLineReader(r),
		name:    name,
		idx:     idx,
		byLabel: make(map[string]int),
	}
}

// Groups returns the dense feature groups seen so far, in order of first
// appearance, each with the largest number of components it had on a line.
func (r *Reader) Groups() []feature.Group {
	out := make([]feature.Group, len(r.groups))
	for i, g := range r.groups {
		out[i] = feature.Group{Label: g.label, Len: g.max}
	}
	return out
}

// Line returns the line number of the hypothesis Read last returned.
func (r *Reader) Line() int { return r.lastLine }

// SentenceLine returns the line number of the first hypothesis of the
// sentence ReadSentence last returned.
func (r *Reader) SentenceLine() int { return r.g.sentLine }

// Format returns FormatMoses: the Reader reads Moses', Joshua's, cdec's
// and Travatar's lists.
func (r *Reader) Format() Format { return FormatMoses }

// Read returns the next hypothesis. At the end of the input it returns
// io.EOF. Malformed lines give a *ParseError; errors are sticky.
func (r *Reader) Read() (Hypothesis, error) {
	if h, ok := r.g.unread(); ok {
		r.lastLine = h.Line
		return h, nil
	}
	return sticky(&r.err, r.read)
}

// ReadSentence returns the hypotheses of the next sentence: the run of
// consecutive lines that share a sentence id. Ids need not be consecutive
// or sorted, but a sentence's lines must be together: an id that comes
// back after another one is an error wrapping ErrNotGrouped. At the end of
// the input it returns io.EOF. Memory use is bounded by one sentence's
// list (and the set of ids seen). Do not mix with Read unless you handle
// the grouping yourself.
func (r *Reader) ReadSentence() (id int, hyps []Hypothesis, err error) {
	return r.g.next(r.Read, &r.err)
}

func (r *Reader) read() (Hypothesis, error) {
	for {
		line, complete, err := r.lr.next()
		if err != nil {
			return Hypothesis{}, err
		}
		if len(spaceTab.Trim(line)) == 0 {
			continue
		}
		r.lastLine = r.lr.line
		h, err := r.parseLine(line, complete)
		h.File, h.Line = r.name, r.lastLine
		return h, err
	}
}

func (r *Reader) errAt(col int, err error) error {
	return &ParseError{File: r.name, Line: r.lr.line, Column: col, Err: err}
}

var sep = []byte("|||")

// parseLine parses "id ||| target ||| features [||| total [||| rest]]".
func (r *Reader) parseLine(line []byte, complete bool) (Hypothesis, error) {
	var h Hypothesis
	if k, bad := invalidUTF8(line); bad {
		return h, r.errAt(k+1, ErrInvalidUTF8)
	}
	// Field boundaries: [start, end) of each of the first four fields.
	var bounds [4][2]int
	nf := 0
	pos := 0
	for nf < 4 {
		k := bytes.Index(line[pos:], sep)
		if k < 0 {
			bounds[nf] = [2]int{pos, len(line)}
			nf++
			pos = len(line)
			break
		}
		bounds[nf] = [2]int{pos, pos + k}
		nf++
		pos += k + len(sep)
	}
	if nf < 3 {
		err := error(textpos.Detail(ErrFieldCount, fmt.Sprintf("%d of at least 3", nf)))
		if !complete {
			err = fmt.Errorf("%w (line cut off by the end of input: %w)", err, io.ErrUnexpectedEOF)
		}
		return h, r.errAt(0, err)
	}
	field := func(i int) []byte { return line[bounds[i][0]:bounds[i][1]] }

	idf := spaceTab.Trim(field(0))
	id, ok := parseUint(idf)
	if !ok {
		return h, r.errAt(1, &tokenError{"sentence id", string(idf), ErrBadID})
	}
	h.Sentence = id
	h.Target = string(spaceTab.Trim(field(1)))

	fv, err := r.parseFeatures(field(2), bounds[2][0])
	if err != nil {
		var pe *ParseError
		if !complete && errors.As(err, &pe) {
			pe.Err = fmt.Errorf("%w (line cut off by the end of input: %w)", pe.Err, io.ErrUnexpectedEOF)
		}
		return Hypothesis{}, err
	}
	h.Features = fv

	if nf == 4 {
		tf := field(3)
		tot := spaceTab.Trim(tf)
		x, ok := parseNum(tot)
		if !ok {
			return Hypothesis{}, r.errAt(bounds[3][0]+1, &tokenError{"total score", string(tot), ErrBadNumber})
		}
		h.Score, h.HasScore = x, true
		if bounds[3][1] < len(line) {
			if a := spaceTab.Trim(line[bounds[3][1]+len(sep):]); len(a) > 0 {
				h.Alignment = string(a)
			}
		}
	}
	return h, nil
}

// parseFeatures parses the feature field f, which starts at byte off of
// the line (for error columns).
func (r *Reader) parseFeatures(f []byte, off int) (feature.Vector, error) {
	const (
		free     = iota // no label in force
		inGroup         // numbers are components of group g
		wantSpar        // a sparse name waits for its value
	)
	state := free
	g := -1            // current group
	gvals := 0         // values since the last dense label
	var sid feature.ID // pending sparse feature
	var sname []byte
	nextGroup := 0 // the group expected next, a fast path for fixed layouts
	r.ents = r.ents[:0]
	r.touched = r.touched[:0]
	fail := func(col int, err error) (feature.Vector, error) {
		for _, t := range r.touched {
			r.groups[t].n = 0
		}
		return feature.Vector{}, r.errAt(off+col+1, err)
	}
	// noValue reports a label in force that still waits for its value.
	noValue := func(col int) (feature.Vector, error) {
		if state == wantSpar {
			return fail(col, textpos.Detail(ErrNoValue, textpos.Quote(sname)))
		}
		return fail(col, textpos.Detail(ErrNoValue, r.groups[g].label))
	}
	n := len(f)
	for p := 0; p < n; {
		if spaceTab[f[p]] {
			p++
			continue
		}
		start := p
		eq := -1 // position of the last '=' in the token
		for p < n && !spaceTab[f[p]] {
			if f[p] == '=' {
				eq = p
			}
			p++
		}
		tok := f[start:p]
		last := tok[len(tok)-1]
		switch {
		case last == '=' || last == ':':
			// A label: "Name0=", "lm:", or a sparse "Feat_name=".
			if state == wantSpar || (state == inGroup && gvals == 0) {
				return noValue(start)
			}
			label := tok[:len(tok)-1]
			if len(label) == 0 {
				return fail(start, textpos.Detail(ErrBadFeature, "empty feature name "+textpos.Quote(tok)))
			}
			if bytes.IndexByte(label, '_') >= 0 {
				sid = r.intern(label)
				sname = label
				state = wantSpar
				continue
			}
			if nextGroup < len(r.groups) && r.groups[nextGroup].label == string(label) {
				g = nextGroup
			} else if k, ok := r.byLabel[string(label)]; ok {
				g = k
			} else {
				g = len(r.groups)
				l := string(label)
				r.groups = append(r.groups, groupState{label: l})
				r.byLabel[l] = g
			}
			nextGroup = g + 1
			if r.groups[g].n == 0 {
				r.touched = append(r.touched, g)
			}
			state, gvals = inGroup, 0
		case eq >= 0:
			// cdec and Joshua: "name=value".
			if state == wantSpar || (state == inGroup && gvals == 0) {
				return noValue(start)
			}
			k := eq - start
			name, val := tok[:k], tok[k+1:]
			if len(name) == 0 {
				return fail(start, textpos.Detail(ErrBadFeature, "empty feature name "+textpos.Quote(tok)))
			}
			x, ok := parseNum(val)
			if !ok {
				return fail(eq+1, &tokenError{"feature value", string(val), ErrBadNumber})
			}
			r.ents = append(r.ents, entry{id: r.intern(name), x: x})
			state = free
		case isNumStart(tok[0]) || isNonFinite(tok):
			x, ok := parseNum(tok)
			if !ok {
				return fail(start, &tokenError{"feature value", string(tok), ErrBadNumber})
			}
			switch state {
			case wantSpar:
				r.ents = append(r.ents, entry{id: sid, x: x})
				state = free
			case inGroup:
				gs := &r.groups[g]
				for gs.n >= len(gs.ids) {
					gs.ids = append(gs.ids, r.idx.ID(feature.DenseName(gs.label, len(gs.ids))))
				}
				r.ents = append(r.ents, entry{id: gs.ids[gs.n], x: x})
				gs.n++
				gvals++
			default:
				return fail(start, textpos.Detail(ErrBadFeature, "value "+textpos.Quote(tok)+" has no feature name"))
			}
		default:
			// A bare sparse name, followed by its value: "sparse_name v".
			if state == wantSpar || (state == inGroup && gvals == 0) {
				return noValue(start)
			}
			sid = r.intern(tok)
			sname = tok
			state = wantSpar
		}
	}
	if state == wantSpar || (state == inGroup && gvals == 0) {
		return noValue(n)
	}
	if err := r.checkLayout(); err != nil {
		return fail(0, err)
	}
	for _, t := range r.touched {
		gs := &r.groups[t]
		if gs.n > gs.max {
			gs.max = gs.n
		}
		gs.n = 0
	}
	return makeVector(&r.ents, &r.keys), nil
}

// checkLayout checks that the current line has the dense groups, each with
// its number of components, of the first line; the first line sets them.
// cdec's and Joshua's "name=value" features are no group: they may come
// and go from line to line.
func (r *Reader) checkLayout() error {
	if r.layoutLine == 0 {
		r.layoutLine = r.lr.line
		r.layout = make([]int, len(r.groups))
		for i := range r.groups {
			r.layout[i] = r.groups[i].n
		}
		return nil
	}
	for i := range r.groups {
		g := &r.groups[i]
		want := 0
		if i < len(r.layout) {
			want = r.layout[i]
		}
		if g.n == want {
			continue
		}
		var d string
		switch {
		case want == 0:
			d = fmt.Sprintf("%s is not on line %d", g.label, r.layoutLine)
		case g.n == 0:
			d = fmt.Sprintf("%s is missing (line %d has it)", g.label, r.layoutLine)
		default:
			d = fmt.Sprintf("%s has %d of the %d values line %d has", g.label, g.n, want, r.layoutLine)
			if g.n > want {
				d = fmt.Sprintf("%s has %d values, line %d has %d", g.label, g.n, r.layoutLine, want)
			}
		}
		return textpos.Detail(ErrDenseLayout, d)
	}
	return nil
}

// entry is one feature value as read.
type entry struct {
	id feature.ID
	x  float64
}

// makeVector returns the vector of ents: sorted by id, the values of a
// repeated id summed in input order and zero sums dropped, as
// feature.Builder does. The vector gets its own, exactly sized storage.
// entsp and keys are scratch space: their capacity is kept for the next
// line.
func makeVector(entsp *[]entry, keys *[]uint64) feature.Vector {
	ents := *entsp
	sorted := true
	for i := 1; i < len(ents); i++ {
		if ents[i].id <= ents[i-1].id {
			sorted = false
			break
		}
	}
	if !sorted {
		// Sort (id, position) pairs packed in a uint64, which keeps
		// repeated ids in input order and sorts without a comparison
		// function. Ids are non-negative.
		ks := (*keys)[:0]
		for k, e := range ents {
			ks = append(ks, uint64(uint32(e.id))<<32|uint64(k))
		}
		slices.Sort(ks)
		*keys = ks
		// The merged entries go after the line's entries.
		n := 0
		for k := 0; k < len(ks); {
			id := feature.ID(ks[k] >> 32)
			x := ents[uint32(ks[k])].x
			k++
			for k < len(ks) && feature.ID(ks[k]>>32) == id {
				x += ents[uint32(ks[k])].x
				k++
			}
			if x != 0 {
				ents = append(ents, entry{id, x})
				n++
			}
		}
		*entsp = ents[:0]
		return vectorOf(ents[len(ents)-n:])
	}
	n := 0
	for _, e := range ents {
		if e.x != 0 {
			ents[n] = e
			n++
		}
	}
	return vectorOf(ents[:n])
}

// vectorOf copies sorted, distinct, non-zero entries into a new vector.
func vectorOf(ents []entry) feature.Vector {
	if len(ents) == 0 {
		return feature.Vector{}
	}
	v := feature.Vector{IDs: make([]feature.ID, len(ents)), Vals: make([]float64, len(ents))}
	for k, e := range ents {
		v.IDs[k], v.Vals[k] = e.id, e.x
	}
	return v
}

// intern returns the id of a sparse feature name, adding it to the index
// if it is new.
func (r *Reader) intern(name []byte) feature.ID {
	if r.cache == nil {
		r.cache = newNameCache()
	}
	return r.cache.id(r.idx, name)
}

// nameCache is a direct-mapped cache of feature names and their ids in
// front of an Index: a hit costs a hash and a comparison, with no lock
// and no map lookup.
type nameCache struct {
	seed  maphash.Seed
	slots [cacheSlots]cacheSlot
}

const cacheSlots = 1 << 13

type cacheSlot struct {
	name string // a name held by the index
	id   feature.ID
}

func newNameCache() *nameCache { return &nameCache{seed: maphash.MakeSeed()} }

// id returns the id of name in idx, adding it if it is new. name is not
// kept: the lookup views it as a string without copying it, and Index.ID
// copies it on insertion.
func (c *nameCache) id(idx *feature.Index, name []byte) feature.ID {
	s := &c.slots[maphash.Bytes(c.seed, name)&(cacheSlots-1)]
	if s.name == string(name) && s.name != "" {
		return s.id
	}
	id, ok := idx.Lookup(unsafeString(name))
	if !ok {
		id = idx.ID(string(name))
	}
	s.name, s.id = idx.Name(id), id
	return id
}

func isNumStart(c byte) bool {
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.'
}

// isNonFinite reports whether tok spells NaN or infinity the way
// strconv.ParseFloat and C's strtod accept them, so that such a value is
// reported as a bad number rather than taken for a sparse feature name.
func isNonFinite(tok []byte) bool {
	switch len(tok) {
	case 3, 8:
	default:
		return false
	}
	s := unsafeString(tok)
	return equalFold(s, "nan") || equalFold(s, "inf") || equalFold(s, "infinity")
}

func equalFold(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// mosesFormat is the moses format's registration (Formats); it has no option.
type mosesFormat struct{}

func init() { registerFormat("moses", "Moses', Joshua's, cdec's and Travatar's lists", mosesFormat{}) }

func (mosesFormat) spec() string { return "moses" }

func (mosesFormat) open(r io.Reader, name string, idx *feature.Index) SentenceReader {
	return NewReader(r, name, idx)
}
