package poolfile

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/storage"
)

// merger reads several n-best files (the lists of several decoding
// iterations) in lockstep by sentence id. Each file must list its sentences
// in increasing id order, as decoders write them; a file may lack some
// sentences. Memory holds one sentence's list per file.
type merger struct {
	paths   []string
	readers []nbest.SentenceReader
	closers []io.Closer
	heads   []mergeHead
	// sentences bounds the ids: when positive, ids must be below it (the
	// references' count); when 0, each sentence's id must equal the number
	// of sentences before it, so that a list cannot ask for lines the
	// caller cannot check.
	sentences int
	returned  int // sentences next returned
	// The dense layout of the first file that had a line, and that file:
	// every file must have it.
	layout     []feature.Group
	layoutFile int
	checked    []bool
	// added, if not nil, are the features added to each hypothesis read
	// (Options.Features).
	added *addedFeatures
	idx   *feature.Index
}

type mergeHead struct {
	id   int
	hyps []nbest.Hypothesis
	done bool
	prev int // id of the previous sentence, -1 at the start
}

// ErrSentenceID marks a sentence id out of the range the references (or,
// without them, the sentences before it) allow.
var ErrSentenceID = errors.New("sentence id out of range")

// openMerger opens the n-best files at paths in opts.Format, with the
// features of opts.Features added to their hypotheses, feature names
// interned in idx; sentences is as for Walk.
func openMerger(ctx context.Context, paths []string, opts Options, idx *feature.Index, sentences int) (*merger, error) {
	if len(paths) == 0 {
		return nil, errors.New("poolfile: no n-best files")
	}
	m := &merger{paths: paths, sentences: sentences, idx: idx}
	if len(opts.Features) > 0 {
		var err error
		if m.added, err = readAddedFeatures(ctx, paths, opts.Features, opts.Format, idx); err != nil {
			return nil, err
		}
	}
	for _, p := range paths {
		rc, err := storage.Open(ctx, p)
		if err != nil {
			m.Close()
			return nil, err
		}
		m.closers = append(m.closers, rc)
		r, err := nbest.NewSentenceReader(rc, p, idx, opts.Format)
		if err != nil {
			m.Close()
			return nil, err
		}
		m.readers = append(m.readers, r)
	}
	m.heads = make([]mergeHead, len(paths))
	m.checked = make([]bool, len(paths))
	m.layoutFile = -1
	for i := range m.heads {
		m.heads[i].prev = -1
		if err := m.advance(i); err != nil {
			m.Close()
			return nil, err
		}
	}
	return m, nil
}

func (m *merger) advance(i int) error {
	h := &m.heads[i]
	id, hyps, err := m.readers[i].ReadSentence()
	if err == io.EOF {
		h.done, h.hyps = true, nil
		return nil
	}
	if err != nil {
		return err
	}
	if !m.checked[i] {
		m.checked[i] = true
		g := m.readers[i].Groups()
		if m.layoutFile < 0 {
			m.layout, m.layoutFile = g, i
		} else if !sameGroups(g, m.layout) {
			return fmt.Errorf("poolfile: %s has the dense features %s, %s has %s: the lists must come from one model",
				m.paths[i], feature.GroupsString(g), m.paths[m.layoutFile], feature.GroupsString(m.layout))
		}
		if m.added != nil {
			if err := m.added.checkGroups(m.paths[i], g); err != nil {
				return err
			}
		}
	}
	line := m.readers[i].SentenceLine()
	if id <= h.prev {
		return fmt.Errorf("poolfile: %s:%d: sentence %d comes after sentence %d: n-best lists must be in increasing sentence order",
			m.paths[i], line, id, h.prev)
	}
	if m.sentences > 0 && id >= m.sentences {
		return fmt.Errorf("poolfile: %s:%d: %w: sentence %d, but the references have %d sentences (ids 0 to %d)",
			m.paths[i], line, ErrSentenceID, id, m.sentences, m.sentences-1)
	}
	if m.added != nil {
		if err := m.added.add(i, id, hyps, m.idx); err != nil {
			return err
		}
	}
	h.id, h.hyps, h.prev = id, hyps, id
	return nil
}

// next returns the next sentence id and the hypotheses all files hold for
// it, in file order, or ok=false at the end.
func (m *merger) next() (sent int, hyps []nbest.Hypothesis, ok bool, err error) {
	sent = -1
	for _, h := range m.heads {
		if !h.done && (sent < 0 || h.id < sent) {
			sent = h.id
		}
	}
	if sent < 0 {
		return 0, nil, false, nil
	}
	if m.sentences == 0 && sent != m.returned {
		for i, h := range m.heads {
			if !h.done && h.id == sent {
				return 0, nil, false, fmt.Errorf("poolfile: %s:%d: %w: sentence %d follows %d distinct sentences (ids must run from 0 without gaps unless the number of sentences is known)",
					m.paths[i], m.readers[i].SentenceLine(), ErrSentenceID, sent, m.returned)
			}
		}
	}
	m.returned++
	for i := range m.heads {
		h := &m.heads[i]
		if h.done || h.id != sent {
			continue
		}
		if hyps == nil {
			hyps = h.hyps
		} else {
			hyps = append(hyps, h.hyps...)
		}
		if err := m.advance(i); err != nil {
			return 0, nil, false, err
		}
	}
	return sent, hyps, true, nil
}

// groups returns the dense feature groups the files have shown so far, in
// order of first appearance, each with its largest length, then the added
// features'.
func (m *merger) groups() []feature.Group {
	var out []feature.Group
	for _, r := range m.readers {
		out = MergeGroups(out, r.Groups())
	}
	if m.added != nil {
		out = MergeGroups(out, m.added.groups())
	}
	return out
}

// format returns the format of the first file, as read (detected when
// opened with nbest.FormatAuto).
func (m *merger) format() nbest.Format { return m.readers[0].Format() }

// MergeGroups returns the dense feature groups of a, then those of b whose
// labels a lacks, each with the largest length a or b gives it.
func MergeGroups(a, b []feature.Group) []feature.Group {
	out := append([]feature.Group(nil), a...)
	at := map[string]int{}
	for i, g := range out {
		at[g.Label] = i
	}
	for _, g := range b {
		if i, ok := at[g.Label]; ok {
			out[i].Len = max(out[i].Len, g.Len)
			continue
		}
		at[g.Label] = len(out)
		out = append(out, g)
	}
	return out
}

func (m *merger) Close() {
	for _, c := range m.closers {
		c.Close()
	}
}

// dedup removes repeated hypotheses (same target and same features) from
// one sentence's pooled list, keeping the first of each, in order. The
// lists come in file order (merger.next), each in line order, so the copy
// kept is the first in the order the files were given, and it keeps its
// File and Line: an external score (ExternalScores) of a duplicate is the
// first copy's. Two copies with equal target and features but different
// external scores are not an error: the first copy's score is kept.
func dedup(sent int, hyps []nbest.Hypothesis) []nbest.Hypothesis {
	if len(hyps) < 2 {
		return hyps
	}
	p := nbest.NewPool()
	out := hyps[:0:0]
	for _, h := range hyps {
		if _, added := p.Add(sent, h); added {
			out = append(out, h)
		}
	}
	return out
}
