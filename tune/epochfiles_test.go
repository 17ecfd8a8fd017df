package tune

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/rundir"
)

func okStats() metric.Stats {
	return metric.NewBLEUStats(4, []float64{3, 2, 1, 0}, []float64{4, 3, 2, 1}, 5)
}

func sampleResult() ShardResult {
	return ShardResult{
		Shard: 1, Epoch: 2, Updates: 3, TotalUpdates: 9, Sentences: 60, Stats: okStats(), State: []byte("state\x00"),
		Weights: weights.ByName{Names: []string{"a", "b_1"}, Vals: []float64{0.1, -1e-300}},
	}
}

func TestShardStateFile(t *testing.T) {
	ctx := context.Background()
	e := rundir.Layout{Root: t.TempDir()}.Epoch(3)
	r := sampleResult()
	path, err := WriteShardState(ctx, e.State(), r)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "shard-001.json" || path != e.ShardState(r.Shard) {
		t.Errorf("path %s, want %s", path, e.ShardState(r.Shard))
	}
	back, err := ReadShardState(ctx, path)
	if err != nil || !reflect.DeepEqual(back, r.ShardState()) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	// The file holds the state and its names, not the shard's weights.
	data, err := os.ReadFile(path)
	if err != nil || strings.Contains(string(data), "Vals") || strings.Contains(string(data), "Weights") {
		t.Errorf("%s holds weights: %s (%v)", path, data, err)
	}
	var sum ShardSummary
	if err := rundir.ReadJSON(ctx, filepath.Join(e.State(), ShardSummaryName(1)), &sum); err != nil ||
		sum != (ShardSummary{Shard: 1, Epoch: 2, Updates: 3, TotalUpdates: 9, Sentences: 60, Stats: okStats()}) {
		t.Errorf("summary %+v (%v)", sum, err)
	}
	bad := []struct {
		name, json string
	}{
		{"empty", ""},
		{"truncated", `{"Shard":1,`},
		{"unknown field", `{"Shard":1,"Names":[],"Extra":1}`},
		{"weights of an earlier version, bad", `{"Shard":1,"Weights":{"Names":["a"],"Vals":[]}}`},
		{"trailing data", `{"Names":[]} {}`},
		{"negative shard", `{"Shard":-1}`},
		{"empty name", `{"Names":["a",""]}`},
		{"repeated name", `{"Names":["a","a"]}`},
		{"bad state", `{"State":"@@"}`},
	}
	for _, tc := range bad {
		if _, err := DecodeShardState([]byte(tc.json)); !errors.Is(err, ErrShardState) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// The shard file of earlier versions (the whole result, weights
	// included) reads as its state, so that their runs resume.
	old := `{"Shard":1,"Epoch":2,"Weights":{"Names":["a","b_1"],"Vals":[0.1,-1e-300]},"State":"c3RhdGUA","Updates":3,"TotalUpdates":9,"Sentences":60,"Stats":{"order":4,"matches":[3,2,1,0,0,0],"totals":[4,3,2,1,0,0],"ref_len":5}}`
	if got, err := DecodeShardState([]byte(old)); err != nil || !reflect.DeepEqual(got, r.ShardState()) {
		t.Errorf("earlier version's file: %+v, %v; want %+v", got, err, r.ShardState())
	}
	if _, err := ReadShardState(ctx, filepath.Join(e.State(), "missing.json")); err == nil {
		t.Error("reading a missing file: no error")
	}
}

func FuzzDecodeShardState(f *testing.F) {
	f.Add([]byte(`{"Shard":1,"Names":["a"],"State":"AAE="}`))
	f.Add([]byte(`{"Names":[]}`))
	f.Add([]byte(`{"Shard":1,`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := DecodeShardState(data)
		if err != nil {
			return
		}
		path := filepath.Join(t.TempDir(), "shard.json")
		if err := rundir.WriteJSON(context.Background(), path, st); err != nil {
			t.Fatalf("a state that decodes does not encode: %v", err)
		}
		back, err := ReadShardState(context.Background(), path)
		if err != nil || !reflect.DeepEqual(normal(back), normal(st)) {
			t.Fatalf("round trip: %+v, want %+v (%v)", back, st, err)
		}
	})
}

// normal makes nil and empty slices alike, as JSON does not tell them apart.
func normal(s ShardState) ShardState {
	if len(s.State) == 0 {
		s.State = nil
	}
	if len(s.Names) == 0 {
		s.Names = nil
	}
	return s
}

// TestReadEpoch writes an epoch's files by hand, as the pipeline of each
// mode writes them, and reads them back.
func TestReadEpoch(t *testing.T) {
	ctx := context.Background()
	tuneStats := okStats()
	devStats := metric.NewBLEUStats(4, []float64{4, 3, 2, 1}, []float64{4, 3, 2, 1}, 4)
	shardStats := []metric.Stats{okStats(), metric.NewBLEUStats(4, []float64{2, 1, 1, 1}, []float64{3, 2, 1, 1}, 2)}
	var prog metric.Stats
	for _, s := range shardStats {
		prog.Add(s)
	}
	mixed := weights.ByName{Names: []string{"LM0_0", "pp_a~b", "tm_0", "tm_1"}, Vals: []float64{0.5, 0.125, -0.25, 0}}
	stale := []StaleStats{{Histogram: []int{2, 1}, Recomputes: 1}, {Histogram: []int{1, 0, 1}}}
	bleu := func(s metric.Stats) *float64 { b := 100 * metric.BLEUStats(s).BLEU(); return &b }
	alpha := 0.375

	tests := []struct {
		name string
		o    EpochOutputs
		// lineSearch writes a line search's mix report, not averaging's.
		lineSearch bool
		// remove names a file to delete after writing the folder.
		remove  func(e rundir.EpochLayout) string
		want    rundir.Metrics
		wantErr bool
	}{
		{name: "ipm average", o: EpochOutputs{Shards: 2, EvalTune: true},
			want: rundir.Metrics{Epoch: 4, Metric: "BLEU", TuneScore: 100 * metric.BLEUStats(tuneStats).BLEU(), ProgressiveScore: 100 * metric.BLEUStats(prog).BLEU(), Updates: 3 + 4, Sentences: 10 + 11, NonZero: 3}},
		{name: "ipm linesearch with a dev set", o: EpochOutputs{Shards: 2, EvalTune: true, Dev: true}, lineSearch: true,
			want: rundir.Metrics{Epoch: 4, Metric: "BLEU", TuneScore: 100 * metric.BLEUStats(tuneStats).BLEU(), DevScore: bleu(devStats), Alpha: &alpha,
				ProgressiveScore: 100 * metric.BLEUStats(prog).BLEU(), Updates: 7, Sentences: 21, NonZero: 3}},
		{name: "stale", o: EpochOutputs{Shards: 2, EvalTune: true, Stale: true},
			want: rundir.Metrics{Epoch: 4, Metric: "BLEU", TuneScore: 100 * metric.BLEUStats(tuneStats).BLEU(), ProgressiveScore: 100 * metric.BLEUStats(prog).BLEU(), Updates: 7, Sentences: 21, NonZero: 3,
				Staleness: &rundir.Staleness{Histogram: map[string]int{"0": 3, "1": 1, "2": 1}, Max: 2, Mean: 0.6, Recomputes: 1}}},
		{name: "one shard of two", o: EpochOutputs{Shards: 1, EvalTune: true},
			want: rundir.Metrics{Epoch: 4, Metric: "BLEU", TuneScore: 100 * metric.BLEUStats(tuneStats).BLEU(), ProgressiveScore: 100 * metric.BLEUStats(shardStats[0]).BLEU(), Updates: 3, Sentences: 10, NonZero: 3}},
		// Without --eval-tune the tune BLEU is the progressive BLEU, and
		// work/tune-stats.json is not read.
		{name: "ipm, tune BLEU as decoded", o: EpochOutputs{Shards: 2, Dev: true}, remove: func(e rundir.EpochLayout) string { return e.TuneStats() },
			want: rundir.Metrics{Epoch: 4, Metric: "BLEU", TuneScore: 100 * metric.BLEUStats(prog).BLEU(), TuneDecoded: true, DevScore: bleu(devStats), ProgressiveScore: 100 * metric.BLEUStats(prog).BLEU(), Updates: 7, Sentences: 21, NonZero: 3}},
		{name: "missing shard file", o: EpochOutputs{Shards: 2}, remove: func(e rundir.EpochLayout) string { return e.ShardState(1) }, wantErr: true},
		{name: "missing shard summary", o: EpochOutputs{Shards: 2}, remove: func(e rundir.EpochLayout) string {
			return filepath.Join(e.State(), ShardSummaryName(0))
		}, wantErr: true},
		{name: "missing stale report", o: EpochOutputs{Shards: 2, Stale: true}, remove: func(e rundir.EpochLayout) string { return e.StaleReport(0) }, wantErr: true},
		{name: "missing dev stats", o: EpochOutputs{Shards: 2, Dev: true}, remove: func(e rundir.EpochLayout) string { return e.DevStats() }, wantErr: true},
		{name: "missing mix report", o: EpochOutputs{Shards: 2}, lineSearch: true, remove: func(e rundir.EpochLayout) string { return e.MixReport() }, wantErr: true},
		{name: "missing tune stats", o: EpochOutputs{Shards: 2, EvalTune: true}, remove: func(e rundir.EpochLayout) string { return e.TuneStats() }, wantErr: true},
		{name: "missing weights", o: EpochOutputs{Shards: 2}, remove: func(e rundir.EpochLayout) string { return e.JSON() }, wantErr: true},
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
			mr := MixReport{Mixer: "average"}
			if tc.lineSearch {
				mr = MixReport{Mixer: "linesearch", LineSearch: &LineSearchResult{Alpha: alpha, Stats: tuneStats, Lists: 3}}
			}
			must(rundir.WriteJSON(ctx, e.MixReport(), mr))
			must(weights.WriteTrioOf(ctx, e.Dir, mixed, []string{"LM0_0", "tm_0", "tm_1"}))
			for k, s := range shardStats {
				r := ShardResult{Shard: k, Epoch: 3, Updates: 3 + k, TotalUpdates: 10, Sentences: 10 + k, Stats: s, Weights: mixed}
				_, err := WriteShardState(ctx, e.State(), r)
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
				t.Errorf("weights %v, want %v", ww.Map(), mixed.Map())
			}
		})
	}
}

// TestKeepShardState: a shard that keeps its state writes the files
// WriteShardState writes, byte for byte, and emits its result without the
// state; with no folder the result goes on whole.
func TestKeepShardState(t *testing.T) {
	ctx := context.Background()
	r := sampleResult()
	written := rundir.Layout{Root: t.TempDir()}.Epoch(1)
	if _, err := WriteShardState(ctx, written.State(), r); err != nil {
		t.Fatal(err)
	}
	kept := rundir.Layout{Root: t.TempDir()}.Epoch(1)
	got, err := KeepShardState(ctx, kept.State(), r, false)
	if err != nil {
		t.Fatal(err)
	}
	want := r
	want.State = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("emitted %+v, want %+v", got, want)
	}
	for _, name := range []string{rundir.ShardStateName(r.Shard), ShardSummaryName(r.Shard)} {
		a, errA := os.ReadFile(filepath.Join(written.State(), name))
		b, errB := os.ReadFile(filepath.Join(kept.State(), name))
		if errA != nil || errB != nil || string(a) != string(b) {
			t.Errorf("%s: %q (%v), want WriteShardState's %q (%v)", name, b, errB, a, errA)
		}
	}
	if same, err := KeepShardState(ctx, "", r, false); err != nil || !reflect.DeepEqual(same, r) {
		t.Errorf("no folder: %+v, %v", same, err)
	}
	r.Weights = weights.ByName{Names: []string{"a", "z", "b_1"}, Vals: []float64{0.1, 0, -1e-300}}
	nz, err := KeepShardState(ctx, "", r, true)
	if want := (weights.ByName{Names: []string{"a", "b_1"}, Vals: []float64{0.1, -1e-300}}); err != nil || !reflect.DeepEqual(nz.Weights, want) || !reflect.DeepEqual(nz.State, r.State) {
		t.Errorf("non-zero weights: %+v, %v; want the state and the weights %v", nz, err, want)
	}
	bad := r
	bad.Shard = -1
	if _, err := KeepShardState(ctx, kept.State(), bad, false); err == nil {
		t.Error("an invalid result kept")
	}
}
