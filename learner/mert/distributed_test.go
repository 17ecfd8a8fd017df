package mert

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/linesearch"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/randpool"
)

// coordinate runs c to the end over the pool split into parts, as a
// pipeline does: each part's share, the shares merged line by line, each
// line swept. It returns the rounds run.
func coordinate(t *testing.T, c *Coordinator, parts [][]pool.List) int {
	t.Helper()
	rounds := 0
	for {
		p, ok := c.Next()
		if !ok {
			return rounds
		}
		rounds++
		res := PassResult{Stats: make([]metric.Stats, len(p.Runs)), Searches: make([][]linesearch.Result, len(p.Runs))}
		merged := make([][]linesearch.Envelopes, len(p.Runs))
		for i, r := range p.Runs {
			merged[i] = make([]linesearch.Envelopes, r.Directions(len(p.Dims)))
		}
		for _, part := range parts {
			sh, err := p.Share(part, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range p.Runs {
				res.Stats[i].Add(sh.Stats[i])
				for d, e := range sh.Envelopes[i] {
					if err := merged[i][d].Merge(e); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		for i := range p.Runs {
			for _, e := range merged[i] {
				r, err := linesearch.Sweep(e, SweepOptions(nil))
				if err != nil {
					t.Fatal(err)
				}
				res.Searches[i] = append(res.Searches[i], r)
			}
		}
		if err := c.Update(res); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCoordinatorEqualsLearn: MERT run by a Coordinator over a pool split
// into parts (envelopes computed by part, merged, swept) finds the weights
// Learn finds on the whole pool — the same start points, random
// directions and stopping rule — on europarl100 and on random pools, with
// restarts, random directions and a pass limit.
func TestCoordinatorEqualsLearn(t *testing.T) {
	lists, w0 := loadEuroparl(t)
	rnd := randpool.Lists(rand.New(rand.NewPCG(7, 8)), 60, 1, 30, 6)
	tests := []struct {
		name  string
		lists []pool.List
		w     feature.Weights
		opts  Options
	}{
		{"europarl100, 3 restarts", lists, w0, Options{Restarts: 3, Seed: 1}},
		{"europarl100, random directions", lists, w0, Options{Restarts: 2, RandomDirections: 3, Seed: 2}},
		{"random pool", rnd, feature.Weights{0.1, -0.2, 0.3, 0, 0.5, -0.1}, Options{Restarts: 4, Min: -1, Max: 1, Seed: 3}},
		{"random pool, 2 passes", rnd, feature.Weights{0.1, -0.2, 0.3, 0, 0.5, -0.1}, Options{Restarts: 2, MaxPasses: 2, RandomDirections: 1, Seed: 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := New(tc.w, tc.opts)
			if err := m.Learn(context.Background(), tc.lists); err != nil {
				t.Fatal(err)
			}
			want, wantInfo := m.Weights(), m.Info()
			p, err := newProblem(tc.lists, tc.w, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			c, err := NewCoordinator(tc.w, p.ids, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var parts [][]pool.List
			for k := 0; k < len(tc.lists); k += 17 {
				parts = append(parts, tc.lists[k:min(k+17, len(tc.lists))])
			}
			rounds := coordinate(t, c, parts)
			got, info, err := c.Result()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d rounds, %d passes, %d line searches; BLEU %.4f (Learn %.4f, %d passes)", rounds, info.Passes, info.LineSearches, 100*info.BLEU, 100*wantInfo.BLEU, wantInfo.Passes)
			// The envelopes' breakpoints are computed from the same numbers
			// in another order than Learn's columns: the points agree to
			// rounding, the path (passes, searches, best run) exactly.
			if len(got) < len(want) {
				t.Fatalf("%d weights, Learn %d", len(got), len(want))
			}
			for j, x := range want {
				if d := math.Abs(got[j] - x); d > 1e-12*max(1, math.Abs(x)) {
					t.Errorf("weight %d: %v, Learn's %v", j, got[j], x)
				}
			}
			if info.BestRun != wantInfo.BestRun || info.Passes != wantInfo.Passes || info.LineSearches != wantInfo.LineSearches {
				t.Errorf("best run %d, %d passes, %d searches; Learn: %d, %d, %d", info.BestRun, info.Passes, info.LineSearches, wantInfo.BestRun, wantInfo.Passes, wantInfo.LineSearches)
			}
			if got := metric.BLEUStats(pool.OneBest(tc.lists, got)).BLEU(); math.Abs(got-wantInfo.BLEU) > 1e-12 {
				t.Errorf("BLEU of the weights %v, Learn's %v", got, wantInfo.BLEU)
			}
		})
	}
}

// TestCoordinatorErrors: bad dimensions, results of the wrong shape and
// a Result before the end are refused.
func TestCoordinatorErrors(t *testing.T) {
	w := feature.Weights{1, 2}
	for _, dims := range [][]feature.ID{nil, {1, 0}, {0, 0}, {-1}} {
		if _, err := NewCoordinator(w, dims, Options{}); err == nil {
			t.Errorf("dimensions %v: no error", dims)
		}
	}
	c, err := NewCoordinator(w, []feature.ID{0, 1}, Options{Restarts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Result(); err == nil {
		t.Error("Result before the end: no error")
	}
	if err := c.Update(PassResult{}); err == nil {
		t.Error("Update without a round: no error")
	}
	if _, ok := c.Next(); !ok {
		t.Fatal("no first round")
	}
	if err := c.Update(PassResult{Stats: make([]metric.Stats, 1)}); err == nil {
		t.Error("a result for 1 run of 2: no error")
	}
}
