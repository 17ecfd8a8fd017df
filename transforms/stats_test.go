package transforms_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

func TestSumStatsFn(t *testing.T) {
	f := &transforms.SumStatsFn{}
	a := f.CreateAccumulator()
	s := okStats()
	var err error
	for i := 0; i < 3; i++ {
		if a, err = f.AddInput(a, s); err != nil {
			t.Fatal(err)
		}
	}
	b := metric.NewBLEUStats(4, nil, []float64{1}, 2)
	if a, err = f.MergeAccumulators(a, b); err != nil {
		t.Fatal(err)
	}
	want := metric.NewBLEUStats(4, []float64{9, 6, 3, 0}, []float64{13, 9, 6, 3}, 17)
	if a != want {
		t.Errorf("sum %v, want %v", a, want)
	}
	if _, err := f.AddInput(a, metric.NewBLEUStats(2, nil, []float64{1, 1}, 0)); err == nil {
		t.Error("adding BLEU-2 statistics to BLEU-4 ones: no error")
	}
	if _, err := f.AddInput(a, metric.StatsOf(1, math.NaN(), 2, 3, 4, 5, 6, 7, 8)); err == nil {
		t.Error("adding invalid statistics: no error")
	}
	// Statistics are summed whatever their metric (a BLEU-4 sum with more
	// matches than n-grams is refused where it is scored: rundir.ReadScore).
	chrf := metric.StatsOf(1, 2, 3)
	if got, err := f.MergeAccumulators(chrf, chrf); err != nil || got != metric.StatsOf(2, 4, 6) {
		t.Errorf("chrF-like statistics: %v, %v", got, err)
	}
}

// TestDecodeAndBLEU decodes europarl100 with its init.weights on prism
// (the weights read from the file by the pipeline), and sums BLEU two
// ways. Moses' tools measured this data (shared/data/README.md): the
// decoder's own 1-best lists scores 11.10, re-ranked with init.weights
// 13.68.
func TestDecodeAndBLEU(t *testing.T) {
	e := loadEuroparl100(t)
	ctx := context.Background()

	// The decoder's own 1-best: the first hypothesis of each list in the
	// file, summed by SumStats.
	dec := e.decoder(t)
	var first []metric.Stats
	for _, x := range e.sents {
		n, err := tune.DecodeSentence(ctx, dec, x, nil, tune.DecodeOptions{NBest: 100})
		if err != nil {
			t.Fatal(err)
		}
		// With zero weights every score ties: the pool keeps the file's
		// order, whose first line is the decoder's 1-best.
		first = append(first, n.Hyps[0].Stats)
	}
	want := metric.Sum(first)
	if got := fmt.Sprintf("%.2f", 100*metric.BLEUStats(want).BLEU()); got != "11.10" {
		t.Errorf("BLEU of the decoder's 1-best %s, Moses says 11.10", got)
	}
	checkFirstLines(t, e)

	p, s := beam.NewPipelineWithRoot()
	summed := transforms.SumStats(s, beam.CreateList(s, first))
	passert.Equals(s, beam.ParDo(s, formatStats, summed), formatStats(want))

	w := transforms.ReadWeights(s, e.weights)
	fn := &transforms.DecodeFn{Decoder: "nbest-pool", DecoderConfig: e.nbest, Sentences: len(e.sents)}
	lists := transforms.Decode(s, fn, beam.CreateList(s, e.sents), w)
	passert.Count(s, lists, "lists", len(e.sents))
	reranked := transforms.OneBest(s, lists, w)
	passert.Equals(s, beam.ParDo(s, formatBLEU, reranked), "13.68")
	// Batches of 7 sentences (15 batches): the same lists.
	small := &transforms.DecodeFn{Decoder: "nbest-pool", DecoderConfig: e.nbest, Sentences: len(e.sents), BatchSize: 7, Name: "small"}
	if small.Batches() != 15 || fn.Batches() != 2 {
		t.Fatalf("%d and %d batches, want 15 and 2", small.Batches(), fn.Batches())
	}
	passert.Equals(s, beam.ParDo(s, formatBLEU, transforms.OneBest(s, transforms.Decode(s.Scope("small"), small, beam.CreateList(s, e.sents), w), w)), "13.68")
	res := ptest.RunAndValidate(t, p)

	// Each decoding step reports its work under its name.
	hyps := int64(0)
	for _, x := range e.sents {
		h, err := e.decoder(t).NBest(context.Background(), x.ID, x.Src, nil, 100)
		if err != nil {
			t.Fatal(err)
		}
		hyps += int64(len(h))
	}
	counters, dists := transforms.ReadMetrics(res)
	for _, name := range []string{"decode", "small"} {
		if counters[name+"_sentences"] != 100 || counters[name+"_hypotheses"] != hyps {
			t.Errorf("%s: %d sentences and %d hypotheses counted, want 100 and %d (counters %v)",
				name, counters[name+"_sentences"], counters[name+"_hypotheses"], hyps, counters)
		}
	}
	if n := dists["small_batch_ms"].Count; n != 15 {
		t.Errorf("%d batches timed, want 15 (distributions %v)", n, dists)
	}
}

// TestDecodeBatches: the number of decoding batches follows the number of
// sentences.
func TestDecodeBatches(t *testing.T) {
	for _, tc := range []struct{ sents, size, want int }{
		{1, 0, 1}, {64, 0, 1}, {65, 0, 2}, {1000, 0, 16}, {15000, 0, 235}, {25, 10, 3}, {100, 7, 15},
	} {
		fn := transforms.DecodeFn{Sentences: tc.sents, BatchSize: tc.size}
		if got := fn.Batches(); got != tc.want {
			t.Errorf("%d sentences in batches of %d: %d batches, want %d", tc.sents, tc.size, got, tc.want)
		}
	}
}

// formatBLEU prints BLEU in percent as Moses' figures are given.
func formatBLEU(s metric.Stats) string { return fmt.Sprintf("%.2f", 100*metric.BLEUStats(s).BLEU()) }

// checkFirstLines checks that the pool's first hypothesis of each sentence
// is the file's first line for it (what TestDecodeAndBLEU relies on).
func checkFirstLines(t *testing.T, e europarl100) {
	t.Helper()
	dec := e.decoder(t)
	ctx := context.Background()
	seen := map[int]bool{}
	r, closeFn := openNBest(t, e.nbest)
	defer closeFn()
	for {
		h, err := r.Read()
		if err != nil {
			break
		}
		if seen[h.Sentence] {
			continue
		}
		seen[h.Sentence] = true
		hyps, err := dec.NBest(ctx, h.Sentence, "", nil, 1)
		if err != nil || hyps[0].Target != h.Target {
			t.Fatalf("sentence %d: pool's first %q, file's %q (%v)", h.Sentence, hyps[0].Target, h.Target, err)
		}
	}
	if len(seen) != 100 {
		t.Fatalf("%d sentences in the file", len(seen))
	}
}
