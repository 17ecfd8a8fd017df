package pipelines_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/pipelines"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// TestReplicas runs 3 replicas of line-search ipm with a dev set on prism,
// one epoch and then --resume to two: every epoch is one launch for all
// replicas; each replica's epochs (figures and weights, byte for byte)
// are those of a run of one replica with its seed, replica 0's those of
// the run's own seed; metrics.jsonl holds each replica's lines; best/ is
// the best replica's best epoch by dev BLEU, each replica's best/ its own;
// the report gives the mean ± sd.
func TestReplicas(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	dir := t.TempDir()
	const replicas, epochs = 3, 2
	o := options(d, filepath.Join(dir, "replicas"))
	o.DevSrc, o.DevRefs, o.Mix = d.devSrc, []string{d.devRef}, transforms.LineSearchMixer{}
	o.Replicas, o.Epochs = replicas, 1
	launches := countLaunches(&o)
	var progress bytes.Buffer
	o.Progress = &progress
	mustRun(t, ctx, o)
	o.Epochs, o.Resume = epochs, true
	res := mustRun(t, ctx, o)
	if *launches != 2*(1+1) {
		t.Errorf("%d launches for two model checks and %d epochs of %d replicas", *launches, epochs, replicas)
	}
	t.Logf("progress:\n%s", progress.String())
	if len(res.Epochs) != replicas*epochs {
		t.Fatalf("%d metrics, want %d epochs of %d replicas", len(res.Epochs), epochs, replicas)
	}
	run := rundir.Layout{Root: o.Out}
	ms, err := rundir.ReadReplicaMetrics(ctx, run.Metrics(), replicas)
	if err != nil {
		t.Fatal(err)
	}
	for r := range replicas {
		single := options(d, filepath.Join(dir, "single", string(rune('0'+r))))
		single.DevSrc, single.DevRefs, single.Mix = d.devSrc, []string{d.devRef}, transforms.LineSearchMixer{}
		single.Epochs, single.Seed = epochs, tune.ReplicaSeed(o.Seed, r)
		want := mustRun(t, ctx, single)
		got := rundir.OfReplica(ms, r)
		for n := 1; n <= epochs; n++ {
			g, w := got[n-1], want.Epochs[n-1]
			if g.Epoch != n || g.TuneScore != w.TuneScore || *g.DevScore != *w.DevScore || *g.Alpha != *w.Alpha || g.Updates != w.Updates || g.NonZero != w.NonZero {
				t.Errorf("replica %d epoch %d: %+v, the run of seed %d: %+v", r, n, g, single.Seed, w)
			}
			for _, name := range []string{"weights.json", "weights", "weights.sparse"} {
				a := readFile(t, filepath.Join(run.Replica(r, replicas).Epoch(n).Dir, name))
				b := readFile(t, filepath.Join(rundir.Layout{Root: single.Out}.Epoch(n).Dir, name))
				if !bytes.Equal(a, b) {
					t.Errorf("replica %d epoch %d: %s differs from the run of seed %d", r, n, name, single.Seed)
				}
			}
		}
		// Each replica's best/ is its own best epoch's.
		if a, b := readFile(t, run.Replica(r, replicas).Best().JSON()), readFile(t, rundir.Layout{Root: single.Out}.Best().JSON()); !bytes.Equal(a, b) {
			t.Errorf("replica %d's best weights differ from the run of seed %d's", r, single.Seed)
		}
		// The Beam metrics of the shared launch are on replica 0's lines.
		for _, m := range got {
			if (m.Counters != nil) != (r == 0) {
				t.Errorf("replica %d epoch %d: counters %v", r, m.Epoch, m.Counters)
			}
			if r == 0 && m.Counters["dev_sentences"] != int64(replicas*30) {
				t.Errorf("epoch %d: %d dev sentences decoded, want %d replicas' 30", m.Epoch, m.Counters["dev_sentences"], replicas)
			}
		}
	}
	// best/ holds the epoch of the best dev BLEU over every replica (the
	// earlier epoch, then the lower replica, on ties).
	bestR, bestN, bestDev := 0, 0, -1.0
	for _, m := range ms {
		if *m.DevScore > bestDev {
			bestR, bestN, bestDev = m.Replica, m.Epoch, *m.DevScore
		}
	}
	if res.BestReplica != bestR || res.Best != bestN {
		t.Errorf("best replica %d epoch %d, want replica %d epoch %d (dev BLEU %.2f)", res.BestReplica, res.Best, bestR, bestN, bestDev)
	}
	if !bytes.Equal(readFile(t, run.Best().JSON()), readFile(t, run.Replica(bestR, replicas).Epoch(bestN).JSON())) {
		t.Errorf("best/weights.json is not replica %d's epoch %d", bestR, bestN)
	}
	var man rundir.Manifest
	if err := rundir.ReadJSON(ctx, run.Manifest(), &man); err != nil {
		t.Fatal(err)
	}
	if man.Options.Replicas != replicas || len(man.ReplicaSeeds) != replicas || man.ReplicaSeeds[0] != o.Seed {
		t.Errorf("manifest: %d replicas, seeds %v", man.Options.Replicas, man.ReplicaSeeds)
	}
	if page := string(readFile(t, run.Report())); !strings.Contains(page, "mean ± sd <b>") || !strings.Contains(page, `id="replicas"`) {
		t.Error("the report has no table of the replicas and their mean ± sd")
	}
}

// TestReplicasStale: stale mode runs replicas too; with one gradient
// thread each replica is the ipm run of its seed (TestStaleOneThreadIsIPM).
func TestReplicasStale(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	dir := t.TempDir()
	o := options(d, filepath.Join(dir, "stale"))
	o.Mode, o.Stale.Threads, o.Algo, o.Epochs, o.Replicas = tune.Stale, 1, "oro", 1, 2
	launches := countLaunches(&o)
	mustRun(t, ctx, o)
	if *launches != 1+1 {
		t.Errorf("%d launches for a model check and one epoch of 2 replicas", *launches)
	}
	ipm := options(d, filepath.Join(dir, "ipm"))
	ipm.Algo, ipm.Epochs, ipm.Seed = "oro", 1, tune.ReplicaSeed(o.Seed, 1)
	mustRun(t, ctx, ipm)
	a := readFile(t, rundir.Layout{Root: o.Out}.Replica(1, 2).Epoch(1).JSON())
	if b := readFile(t, rundir.Layout{Root: ipm.Out}.Epoch(1).JSON()); !bytes.Equal(a, b) {
		t.Errorf("stale replica 1 differs from the ipm run of its seed:\n%s\n%s", a, b)
	}
	if _, err := os.Stat(rundir.Layout{Root: o.Out}.Replica(1, 2).Epoch(1).StaleReport(0)); err != nil {
		t.Errorf("replica 1 has no staleness report: %v", err)
	}
}

// TestReplicasRefused: --replicas below 1, or with batch mode, is refused
// before any file is written; so is resuming a run with another number of
// replicas.
func TestReplicasRefused(t *testing.T) {
	d := smallDemo(t)
	for _, tc := range []struct {
		name string
		edit func(*pipelines.Options)
		want string
	}{
		{"negative", func(o *pipelines.Options) { o.Replicas = -1 }, "invalid --replicas -1"},
		{"batch mode", func(o *pipelines.Options) { o.Mode, o.Replicas = tune.Batch, 2 }, "--replicas applies to --mode ipm and stale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := options(d, filepath.Join(t.TempDir(), "out"))
			tc.edit(&o)
			if err := o.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate: error %v, want one with %q", err, tc.want)
			}
			if _, err := pipelines.Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run: error %v, want one with %q", err, tc.want)
			}
			if _, err := os.Stat(o.Out); !os.IsNotExist(err) {
				t.Errorf("the refused run left %s (%v)", o.Out, err)
			}
		})
	}
	t.Run("resume with other replicas", func(t *testing.T) {
		_, o := oneEpoch(t, false)
		o.Epochs, o.Resume, o.Replicas = 2, true, 2
		if _, err := pipelines.Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "--replicas: 1 in the run, 2 now") {
			t.Fatalf("error %v", err)
		}
	})
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
