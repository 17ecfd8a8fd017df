package batch

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/floattest"
)

// learners makes each learner of the package with small settings from
// weights w and a seed; the conformance tests below run on all of them.
var learners = []struct {
	name string
	make func(w feature.Weights, seed uint64) (learner.Learner, error)
	// fresh returns a zero learner to unmarshal into.
	fresh func() learner.Learner
}{
	{"MIRA", func(w feature.Weights, seed uint64) (learner.Learner, error) {
		return NewMIRA(w, MIRAOptions{Passes: 6, Seed: seed})
	}, func() learner.Learner { return new(MIRA) }},
	{"MR", func(w feature.Weights, seed uint64) (learner.Learner, error) {
		return NewMR(w, MROptions{Restarts: 2, Epochs: 3, Seed: seed, Lambda: 0.5})
	}, func() learner.Learner { return new(MR) }},
	{"PRO", func(w feature.Weights, seed uint64) (learner.Learner, error) {
		return NewPRO(w, PROOptions{Seed: seed, Gamma: 200, Xi: 20})
	}, func() learner.Learner { return new(PRO) }},
	{"SVM", func(w feature.Weights, seed uint64) (learner.Learner, error) {
		return NewSVM(w, SVMOptions{Lambda: 10, Iterations: 3, Seed: seed})
	}, func() learner.Learner { return new(SVM) }},
}

// mustMarshal returns l's state, failing tb (a test or a fuzz target's
// seeding) if it cannot be saved.
func mustMarshal(tb testing.TB, l learner.Learner) []byte {
	tb.Helper()
	b, err := l.MarshalBinary()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestResume: Learn, save, restore into a fresh learner, and both continue
// with the same pools: the weights and the states stay bit-identical.
func TestResume(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	pools := [][]pool.List{randomPool(r, 30, 20, 5, 20), randomPool(r, 25, 20, 5, 20), randomPool(r, 30, 20, 5, 20)}
	w0 := randomWeights(r, 5)
	for _, lt := range learners {
		t.Run(lt.name, func(t *testing.T) {
			ctx := context.Background()
			a, err := lt.make(w0, 42)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Learn(ctx, pools[0]); err != nil {
				t.Fatal(err)
			}
			saved := mustMarshal(t, a)
			b := lt.fresh()
			if err := b.UnmarshalBinary(saved); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(mustMarshal(t, b), saved) {
				t.Fatal("restored state marshals differently")
			}
			for i, p := range pools[1:] {
				if err := a.Learn(ctx, p); err != nil {
					t.Fatal(err)
				}
				if err := b.Learn(ctx, p); err != nil {
					t.Fatal(err)
				}
				if !floattest.SameBits(a.Weights(), b.Weights()) {
					t.Fatalf("pool %d: weights differ after restoring", i+1)
				}
			}
			if !bytes.Equal(mustMarshal(t, a), mustMarshal(t, b)) {
				t.Fatal("states differ after continuing")
			}
			if floattest.SameBits(a.Weights(), w0) {
				t.Error("weights never changed")
			}
		})
	}
}

// TestDeterminism: a fixed seed gives the same weights whatever the number
// of threads; another seed gives others (for the learners that draw).
func TestDeterminism(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	lists := randomPool(r, 600, 20, 5, 10) // more than evalChunk lists
	w0 := randomWeights(r, 5)
	ctx := context.Background()
	run := func(l learner.Learner) feature.Weights {
		if err := l.Learn(ctx, lists); err != nil {
			t.Fatal(err)
		}
		return l.Weights()
	}
	for _, lt := range learners {
		t.Run(lt.name, func(t *testing.T) {
			a, _ := lt.make(w0, 1)
			b, _ := lt.make(w0, 1)
			c, _ := lt.make(w0, 2)
			wa, wb, wc := run(a), run(b), run(c)
			if !floattest.SameBits(wa, wb) {
				t.Error("same seed, different weights")
			}
			if floattest.SameBits(wa, wc) {
				t.Error("seeds 1 and 2 give the same weights")
			}
		})
	}
	threads := func(n int) []feature.Weights {
		m, _ := NewMIRA(w0, MIRAOptions{Passes: 3, Threads: n})
		mr, _ := NewMR(w0, MROptions{Restarts: 1, Epochs: 2, Threads: n})
		svm, _ := NewSVM(w0, SVMOptions{Lambda: 10, Iterations: 2, Threads: n})
		return []feature.Weights{run(m), run(mr), run(svm)}
	}
	one, three := threads(1), threads(3)
	for i := range one {
		if !floattest.SameBits(one[i], three[i]) {
			t.Errorf("learner %d: 1 and 3 threads give different weights", i)
		}
	}
}

// TestCancel: a cancelled Learn returns the context's error and leaves the
// learner as it was.
func TestCancel(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	lists := randomPool(r, 20, 10, 4, 0)
	w0 := randomWeights(r, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, lt := range learners {
		l, err := lt.make(w0, 3)
		if err != nil {
			t.Fatal(err)
		}
		before := mustMarshal(t, l)
		if err := l.Learn(ctx, lists); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want context.Canceled", lt.name, err)
		}
		if !bytes.Equal(before, mustMarshal(t, l)) {
			t.Errorf("%s: state changed by a cancelled Learn", lt.name)
		}
	}
}

// TestBadInput: malformed pools and weights are errors, and leave the
// learner unchanged.
func TestBadInput(t *testing.T) {
	good := func() []pool.List {
		r := rand.New(rand.NewPCG(17, 18))
		return randomPool(r, 5, 5, 3, 0)
	}
	v := feature.FromDense([]float64{1, 2})
	st := metric.NewBLEUStats(4, nil, []float64{3, 2, 1}, 3)
	tests := []struct {
		name  string
		lists func() []pool.List
		empty bool
	}{
		{"no lists", func() []pool.List { return nil }, true},
		{"only empty lists", func() []pool.List { return []pool.List{{Sent: 0}, {Sent: 1}} }, true},
		{"NaN feature", func() []pool.List {
			l := good()
			l[2].Hyps[1].Features = feature.Vector{IDs: []feature.ID{0}, Vals: []float64{math.NaN()}}
			return l
		}, false},
		{"infinite feature", func() []pool.List {
			l := good()
			l[0].Hyps[0].Features = feature.Vector{IDs: []feature.ID{1}, Vals: []float64{math.Inf(-1)}}
			return l
		}, false},
		{"unsorted ids", func() []pool.List {
			l := good()
			l[1].Hyps[0].Features = feature.Vector{IDs: []feature.ID{2, 1}, Vals: []float64{1, 1}}
			return l
		}, false},
		{"ids and values differ in number", func() []pool.List {
			l := good()
			l[1].Hyps[0].Features = feature.Vector{IDs: []feature.ID{1, 2}, Vals: []float64{1}}
			return l
		}, false},
		{"more matches than n-grams", func() []pool.List {
			bad := st
			bad.V[2*0] = 5
			return []pool.List{{Hyps: []pool.Hyp{pool.NewHyp(v, st), pool.NewHyp(v, bad)}}}
		}, false},
		{"mixed orders", func() []pool.List {
			o2 := metric.NewBLEUStats(2, nil, []float64{3, 2}, 3)
			return []pool.List{{Hyps: []pool.Hyp{pool.NewHyp(v, st)}}, {Hyps: []pool.Hyp{pool.NewHyp(v, o2)}}}
		}, false},
		{"no statistics", func() []pool.List {
			return []pool.List{{Hyps: []pool.Hyp{{Features: v}}}}
		}, false},
	}
	for _, lt := range learners {
		for _, tt := range tests {
			l, err := lt.make(feature.Weights{0.1, 0.2, 0.3}, 1)
			if err != nil {
				t.Fatal(err)
			}
			before := mustMarshal(t, l)
			err = l.Learn(context.Background(), tt.lists())
			if err == nil {
				t.Errorf("%s, %s: no error", lt.name, tt.name)
				continue
			}
			if tt.empty != errors.Is(err, ErrEmpty) {
				t.Errorf("%s, %s: error %v", lt.name, tt.name, err)
			}
			if !bytes.Equal(before, mustMarshal(t, l)) {
				t.Errorf("%s, %s: state changed", lt.name, tt.name)
			}
		}
		if _, err := lt.make(feature.Weights{0, math.NaN()}, 1); err == nil {
			t.Errorf("%s: NaN start weight accepted", lt.name)
		}
		l, _ := lt.make(nil, 1)
		l.SetWeights(feature.Weights{math.Inf(1)})
		if err := l.Learn(context.Background(), good()); err == nil {
			t.Errorf("%s: Learn from an infinite weight: no error", lt.name)
		}
	}
}

// TestUnmarshalErrors: truncated, foreign or corrupted states are errors.
func TestUnmarshalErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	lists := randomPool(r, 10, 10, 3, 0)
	for i, lt := range learners {
		l, _ := lt.make(randomWeights(r, 3), 1)
		if err := l.Learn(context.Background(), lists); err != nil {
			t.Fatal(err)
		}
		b := mustMarshal(t, l)
		for n := 0; n < len(b); n += 1 + n/8 {
			if err := lt.fresh().UnmarshalBinary(b[:n]); !errors.Is(err, ErrState) {
				t.Fatalf("%s: %d of %d bytes: error %v, want ErrState", lt.name, n, len(b), err)
			}
		}
		if err := lt.fresh().UnmarshalBinary(append(slices.Clone(b), 0)); !errors.Is(err, ErrState) {
			t.Errorf("%s: trailing byte: error %v", lt.name, err)
		}
		other := learners[(i+1)%len(learners)].fresh()
		if err := other.UnmarshalBinary(b); !errors.Is(err, ErrState) {
			t.Errorf("%s state into %T: error %v", lt.name, other, err)
		}
		v := slices.Clone(b)
		v[len(lt.name)+len("mtune/batch.")]++ // version byte
		if err := lt.fresh().UnmarshalBinary(v); !errors.Is(err, ErrState) {
			t.Errorf("%s: wrong version: error %v", lt.name, err)
		}
	}
}

// FuzzUnmarshal: arbitrary bytes never panic, and a state that unmarshals
// marshals to bytes that unmarshal to the same state.
func FuzzUnmarshal(f *testing.F) {
	r := rand.New(rand.NewPCG(21, 22))
	lists := randomPool(r, 5, 5, 3, 0)
	for _, lt := range learners {
		l, _ := lt.make(randomWeights(r, 3), 1)
		f.Add(mustMarshal(f, l))
		if err := l.Learn(context.Background(), lists); err != nil {
			f.Fatal(err)
		}
		f.Add(mustMarshal(f, l))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lt := range learners {
			l := lt.fresh()
			if l.UnmarshalBinary(data) != nil {
				continue
			}
			b := mustMarshal(t, l)
			l2 := lt.fresh()
			if err := l2.UnmarshalBinary(b); err != nil {
				t.Fatalf("%s: re-marshalled state: %v", lt.name, err)
			}
			if !bytes.Equal(mustMarshal(t, l2), b) {
				t.Fatalf("%s: state does not round-trip", lt.name)
			}
		}
	})
}

// TestZeroLearner: a learner not made by its New function reports an error
// rather than panicking, until a state is restored into it.
func TestZeroLearner(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	lists := randomPool(r, 5, 5, 3, 0)
	for _, lt := range learners {
		z := lt.fresh()
		if err := z.Learn(context.Background(), lists); err == nil {
			t.Errorf("%s: Learn on a zero learner: no error", lt.name)
		}
		if _, err := z.MarshalBinary(); err == nil {
			t.Errorf("%s: MarshalBinary on a zero learner: no error", lt.name)
		}
		l, _ := lt.make(nil, 1)
		if err := z.UnmarshalBinary(mustMarshal(t, l)); err != nil {
			t.Fatal(err)
		}
		if err := z.Learn(context.Background(), lists); err != nil {
			t.Errorf("%s: Learn after UnmarshalBinary: %v", lt.name, err)
		}
	}
}
