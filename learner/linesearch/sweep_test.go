package linesearch

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// TestSweepEqualsSearcher: the envelopes merged in any order and swept
// (Search, and line-search mixing over workers), and those of two
// Searchers over two halves of the lists (Searcher.Envelopes, MERT over a
// pool by parts), give exactly what a Searcher gives, interval, breakpoint
// count and statistics included.
func TestSweepEqualsSearcher(t *testing.T) {
	tests := []struct {
		name    string
		seed    uint64
		integer bool // integer features: ties and shared breakpoints
		opts    Options
	}{
		{"random", 1, false, Options{}},
		{"integer", 2, true, Options{}},
		{"bounded", 3, true, Options{Min: -1, Max: 2}},
		{"preferred", 4, false, Options{Prefer: 1}},
		{"margin", 5, true, Options{Margin: 3}},
	}
	for _, tc := range tests {
		for trial := range 40 {
			r := rand.New(rand.NewPCG(tc.seed, uint64(trial)))
			dims := 2 + r.IntN(3)
			lists := randomLists(r, 1+r.IntN(20), 2+r.IntN(20), dims)
			if tc.integer {
				integerFeatures(r, lists, dims)
			}
			w, d := randomWeights(r, dims), randomWeights(r, dims)
			name := fmt.Sprintf("%s %d", tc.name, trial)
			want := check(t, name, lists, w, d, tc.opts, 0, false)

			envs := make([]Envelope, len(lists))
			for i, l := range lists {
				var err error
				if envs[i], err = SentenceEnvelope(l, w, d); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			// Merged in pieces and in another order, as a combiner may.
			r.Shuffle(len(envs), func(a, b int) { envs[a], envs[b] = envs[b], envs[a] })
			var a, b Envelopes
			split := r.IntN(len(envs) + 1)
			for i, e := range envs {
				dst := &a
				if i >= split {
					dst = &b
				}
				if err := dst.Add(e); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			if err := b.Merge(a); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, err := Sweep(b, tc.opts)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got != want {
				t.Errorf("%s: Sweep %+v, Searcher %+v", name, got, want)
			}
			g, st, err := Search(lists, w, d, tc.opts)
			if err != nil || g != want.Gamma || st != want.Stats {
				t.Errorf("%s: Search γ = %v with %v (%v), Searcher γ = %v with %v", name, g, st, err, want.Gamma, want.Stats)
			}
			// Two Searchers over two halves of the lists, each giving
			// its envelopes (Searcher.Envelopes), merged and swept.
			var halves Envelopes
			cut := r.IntN(len(lists) + 1)
			for _, part := range [][]pool.List{lists[:cut], lists[cut:]} {
				if pool.Size(part) == 0 {
					continue
				}
				s, err := NewSearcher(part, tc.opts)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var base, slope []float64
				for _, l := range part {
					for _, h := range l.Hyps {
						base, slope = append(base, h.Features.Dot(w)), append(slope, h.Features.Dot(d))
					}
				}
				e, err := s.Envelopes(base, slope, nil)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := halves.Merge(e); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			if got, err := Sweep(halves, tc.opts); err != nil || got != want {
				t.Errorf("%s: Searcher.Envelopes of two halves swept %+v (%v), Searcher %+v", name, got, err, want)
			}
		}
	}
}

func TestSweepErrors(t *testing.T) {
	s4 := metric.NewBLEUStats(4, []float64{1, 1, 1, 1}, []float64{2, 2, 2, 2}, 2)
	s2 := metric.NewBLEUStats(2, nil, []float64{1, 1}, 1)
	tests := []struct {
		name string
		envs []Envelope
		opts Options
		is   error
	}{
		{"no envelopes", nil, Options{}, nil},
		{"only empty lists", []Envelope{{Sent: 1}}, Options{}, nil},
		{"BLEU-4 and BLEU-2", []Envelope{{Hyps: 1, First: s4}, {Hyps: 1, First: s2}}, Options{}, nil},
		{"breakpoint of another order", []Envelope{{Hyps: 2, First: s4, Points: []Breakpoint{{Gamma: 1, Delta: s2}}}}, Options{}, nil},
		{"infinite breakpoint", []Envelope{{Hyps: 2, First: s4, Points: []Breakpoint{{Gamma: math.Inf(1), Delta: s4}}}}, Options{}, ErrNonFinite},
		{"empty interval", []Envelope{{Hyps: 1, First: s4}}, Options{Min: 1, Max: 1}, nil},
	}
	for _, tc := range tests {
		var a Envelopes
		var err error
		for _, e := range tc.envs {
			if err = a.Add(e); err != nil {
				break
			}
		}
		if err == nil {
			_, err = Sweep(a, tc.opts)
		}
		if err == nil || tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: error %v", tc.name, err)
		}
	}
	l := pool.List{Hyps: []pool.Hyp{pool.NewHyp(feature.Vector{IDs: []int32{0}, Vals: []float64{1e308}}, s4)}}
	if _, err := SentenceEnvelope(l, feature.Weights{1e10}, feature.Weights{0}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("an infinite model score: error %v", err)
	}
}

// integerFeatures replaces the features of every hypothesis of lists with
// dims random integers in [-2, 2].
func integerFeatures(r *rand.Rand, lists []pool.List, dims int) {
	for _, l := range lists {
		for k := range l.Hyps {
			d := make([]float64, dims)
			for j := range d {
				d[j] = float64(r.IntN(5) - 2)
			}
			l.Hyps[k].Features = feature.FromDense(d)
		}
	}
}
