package tune

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/rundir"
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
	e := rundir.Layout{Root: t.TempDir()}.Epoch(3)
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

// TestReadEpoch writes an epoch's files by hand, as the pipeline of each
// mode writes them, and reads them back.
func TestReadEpoch(t *testing.T) {
	ctx := context.Background()
	tuneStats := okStats()
	devStats := metric.Stats{Order: 4, Matches: [6]float64{4, 3, 2, 1}, Totals: [6]float64{4, 3, 2, 1}, RefLen: 4}
	shardStats := []metric.Stats{okStats(), {Order: 4, Matches: [6]float64{2, 1, 1, 1}, Totals: [6]float64{3, 2, 1, 1}, RefLen: 2}}
	var prog metric.Stats
	for _, s := range shardStats {
		prog.Add(s)
	}
	mixed := weights.ByName{Names: []string{"LM0_0", "pp_a~b", "tm_0"}, Vals: []float64{0.5, 0.125, -0.25}}
	stale := []StaleStats{{Histogram: []int{2, 1}, Recomputes: 1}, {Histogram: []int{1, 0, 1}}}
	bleu := func(s metric.Stats) *float64 { b := 100 * s.BLEU(); return &b }
	alpha := 0.375

	tests := []struct {
		name string
		o    EpochOutputs
		// remove names a file to delete after writing the folder.
		remove  func(e rundir.EpochLayout) string
		want    rundir.Metrics
		wantErr bool
	}{
		{name: "ipm average", o: EpochOutputs{Shards: 2, EvalTune: true},
			want: rundir.Metrics{Epoch: 4, TuneBLEU: 100 * tuneStats.BLEU(), ProgressiveBLEU: 100 * prog.BLEU(), Updates: 3 + 4, Sentences: 10 + 11}},
		{name: "ipm linesearch with a dev set", o: EpochOutputs{Shards: 2, EvalTune: true, Dev: true, LineSearch: true},
			want: rundir.Metrics{Epoch: 4, TuneBLEU: 100 * tuneStats.BLEU(), DevBLEU: bleu(devStats), Alpha: &alpha,
				ProgressiveBLEU: 100 * prog.BLEU(), Updates: 7, Sentences: 21}},
		{name: "stale", o: EpochOutputs{Shards: 2, EvalTune: true, Stale: true},
			want: rundir.Metrics{Epoch: 4, TuneBLEU: 100 * tuneStats.BLEU(), ProgressiveBLEU: 100 * prog.BLEU(), Updates: 7, Sentences: 21,
				Staleness: &rundir.Staleness{Histogram: map[string]int{"0": 3, "1": 1, "2": 1}, Max: 2, Mean: 0.6, Recomputes: 1}}},
		{name: "one shard of two", o: EpochOutputs{Shards: 1, EvalTune: true},
			want: rundir.Metrics{Epoch: 4, TuneBLEU: 100 * tuneStats.BLEU(), ProgressiveBLEU: 100 * shardStats[0].BLEU(), Updates: 3, Sentences: 10}},
		// Without --eval-tune the tune BLEU is the progressive BLEU, and
		// work/tune-stats.json is not read.
		{name: "ipm, tune BLEU as decoded", o: EpochOutputs{Shards: 2, Dev: true}, remove: func(e rundir.EpochLayout) string { return e.TuneStats() },
			want: rundir.Metrics{Epoch: 4, TuneBLEU: 100 * prog.BLEU(), TuneDecoded: true, DevBLEU: bleu(devStats), ProgressiveBLEU: 100 * prog.BLEU(), Updates: 7, Sentences: 21}},
		{name: "missing shard file", o: EpochOutputs{Shards: 2}, remove: func(e rundir.EpochLayout) string { return e.ShardState(1) }, wantErr: true},
		{name: "missing shard summary", o: EpochOutputs{Shards: 2}, remove: func(e rundir.EpochLayout) string {
			return filepath.Join(e.State(), ShardSummaryName(0))
		}, wantErr: true},
		{name: "missing stale report", o: EpochOutputs{Shards: 2, Stale: true}, remove: func(e rundir.EpochLayout) string { return e.StaleReport(0) }, wantErr: true},
		{name: "missing dev stats", o: EpochOutputs{Shards: 2, Dev: true}, remove: func(e rundir.EpochLayout) string { return e.DevStats() }, wantErr: true},
		{name: "missing line search", o: EpochOutputs{Shards: 2, LineSearch: true}, remove: func(e rundir.EpochLayout) string { return e.LineSearch() }, wantErr: true},
		{name: "missing tune stats", o: EpochOutputs{Shards: 2, EvalTune: true}, remove: func(e rundir.EpochLayout) string { return e.TuneStats() }, wantErr: true},
		{name: "missing mixed weights", o: EpochOutputs{Shards: 2}, remove: func(e rundir.EpochLayout) string { return e.Mixed() }, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := rundir.Layout{Root: t.TempDir()}.Epoch(4)
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(rundir.WriteJSON(ctx, e.TuneStats(), tuneStats))
			must(rundir.WriteJSON(ctx, e.DevStats(), devStats))
			must(rundir.WriteJSON(ctx, e.LineSearch(), LineSearchResult{Alpha: alpha, Stats: tuneStats, Lists: 3}))
			must(weights.WriteByName(ctx, e.Mixed(), mixed))
			for k, s := range shardStats {
				r := ShardResult{Shard: k, Epoch: 3, Updates: 3 + k, TotalUpdates: 10, Sentences: 10 + k, Stats: s, Weights: mixed}
				_, err := WriteShardResult(ctx, e.State(), r)
				must(err)
				_, err = WriteStaleReport(ctx, e.Work(), StaleReport{Shard: k, Epoch: 3, Stats: stale[k]})
				must(err)
			}
			var removed string
			if tc.remove != nil {
				removed = tc.remove(e)
				must(os.Remove(removed))
			}
			m, ww, err := ReadEpoch(ctx, e, tc.o)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), removed) {
					t.Fatalf("error %v, want one naming %s", err, removed)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m, tc.want) {
				t.Errorf("metrics %+v, want %+v", m, tc.want)
			}
			if !reflect.DeepEqual(ww.Map(), mixed.Map()) {
				t.Errorf("mixed weights %v, want %v", ww.Map(), mixed.Map())
			}
		})
	}
}

func TestFinishEpoch(t *testing.T) {
	ctx := context.Background()
	e := rundir.Layout{Root: t.TempDir()}.Epoch(2)
	ww := weights.ByName{Names: []string{"pp_a~b", "LM0_0", "tm_1", "tm_0", "wt_x"}, Vals: []float64{0.125, 0.5, 0, -0.25, 0}}
	t0 := time.Now()
	m, err := FinishEpoch(ctx, e, rundir.Metrics{Epoch: 2, Updates: 9}, ww, []string{"LM0_0", "tm_0", "tm_1"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if m.Epoch != 2 || m.Updates != 9 || m.NonZero != 3 || m.Seconds < 0 || m.Seconds > time.Since(t0).Seconds() {
		t.Errorf("metrics %+v", m)
	}
	back, err := weights.Read(ctx, e.JSON(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := weights.NewByName(back.Index, back.Weights).Map(), map[string]float64{"LM0_0": 0.5, "tm_0": -0.25, "tm_1": 0, "pp_a~b": 0.125}; !reflect.DeepEqual(got, want) {
		t.Errorf("%s: %v, want %v", e.JSON(), got, want)
	}
	if got := back.Groups; len(got) != 2 || got[0].Label != "LM0" || got[1].Label != "tm" {
		t.Errorf("dense groups %v, want LM0 and tm", got)
	}
	for _, p := range []string{e.Moses(), e.Sparse()} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}
