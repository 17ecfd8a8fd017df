package tune_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/tune"
)

// sparseToy is toyDecoder with sparse indicator features, as the real
// decoder's templates fire them: named from the words, interned in its
// index as decoding meets them, and scored in the order it makes them, so
// that its translations do not depend on its ids.
type sparseToy struct{ *toyDecoder }

func (d sparseToy) NBest(ctx context.Context, sentID int, src string, w feature.Weights, n int) ([]decoder.Hypothesis, error) {
	hyps, err := d.toyDecoder.NBest(ctx, sentID, src, nil, 6)
	if err != nil {
		return nil, err
	}
	for k := range hyps {
		h := &hyps[k]
		var b feature.Builder
		score := 0.0
		add := func(id feature.ID, x float64) {
			b.Add(id, x)
			score += w.At(id) * x
		}
		for j, id := range h.Features.IDs {
			add(id, h.Features.Vals[j])
		}
		for j, x := range strings.Fields(h.Target) {
			add(d.idx.ID(fmt.Sprintf("pp_%s~%d", x, j%3)), 1)
			add(d.idx.ID("lb_"+x), 0.5)
		}
		h.Features, h.Score = b.Vector(), score
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

// warmToy returns a sparseToy whose index already holds every feature
// decoding sents meets, in an order shuffled by seed: the decoder of a
// worker whose other shards, or earlier epochs, met them first.
func warmToy(t *testing.T, sents []tune.Sentence, seed uint64) sparseToy {
	t.Helper()
	scratch := sparseToy{newToyDecoder()}
	for _, x := range sents {
		if _, err := scratch.NBest(context.Background(), x.ID, x.Src, nil, 6); err != nil {
			t.Fatal(err)
		}
	}
	names := scratch.idx.Names()[4:] // the toy's dense features stay first
	rand.New(rand.NewPCG(seed, 0)).Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	d := sparseToy{newToyDecoder()}
	for _, n := range names {
		d.idx.ID(n)
	}
	return d
}

// TestSparseIDsDoNotMatter: a shard's epoch, with ipm and with one-thread
// stale gradients, and the decoding of sentences give the same results,
// bit for bit (weights and their names' order, learner state, n-best
// lists), whatever ids the decoder gave the sparse features (fresh, or
// met first in shuffled orders) and however many threads decode.
func TestSparseIDsDoNotMatter(t *testing.T) {
	ctx := context.Background()
	sents := toySentences(60)
	init := weights.ByName{Names: []string{"LM0_0", "WordPenalty0_0", "TranslationModel0_0", "TranslationModel0_1"},
		Vals: []float64{0.5, -0.3, 0.2, 0.2}}
	type outcome struct {
		res   tune.ShardResult
		lists []tune.NBest
	}
	runs := []struct {
		name string
		run  func(dec tune.Decoder, threads int) (outcome, error)
	}{
		{"ipm", func(dec tune.Decoder, threads int) (outcome, error) {
			var out outcome
			o := tune.LearnOptions{Seed: 3, Config: algo.Config{MiniBatch: 8}, Decode: tune.DecodeOptions{NBest: 4, Threads: threads}}
			var err error
			out.res, _, err = tune.LearnShard(ctx, dec, 0, sents, init, nil, o, func(n tune.NBest) { out.lists = append(out.lists, n) })
			return out, err
		}},
		{"stale, one thread", func(dec tune.Decoder, threads int) (outcome, error) {
			var out outcome
			o := tune.LearnOptions{Seed: 3, Config: algo.Config{MiniBatch: 8}, Decode: tune.DecodeOptions{NBest: 4, Threads: threads}}
			var err error
			out.res, _, err = tune.StaleLearnShard(ctx, dec, 1, sents, init, nil, o, tune.StaleOptions{Threads: 1},
				func(n tune.NBest) { out.lists = append(out.lists, n) })
			return out, err
		}},
		{"decode", func(dec tune.Decoder, threads int) (outcome, error) {
			w, err := init.Over(dec.Features())
			if err != nil {
				return outcome{}, err
			}
			w.Set(dec.Features().ID("lb_the"), 1)
			w.Set(dec.Features().ID("pp_cat~1"), -2)
			lists, _, err := tune.DecodeSentences(ctx, dec, sents, w, tune.DecodeOptions{NBest: 4, Threads: threads})
			return outcome{lists: lists}, err
		}},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			want, err := r.run(sparseToy{newToyDecoder()}, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name    string
				dec     tune.Decoder
				threads int
			}{
				{"fresh decoder, 4 threads", sparseToy{newToyDecoder()}, 4},
				{"features met in another order", warmToy(t, sents, 1), 1},
				{"features met in a third order, 3 threads", warmToy(t, sents, 2), 3},
			} {
				got, err := r.run(c.dec, c.threads)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: the results differ from those of a fresh decoder on one thread", c.name)
				}
			}
		})
	}
}

// TestDecodeNonZeroWeights: decoding under weights that name features with
// zero weights (an epoch's mixed weights name every feature a shard met)
// and under the same weights without them (weights.ByName.NonZero, what
// the pipeline's 1-best decodings take) gives the same lists, bit for bit,
// whatever ids the decoder had given the named features.
func TestDecodeNonZeroWeights(t *testing.T) {
	ctx := context.Background()
	sents := toySentences(40)
	full := weights.ByName{
		Names: []string{"LM0_0", "lb_a", "WordPenalty0_0", "pp_cat~1", "TranslationModel0_0", "lb_the", "TranslationModel0_1", "lb_dog", "pp_the~0"},
		Vals:  []float64{0.5, 0, -0.3, -2, 0.2, 1, 0.2, 0, 0},
	}
	decode := func(dec tune.Decoder, ww weights.ByName) []tune.NBest {
		t.Helper()
		w, err := ww.Over(dec.Features())
		if err != nil {
			t.Fatal(err)
		}
		lists, _, err := tune.DecodeSentences(ctx, dec, sents, w, tune.DecodeOptions{NBest: 4, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		return lists
	}
	want := decode(sparseToy{newToyDecoder()}, full)
	nz := full.NonZero()
	if len(nz.Names) != 6 {
		t.Fatalf("NonZero kept %v", nz.Names)
	}
	for name, dec := range map[string]tune.Decoder{"fresh decoder": sparseToy{newToyDecoder()}, "features met in another order": warmToy(t, sents, 3)} {
		if got := decode(dec, nz); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the lists under the non-zero weights differ from those under every weight", name)
		}
	}
}
