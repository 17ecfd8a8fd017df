package transforms_test

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/mtune/mtune/feature"
	data "github.com/mtune/mtune/internal/europarl100"
	"github.com/mtune/mtune/learner/mix"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// randomLists returns sentences of random hypotheses over dims dense
// features with plausible BLEU statistics; coarse feature values make ties
// and shared breakpoints common.
func randomLists(r *rand.Rand, sentences, hyps, dims int) []pool.List {
	lists := make([]pool.List, sentences)
	for i := range lists {
		l := pool.List{Sent: i, Hyps: make([]pool.Hyp, r.IntN(hyps+1))}
		for k := range l.Hyps {
			d := make([]float64, dims)
			for j := range d {
				d[j] = float64(r.IntN(7) - 3)
			}
			s := metric.Stats{Order: 4, RefLen: float64(5 + r.IntN(10))}
			n := 5 + r.IntN(10)
			for o := 0; o < 4; o++ {
				s.Totals[o] = float64(n - o)
				s.Matches[o] = float64(r.IntN(n - o + 1))
			}
			l.Hyps[k] = pool.Hyp{Features: feature.FromDense(d), Stats: s}
		}
		lists[i] = l
	}
	return lists
}

// lineProblem is a line-search mixing problem.
type lineProblem struct {
	name      string
	idx       *feature.Index
	lists     []pool.List
	prev, avg feature.Weights
}

func lineProblems(t testing.TB) []lineProblem {
	var out []lineProblem
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 30; trial++ {
		dims := 1 + r.IntN(5)
		idx := feature.NewIndex()
		for j := 0; j < dims; j++ {
			idx.ID(feature.DenseName("f", j))
		}
		prev := make(feature.Weights, dims)
		avg := make(feature.Weights, dims)
		for j := range prev {
			prev[j] = float64(r.IntN(5) - 2)
			avg[j] = float64(r.IntN(5) - 2)
			if trial%3 == 0 {
				prev[j] += r.NormFloat64()
				avg[j] += r.NormFloat64()
			}
		}
		out = append(out, lineProblem{"random", idx, randomLists(r, 1+r.IntN(30), 12, dims), prev, avg})
	}

	// europarl100 with its init.weights and the average of four perturbed
	// copies, as parallel shards would return.
	lists, prev, idx := data.Load(t)
	prev.Grow(idx.Len())
	for c := 0; c < 3; c++ {
		var shards []mix.Shard
		for s := 0; s < 4; s++ {
			w := prev.Clone()
			for j := range w {
				w[j] += 0.1 * r.NormFloat64()
			}
			shards = append(shards, mix.Shard{Weights: w, Updates: 10 + r.IntN(20)})
		}
		out = append(out, lineProblem{"europarl100", idx, lists, prev, mix.Average(shards, true)})
	}
	return out
}

// bleuAt returns corpus BLEU of lists re-ranked with (1−α)·prev + α·avg.
func bleuAt(lists []pool.List, prev, avg feature.Weights, a float64) float64 {
	w := make(feature.Weights, len(prev))
	for j := range w {
		w[j] = (1-a)*prev[j] + a*avg.At(feature.ID(j))
	}
	return pool.OneBest(lists, w).BLEU()
}

// TestSweepEnvelopes checks the plain-function form against mix.LineSearch
// (brute force over the same lists) and against a grid of α.
func TestSweepEnvelopes(t *testing.T) {
	for i, pr := range lineProblems(t) {
		_, wantAlpha, wantStats, wantErr := mix.LineSearch(pr.prev, pr.avg, pr.lists)
		var envs []transforms.Envelope
		for _, l := range pr.lists {
			e, err := transforms.SentenceEnvelope(l, pr.prev, pr.avg)
			if err != nil {
				t.Fatal(err)
			}
			envs = append(envs, e)
		}
		// The combiner's input order must not matter.
		rand.New(rand.NewPCG(uint64(i), 0)).Shuffle(len(envs), func(a, b int) { envs[a], envs[b] = envs[b], envs[a] })
		got, err := transforms.SweepEnvelopes(envs)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%s %d: error %v, mix.LineSearch %v", pr.name, i, err, wantErr)
		}
		if err != nil {
			continue
		}
		if got.Alpha != wantAlpha || got.Stats != wantStats {
			t.Fatalf("%s %d: α %v with %v, mix.LineSearch α %v with %v", pr.name, i, got.Alpha, got.Stats, wantAlpha, wantStats)
		}
		if b := bleuAt(pr.lists, pr.prev, pr.avg, got.Alpha); b != got.BLEU {
			t.Fatalf("%s %d: BLEU %v at α %v, re-ranking gives %v", pr.name, i, got.BLEU, got.Alpha, b)
		}
		for a := -5.0; a <= 5; a += 0.01 {
			if b := bleuAt(pr.lists, pr.prev, pr.avg, a); b > got.BLEU+1e-12 {
				t.Fatalf("%s %d: BLEU %v at α %v beats the search's %v at %v", pr.name, i, b, a, got.BLEU, got.Alpha)
			}
		}
		if pr.name == "europarl100" {
			t.Logf("europarl100: α = %.4f, BLEU %.4f (average %.4f, previous %.4f), %d breakpoints",
				got.Alpha, got.BLEU, bleuAt(pr.lists, pr.prev, pr.avg, 1), bleuAt(pr.lists, pr.prev, pr.avg, 0), got.Breakpoints)
		}
	}
}

func TestLineSearchErrors(t *testing.T) {
	if _, err := transforms.SweepEnvelopes(nil); err == nil {
		t.Error("no lists: no error")
	}
	if _, err := transforms.SweepEnvelopes([]transforms.Envelope{{Sent: 1}}); err == nil {
		t.Error("only empty lists: no error")
	}
	s4, s2 := okStats(), metric.Stats{Order: 2, Totals: [6]float64{1, 1}, RefLen: 1}
	a := transforms.Envelope{Hyps: 1, First: s4, Zero: s4, One: s4}
	b := transforms.Envelope{Hyps: 1, First: s2, Zero: s2, One: s2}
	if _, err := transforms.SweepEnvelopes([]transforms.Envelope{a, b}); err == nil {
		t.Error("BLEU-4 and BLEU-2 statistics: no error")
	}
	l := pool.List{Hyps: []pool.Hyp{{Features: feature.Vector{IDs: []int32{0}, Vals: []float64{1e308}}, Stats: s4}}}
	if _, err := transforms.SentenceEnvelope(l, feature.Weights{1e10}, feature.Weights{0}); err == nil {
		t.Error("an infinite model score: no error")
	}
}

// TestLineSearchMixPipeline runs LineSearchMix on prism: it must pick the
// α mix.LineSearch picks on the same lists, and mix the weights with it.
func TestLineSearchMixPipeline(t *testing.T) {
	p, s := beam.NewPipelineWithRoot()
	for _, pr := range lineProblems(t)[27:] { // 3 random, 3 europarl100
		w, alpha, stats, err := mix.LineSearch(pr.prev, pr.avg, pr.lists)
		if err != nil {
			t.Fatal(err)
		}
		var nbests []transforms.NBest
		nonEmpty := 0
		for _, l := range pr.lists {
			nbests = append(nbests, tune.NBestOf(l, nil, pr.idx))
			if len(l.Hyps) > 0 {
				nonEmpty++
			}
		}
		prev := transforms.NewWireWeights(pr.idx, pr.prev)
		avg := transforms.NewWireWeights(pr.idx, pr.avg)
		mixed, res := transforms.LineSearchMix(s, beam.CreateList(s, nbests), beam.Create(s, prev), beam.Create(s, avg))
		passert.Equals(s, beam.ParDo(s, formatLineSearch, res),
			formatLineSearch(transforms.LineSearchResult{Alpha: alpha, Stats: stats, Lists: nonEmpty}))
		passert.Equals(s, beam.ParDo(s, formatWeights, mixed), formatWeights(transforms.NewWireWeights(pr.idx, w)))
	}
	ptest.RunAndValidate(t, p)
}
