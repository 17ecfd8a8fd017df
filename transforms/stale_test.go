package transforms_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/tune"
)

// countingOnline counts Apply calls and, at each, how many Applies happened
// since the weights its gradient was computed at were read — measured here,
// independently of RunStale.
type countingOnline struct {
	learner.Online
	mu      sync.Mutex
	applies int
	// readAt is the number of applies when the weights tagged by the key
	// were read.
	readAt  map[float64]int
	applied []int
	tag     float64
}

func (c *countingOnline) Current() feature.Weights {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tag++
	c.readAt[c.tag] = c.applies
	// Tag the weights with an extra last coordinate.
	return append(c.Online.Current(), c.tag)
}

func (c *countingOnline) Gradient(w feature.Weights, batch []pool.List, seed uint64) (feature.Vector, error) {
	tag := w[len(w)-1]
	g, err := c.Online.Gradient(w[:len(w)-1], batch, seed)
	// Pass the tag on as an extra coordinate far out of range.
	g.IDs = append(g.IDs, 1000)
	g.Vals = append(g.Vals, tag)
	return g, err
}

func (c *countingOnline) Apply(g feature.Vector) {
	c.mu.Lock()
	tag := g.Vals[len(g.Vals)-1]
	c.applied = append(c.applied, c.applies-c.readAt[tag])
	c.applies++
	c.mu.Unlock()
	g.IDs, g.Vals = g.IDs[:len(g.IDs)-1], g.Vals[:len(g.Vals)-1]
	c.Online.Apply(g)
}

// syntheticBatch is a mini-batch of two sentences with three hypotheses of
// different BLEU each.
func syntheticBatch(i int) []pool.List {
	var lists []pool.List
	for s := 0; s < 2; s++ {
		l := pool.List{Sent: 2*i + s}
		for h := 0; h < 3; h++ {
			st := metric.Stats{N: 9}
			for n := 0; n < 4; n++ {
				st.V[2*n+1] = float64(10 - n)
				st.V[2*n] = float64(max(0, 2*h+3-n))
			}
			st.V[8] = 10 // the reference length
			v := feature.Vector{IDs: []feature.ID{0, 1, feature.ID(2 + (i+h)%5)}, Vals: []float64{float64(h) - 1, float64(s+h) / 3, 1}}
			l.Hyps = append(l.Hyps, pool.NewHyp(v, st))
		}
		lists = append(lists, l)
	}
	return lists
}

func TestRunStale(t *testing.T) {
	const n = 24
	tests := []struct {
		name          string
		threads, maxS int
		slow          time.Duration // delay of mini-batch 1 (others: 1 ms)
		wantRecompute bool
	}{
		{name: "one thread", threads: 1},
		{name: "two threads", threads: 2},
		{name: "four threads slow batch unbounded", threads: 4, slow: 60 * time.Millisecond},
		{name: "four threads slow batch bound 2", threads: 4, maxS: 2, slow: 60 * time.Millisecond, wantRecompute: true},
		{name: "three threads bound 1", threads: 3, maxS: 1, slow: 40 * time.Millisecond, wantRecompute: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := algo.New("adagrad", feature.Weights{0.1, 0.1}, algo.Config{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			on := &countingOnline{Online: l.(learner.Online), readAt: map[float64]int{}}
			prepare := func(ctx context.Context, i int, w feature.Weights) ([]pool.List, error) {
				d := time.Millisecond
				if i == 1 && tc.slow > 0 {
					d = tc.slow
				}
				time.Sleep(d)
				return syntheticBatch(i), nil
			}
			seed := func(i int) uint64 { return uint64(i) }
			st, err := tune.RunStale(context.Background(), on, n, prepare, seed, tune.StaleOptions{Threads: tc.threads, MaxStaleness: tc.maxS})
			if err != nil {
				t.Fatal(err)
			}
			if st.Updates() != n || on.applies != n || on.Updates() != n {
				t.Fatalf("recorded %d updates, applied %d, learner counts %d; want %d", st.Updates(), on.applies, on.Updates(), n)
			}
			// The histogram must be the independently measured one.
			var want tune.StaleStats
			for _, s := range on.applied {
				h := make([]int, s+1)
				h[s] = 1
				want.Add(tune.StaleStats{Histogram: h})
			}
			if !reflect.DeepEqual(st.Histogram, want.Histogram) {
				t.Errorf("histogram %v, measured %v", st.Histogram, want.Histogram)
			}
			if tc.maxS > 0 && st.Max() > tc.maxS {
				t.Errorf("max staleness %d > bound %d", st.Max(), tc.maxS)
			}
			if tc.threads == 1 && st.Max() != 0 {
				t.Errorf("one thread: max staleness %d, want 0", st.Max())
			}
			if tc.wantRecompute != (st.Recomputes > 0) {
				t.Errorf("%d recomputes, want some: %v", st.Recomputes, tc.wantRecompute)
			}
			if tc.slow > 0 && tc.maxS == 0 && st.Max() < tc.threads {
				t.Errorf("slow batch: max staleness %d, want ≥ %d (it should fall behind)", st.Max(), tc.threads)
			}
			t.Logf("histogram %v max %d mean %.2f recomputes %d", st.Histogram, st.Max(), st.Mean(), st.Recomputes)
		})
	}
}

func TestRunStaleError(t *testing.T) {
	l, err := algo.New("adagrad", feature.Weights{0.1}, algo.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	prepare := func(ctx context.Context, i int, w feature.Weights) ([]pool.List, error) {
		if i == 5 {
			return nil, fmt.Errorf("boom")
		}
		return syntheticBatch(i), nil
	}
	_, err = tune.RunStale(context.Background(), l.(learner.Online), 20, prepare, func(int) uint64 { return 0 }, tune.StaleOptions{Threads: 3})
	if err == nil {
		t.Fatal("no error")
	}
}

// With one thread, stale mode is ipm: the same weights as LearnShard for a
// learner whose gradient does not depend on the seed (oro: oracle against
// the rest), and deterministic for one whose gradient does (adagrad's PRO
// sampling draws from the per-batch seed in stale mode, from the learner's
// generator in ipm).
func TestStaleLearnShardOneThread(t *testing.T) {
	e := loadEuroparl100(t)
	init := e.initWeights(t)
	sents := e.sents[:40]
	for _, name := range []string{"oro", "adagrad"} {
		t.Run(name, func(t *testing.T) {
			o := tune.LearnOptions{Algo: name, Config: algo.Config{MiniBatch: 8}, Decode: tune.DecodeOptions{NBest: 20}, Seed: 3, Epoch: 1}
			run := func() (tune.ShardResult, tune.StaleStats, int) {
				lists := 0
				r, work, err := tune.StaleLearnShard(context.Background(), e.decoder(t), 0, sents, init, nil, o, tune.StaleOptions{Threads: 1}, func(tune.NBest) { lists++ })
				if err != nil {
					t.Fatal(err)
				}
				if work.Sentences != len(sents) || work.Updates != r.Updates || work.Hypotheses < len(sents) || work.Decode <= 0 {
					t.Errorf("work %+v: want %d sentences, %d updates, their hypotheses and decoding time", work, len(sents), r.Updates)
				}
				return r, work.Staleness, lists
			}
			r1, st, lists := run()
			if st.Updates() != r1.Updates || r1.Updates != 5 || st.Max() != 0 || lists != len(sents) {
				t.Fatalf("updates %d (recorded %d), max staleness %d, %d lists", r1.Updates, st.Updates(), st.Max(), lists)
			}
			r2, _, _ := run()
			if !reflect.DeepEqual(r1, r2) {
				t.Fatal("two one-thread runs differ")
			}
			ipm, _ := learn(t, e, sents, 0, init, nil, o)
			if name == "oro" {
				if !reflect.DeepEqual(ipm.Weights, r1.Weights) || ipm.Stats != r1.Stats {
					t.Errorf("one-thread stale differs from ipm:\n%v\n%v", ipm.Weights, r1.Weights)
				}
			}
		})
	}
}
