package transforms_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/learner/mix"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// rerankBLEU is corpus BLEU of the europarl100 pool re-ranked with w.
func rerankBLEU(t *testing.T, e europarl100, w weights.ByName) float64 {
	t.Helper()
	var sum metric.Stats
	for _, x := range e.sents {
		n, err := decodeWith(e.decoder(t), x, w, 1)
		if err != nil {
			t.Fatal(err)
		}
		sum.Add(n.Hyps[0].Stats)
	}
	return metric.BLEUStats(sum).BLEU()
}

func decodeWith(dec tune.Decoder, x tune.Sentence, w weights.ByName, n int) (tune.NBest, error) {
	dw, err := w.Over(dec.Features())
	if err != nil {
		return tune.NBest{}, err
	}
	return tune.DecodeSentence(context.Background(), dec, x, dw, tune.DecodeOptions{NBest: n})
}

func learn(t *testing.T, e europarl100, sents []tune.Sentence, shard int, w weights.ByName, st *tune.ShardState, o tune.LearnOptions) (tune.ShardResult, []tune.NBest) {
	t.Helper()
	var lists []tune.NBest
	r, _, err := tune.LearnShard(context.Background(), e.decoder(t), shard, sents, w, st, o, func(n tune.NBest) { lists = append(lists, n) })
	if err != nil {
		t.Fatal(err)
	}
	return r, lists
}

func TestLearnShard(t *testing.T) {
	e := loadEuroparl100(t)
	init := e.initWeights(t)
	initBLEU := rerankBLEU(t, e, init)
	if got := fmt.Sprintf("%.2f", 100*initBLEU); got != "13.68" {
		t.Fatalf("init.weights re-rank europarl100 to BLEU %s, Moses says 13.68", got)
	}
	tests := []struct {
		algo    string
		updates int // a shard of 100 sentences makes ⌈100/mini-batch⌉ updates an epoch
	}{
		{"adagrad", 5}, {"sgd", 5}, {"mira", 100}, {"oro", 7},
	}
	for _, tc := range tests {
		o := tune.LearnOptions{Algo: tc.algo, Seed: 7}
		r0, lists := learn(t, e, e.sents, 2, init, nil, o)
		if r0.Shard != 2 || r0.Epoch != 0 || r0.Updates != tc.updates || r0.TotalUpdates != tc.updates || r0.Sentences != 100 {
			t.Fatalf("%s: result %d/%d updates, %d sentences, shard %d", tc.algo, r0.Updates, r0.TotalUpdates, r0.Sentences, r0.Shard)
		}
		// One scored list a sentence, and the progressive statistics are
		// the sum of their 1-bests.
		var sum metric.Stats
		var ids []int
		for _, n := range lists {
			if err := n.Validate(); err != nil || len(n.Hyps) != 100 {
				t.Fatalf("%s: list of sentence %d: %d hypotheses, %v", tc.algo, n.Sent, len(n.Hyps), err)
			}
			ids = append(ids, n.Sent)
			sum.Add(n.Hyps[0].Stats)
		}
		slices.Sort(ids)
		if len(ids) != 100 || ids[0] != 0 || ids[99] != 99 || slices.Compact(ids) == nil || len(slices.Compact(ids)) != 100 {
			t.Fatalf("%s: lists for sentences %v", tc.algo, ids)
		}
		if sum != r0.Stats {
			t.Errorf("%s: progressive statistics %v, the lists' 1-bests sum to %v", tc.algo, r0.Stats, sum)
		}

		// Deterministic, and independent of the decoding threads and of
		// the order the sentences come in.
		o2 := o
		o2.Decode.Threads = 3
		rev := slices.Clone(e.sents)
		slices.Reverse(rev)
		if again, _ := learn(t, e, rev, 2, init, nil, o2); formatResult(again) != formatResult(r0) {
			t.Errorf("%s: a second run with 3 threads differs", tc.algo)
		}

		// Epoch 1 from the saved state: the state survives the binary and
		// JSON round trips bit for bit.
		st := r0.ShardState()
		o1 := o
		o1.Epoch = 1
		r1, _ := learn(t, e, e.sents, 2, r0.Weights, &st, o1)
		if r1.Updates != tc.updates || r1.TotalUpdates != 2*tc.updates || r1.Epoch != 1 {
			t.Errorf("%s: epoch 1 made %d/%d updates", tc.algo, r1.Updates, r1.TotalUpdates)
		}
		data, _ := st.MarshalBinary()
		var st2 tune.ShardState
		if err := st2.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		path, err := tune.WriteShardState(context.Background(), t.TempDir(), r0)
		if err != nil {
			t.Fatal(err)
		}
		st3, err := tune.ReadShardState(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []*tune.ShardState{&st2, &st3} {
			if again, _ := learn(t, e, e.sents, 2, r0.Weights, s, o1); formatResult(again) != formatResult(r1) {
				t.Errorf("%s: epoch 1 from a saved state differs", tc.algo)
			}
		}
		// A different seed gives a different epoch.
		o3 := o
		o3.Seed = 8
		if other, _ := learn(t, e, e.sents, 2, init, nil, o3); formatResult(other) == formatResult(r0) {
			t.Errorf("%s: seeds 7 and 8 give the same result", tc.algo)
		}
		t.Logf("%s: BLEU re-ranked %.4f after epoch 0, %.4f after epoch 1 (init %.4f)", tc.algo,
			rerankBLEU(t, e, r0.Weights), rerankBLEU(t, e, r1.Weights), initBLEU)
	}

	// MIRA learns: three epochs beat init.weights (Moses' kbmira reaches
	// 14.28 on this data).
	w := init
	var st *tune.ShardState
	for ep := 0; ep < 3; ep++ {
		r, _ := learn(t, e, e.sents, 0, w, st, tune.LearnOptions{Algo: "mira", Seed: 1, Epoch: ep})
		s := r.ShardState()
		st, w = &s, r.Weights
	}
	if b := rerankBLEU(t, e, w); b < initBLEU+0.002 {
		t.Errorf("MIRA after 3 epochs re-ranks to BLEU %.4f, init.weights %.4f", b, initBLEU)
	} else {
		t.Logf("MIRA after 3 epochs: BLEU %.4f", b)
	}
}

func TestLearnShardErrors(t *testing.T) {
	e := loadEuroparl100(t)
	init := e.initWeights(t)
	r0, _ := learn(t, e, e.sents[:10], 0, init, nil, tune.LearnOptions{})
	good := r0.ShardState()
	otherShard := good
	otherShard.Shard = 1
	corrupt := good
	corrupt.State = good.State[:len(good.State)/2]
	repeated := good
	repeated.Names = append(slices.Clone(good.Names), good.Names[0])
	mira, _ := learn(t, e, e.sents[:10], 0, init, nil, tune.LearnOptions{Algo: "mira"})
	miraState := mira.ShardState()
	noRef := slices.Clone(e.sents[:3])
	noRef[1].Refs = nil
	missing := slices.Clone(e.sents[:3])
	missing[2].ID = 100 // not in the pool
	nan := weights.ByName{Names: []string{"a"}, Vals: []float64{0}}
	nan.Vals[0] = nan.Vals[0] / nan.Vals[0]

	tests := []struct {
		name  string
		sents []tune.Sentence
		w     weights.ByName
		st    *tune.ShardState
		o     tune.LearnOptions
		want  string
	}{
		{"unknown learner", e.sents[:3], init, nil, tune.LearnOptions{Algo: "nope"}, "unknown learner"},
		{"batch learner", e.sents[:3], init, nil, tune.LearnOptions{Algo: "mert"}, "batch learner"},
		{"bad tokenizer", e.sents[:3], init, nil, tune.LearnOptions{Decode: tune.DecodeOptions{Metric: "bleu:tokenize=x"}}, "tokeni"},
		{"bad loss", e.sents[:3], init, nil, tune.LearnOptions{Config: algo.Config{Loss: "softmax"}}, "loss"},
		{"state of another shard", e.sents[:3], init, &otherShard, tune.LearnOptions{}, "state of shard 1"},
		{"corrupt state", e.sents[:3], init, &corrupt, tune.LearnOptions{}, "restoring"},
		{"state of another learner", e.sents[:3], init, &miraState, tune.LearnOptions{}, "restoring"},
		{"repeated state name", e.sents[:3], init, &repeated, tune.LearnOptions{}, "repeats"},
		{"repeated sentence", append(slices.Clone(e.sents[:3]), e.sents[1]), init, nil, tune.LearnOptions{}, "given twice"},
		{"sentence without reference", noRef, init, nil, tune.LearnOptions{}, "no reference"},
		{"decoder error", missing, init, nil, tune.LearnOptions{}, "decoding sentence 100"},
		{"NaN weight", e.sents[:3], nan, nil, tune.LearnOptions{}, "NaN"},
	}
	for _, tc := range tests {
		_, _, err := tune.LearnShard(context.Background(), e.decoder(t), 0, tc.sents, tc.w, tc.st, tc.o, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestLearnPipeline runs Learn on prism with more shards than sentences
// need: every shard's result must equal LearnShard's on the sentences
// ShardOf deals it, and shards dealt nothing pass their state through;
// with LearnFn.StateDir the same results but for the state, which is in
// the files WriteShardState writes.
func TestLearnPipeline(t *testing.T) {
	e := loadEuroparl100(t)
	init := e.initWeights(t)
	sents := e.sents[:12]
	const shards = 6
	o := tune.LearnOptions{Algo: "adagrad", Seed: 3, Epoch: 2, Config: algo.Config{MiniBatch: 2}}
	seed := tune.EpochSeed(o.Seed, o.Epoch)

	// Shard 1 resumes from a state of an earlier run; the others start anew.
	prior, _ := learn(t, e, sents[:4], 1, init, nil, o)
	st := prior.ShardState()
	var want, wantKept []any
	var wantStates []tune.ShardResult
	empty := 0
	var updates, hyps int64
	for k := 0; k < shards; k++ {
		var mine []tune.Sentence
		for _, x := range sents {
			if tune.ShardOf(x.ID, seed, shards) == k {
				mine = append(mine, x)
			}
		}
		if len(mine) == 0 {
			empty++
		}
		var s *tune.ShardState
		if k == 1 {
			s = &st
		}
		r, lists := learn(t, e, mine, k, init, s, o)
		want = append(want, formatResult(r))
		kept := r
		kept.State = nil
		wantKept = append(wantKept, formatResult(kept))
		wantStates = append(wantStates, r)
		updates += int64(r.Updates)
		for _, l := range lists {
			hyps += int64(len(l.Hyps))
		}
	}
	if empty == 0 {
		t.Fatal("no shard is empty: the test needs one")
	}

	p, s := beam.NewPipelineWithRoot()
	fn := &transforms.LearnFn{Decoder: "nbest-pool", DecoderConfig: e.nbest, Shards: shards, Options: o}
	results, lists := transforms.Learn(s, fn, beam.CreateList(s, sents), beam.Create(s, init), beam.CreateList(s, []tune.ShardState{st}))
	passert.Equals(s, beam.ParDo(s, formatResult, results), want...)
	passert.Count(s, lists, "lists", len(sents))
	res := ptest.RunAndValidate(t, p)

	// The shards' work reaches the pipeline's metrics.
	counters, dists := transforms.ReadMetrics(res)
	if counters["learn_sentences"] != int64(len(sents)) || counters["learn_hypotheses"] != hyps || counters["learn_updates"] != updates {
		t.Errorf("counters %v, want %d sentences, %d hypotheses, %d updates", counters, len(sents), hyps, updates)
	}
	if d := dists["learn_shard_ms"]; d.Count != shards {
		t.Errorf("%d shards timed, want %d (distributions %v)", d.Count, shards, dists)
	}
	if _, ok := dists["learn_staleness"]; ok {
		t.Error("an ipm epoch reports staleness")
	}
	// With StateDir each shard writes its state and summary, the files
	// WriteShardStates writes, and emits its result without the state.
	stateDir := t.TempDir()
	p, s = beam.NewPipelineWithRoot()
	keep := &transforms.LearnFn{Decoder: "nbest-pool", DecoderConfig: e.nbest, Shards: shards, Options: o, StateDir: stateDir}
	kept, _ := transforms.Learn(s, keep, beam.CreateList(s, sents), beam.Create(s, init), beam.CreateList(s, []tune.ShardState{st}))
	passert.Equals(s, beam.ParDo(s, formatResult, kept), wantKept...)
	ptest.RunAndValidate(t, p)
	wantDir := t.TempDir()
	for _, r := range wantStates {
		if _, err := tune.WriteShardState(context.Background(), wantDir, r); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{rundir.ShardStateName(r.Shard), tune.ShardSummaryName(r.Shard)} {
			a, errA := os.ReadFile(filepath.Join(wantDir, name))
			b, errB := os.ReadFile(filepath.Join(stateDir, name))
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Errorf("shard %d: %s written by the shard differs from WriteShardState's (%v, %v)", r.Shard, name, errA, errB)
			}
		}
	}
}

// TestEpochPipeline runs two epochs of ipm tuning as the epoch driver will,
// one pipeline each, on prism: weights and states travel as files between
// the launches. Everything must equal the plain functions' results.
func TestEpochPipeline(t *testing.T) {
	e := loadEuroparl100(t)
	ctx := context.Background()
	dir := t.TempDir()
	const shards = 2
	init := e.initWeights(t)

	var paths []string
	weightsPath := e.weights
	var prevWeights = init
	var prevStates []tune.ShardState
	for epoch := 0; epoch < 2; epoch++ {
		o := tune.LearnOptions{Algo: "adagrad", Seed: 11, Epoch: epoch}
		// The plain functions.
		seed := tune.EpochSeed(o.Seed, epoch)
		var results []tune.ShardResult
		var mixShards []mix.Shard
		idx := feature.NewIndexOf(prevWeights.Names...)
		var lists []pool.List
		for k := 0; k < shards; k++ {
			var mine []tune.Sentence
			for _, x := range e.sents {
				if tune.ShardOf(x.ID, seed, shards) == k {
					mine = append(mine, x)
				}
			}
			var st *tune.ShardState
			for i := range prevStates {
				if prevStates[i].Shard == k {
					st = &prevStates[i]
				}
			}
			r, nbests := learn(t, e, mine, k, prevWeights, st, o)
			results = append(results, r)
			w, _ := r.Weights.Over(idx)
			mixShards = append(mixShards, mix.Shard{Weights: w, Updates: r.Updates})
			for _, n := range nbests {
				l, _ := n.List(idx)
				lists = append(lists, l)
			}
		}
		prevW, _ := prevWeights.Over(idx)
		avg := mix.Average(mixShards, true)
		mixed, alpha, stats, err := mix.LineSearch(prevW, avg, lists)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("epoch %d: α = %.4f, BLEU of the epoch's lists %.4f", epoch, alpha, metric.BLEUStats(stats).BLEU())

		// The pipeline.
		p, s := beam.NewPipelineWithRoot()
		w := transforms.ReadWeights(s, weightsPath)
		states := transforms.ReadShardStates(s, paths)
		fn := &transforms.LearnFn{Decoder: "nbest-pool", DecoderConfig: e.nbest, Shards: shards, Options: o}
		res, nb := transforms.Learn(s, fn, beam.CreateList(s, e.sents), w, states)
		avgCol := transforms.Average(s, res, true)
		mixedCol, ls := transforms.LineSearchMix(s, nb, w, avgCol, "", t.TempDir())
		outDir := filepath.Join(dir, fmt.Sprint(epoch))
		weightsPath = filepath.Join(outDir, "weights.json")
		transforms.WriteTrio(s, mixedCol, outDir, nil)
		written := transforms.WriteShardStates(s, res, filepath.Join(outDir, "shards"))
		oneBest := transforms.OneBest(s, nb, w)

		var wantRes []any
		var wantPaths []any
		var progressive metric.Stats
		for _, r := range results {
			wantRes = append(wantRes, formatResult(r))
			wantPaths = append(wantPaths, filepath.Join(outDir, "shards", rundir.ShardStateName(r.Shard)))
			progressive.Add(r.Stats)
		}
		passert.Equals(s, beam.ParDo(s, formatResult, res), wantRes...)
		passert.Equals(s, written, wantPaths...)
		passert.Equals(s, beam.ParDo(s, formatWeights, avgCol), formatWeights(weights.NewByName(idx, avg)))
		passert.Equals(s, beam.ParDo(s, formatLineSearch, ls),
			formatLineSearch(transforms.LineSearchResult{Alpha: alpha, Stats: stats, Lists: len(lists)}))
		passert.Equals(s, beam.ParDo(s, formatStats, oneBest), formatStats(pool.OneBest(lists, prevW)))
		ptest.RunAndValidate(t, p)

		// What the next launch reads.
		got, err := weights.ReadByName(ctx, weightsPath)
		if err != nil {
			t.Fatal(err)
		}
		if want := weights.NewByName(idx, mixed); !reflect.DeepEqual(got.Map(), want.Map()) {
			t.Fatalf("epoch %d: weights file %v, want %v", epoch, got.Map(), want.Map())
		}
		paths = nil
		prevStates = nil
		for _, r := range results {
			paths = append(paths, filepath.Join(outDir, "shards", rundir.ShardStateName(r.Shard)))
			prevStates = append(prevStates, r.ShardState())
		}
		prevWeights = got
	}
}
