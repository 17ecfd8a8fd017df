package tune

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDistributionMerge(t *testing.T) {
	a := Distribution{Count: 2, Sum: 30, Min: 10, Max: 20}
	b := Distribution{Count: 1, Sum: 5, Min: 5, Max: 5}
	if got, want := a.Merge(b), (Distribution{Count: 3, Sum: 35, Min: 5, Max: 20}); got != want {
		t.Errorf("merge %+v, want %+v", got, want)
	}
	// An empty distribution's zero Min does not win.
	if got := a.Merge(Distribution{}); got != a {
		t.Errorf("merge with none %+v, want %+v", got, a)
	}
	if got := (Distribution{}).Merge(b); got != b {
		t.Errorf("none merged with %+v: %+v", b, got)
	}
}

func TestWorkAdd(t *testing.T) {
	w := Work{Sentences: 2, Hypotheses: 20, Updates: 1, Pairs: 30, Decode: time.Second, Learn: time.Millisecond, Staleness: StaleStats{Histogram: []int{1}}}
	w.Add(Work{Sentences: 3, Hypotheses: 30, Updates: 2, Pairs: 45, Decode: 2 * time.Second, Learn: time.Millisecond, Staleness: StaleStats{Histogram: []int{1, 1}, Recomputes: 1}})
	want := Work{Sentences: 5, Hypotheses: 50, Updates: 3, Pairs: 75, Decode: 3 * time.Second, Learn: 2 * time.Millisecond, Staleness: StaleStats{Histogram: []int{2, 1}, Recomputes: 1}}
	if !reflect.DeepEqual(w, want) {
		t.Errorf("sum %+v, want %+v", w, want)
	}
}

// TestManifestDiffEvalTune: --eval-tune changes what chooses the best epoch
// without a dev set, so a resume names it.
func TestManifestDiffEvalTune(t *testing.T) {
	d := ManifestFlags{Mode: "ipm", EvalTune: true}.Diff(ManifestFlags{Mode: "ipm"})
	if len(d) != 1 || !strings.Contains(d[0], "--eval-tune: true in the run, false now") {
		t.Errorf("diff %q", d)
	}
}

// TestManifestDiffNoise: a changed noise type or number of unlabelled
// pairs (and the other later flags: search, mix weights, decoder, …) is
// named; dropout given or left out is the same.
func TestManifestDiffNoise(t *testing.T) {
	base := ManifestFlags{Mode: "ipm", Noise: 0.1}
	for _, tc := range []struct {
		now  ManifestFlags
		want string
	}{
		{ManifestFlags{Mode: "ipm", Noise: 0.1, NoiseType: "gaussian"}, "--noise-type: dropout in the run, gaussian now"},
		{ManifestFlags{Mode: "ipm", Noise: 0.1, NoiseUnlabeled: 15}, "--noise-unlabeled: 0 in the run, 15 now"},
		{ManifestFlags{Mode: "ipm", Noise: 0.1, Search: "cube"}, "--search-algorithm: the moses.ini's in the run, cube now"},
		{ManifestFlags{Mode: "ipm", Noise: 0.1, MixWeights: "uniform"}, "--mix-weights: updates in the run, uniform now"},
		{ManifestFlags{Mode: "ipm", Noise: 0.1, Decoder: "moses -v 0"}, "--decoder: in process in the run, moses -v 0 now"},
		{ManifestFlags{Mode: "ipm", Noise: 0.1, RestartRange: &[2]float64{-1, 1}}, "--restart-range: the default in the run, -1,1 now"},
		{ManifestFlags{Mode: "ipm", Noise: 0.1, MIRAC: 0.1}, "--mira-c: 0 in the run, 0.1 now"},
	} {
		if d := base.Diff(tc.now); len(d) != 1 || d[0] != tc.want {
			t.Errorf("diff %q, want %q", d, tc.want)
		}
	}
}
