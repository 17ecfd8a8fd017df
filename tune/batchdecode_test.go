package tune_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/tune"
)

// toyDecoder translates a sentence of words into the candidates of
// toyCandidates, each with features that depend on the sentence, ranked
// by the weights: enough for a learner to move.
type toyDecoder struct{ idx *feature.Index }

func newToyDecoder() *toyDecoder {
	return &toyDecoder{idx: feature.NewIndexOf("LM0_0", "WordPenalty0_0", "TranslationModel0_0", "TranslationModel0_1")}
}

func (d *toyDecoder) Features() *feature.Index { return d.idx }

func (d *toyDecoder) NBest(ctx context.Context, sentID int, src string, w feature.Weights, n int) ([]decoder.Hypothesis, error) {
	words := strings.Fields(src)
	var hyps []decoder.Hypothesis
	for k := range 6 {
		// Candidate k drops the k-th word (k = 0: none) and reverses the
		// rest for odd k.
		var tgt []string
		for i, x := range words {
			if k == 0 || i != k%len(words) {
				tgt = append(tgt, x)
			}
		}
		if k%2 == 1 {
			slices.Reverse(tgt)
		}
		var b feature.Builder
		b.Add(0, -float64(len(tgt))*0.7-float64(k%3))
		b.Add(1, -float64(len(tgt)))
		b.Add(2, -float64((sentID+k)%4)*0.5)
		b.Add(3, -float64(k)*0.3)
		if k == 4 {
			b.Add(d.idx.ID(fmt.Sprintf("pp_%d", sentID%3)), 1)
		}
		v := b.Vector()
		hyps = append(hyps, decoder.Hypothesis{Target: strings.Join(tgt, " "), Features: v, Score: v.Dot(w)})
	}
	slices.SortStableFunc(hyps, func(a, b decoder.Hypothesis) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return hyps[:min(n, len(hyps))], nil
}

// batchToy is toyDecoder with NBestBatch, counting its calls and the
// sentences they decoded.
type batchToy struct {
	*toyDecoder
	calls, sentences atomic.Int64
}

var _ tune.BatchDecoder = (*batchToy)(nil)

func (d *batchToy) NBestBatch(ctx context.Context, ids []int, srcs []string, w feature.Weights, n, threads int) ([][]decoder.Hypothesis, error) {
	d.calls.Add(1)
	d.sentences.Add(int64(len(ids)))
	out := make([][]decoder.Hypothesis, len(ids))
	for k := range ids {
		var err error
		if out[k], err = d.toyDecoder.NBest(ctx, ids[k], srcs[k], w, n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func toySentences(n int) []tune.Sentence {
	vocab := strings.Fields("the cat sat on a mat and the dog ran to it")
	var out []tune.Sentence
	for i := range n {
		var src []string
		for j := range 3 + i%5 {
			src = append(src, vocab[(i*7+j*3)%len(vocab)])
		}
		ref := slices.Clone(src)
		if i%2 == 1 {
			slices.Reverse(ref)
		}
		out = append(out, tune.Sentence{ID: i, Src: strings.Join(src, " "), Refs: []string{strings.Join(ref, " ")}})
	}
	return out
}

// TestBatchDecoder checks that a decoder with NBestBatch decodes each
// mini-batch of a shard, and each batch of DecodeSentences, with one
// call, and that the results are those of the same decoder called
// sentence by sentence: the same weights and learner state, bit for bit,
// and the same n-best lists.
func TestBatchDecoder(t *testing.T) {
	ctx := context.Background()
	sents := toySentences(45)
	w := weights.ByName{Names: []string{"LM0_0", "WordPenalty0_0", "TranslationModel0_0", "TranslationModel0_1"},
		Vals: []float64{0.5, -1, 0.2, 0.2}}
	o := tune.LearnOptions{Decode: tune.DecodeOptions{NBest: 5, Threads: 3}, Seed: 3}
	var listsPlain, listsBatch []tune.NBest
	plain, _, err := tune.LearnShard(ctx, newToyDecoder(), 0, sents, w, nil, o, func(nb tune.NBest) { listsPlain = append(listsPlain, nb) })
	if err != nil {
		t.Fatal(err)
	}
	bd := &batchToy{toyDecoder: newToyDecoder()}
	batched, work, err := tune.LearnShard(ctx, bd, 0, sents, w, nil, o, func(nb tune.NBest) { listsBatch = append(listsBatch, nb) })
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain, batched) {
		t.Errorf("shard result with NBestBatch\n%+v\nsentence by sentence\n%+v", batched, plain)
	}
	if !reflect.DeepEqual(listsPlain, listsBatch) {
		t.Error("the shard's n-best lists differ with NBestBatch")
	}
	if batches := (len(sents) + 19) / 20; bd.calls.Load() != int64(batches) || bd.sentences.Load() != int64(len(sents)) || work.Sentences != len(sents) {
		t.Errorf("%d NBestBatch calls for %d sentences (work: %d), want %d calls, one a mini-batch of 20",
			bd.calls.Load(), bd.sentences.Load(), work.Sentences, batches)
	}

	toy := newToyDecoder()
	dw, err := plain.Weights.Over(toy.Features())
	if err != nil {
		t.Fatal(err)
	}
	do := tune.DecodeOptions{NBest: 4, Threads: 2}
	want, _, err := tune.DecodeSentences(ctx, toy, sents, dw, do)
	if err != nil {
		t.Fatal(err)
	}
	bd = &batchToy{toyDecoder: newToyDecoder()}
	dw, err = plain.Weights.Over(bd.Features())
	if err != nil {
		t.Fatal(err)
	}
	got, work, err := tune.DecodeSentences(ctx, bd, sents, dw, do)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("DecodeSentences' list %d differs with NBestBatch:\n%+v\nsentence by sentence\n%+v", i, got[i], want[i])
				break
			}
		}
	}
	if bd.calls.Load() != 1 || work.Sentences != len(sents) || work.Hypotheses != 4*len(sents) {
		t.Errorf("DecodeSentences: %d NBestBatch calls, work %+v; want 1 call, %d sentences, %d hypotheses", bd.calls.Load(), work, len(sents), 4*len(sents))
	}
}

// failingBatch fails or returns too few lists.
type failingBatch struct {
	*toyDecoder
	lists int
}

func (d *failingBatch) NBestBatch(ctx context.Context, ids []int, srcs []string, w feature.Weights, n, threads int) ([][]decoder.Hypothesis, error) {
	if d.lists < 0 {
		return nil, fmt.Errorf("decoder died on sentence %d", ids[0])
	}
	out := make([][]decoder.Hypothesis, d.lists)
	for k := range out {
		out[k], _ = d.toyDecoder.NBest(ctx, ids[k], srcs[k], w, n)
	}
	return out, nil
}

func TestBatchDecoderErrors(t *testing.T) {
	ctx := context.Background()
	sents := toySentences(4)
	for _, tc := range []struct {
		lists int
		want  string
	}{
		{-1, "tune: decoding 4 sentences: decoder died on sentence 0"},
		{3, "tune: decoding 4 sentences: 3 n-best lists"},
	} {
		dec := &failingBatch{toyDecoder: newToyDecoder(), lists: tc.lists}
		_, _, err := tune.DecodeSentences(ctx, dec, sents, nil, tune.DecodeOptions{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("DecodeSentences: %v, want %q", err, tc.want)
		}
	}
	dec := &failingBatch{toyDecoder: newToyDecoder(), lists: 0}
	_, err := tune.DecodeSentence(ctx, dec, sents[2], nil, tune.DecodeOptions{})
	if want := "tune: decoding 1 sentences: 0 n-best lists"; err == nil || err.Error() != want {
		t.Errorf("DecodeSentence: %v, want %q", err, want)
	}
}

// TestLearnOptionsValidate: a shard's options are refused when the
// decoding's (a negative n-best size or order), the metric (unknown,
// external) or the learner's settings are bad; the default, and a metric
// every learner takes, are not.
func TestLearnOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    tune.LearnOptions
		ok   bool
	}{
		{"default", tune.LearnOptions{}, true},
		{"chrf", tune.LearnOptions{Decode: tune.DecodeOptions{Metric: "chrf"}}, true},
		{"negative n-best", tune.LearnOptions{Decode: tune.DecodeOptions{NBest: -1}}, false},
		{"negative order", tune.LearnOptions{Decode: tune.DecodeOptions{Metric: "bleu:order=-2"}}, false},
		{"unknown metric", tune.LearnOptions{Decode: tune.DecodeOptions{Metric: "meteor"}}, false},
		{"external", tune.LearnOptions{Decode: tune.DecodeOptions{Metric: "external"}}, false},
		{"batch learner", tune.LearnOptions{Algo: "mert"}, false},
	} {
		if err := tc.o.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
