package metric

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
)

// TestStatsJSON: Stats are written as the array of their statistics, and
// read back from it or from the object form earlier runs wrote (the demo's
// init/dev-stats.json at 2f5814a, below, and the new form of the same
// figures): both give the same BLEU-4 statistics.
func TestStatsJSON(t *testing.T) {
	const legacy = `{"order":4,"matches":[3189,2123,1343,746,0,0],"totals":[3196,2896,2596,2296,0,0],"ref_len":3196}`
	const current = `[3189,3196,2123,2896,1343,2596,746,2296,3196]`
	want := NewBLEUStats(4, []float64{3189, 2123, 1343, 746}, []float64{3196, 2896, 2596, 2296}, 3196)
	for _, in := range []string{legacy, current} {
		var s Stats
		if err := json.Unmarshal([]byte(in), &s); err != nil || s != want {
			t.Errorf("read %s: %v, %v; want %v", in, s, err, want)
		}
	}
	if b, err := json.Marshal(want); err != nil || string(b) != current {
		t.Errorf("write: %s, %v; want %s", b, err, current)
	}
	for _, tc := range []struct{ name, in string }{
		{"legacy order 7", `{"order":7,"matches":[1,1,1,1,1,1],"totals":[1,1,1,1,1,1],"ref_len":1}`},
		{"legacy without counts", `{"order":4,"ref_len":3}`},
		{"too many statistics", `[` + repeat("1,", MaxStats) + `1]`},
		{"not numbers", `["a"]`},
	} {
		var s Stats
		if err := json.Unmarshal([]byte(tc.in), &s); !errors.Is(err, ErrStats) {
			t.Errorf("%s: %v, want ErrStats", tc.name, err)
		}
	}
	var zero Stats
	if err := json.Unmarshal([]byte(`{}`), &zero); err != nil || zero != (Stats{}) {
		t.Errorf("{}: %v, %v", zero, err)
	}
	if _, err := json.Marshal(StatsOf(1, math.NaN())); err == nil {
		t.Error("NaN statistics written")
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}
