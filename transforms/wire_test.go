package transforms_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"reflect"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/tune"
)

func TestWireWeights(t *testing.T) {
	ww := weights.ByName{Names: []string{"b", "a", "c"}, Vals: []float64{2, 0, -1}}
	idx := feature.NewIndexOf("c", "x")
	w, err := ww.Over(idx)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{"a": 0, "b": 2, "c": -1, "x": 0} {
		id, ok := idx.Lookup(name)
		if !ok || w.At(id) != want {
			t.Errorf("weight of %s: %v (present %v), want %v", name, w.At(id), ok, want)
		}
	}
	back := weights.NewByName(idx, w)
	if got, want := back.Map(), map[string]float64{"c": -1, "x": 0, "b": 2, "a": 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("round trip: %v, want %v", got, want)
	}

	bad := []struct {
		name string
		w    weights.ByName
	}{
		{"lengths", weights.ByName{Names: []string{"a"}, Vals: []float64{1, 2}}},
		{"empty name", weights.ByName{Names: []string{""}, Vals: []float64{1}}},
		{"repeated name", weights.ByName{Names: []string{"a", "a"}, Vals: []float64{1, 2}}},
		{"NaN", weights.ByName{Names: []string{"a"}, Vals: []float64{math.NaN()}}},
		{"Inf", weights.ByName{Names: []string{"a"}, Vals: []float64{math.Inf(-1)}}},
	}
	for _, tc := range bad {
		if _, err := tc.w.Over(feature.NewIndex()); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestNBestRoundTrip moves europarl100's lists through NBest into an index
// of a different order: every model score and statistic is kept.
func TestNBestRoundTrip(t *testing.T) {
	e := loadEuroparl100(t)
	ctx := context.Background()
	dec := e.decoder(t)
	w, err := e.initWeights(t).Over(dec.Features())
	if err != nil {
		t.Fatal(err)
	}
	other := feature.NewIndexOf("WordPenalty0_0", "zzz", "lm_0") // a foreign order
	wOther, _ := e.initWeights(t).Over(other)
	for _, x := range e.sents[:20] {
		n, err := tune.DecodeSentence(ctx, dec, x, w, tune.DecodeOptions{NBest: 50})
		if err != nil {
			t.Fatal(err)
		}
		if len(n.Hyps) != 50 {
			t.Fatalf("sentence %d: %d hypotheses, want 50", x.ID, len(n.Hyps))
		}
		l, err := n.List(other)
		if err != nil {
			t.Fatal(err)
		}
		hyps, _ := dec.NBest(ctx, x.ID, x.Src, w, 50)
		for k, h := range l.Hyps {
			if got, want := h.Features.Dot(wOther), hyps[k].Score; math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Fatalf("sentence %d hypothesis %d: score %v after the round trip, %v before", x.ID, k, got, want)
			}
		}
		// NBestOf(List) gives back the same list (up to the names' order).
		n2 := tune.NBestOf(l, nil, other)
		l2, err := n2.List(feature.NewIndexOf(n.Names...))
		l1, _ := n.List(feature.NewIndexOf(n.Names...))
		if err != nil || !reflect.DeepEqual(l1, l2) {
			t.Fatalf("sentence %d: NBestOf(List) differs (%v)", x.ID, err)
		}
	}
	bad := []struct {
		name string
		n    tune.NBest
	}{
		{"id beyond names", tune.NBest{Names: []string{"a"}, Hyps: []tune.WireHyp{{Features: feature.Vector{IDs: []int32{1}, Vals: []float64{1}}, Stats: okStats()}}}},
		{"unsorted ids", tune.NBest{Names: []string{"a", "b"}, Hyps: []tune.WireHyp{{Features: feature.Vector{IDs: []int32{1, 0}, Vals: []float64{1, 1}}, Stats: okStats()}}}},
		{"repeated name", tune.NBest{Names: []string{"a", "a"}, Hyps: []tune.WireHyp{{Stats: okStats()}}}},
		{"bad stats", tune.NBest{Names: []string{"a"}, Hyps: []tune.WireHyp{{Stats: metric.StatsOf(1, math.NaN(), 2)}}}},
		{"no stats", tune.NBest{Names: []string{"a"}, Hyps: []tune.WireHyp{{}}}},
		{"stats of two lengths", tune.NBest{Names: []string{"a"}, Hyps: []tune.WireHyp{{Stats: okStats()}, {Stats: metric.StatsOf(1, 2, 3)}}}},
	}
	for _, tc := range bad {
		if _, err := tc.n.List(feature.NewIndex()); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func okStats() metric.Stats {
	return metric.NewBLEUStats(4, []float64{3, 2, 1, 0}, []float64{4, 3, 2, 1}, 5)
}

func TestShardState(t *testing.T) {
	st := tune.ShardState{Shard: 3, Names: []string{"LM0_0", "pp_été~summer"}, State: []byte{0, 1, 2, 255}}
	data, err := st.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back tune.ShardState
	if err := back.UnmarshalBinary(data); err != nil || !reflect.DeepEqual(back, st) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	for n := 0; n < len(data); n++ {
		err := back.UnmarshalBinary(data[:n])
		if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, tune.ErrShardState) {
			t.Errorf("cut to %d bytes: %v, want an unexpected EOF", n, err)
		}
	}
	enc := func(s tune.ShardState) []byte { b, _ := s.MarshalBinary(); return b }
	bad := []struct {
		name string
		data []byte
	}{
		{"bad magic", append([]byte("xtune"), data[5:]...)},
		{"trailing byte", append(enc(st), 0)},
		{"repeated name", enc(tune.ShardState{Names: []string{"a", "a"}})},
		{"empty name", enc(tune.ShardState{Names: []string{""}})},
		{"invalid UTF-8", enc(tune.ShardState{Names: []string{"\xff"}})},
		{"version 2", bytes.Replace(enc(st), []byte("ShardState\x01"), []byte("ShardState\x02"), 1)},
	}
	for _, tc := range bad {
		err := back.UnmarshalBinary(tc.data)
		if !errors.Is(err, tune.ErrShardState) || errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if !reflect.DeepEqual(back, st) {
		t.Errorf("a failed UnmarshalBinary changed the state: %+v", back)
	}
}

func FuzzShardState(f *testing.F) {
	for _, st := range []tune.ShardState{
		{},
		{Shard: 3, Names: []string{"LM0_0", "pp_été~summer"}, State: []byte{0, 1, 2, 255}},
		{Shard: 1 << 20, Names: []string{"a", "b", "c"}},
	} {
		b, _ := st.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var st tune.ShardState
		if err := st.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, tune.ErrShardState) {
				t.Fatalf("error %v does not wrap ErrShardState", err)
			}
			return
		}
		again, err := st.MarshalBinary()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("round trip: %q, want %q (%v)", again, data, err)
		}
	})
}
