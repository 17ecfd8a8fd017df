package metric

import (
	"fmt"
	"sync"
)

// TER is translation edit rate (Snover et al. 2006) as sacreBLEU 2 computes
// it by default, tercom-compatible: the references and hypotheses are
// tokenised by tercom's normaliser (see normalize), and a hypothesis' edits
// are the fewest insertions, deletions, substitutions and block shifts
// found by tercom's greedy shift search (see terWork.edits) that turn it
// into a reference. The zero value is sacreBLEU's default: case-insensitive,
// no normalisation, punctuation kept, no Asian support.
//
// A hypothesis' statistics are its edits against the reference that needs
// the fewest, and the average length of its references (sacreBLEU's rule
// for several references); the corpus score is 100·Σ edits / Σ length. TER
// is an error rate: lower is better.
type TER struct {
	// Normalized tokenises punctuation as tercom's -N option does (and,
	// with AsianSupport, splits CJK characters); false leaves the text as
	// it is, split on white space.
	Normalized bool
	// NoPunct deletes the punctuation . , ? : ; ! " ( ) (and, with
	// AsianSupport, CJK and full-width punctuation); false keeps it.
	NoPunct bool
	// AsianSupport extends Normalized and NoPunct to Asian scripts; alone
	// it changes nothing.
	AsianSupport bool
	// CaseSensitive keeps case; false lower-cases as Python's str.lower.
	CaseSensitive bool
}

var _ Metric = TER{}

// Name returns "TER".
func (TER) Name() string { return "TER" }

// Signature returns sacreBLEU's TER signature, as
// "nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0" for
// the defaults. nrefs < 1 stands for a number of references that varies
// from segment to segment, which sacreBLEU signs "var".
func (t TER) Signature(nrefs int) string {
	c := "lc"
	if t.CaseSensitive {
		c = "mixed"
	}
	return "nrefs:" + nrefsField(nrefs) + "|case:" + c + "|tok:tercom|norm:" + yesNo(t.Normalized) +
		"|punct:" + yesNo(!t.NoPunct) + "|asian:" + yesNo(t.AsianSupport) + "|version:" + SacreBLEUVersion
}

// Len returns 2: the edits against the best reference, and the average
// reference length.
func (TER) Len() int { return 2 }

// HigherIsBetter returns false: TER counts errors.
func (TER) HigherIsBetter() bool { return false }

// Score returns 100·edits/length for stats = [Σ edits, Σ length]; when
// the references are all empty, 100 if there are edits and 0 if not
// (sacreBLEU's _compute_score_from_stats).
func (TER) Score(s Stats) float64 { return terScore(s.V[:s.N]) }

// terScore is Score of the statistics [Σ edits, Σ length].
func terScore(stats []float64) float64 {
	edits, length := stats[0], stats[1]
	switch {
	case length > 0:
		return 100 * (edits / length)
	case edits > 0:
		return 100
	default:
		return 0
	}
}

// SentenceScore returns Score of one hypothesis' statistics, as sacreBLEU's
// sentence_score does: TER needs no smoothing.
func (t TER) SentenceScore(s Stats) float64 { return t.Score(s) }

// Check reports whether s holds TER's two statistics, finite and
// non-negative.
func (t TER) Check(s Stats) error {
	if err := checkLen(t.Name(), s, 2); err != nil {
		return err
	}
	if s.V[0] < 0 || s.V[1] < 0 {
		return fmt.Errorf("%w: TER edits %g, reference length %g", ErrStats, s.V[0], s.V[1])
	}
	return nil
}

// Segment tokenises the references of a segment. An empty reference is
// allowed (length 0: every hypothesis word is an edit); at least one
// reference is needed.
func (t TER) Segment(refs []string) (Segment, error) {
	if len(refs) == 0 {
		return nil, fmt.Errorf("metric: TER: no references")
	}
	s := &terSegment{t: t, vocab: map[string]int32{}, refs: make([]terRef, len(refs))}
	ids := make([][]int32, len(refs))
	var x terText
	for k, ref := range refs {
		text := t.normalize(&x, ref)
		for {
			i, j := nextPyField(text)
			if i == j {
				break
			}
			tok := string(text[i:j])
			id, ok := s.vocab[tok]
			if !ok {
				id = int32(len(s.vocab))
				s.vocab[tok] = id
			}
			ids[k] = append(ids[k], id)
			s.lenSum++
			text = text[j:]
		}
	}
	for k := range refs {
		s.refs[k] = newTERRef(ids[k], len(s.vocab))
	}
	return s, nil
}

// terSegment holds a segment's references as word ids; it is immutable and
// serves any number of goroutines.
type terSegment struct {
	t      TER
	vocab  map[string]int32 // the references' words
	refs   []terRef
	lenSum int
}

// terScratch is the per-call memory of terSegment.Stats.
type terScratch struct {
	text terText
	hyp  []int32
	work terWork
}

var terScratchPool = sync.Pool{New: func() any { return new(terScratch) }}

// Stats writes hyp's edits against the reference that needs the fewest to
// dst[0] and the references' average length to dst[1]. It allocates nothing
// once its pooled buffers have grown.
func (s *terSegment) Stats(hyp string) Stats {
	st := Stats{N: 2}
	s.fill(st.V[:2], hyp)
	return st
}

// fill writes hyp's statistics into dst, which has 2 numbers.
func (s *terSegment) fill(dst []float64, hyp string) {
	sc := terScratchPool.Get().(*terScratch)
	text := s.t.normalize(&sc.text, hyp)
	ids := sc.hyp[:0]
	for {
		i, j := nextPyField(text)
		if i == j {
			break
		}
		id, ok := s.vocab[string(text[i:j])]
		if !ok {
			id = -1 // in no reference: equal to no reference word
		}
		ids = append(ids, id)
		text = text[j:]
	}
	sc.hyp = ids
	best := -1
	for k := range s.refs {
		if e := sc.work.edits(ids, &s.refs[k]); best < 0 || e < best {
			best = e
		}
	}
	terScratchPool.Put(sc)
	dst[0] = float64(best)
	dst[1] = float64(s.lenSum) / float64(len(s.refs))
}
