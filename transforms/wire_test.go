package transforms_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/transforms"
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
		{"bad stats", tune.NBest{Names: []string{"a"}, Hyps: []tune.WireHyp{{Stats: metric.Stats{Order: 9}}}}},
	}
	for _, tc := range bad {
		if _, err := tc.n.List(feature.NewIndex()); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func okStats() metric.Stats {
	return metric.Stats{Order: 4, Matches: [6]float64{3, 2, 1, 0}, Totals: [6]float64{4, 3, 2, 1}, RefLen: 5}
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

func sampleResult() tune.ShardResult {
	return tune.ShardResult{
		Shard: 1, Epoch: 2, Updates: 3, TotalUpdates: 9, Sentences: 60, Stats: okStats(), State: []byte("state\x00"),
		Weights: weights.ByName{Names: []string{"a", "b_1"}, Vals: []float64{0.1, -1e-300}},
	}
}

func TestShardResultFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r := sampleResult()
	path := transforms.ShardResultPath(dir, r.Shard)
	if filepath.Base(path) != "shard-001.json" {
		t.Errorf("path %s", path)
	}
	if err := transforms.WriteShardResultFile(ctx, path, r); err != nil {
		t.Fatal(err)
	}
	back, err := transforms.ReadShardResultFile(ctx, path)
	if err != nil || !reflect.DeepEqual(back, r) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	bad := []struct {
		name, json string
	}{
		{"empty", ""},
		{"truncated", `{"Shard":1,`},
		{"unknown field", `{"Shard":1,"Weights":{"Names":[],"Vals":[]},"Extra":1}`},
		{"trailing data", `{"Weights":{"Names":[],"Vals":[]}} {}`},
		{"negative updates", `{"Updates":-1,"TotalUpdates":-1,"Weights":{"Names":[],"Vals":[]}}`},
		{"weights lengths", `{"Weights":{"Names":["a"],"Vals":[]}}`},
		{"bad stats", `{"Weights":{"Names":[],"Vals":[]},"Stats":{"order":4,"matches":[5,0,0,0,0,0],"totals":[1,0,0,0,0,0],"ref_len":1}}`},
	}
	for _, tc := range bad {
		if _, err := transforms.DecodeShardResult([]byte(tc.json)); !errors.Is(err, transforms.ErrShardResult) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, err := transforms.ReadShardResultFile(ctx, filepath.Join(dir, "missing.json")); err == nil {
		t.Error("reading a missing file: no error")
	}
}

func FuzzDecodeShardResult(f *testing.F) {
	f.Add([]byte(`{"Shard":1,"Weights":{"Names":["a"],"Vals":[1]}}`))
	f.Add([]byte(`{"Weights":{"Names":[],"Vals":[]},"Stats":{"order":4,"matches":[1,0,0,0,0,0],"totals":[1,0,0,0,0,0],"ref_len":1}}`))
	f.Add([]byte(`{"Shard":1,`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := transforms.DecodeShardResult(data)
		if err != nil {
			return
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "r.json")
		if err := transforms.WriteShardResultFile(context.Background(), path, r); err != nil {
			t.Fatalf("a result that decodes does not encode: %v", err)
		}
		back, err := transforms.ReadShardResultFile(context.Background(), path)
		if err != nil || !reflect.DeepEqual(normal(back), normal(r)) {
			t.Fatalf("round trip: %+v, want %+v (%v)", back, r, err)
		}
	})
}

// normal makes nil and empty slices alike, as JSON does not tell them apart.
func normal(r tune.ShardResult) tune.ShardResult {
	if len(r.State) == 0 {
		r.State = nil
	}
	if len(r.Weights.Names) == 0 {
		r.Weights = weights.ByName{}
	}
	return r
}
