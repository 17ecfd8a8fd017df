package nbest

import (
	"fmt"
	"io"

	"github.com/mtune/mtune/internal/textpos"
)

// grouper cuts a stream of hypotheses into sentences, the runs of
// consecutive hypotheses that share a sentence id, for the readers that
// read a list line by line (Moses, Marian). Ids need not be consecutive or
// sorted, but a sentence's lines must be together: an id that comes back
// after another one is an error wrapping ErrNotGrouped.
type grouper struct {
	pending     Hypothesis // the first hypothesis of the next sentence
	havePending bool
	seen        map[int]struct{}
	sentLine    int // line of the first hypothesis of the last sentence
	// label, when set, names sentence id in errors (the id as the list
	// wrote it, when a reader maps ids); "sentence N" otherwise.
	label func(id int) string
}

// unread returns the hypothesis read ahead by next, if any.
func (g *grouper) unread() (Hypothesis, bool) {
	if !g.havePending {
		return Hypothesis{}, false
	}
	h := g.pending
	g.havePending, g.pending = false, Hypothesis{}
	return h, true
}

// next returns the hypotheses of the next sentence, calling read (which
// must return what unread gives first) for each hypothesis. An error it
// finds itself is stored in *errp, the reader's sticky error, as well as
// returned. At the end of input it returns io.EOF.
func (g *grouper) next(read func() (Hypothesis, error), errp *error) (id int, hyps []Hypothesis, err error) {
	first, err := read()
	if err != nil {
		return 0, nil, err
	}
	id = first.Sentence
	g.sentLine = first.Line
	if g.seen == nil {
		g.seen = make(map[int]struct{})
	}
	if _, ok := g.seen[id]; ok {
		what := fmt.Sprintf("sentence %d", id)
		if g.label != nil {
			what = g.label(id)
		}
		*errp = &ParseError{File: first.File, Line: first.Line, Column: 1,
			Err: textpos.Detail(ErrNotGrouped, what)}
		return 0, nil, *errp
	}
	g.seen[id] = struct{}{}
	hyps = []Hypothesis{first}
	for {
		h, err := read()
		if err == io.EOF {
			return id, hyps, nil
		}
		if err != nil {
			return 0, nil, err
		}
		if h.Sentence != id {
			g.pending, g.havePending = h, true
			return id, hyps, nil
		}
		hyps = append(hyps, h)
	}
}
