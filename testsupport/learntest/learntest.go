// Package learntest holds the fixtures the learners' tests share: random
// BLEU statistics and n-best lists, pools replicated for benchmarks, and
// the round-trip check of saved states that fuzz tests run. Resume tests
// compare weights bit for bit with testsupport/floattest.
package learntest

import (
	"math"
	"math/rand/v2"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// RandStats returns BLEU-4 statistics of a random hypothesis of length
// 1..30 against a reference of length 5..30.
func RandStats(r *rand.Rand) metric.Stats {
	s := metric.NewBLEUStats(4, nil, nil, 0)
	n := 1 + r.IntN(30)
	for k := range 4 {
		t := max(0, n-k)
		s.V[2*k+1] = float64(t)
		if t > 0 {
			s.V[2*k] = float64(r.IntN(t + 1))
		}
		if k > 0 {
			s.V[2*k] = min(metric.BLEUStats(s).Match(k), metric.BLEUStats(s).Match(k-1))
		}
	}
	s.V[8] = float64(5 + r.IntN(26)) // the reference length
	return s
}

// Lists returns n lists for sentences 0 to n-1: list i holds size()
// hypotheses, each made by hyp, which adds the hypothesis' features to b
// and returns its statistics. It calls them in the order of one nested
// loop (size, then hyp for each of its hypotheses, list after list), so
// that a fixture drawing random numbers in them draws them in that order.
func Lists(n int, size func() int, hyp func(b *feature.Builder) metric.Stats) []pool.List {
	lists := make([]pool.List, n)
	var b feature.Builder
	for i := range lists {
		l := pool.List{Sent: i, Hyps: make([]pool.Hyp, size())}
		for k := range l.Hyps {
			st := hyp(&b)
			l.Hyps[k] = pool.NewHyp(b.Vector(), st)
		}
		lists[i] = l
	}
	return lists
}

// DenseLists returns sentences of random hypotheses over dims dense
// features (multiples of 0.1, zeros left out as feature.FromDense does),
// with plausible BLEU statistics: hyps hypotheses a sentence, or, if upTo,
// 1 + r.IntN(hyps) of them.
func DenseLists(r *rand.Rand, sentences, hyps, dims int, upTo bool) []pool.List {
	size := func() int {
		if upTo {
			return 1 + r.IntN(hyps)
		}
		return hyps
	}
	return Lists(sentences, size, func(b *feature.Builder) metric.Stats {
		for j := range dims {
			if x := math.Round(r.NormFloat64()*100) / 10; x != 0 {
				b.Add(feature.ID(j), x)
			}
		}
		s := metric.NewBLEUStats(4, nil, nil, float64(5+r.IntN(10)))
		n := 5 + r.IntN(10)
		for o := 0; o < 4; o++ {
			s.V[2*o+1] = float64(n - o)
			s.V[2*o] = float64(r.IntN(n - o + 1))
		}
		return s
	})
}

// Replicate returns lists copied n times with the sentences renumbered:
// europarl100 ×100 is 10,000 sentences × 100 hypotheses. Each copy holds
// hypotheses of its own, packed as a pool read from a file is
// (pool.NewHyps), so that a benchmark reads memory as a pool of that size
// does: copies sharing their hypotheses kept a million hypotheses' worth of
// statistics in a hundredth of the memory, in cache, and hid what a sweep
// over a real pool costs.
func Replicate(lists []pool.List, n int) []pool.List {
	out := make([]pool.List, 0, n*len(lists))
	for c := 0; c < n; c++ {
		for _, l := range lists {
			fs := make([]feature.Vector, len(l.Hyps))
			ss := make([]metric.Stats, len(l.Hyps))
			for k, h := range l.Hyps {
				fs[k], ss[k] = h.Features, h.Stats()
			}
			out = append(out, pool.List{Sent: len(out), Hyps: pool.NewHyps(fs, ss)})
		}
	}
	return out
}
