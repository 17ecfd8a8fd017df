package batch

import (
	"context"
	"github.com/mtune/mtune/metric"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/pool"
)

// activeIDs returns the features lists' hypotheses use, sorted.
func activeIDs(lists []pool.List) []feature.ID {
	var ids []feature.ID
	for _, l := range lists {
		for _, h := range l.Hyps {
			ids = append(ids, h.Features.IDs...)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// TestLearnPairsEqualsLearn: PRO's two halves — SamplePRO drawing from
// the generator Learn draws from, then LearnPairs over the pool's
// features — give Learn's weights bit for bit (europarl100 and a random
// pool with sparse features, some of them in no pair); pairs sampled by
// parts with their own generators give as many pairs (±5%) and a model
// within 0.5 BLEU of Learn's on europarl100.
func TestLearnPairsEqualsLearn(t *testing.T) {
	ctx := context.Background()
	e := loadEuroparl100(t)
	rnd := randomPool(rand.New(rand.NewPCG(3, 4)), 40, 30, 5, 20)
	for _, tc := range []struct {
		name  string
		lists []pool.List
		w     feature.Weights
	}{
		{"europarl100", e.lists, e.init},
		{"random pool", rnd, make(feature.Weights, 3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := PROOptions{Seed: 9, Normalize: true}
			whole, err := NewPRO(tc.w, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := whole.Learn(ctx, tc.lists); err != nil {
				t.Fatal(err)
			}
			xs, err := SamplePRO(tc.lists, opts, opts.Seed, seedStream)
			if err != nil {
				t.Fatal(err)
			}
			halves, err := NewPRO(tc.w, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := halves.LearnPairs(ctx, activeIDs(tc.lists), xs); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(halves.Weights(), whole.Weights()) || halves.LastRun() != whole.LastRun() {
				t.Errorf("halves: %v %+v\nLearn:  %v %+v", halves.Weights(), halves.LastRun(), whole.Weights(), whole.LastRun())
			}
		})
	}

	// By parts of 17 sentences, each with its own stream.
	opts := PROOptions{Seed: 9, Normalize: true}
	var xs []feature.Vector
	for k := 0; k < len(e.lists); k += 17 {
		part, err := SamplePRO(e.lists[k:min(k+17, len(e.lists))], opts, opts.Seed, uint64(k))
		if err != nil {
			t.Fatal(err)
		}
		xs = append(xs, part...)
	}
	byParts, err := NewPRO(e.init, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := byParts.LearnPairs(ctx, activeIDs(e.lists), xs); err != nil {
		t.Fatal(err)
	}
	whole, err := NewPRO(e.init, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := whole.Learn(ctx, e.lists); err != nil {
		t.Fatal(err)
	}
	want, got := metric.BLEUStats(pool.OneBest(e.lists, whole.Weights())).BLEU(), metric.BLEUStats(pool.OneBest(e.lists, byParts.Weights())).BLEU()
	t.Logf("europarl100: %d pairs by parts, BLEU %.2f; %d pairs by Learn, %.2f", byParts.LastRun().Pairs, 100*got, whole.LastRun().Pairs, 100*want)
	np, nw := float64(byParts.LastRun().Pairs), float64(whole.LastRun().Pairs)
	if d := got - want; d < -0.005 || d > 0.005 || np < 0.95*nw || np > 1.05*nw {
		t.Errorf("PRO on pairs sampled by parts: BLEU %.4f from %d pairs, Learn %.4f from %d", 100*got, byParts.LastRun().Pairs, 100*want, whole.LastRun().Pairs)
	}

	// A pair with a feature outside the pool's is refused, the learner
	// unchanged.
	bad := []feature.Vector{{IDs: []feature.ID{999}, Vals: []float64{1}}}
	if err := byParts.LearnPairs(ctx, activeIDs(e.lists), bad); err == nil || !strings.Contains(err.Error(), "not one of the pool's") {
		t.Errorf("a pair outside the pool's features: error %v", err)
	}
}
