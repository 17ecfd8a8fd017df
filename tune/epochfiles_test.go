package tune

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
)

func okStats() metric.Stats {
	return metric.Stats{Order: 4, Matches: [6]float64{3, 2, 1, 0}, Totals: [6]float64{4, 3, 2, 1}, RefLen: 5}
}

func sampleResult() ShardResult {
	return ShardResult{
		Shard: 1, Epoch: 2, Updates: 3, TotalUpdates: 9, Sentences: 60, Stats: okStats(), State: []byte("state\x00"),
		Weights: weights.ByName{Names: []string{"a", "b_1"}, Vals: []float64{0.1, -1e-300}},
	}
}

func TestShardResultFile(t *testing.T) {
	ctx := context.Background()
	e := Layout{Root: t.TempDir()}.Epoch(3)
	r := sampleResult()
	path, err := WriteShardResult(ctx, e.State(), r)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "shard-001.json" || path != e.ShardState(r.Shard) {
		t.Errorf("path %s, want %s", path, e.ShardState(r.Shard))
	}
	back, err := ReadShardResult(ctx, path)
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
		if _, err := DecodeShardResult([]byte(tc.json)); !errors.Is(err, ErrShardResult) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, err := ReadShardResult(ctx, filepath.Join(e.State(), "missing.json")); err == nil {
		t.Error("reading a missing file: no error")
	}
}

func FuzzDecodeShardResult(f *testing.F) {
	f.Add([]byte(`{"Shard":1,"Weights":{"Names":["a"],"Vals":[1]}}`))
	f.Add([]byte(`{"Weights":{"Names":[],"Vals":[]},"Stats":{"order":4,"matches":[1,0,0,0,0,0],"totals":[1,0,0,0,0,0],"ref_len":1}}`))
	f.Add([]byte(`{"Shard":1,`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeShardResult(data)
		if err != nil {
			return
		}
		path, err := WriteShardResult(context.Background(), t.TempDir(), r)
		if err != nil {
			t.Fatalf("a result that decodes does not encode: %v", err)
		}
		back, err := ReadShardResult(context.Background(), path)
		if err != nil || !reflect.DeepEqual(normal(back), normal(r)) {
			t.Fatalf("round trip: %+v, want %+v (%v)", back, r, err)
		}
	})
}

// normal makes nil and empty slices alike, as JSON does not tell them apart.
func normal(r ShardResult) ShardResult {
	if len(r.State) == 0 {
		r.State = nil
	}
	if len(r.Weights.Names) == 0 {
		r.Weights = weights.ByName{}
	}
	return r
}
