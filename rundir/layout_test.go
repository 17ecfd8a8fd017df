package rundir

import "testing"

// TestLayout pins every path of the run folder (DESIGN.md §6): other
// programs (and earlier runs, on --resume) read them by name.
func TestLayout(t *testing.T) {
	for _, root := range []string{"/runs/a", "gs://b/runs/a"} {
		l := Layout{Root: root}
		e := l.Epoch(7)
		cases := []struct{ name, got, want string }{
			{"manifest", l.Manifest(), "/manifest.json"},
			{"metrics", l.Metrics(), "/metrics.jsonl"},
			{"report", l.Report(), "/report.html"},
			{"log", l.Log(), "/run.log"},
			{"lease", l.LeaseFile(), "/lease"},
			{"init", l.Init(), "/init/weights.json"},
			{"demo model", l.DemoModel(), "/demo-model"},
			{"best dir", l.Best().Dir, "/best"},
			{"best weights", l.Best().Moses(), "/best/weights"},
			{"best sparse", l.Best().Sparse(), "/best/weights.sparse"},
			{"best json", l.Best().JSON(), "/best/weights.json"},
			{"best epoch", l.Best().Epoch(), "/best/epoch.json"},
			{"epoch dir", e.Dir, "/epochs/007"},
			{"epoch weights", e.Moses(), "/epochs/007/weights"},
			{"epoch sparse", e.Sparse(), "/epochs/007/weights.sparse"},
			{"epoch json", e.JSON(), "/epochs/007/weights.json"},
			{"state", e.State(), "/epochs/007/state"},
			{"shard state", e.ShardState(2), "/epochs/007/state/shard-002.json"},
			{"learner state", e.LearnerState(), "/epochs/007/state/learner.bin"},
			{"pool part n-best list", e.PoolPart(3).NBest, "/epochs/007/pool/part-00003.nbest.gz"},
			{"pool part statistics", e.PoolPart(3).Scores, "/epochs/007/pool/part-00003.scores.gz"},
			{"pool summary", e.PoolSummary(), "/epochs/007/work/pool.json"},
			{"batch result", e.BatchResult(), "/epochs/007/work/batch.json"},
			{"MERT round", e.MERTRound(12), "/epochs/007/work/mert-round-012.json"},
			{"complete", e.Complete(), "/epochs/007/complete"},
			{"work", e.Work(), "/epochs/007/work"},
			{"tune stats", e.TuneStats(), "/epochs/007/work/tune-stats.json"},
			{"dev stats", e.DevStats(), "/epochs/007/work/dev-stats.json"},
			{"mix report", e.MixReport(), "/epochs/007/work/mix.json"},
			{"stale report", e.StaleReport(3), "/epochs/007/work/stale-00003.json"},
		}
		for _, c := range cases {
			if c.got != root+c.want {
				t.Errorf("%s of %s: %q, want %q", c.name, root, c.got, root+c.want)
			}
		}
		if e.N != 7 || l.Epoch(1000).Dir != root+"/epochs/1000" {
			t.Errorf("epoch numbering: %d, %q", e.N, l.Epoch(1000).Dir)
		}
	}
}
