package rundir

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mtune/mtune/internal/option"
)

// TestSameRun: a run resumes with its starting weights and inputs at other
// paths (a registry moved with its runs) if their content is the same.
func TestSameRun(t *testing.T) {
	in := func(init, sha string) Manifest {
		m := Manifest{Init: init, Inputs: []InputFile{{Role: "src", Path: "/d/tune.src", SHA256: "aa"}}}
		if init != "" {
			m.Inputs = append(m.Inputs, InputFile{Role: "init", Path: init, SHA256: sha})
		}
		return m
	}
	tests := []struct {
		name      string
		prev, cur Manifest
		wantErr   string // "" for none
	}{
		{"same", in("/r1/runs/a/best/weights.json", "01"), in("/r1/runs/a/best/weights.json", "01"), ""},
		{"moved, same content", in("/r1/runs/a/best/weights.json", "01"), in("/r2/runs/a/best/weights.json", "01"), ""},
		{"moved, other content", in("/r1/runs/a/best/weights.json", "01"), in("/r2/runs/a/best/weights.json", "02"), "input init: /r1/runs/a/best/weights.json had sha256 01"},
		{"init, none now", in("/r1/w.json", "01"), in("", ""), `--init: "/r1/w.json" in the run, "" now`},
		{"none, init now", in("", ""), in("/r1/w.json", "01"), `--init: "" in the run, "/r1/w.json" now`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := SameRun("out", tc.prev, tc.cur)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one with %q", err, tc.wantErr)
			}
		})
	}
}

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

// testShardOptions declares an option as pipelines.ShardOptions does, so
// that rundir's own tests see a declared option in the settings, the
// diffs and the report (pipelines, which declares the real ones, is not
// linked here).
type testShardOptions struct {
	EvalTune bool `option:"eval-tune" modes:"ipm,stale" help:"decode the tuning set again"`
}

func init() { option.Declare(testShardOptions{}) }

// TestManifestDiffEvalTune: --eval-tune changes what chooses the best epoch
// without a dev set, so a resume names it; a declared option reads from
// and writes to the manifest's JSON beside the fields of its own, and
// batch mode, which does not use it, shows no row of it.
func TestManifestDiffEvalTune(t *testing.T) {
	run := ManifestFlags{Mode: "ipm", Method: option.Record(&testShardOptions{EvalTune: true})}
	d := run.Diff(ManifestFlags{Mode: "ipm"})
	if len(d) != 1 || !strings.Contains(d[0], "--eval-tune: true in the run, false now") {
		t.Errorf("diff %q", d)
	}
	b, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"Mode":"ipm"`) || !strings.HasSuffix(string(b), `,"EvalTune":true}`) {
		t.Errorf("JSON %s", b)
	}
	var back ManifestFlags
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if d := back.Diff(run); len(d) != 0 || string(back.Method["EvalTune"]) != "true" {
		t.Errorf("read back: %+v, diff %q", back, d)
	}
	for _, s := range (ManifestFlags{Mode: "batch"}).Settings() {
		if s.Flag == "eval-tune" {
			t.Errorf("batch mode shows %v", s)
		}
	}
	if b, _ := json.Marshal(ManifestFlags{}); bytes.Contains(b, []byte("EvalTune")) {
		t.Errorf("an option at its zero value is written: %s", b)
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
		{ManifestFlags{Mode: "ipm", Noise: 0.1, Decoder: "moses -v 0"}, "--decoder: in process in the run, moses -v 0 now"},
		{ManifestFlags{Mode: "ipm", Noise: 0.1, RestartRange: &[2]float64{-1, 1}}, "--restart-range: the default in the run, -1,1 now"},
		{ManifestFlags{Mode: "ipm", Noise: 0.1, MIRAC: 0.1}, "--mira-c: 0 in the run, 0.1 now"},
	} {
		if d := base.Diff(tc.now); len(d) != 1 || d[0] != tc.want {
			t.Errorf("diff %q, want %q", d, tc.want)
		}
	}
}

// TestManifestDiffMetric: --resume with another metric than the run's is
// a difference --resume refuses; a manifest written before the metric was
// recorded ("") is BLEU's.
func TestManifestDiffMetric(t *testing.T) {
	d := ManifestFlags{Mode: "ipm", Metric: "chrF2"}.Diff(ManifestFlags{Mode: "ipm"})
	if len(d) != 1 || d[0] != "--metric: chrF2 in the run, BLEU now" {
		t.Errorf("diff %q", d)
	}
	if d := (ManifestFlags{Mode: "ipm"}).Diff(ManifestFlags{Mode: "ipm", Metric: ""}); len(d) != 0 {
		t.Errorf("an old manifest against a BLEU run: diff %q", d)
	}
}

// TestManifestMetricSpec checks that a metric's options are recorded
// only when set, and that --resume compares them: an old manifest (no
// spec) is a run under the metric's defaults.
func TestManifestMetricSpec(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"bleu", ""}, {"ter", ""}, {"bleu:0.5,ter:0.5", ""},
		{"ter:case=true", "ter:case=true"}, {"bleu:tokenize=13a:0.5,ter:0.5", "bleu:tokenize=13a:0.5,ter:0.5"},
	} {
		var f ManifestFlags
		f.MetricSpec = "stale"
		if f.SetMetricSpec(tc.spec); f.MetricSpec != tc.want {
			t.Errorf("SetMetricSpec(%q): %q, want %q", tc.spec, f.MetricSpec, tc.want)
		}
	}
	run := ManifestFlags{Mode: "ipm", Metric: "TER", MetricSpec: "ter:case=true"}
	d := run.Diff(ManifestFlags{Mode: "ipm", Metric: "TER"})
	if len(d) != 1 || d[0] != "--metric: ter:case=true in the run, TER now" {
		t.Errorf("diff %q", d)
	}
	if d := run.Diff(run); len(d) != 0 {
		t.Errorf("same spec: diff %q", d)
	}
	if d := (ManifestFlags{Mode: "ipm", Metric: "TER"}).Diff(ManifestFlags{Mode: "ipm", Metric: "TER", MetricSpec: ""}); len(d) != 0 {
		t.Errorf("an old manifest against a run under the defaults: diff %q", d)
	}
}
