package pool

import (
	"math"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/metric"
)

// Hyp is one hypothesis of an n-best list: its features and its BLEU
// statistics against the sentence's references (Stats).
//
// The statistics are held compactly, their N values only (72 bytes for
// BLEU instead of metric.Stats' fixed 264), often in a slab shared by the
// hypotheses of a list (NewHypIn): a pool of a million hypotheses holds
// them in 96 MB instead of 264 MB. A Hyp is immutable once made.
type Hyp struct {
	Features feature.Vector
	stats    []float64
}

// NewHyp returns the hypothesis with features f and statistics s; it keeps
// a copy of s's N values.
func NewHyp(f feature.Vector, s metric.Stats) Hyp {
	return NewHypIn(f, s, make([]float64, s.N))
}

// NewHypIn is NewHyp keeping s's values in buf, which must have room for
// s.N of them (a slab's part: NewHyps for a whole list).
func NewHypIn(f feature.Vector, s metric.Stats, buf []float64) Hyp {
	buf = buf[:s.N:s.N]
	copy(buf, s.V[:s.N])
	return Hyp{Features: f, stats: buf}
}

// NewHyps returns the hypotheses with features fs[k] and statistics ss[k]
// packed for a pool: their statistics in one slab, their feature values in
// another, and their feature ids in a third, a hypothesis whose ids equal
// the previous one's (every hypothesis of a list of dense features) sharing
// them. It copies fs and ss; the vectors are immutable, as all are.
func NewHyps(fs []feature.Vector, ss []metric.Stats) []Hyp {
	nst, nval, nid := 0, 0, 0
	for k, f := range fs {
		nst += ss[k].N
		nval += len(f.Vals)
		if k == 0 || !slices.Equal(f.IDs, fs[k-1].IDs) {
			nid += len(f.IDs)
		}
	}
	stats, vals, ids := make([]float64, nst), make([]float64, nval), make([]feature.ID, nid)
	hyps := make([]Hyp, len(fs))
	var prev []feature.ID
	for k, f := range fs {
		var v feature.Vector
		if n := len(f.IDs); n > 0 {
			if k > 0 && slices.Equal(f.IDs, fs[k-1].IDs) {
				v.IDs = prev
			} else {
				v.IDs, ids = ids[:n:n], ids[n:]
				copy(v.IDs, f.IDs)
			}
			v.Vals, vals = vals[:n:n], vals[n:]
			copy(v.Vals, f.Vals)
		}
		prev = v.IDs
		// Not NewHypIn: the row keeps the slab's capacity, so that
		// List.StatsSlab can find the slab from the first row.
		n := ss[k].N
		copy(stats, ss[k].V[:n])
		hyps[k] = Hyp{Features: v, stats: stats[:n]}
		stats = stats[n:]
	}
	return hyps
}

// Stats returns the hypothesis' statistics.
func (h Hyp) Stats() metric.Stats {
	var s metric.Stats
	s.N = copy(s.V[:], h.stats)
	return s
}

// ValidateStats is Stats().Validate() without making the Stats (MERT checks
// every hypothesis of every envelope it builds): nil if the hypothesis has
// 1..metric.MaxStats finite statistics, else Validate's error.
func (h Hyp) ValidateStats() error {
	ok := len(h.stats) >= 1 && len(h.stats) <= metric.MaxStats
	for _, x := range h.stats {
		ok = ok && !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	if ok {
		return nil
	}
	return h.Stats().Validate()
}

// SubStatsFrom subtracts the hypothesis' statistics from s: s.Sub(h.Stats())
// without making the Stats (an envelope's breakpoints, SentenceEnvelope).
// MERT's sweeps read the statistics from each list's slab instead
// (List.StatsSlab).
func (h Hyp) SubStatsFrom(s *metric.Stats) {
	if s.N != len(h.stats) {
		s.Sub(h.Stats())
		return
	}
	for i, x := range h.stats {
		s.V[i] -= x
	}
}

// StatsValues returns the hypothesis' statistics' values (Stats().Values()
// without the copy); the caller must not change them.
func (h Hyp) StatsValues() []float64 { return h.stats[:len(h.stats):len(h.stats)] }

// List is the n-best list of one sentence. Sent is the sentence's id (its
// 0-based line in the tuning set).
type List struct {
	Sent int
	Hyps []Hyp
}

// StatsSlab returns the list's statistics as one slab, hypothesis k's at
// [k·width, (k+1)·width), and true, when NewHyps packed them so and every
// hypothesis has width statistics; else nil, 0 and false (the caller
// copies them: Stats). The slab is the hypotheses' own: the caller must not
// change it.
func (l List) StatsSlab() (slab []float64, width int, ok bool) {
	if len(l.Hyps) == 0 {
		return nil, 0, false
	}
	first := l.Hyps[0].stats
	width = len(first)
	if width == 0 || cap(first) < len(l.Hyps)*width {
		return nil, 0, false
	}
	slab = first[:len(l.Hyps)*width]
	for k, h := range l.Hyps {
		if len(h.stats) != width || &h.stats[0] != &slab[k*width] {
			return nil, 0, false
		}
	}
	return slab, width, true
}

// Best returns the index of the hypothesis of l with the highest model score
// w·φ, the earlier one on ties, or -1 for an empty list.
func Best(l List, w feature.Weights) int {
	best, bestScore := -1, 0.0
	for k, h := range l.Hyps {
		s := h.Features.Dot(w)
		if best < 0 || s > bestScore {
			best, bestScore = k, s
		}
	}
	return best
}

// NonFinite returns the list and hypothesis index of the first hypothesis
// of lists whose model score w·φ is NaN or infinite (a feature value times
// its weight overflowing), and false if every score is finite: callers
// refuse such a pool before they rank it, since a NaN or ±Inf score ranks
// arbitrarily.
func NonFinite(lists []List, w feature.Weights) (list, hyp int, ok bool) {
	for i, l := range lists {
		for k, h := range l.Hyps {
			if s := h.Features.Dot(w); math.IsNaN(s) || math.IsInf(s, 0) {
				return i, k, true
			}
		}
	}
	return 0, 0, false
}

// OneBest returns the summed BLEU statistics of the 1-best hypothesis of each
// list under w: corpus BLEU of the re-ranked lists is OneBest(…).BLEU().
// Empty lists contribute nothing.
func OneBest(lists []List, w feature.Weights) metric.Stats {
	var sum metric.Stats
	for _, l := range lists {
		if k := Best(l, w); k >= 0 {
			sum.Add(l.Hyps[k].Stats())
		}
	}
	return sum
}

// Size returns the total number of hypotheses in lists.
func Size(lists []List) int {
	n := 0
	for _, l := range lists {
		n += len(l.Hyps)
	}
	return n
}
