package rundir

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/mtune/mtune/testsupport/htmltest"
)

// TestReplicaSeed: replica 0 keeps the run's seed (a run of one replica is
// the run without replicas); the others get seeds distinct from it, from
// each other and from the epochs' shard seeds, stable across versions.
func TestLayoutReplica(t *testing.T) {
	l := Layout{Root: "gs://b/run"}
	if got := l.Replica(0, 1); got != l {
		t.Errorf("the only replica's layout is %q, want the run's", got.Root)
	}
	if got := l.Replica(0, 0); got != l {
		t.Errorf("replicas 0 (one) gives %q, want the run's", got.Root)
	}
	if got := l.Replica(2, 3).Epoch(4).ShardState(1); got != "gs://b/run/replicas/002/epochs/004/state/shard-001.json" {
		t.Errorf("replica 2's shard state: %q", got)
	}
	if got := l.Replica(0, 3).Best().JSON(); got != "gs://b/run/replicas/000/best/weights.json" {
		t.Errorf("replica 0's best: %q", got)
	}
	for _, bad := range [][2]int{{-1, 3}, {3, 3}, {1, 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Replica(%d, %d) does not panic", bad[0], bad[1])
				}
			}()
			l.Replica(bad[0], bad[1])
		}()
	}
}

func TestMeanSD(t *testing.T) {
	tests := []struct {
		xs       []float64
		mean, sd float64
	}{
		{[]float64{5}, 5, 0},
		{[]float64{1, 3}, 2, math.Sqrt2},
		// MultEval's s_sel is the sample standard deviation.
		{[]float64{24.1, 24.5, 24.3}, 24.3, 0.2},
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0 / 7)},
	}
	for _, tc := range tests {
		mean, sd := MeanSD(tc.xs)
		if math.Abs(mean-tc.mean) > 1e-12 || math.Abs(sd-tc.sd) > 1e-12 {
			t.Errorf("MeanSD(%v) = %v ± %v, want %v ± %v", tc.xs, mean, sd, tc.mean, tc.sd)
		}
	}
	if mean, sd := MeanSD(nil); !math.IsNaN(mean) || sd != 0 {
		t.Errorf("MeanSD(nil) = %v ± %v", mean, sd)
	}
}

// replicaMetrics returns the metrics of a run whose replica r has dev BLEU
// dev[r][n-1] in epoch n, epoch by epoch.
func replicaMetrics(dev [][]float64) []Metrics {
	var ms []Metrics
	for n := range dev[0] {
		for r := range dev {
			d := dev[r][n]
			ms = append(ms, Metrics{Epoch: n + 1, Replica: r, TuneScore: 10 * float64(n+1), DevScore: &d})
		}
	}
	return ms
}

func TestBestReplica(t *testing.T) {
	tests := []struct {
		name           string
		dev            [][]float64
		replica, epoch int
	}{
		{"one replica is BestEpoch", [][]float64{{20, 25, 25}}, 0, 2},
		{"a later replica", [][]float64{{20, 22}, {21, 24}, {23, 19}}, 1, 2},
		{"ties: the earlier epoch", [][]float64{{20, 25}, {25, 21}}, 1, 1},
		{"ties in an epoch: the lower replica", [][]float64{{20, 25}, {21, 25}}, 0, 2},
		{"NaN never wins", [][]float64{{math.NaN(), 3}, {math.NaN(), 2}}, 0, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms := replicaMetrics(tc.dev)
			r, e := BestReplica(ms)
			if r != tc.replica || e != tc.epoch {
				t.Errorf("best replica %d epoch %d, want replica %d epoch %d", r, e, tc.replica, tc.epoch)
			}
			// The order of the lines does not matter.
			rev := make([]Metrics, len(ms))
			for i, m := range ms {
				rev[len(ms)-1-i] = m
			}
			if r2, e2 := BestReplica(rev); r2 != r || e2 != e {
				t.Errorf("reversed: replica %d epoch %d", r2, e2)
			}
			if len(tc.dev) == 1 && e != BestEpoch(ms) {
				t.Errorf("one replica: epoch %d, BestEpoch %d", e, BestEpoch(ms))
			}
		})
	}
	if r, e := BestReplica(nil); r != 0 || e != 0 {
		t.Errorf("no epochs: replica %d epoch %d", r, e)
	}
}

// fakeReplicas is a ReplicasEpocher whose replica r's epoch n writes a
// trio naming both ("replicaR N") and scores dev[r][n-1].
// TestDriverReplicas: with 3 replicas the loop writes every replica's line
// an epoch to metrics.jsonl, each replica's best epoch to its best/, the
// best replica's to the run's best/, and a resumed run redoes an epoch
// that not every replica completed.
// TestCompleteReplicasMismatch: a marker of another replica is an error.
func TestCompleteReplicasMismatch(t *testing.T) {
	ctx := context.Background()
	dir := Layout{Root: t.TempDir()}
	if err := WriteJSON(ctx, dir.Replica(1, 2).Epoch(1).Complete(), Metrics{Epoch: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := CompleteReplicas(ctx, dir, 2); err == nil || !strings.Contains(err.Error(), "replica 0, want 1") {
		t.Errorf("error %v", err)
	}
}

// TestReportReplicas: a run of replicas' report shows each replica's curve
// and their mean, a table of each epoch's mean ± sd, each replica's best
// epoch with their mean ± sd, and marks the best replica's best epoch.
func TestReportReplicas(t *testing.T) {
	for _, dev := range []bool{true, false} {
		t.Run(fmt.Sprintf("dev %v", dev), func(t *testing.T) {
			man := Manifest{Status: "done", Seed: 7, ReplicaSeeds: []uint64{7, 11, 13},
				Options: ManifestFlags{Mode: "ipm", Mix: "average", Algo: "adagrad", Epochs: 2, Replicas: 3}}
			ms := replicaMetrics([][]float64{{20, 21}, {22, 26}, {19, 20}})
			if !dev {
				for i := range ms {
					ms[i].DevScore, ms[i].TuneScore = nil, *ms[i].DevScore
				}
			}
			page := reportPage(t, man, ms)
			doc, err := html.Parse(strings.NewReader(page))
			if err != nil {
				t.Fatal(err)
			}
			series := htmltest.Series(t, htmltest.Elements(doc, "svg")[0])
			checkCurve(t, series["replica 1"], []float64{22, 26})
			checkCurve(t, series["replica 2"], []float64{19, 20})
			checkCurve(t, series["mean"], []float64{61.0 / 3, 67.0 / 3})
			for _, want := range []string{
				"best: replica 1, epoch 2",
				"<th>replica 2 (seed 13)</th>",
				"<td>20.33 ± 1.53</td>", "<td>22.33 ± 3.21</td>",
				`<td class="best">26.00</td>`,
				"replica 0 epoch 2 (21.00), replica 1 epoch 2 (26.00), replica 2 epoch 2 (20.00); mean ± sd <b>22.33 ± 3.21</b>",
			} {
				if !strings.Contains(page, want) {
					t.Errorf("report lacks %q", want)
				}
			}
			if noDev := strings.Contains(page, "ranked by their tune BLEU"); noDev == dev {
				t.Errorf("says the replicas are ranked by tune BLEU: %v, with a dev set: %v", noDev, dev)
			}
			if n := strings.Count(page, `class="best"`); n != 2 {
				t.Errorf("%d best cells and rows, want the replica table's and the metrics table's", n)
			}
		})
	}
}

// TestReportReplicasFailed: a run of replicas that failed before its
// first epoch has a report that says so, without figures.
func TestReportReplicasFailed(t *testing.T) {
	man := Manifest{Status: "failed", Error: "the model did not load", Options: ManifestFlags{Mode: "ipm", Replicas: 2}}
	if page := reportPage(t, man, nil); !strings.Contains(page, "the model did not load") || strings.Contains(page, "NaN") || strings.Contains(page, `id="replicas"`) {
		t.Errorf("report of a failed run:\n%s", page)
	}
}

// reportPage writes a run folder of manifest man and metrics ms (no
// metrics.jsonl if nil) and returns the report Report.Write draws of it.
func reportPage(t *testing.T, man Manifest, ms []Metrics) string {
	t.Helper()
	ctx := context.Background()
	dir := Layout{Root: t.TempDir()}
	if err := WriteJSON(ctx, dir.Manifest(), man); err != nil {
		t.Fatal(err)
	}
	if ms != nil {
		if err := WriteMetrics(ctx, dir.Metrics(), ms); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeReport(ctx, dir.Root); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dir.Report())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseReplicaMetrics(t *testing.T) {
	tests := []struct {
		name, data, err string
	}{
		{"in order", "{\"epoch\":1}\n{\"epoch\":1,\"replica\":1}\n\n{\"epoch\":2}\n{\"epoch\":2,\"replica\":1}\n", ""},
		{"replicas swapped", "{\"epoch\":1,\"replica\":1}\n{\"epoch\":1}\n", "metrics.jsonl:1: epoch 1 replica 1, want epoch 1 replica 0"},
		{"a replica missing", "{\"epoch\":1}\n{\"epoch\":2}\n", "metrics.jsonl:2: epoch 2 replica 0, want epoch 1 replica 1"},
		{"an epoch cut short", "{\"epoch\":1}\n{\"epoch\":1,\"replica\":1}\n{\"epoch\":2}\n", "epoch 2 has 1 of 2 replicas' lines"},
		{"empty", "\n", "no epochs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := parseReplicaMetrics("metrics.jsonl", []byte(tc.data), 2)
			switch {
			case tc.err == "" && (err != nil || len(ms) != 4):
				t.Errorf("%d lines, %v", len(ms), err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}
