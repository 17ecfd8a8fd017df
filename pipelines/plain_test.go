package pipelines_test

import (
	"context"
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/option"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/mix"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pipelines"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// TestFirstEpochByHand compares epoch 1's averaged weights with the plain
// functions: each shard's LearnShard with the real decoder, then
// mix.Average weighted by updates, or uniform with MixWeights tune.Uniform.
func TestFirstEpochByHand(t *testing.T) {
	for _, mw := range []tune.MixWeights{tune.ByUpdates, tune.Uniform} {
		t.Run("mix weights "+mw.String(), func(t *testing.T) { firstEpochByHand(t, mw) })
	}
}

func firstEpochByHand(t *testing.T, mixWeights tune.MixWeights) {
	d := smallDemo(t)
	ctx := context.Background()
	o := options(d, t.TempDir())
	o.Epochs = 1
	o.Algo = "sgd"
	o.Shards, o.AlgoConfig.MiniBatch = 3, 4 // shards of unequal size make unequal updates
	o.MixWeights = mixWeights
	mustRun(t, ctx, o)
	got, err := weights.ReadByName(ctx, rundir.Layout{Root: o.Out}.Epoch(1).JSON())
	if err != nil {
		t.Fatal(err)
	}

	dec := openDecoder(t, d.ini)
	set := loadSet(t, d.tuneSrc, d.tuneRef)
	init, err := weights.ReadByName(ctx, d.ini)
	if err != nil {
		t.Fatal(err)
	}
	seed := tune.EpochSeed(o.Seed, 0)
	idx := feature.NewIndexOf(init.Names...)
	var shards []mix.Shard
	for k := 0; k < o.Shards; k++ {
		var mine []tune.Sentence
		for _, x := range set {
			if tune.ShardOf(x.ID, seed, o.Shards) == k {
				mine = append(mine, x)
			}
		}
		r, _, err := tune.LearnShard(ctx, dec, k, mine, init, nil, tune.LearnOptions{
			Algo: o.Algo, Config: o.AlgoConfig, Decode: tune.DecodeOptions{NBest: o.NBest}, Seed: o.Seed}, nil)
		if err != nil {
			t.Fatal(err)
		}
		w, err := r.Weights.Over(idx)
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, mix.Shard{Weights: w, Updates: r.Updates})
	}
	want := weights.NewByName(idx, mix.Average(shards, mixWeights != tune.Uniform)).Map()
	if other := weights.NewByName(idx, mix.Average(shards, mixWeights == tune.Uniform)).Map(); maps.Equal(other, want) {
		t.Fatalf("the shards' updates (%d, %d) do not tell the weightings apart", shards[0].Updates, shards[1].Updates)
	}
	gotMap := got.Map()
	for name, v := range want {
		if math.Abs(gotMap[name]-v) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, gotMap[name], v)
		}
	}
	for name, v := range gotMap {
		if _, ok := want[name]; !ok && v != 0 {
			t.Errorf("%s = %v, not in the hand-made average", name, v)
		}
	}
}

// TestLineSearchDev runs two epochs of mira with line-search mixing and a
// dev set: every metrics line has α and a dev BLEU, best/ holds the
// epoch with the best dev BLEU, and no epoch keeps the list files its
// line search read (work/lists/).
func TestLineSearchDev(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	o := options(d, t.TempDir())
	o.Epochs, o.Mix, o.Algo = 2, transforms.LineSearchMixer{}, "mira"
	o.DevSrc, o.DevRefs = d.devSrc, []string{d.devRef}
	res := mustRun(t, ctx, o)
	bestDev, best := -1.0, 0
	for _, m := range res.Epochs {
		if m.Alpha == nil || m.DevScore == nil {
			t.Fatalf("epoch %d: no α or dev BLEU: %+v", m.Epoch, m)
		}
		t.Logf("epoch %d: α %.3f tune BLEU %.2f dev BLEU %.2f", m.Epoch, *m.Alpha, m.TuneScore, *m.DevScore)
		if *m.DevScore > bestDev {
			bestDev, best = *m.DevScore, m.Epoch
		}
	}
	if res.Best != best {
		t.Errorf("best epoch %d, want %d", res.Best, best)
	}
	a, err := os.ReadFile(filepath.Join(o.Out, "best", "weights.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(rundir.Layout{Root: o.Out}.Epoch(best).JSON())
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Errorf("best/weights.json is not epoch %d's", best)
	}
	for e := 1; e <= o.Epochs; e++ {
		if _, err := os.Stat(rundir.Layout{Root: o.Out}.Epoch(e).Lists()); !os.IsNotExist(err) {
			t.Errorf("epoch %d's work/lists/ is still there (%v)", e, err)
		}
	}
}

// TestOptionErrors checks that bad options stop Run before it writes
// anything.
func TestOptionErrors(t *testing.T) {
	d := smallDemo(t)
	for _, tc := range []struct {
		name string
		edit func(*pipelines.Options)
		want string
	}{
		{"negative max staleness", func(o *pipelines.Options) { o.Mode, o.Stale.MaxStaleness = tune.Stale, -1 }, "max-staleness"},
		{"stale with a batch learner", func(o *pipelines.Options) { o.Mode, o.Algo = tune.Stale, "mert" }, "batch learner"},
		{"batch learner", func(o *pipelines.Options) { o.Algo = "pro" }, "batch learner"},
		{"dev without refs", func(o *pipelines.Options) { o.DevSrc = d.devSrc }, "dev"},
		{"reference count", func(o *pipelines.Options) { o.Refs = []string{d.devRef} }, "line counts differ"},
		{"missing init", func(o *pipelines.Options) { o.Init = filepath.Join(o.Out, "none") }, "none"},
		{"batch mode evaluating the tuning set", func(o *pipelines.Options) { o.Mode, o.EvalTune = tune.Batch, true }, "--eval-tune applies to --mode ipm and stale, not batch"},
		{"stale threads in ipm mode", func(o *pipelines.Options) { o.Stale.Threads = 3 }, "--threads applies to --mode stale, not ipm"},
		{"keep-scale in ipm mode", func(o *pipelines.Options) { o.KeepScale = true }, "--keep-scale applies to --mode batch, not ipm"},
		{"negative decode threads", func(o *pipelines.Options) { o.DecodeThreads = -2 }, "--decode-threads -2: must be positive"},
		{"feature command in ipm mode", func(o *pipelines.Options) {
			o.FeatureCommands = []tune.FeatureCommand{{Name: "rev", Command: "awk 1"}}
		}, "--feature-command applies to --mode batch"},
		{"two feature commands of one name", func(o *pipelines.Options) {
			o.Mode, o.FeatureCommands = tune.Batch, []tune.FeatureCommand{{Name: "rev", Command: "awk 1"}, {Name: "rev", Command: "awk 2"}}
		}, "two commands for the feature rev"},
		{"feature command not found", func(o *pipelines.Options) {
			o.Mode, o.FeatureCommands = tune.Batch, []tune.FeatureCommand{{Name: "rev", Command: "mtune-no-such-scorer --n-best"}}
		}, "--feature-command rev=mtune-no-such-scorer --n-best: exec: \"mtune-no-such-scorer\": executable file not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := options(d, filepath.Join(t.TempDir(), "out"))
			tc.edit(&o)
			_, err := pipelines.Run(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(o.Out, "epochs")); err == nil {
				t.Error("an epoch started")
			}
		})
	}
}

// TestDeclaredOptions: every option declared once (internal/option) names
// modes that --mode parses, and no two declare one flag (Declare panics
// at init otherwise).
func TestDeclaredOptions(t *testing.T) {
	var o pipelines.Options
	if len(option.Declared()) != len(o.Methods()) {
		t.Errorf("%d declared structs, %d in Options.Methods", len(option.Declared()), len(o.Methods()))
	}
	for _, d := range option.Declared() {
		for _, f := range option.Fields(d) {
			for _, m := range f.Modes {
				var mode tune.Mode
				if err := mode.UnmarshalText([]byte(m)); err != nil || mode.String() != m {
					t.Errorf("--%s: mode %q: %v", f.Flag, m, err)
				}
			}
		}
	}
}

// TestDefaultLearner: a run that names no learner gets its mode's
// default, resolved by Validate alone (tune's --algo defaults to none).
func TestDefaultLearner(t *testing.T) {
	d := smallDemo(t)
	for _, mode := range []tune.Mode{tune.IPM, tune.Stale, tune.Batch} {
		o := options(d, t.TempDir())
		o.Mode = mode
		if mode == tune.Batch {
			o.Shards = 0
		}
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		if want := map[tune.Mode]string{tune.IPM: "adagrad", tune.Stale: "adagrad", tune.Batch: "mert"}[mode]; o.Algo != want {
			t.Errorf("--mode %s: learner %q, want %q", mode, o.Algo, want)
		}
	}
}

// TestMixWeightsManifest: --mix-weights, declared in ShardOptions, reads
// from a manifest written before the declaration ("MixWeights":"uniform")
// and --resume names a change of it.
func TestMixWeightsManifest(t *testing.T) {
	var prev rundir.ManifestFlags
	if err := json.Unmarshal([]byte(`{"Mode":"ipm","Mix":"average","Shards":2,"MixWeights":"uniform"}`), &prev); err != nil {
		t.Fatal(err)
	}
	cur := prev
	cur.Method = option.Record(&pipelines.ShardOptions{Shards: 2})
	if d := prev.Diff(cur); len(d) != 1 || d[0] != "--mix-weights: uniform in the run, updates now" {
		t.Errorf("diff %q", d)
	}
	cur.Method = option.Record(&pipelines.ShardOptions{Shards: 2, MixWeights: tune.Uniform})
	if d := prev.Diff(cur); len(d) != 0 {
		t.Errorf("same options: diff %q", d)
	}
}

// TestBatchMERT runs two epochs of --mode batch with MERT, and the same
// as one epoch plus a resumed one: the pool grows, MERT's weights beat the
// default weights on the pooled lists, its passes run as rounds of their
// own launches over the pool's parts, and the resumed weights are
// identical.
func TestBatchMERT(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	o, res, launches := runBatch(t, "mert", filepath.Join(dir, "full"))
	want := 1 // the model check
	for _, m := range res.Epochs {
		t.Logf("epoch %d: decoded BLEU %.2f, pool %d, MERT's tune BLEU on the pool %.2f in %d rounds", m.Epoch, m.ProgressiveScore, m.Pool, m.TuneScore, m.MERTRounds)
		if m.MERTRounds < 2 {
			t.Errorf("epoch %d: %d MERT rounds", m.Epoch, m.MERTRounds)
		}
		want += 1 + m.MERTRounds
	}
	if *launches != want {
		t.Errorf("%d launches, want %d: a model check, and a decoding launch and one a MERT round each epoch", *launches, want)
	}
	e1, e2 := res.Epochs[0], res.Epochs[1]
	if e2.Pool <= e1.Pool || e1.TuneScore <= e1.ProgressiveScore || e2.ProgressiveScore <= e1.ProgressiveScore {
		t.Errorf("epoch 1 %+v, epoch 2 %+v", e1, e2)
	}

	checkResumed(t, ctx, o, filepath.Join(dir, "resumed"))
}

// TestBatchPRO runs two epochs of --mode batch with PRO: the pairs are
// sampled where each part of the pool is written and fitted on one worker,
// and the pool re-ranked for the tune BLEU, all in the epoch's one launch;
// the tune BLEU is the pool's 1-best BLEU under the epoch's weights as read
// back here from the parts; a resumed run gives the same weights. With a
// dev set that launch decodes the dev set too: the epochs' tune BLEU is
// unchanged and their dev BLEU is the dev set's decoded with their
// weights.
func TestBatchPRO(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	o, res, launches := runBatch(t, "pro", filepath.Join(dir, "full"))
	if *launches != 1+2 {
		t.Errorf("%d launches, want a model check and one an epoch", *launches)
	}
	l := rundir.Layout{Root: o.Out}
	for _, m := range res.Epochs {
		e := l.Epoch(m.Epoch)
		w, err := weights.ReadByName(ctx, e.JSON())
		if err != nil {
			t.Fatal(err)
		}
		var sum metric.Stats
		for p := range tune.PoolParts(m.Sentences) {
			st, err := tune.PartOneBest(ctx, e.PoolPart(p), w)
			if err != nil {
				t.Fatal(err)
			}
			sum.Add(st)
		}
		t.Logf("epoch %d: decoded BLEU %.2f, pool %d, PRO's tune BLEU on the pool %.2f", m.Epoch, m.ProgressiveScore, m.Pool, m.TuneScore)
		if want := 100 * metric.BLEUStats(sum).BLEU(); math.Abs(m.TuneScore-want) > 1e-9 {
			t.Errorf("epoch %d: tune BLEU %v, the pool re-ranked with its weights %v", m.Epoch, m.TuneScore, want)
		}
	}
	if res.Epochs[1].Pool <= res.Epochs[0].Pool {
		t.Errorf("the pool did not grow: %d then %d", res.Epochs[0].Pool, res.Epochs[1].Pool)
	}

	checkResumed(t, ctx, o, filepath.Join(dir, "resumed"))

	d := smallDemo(t)
	o.Out, o.DevSrc, o.DevRefs = filepath.Join(dir, "dev"), d.devSrc, []string{d.devRef}
	launches = countLaunches(&o)
	withDev := mustRun(t, ctx, o)
	if *launches != 1+2 {
		t.Errorf("with a dev set: %d launches, want a model check and one an epoch", *launches)
	}
	score, err := pipelines.DevScorer(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range withDev.Epochs {
		if m.TuneScore != res.Epochs[i].TuneScore || m.DevScore == nil {
			t.Fatalf("epoch %d with a dev set: tune BLEU %v, dev BLEU %v; without, tune BLEU %v", m.Epoch, m.TuneScore, m.DevScore, res.Epochs[i].TuneScore)
		}
		stats, err := score(ctx, rundir.Layout{Root: o.Out}.Epoch(m.Epoch).JSON())
		if err != nil {
			t.Fatal(err)
		}
		var sum metric.Stats
		for _, st := range stats {
			sum.Add(st)
		}
		if want := 100 * metric.BLEUStats(sum).BLEU(); math.Abs(*m.DevScore-want) > 1e-9 {
			t.Errorf("epoch %d: dev BLEU %v, the dev set decoded with its weights %v", m.Epoch, *m.DevScore, want)
		}
	}
}

// runBatch runs two epochs of --mode batch with algo (MERT with 2
// restarts) on the small demo into out, counting the launches.
func runBatch(t *testing.T, algo, out string) (pipelines.Options, pipelines.Result, *int) {
	t.Helper()
	o := options(smallDemo(t), out)
	o.Mode, o.Algo, o.Epochs = tune.Batch, algo, 2
	if algo == "mert" {
		o.AlgoConfig.Restarts = 2
	}
	launches := countLaunches(&o)
	return o, mustRun(t, context.Background(), o), launches
}

// checkResumed runs o's two epochs again in out, as one epoch and then a
// resumed run: the second epoch's weights must be those of o.Out's.
func checkResumed(t *testing.T, ctx context.Context, o pipelines.Options, out string) {
	t.Helper()
	full := o.Out
	o.Out, o.Epochs = out, 1
	mustRun(t, ctx, o)
	o.Epochs, o.Resume = 2, true
	mustRun(t, ctx, o)
	a, err := os.ReadFile(rundir.Layout{Root: full}.Epoch(2).JSON())
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(rundir.Layout{Root: out}.Epoch(2).JSON())
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Errorf("resumed weights differ:\n%s\n%s", a, b)
	}
}

// TestSparseTemplates tunes with the phrase-pair template on: the sparse
// features reach the learner and the epoch's weights, and the manifest
// records the templates.
func TestSparseTemplates(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	o := options(d, t.TempDir())
	o.Epochs, o.Sparse = 1, []string{"pt"}
	res := mustRun(t, ctx, o)
	w, err := weights.ReadByName(ctx, rundir.Layout{Root: o.Out}.Epoch(1).JSON())
	if err != nil {
		t.Fatal(err)
	}
	pp := 0
	for name, v := range w.Map() {
		if strings.HasPrefix(name, "pp_") && v != 0 {
			pp++
		}
	}
	if pp == 0 || res.Epochs[0].NonZero <= pp {
		t.Errorf("%d non-zero phrase-pair weights, %d non-zeros in all", pp, res.Epochs[0].NonZero)
	}
	man, err := os.ReadFile(filepath.Join(o.Out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(man), `"Sparse": "pt"`) && !strings.Contains(string(man), `"Sparse":"pt"`) {
		t.Errorf("manifest does not record the templates:\n%s", man)
	}
	o.Sparse = []string{"xx"}
	if _, err := pipelines.Run(ctx, o); err == nil || !strings.Contains(err.Error(), "xx") {
		t.Errorf("unknown template: error %v", err)
	}
}

// TestBatchScale: batch mode scales kb-MIRA's weights to an L1 norm of 1
// unless KeepScale is set.
func TestBatchScale(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	for _, keep := range []bool{false, true} {
		o := options(d, t.TempDir())
		o.Mode, o.Algo, o.Epochs, o.KeepScale = tune.Batch, "kbmira", 1, keep
		mustRun(t, ctx, o)
		w, err := weights.ReadByName(ctx, rundir.Layout{Root: o.Out}.Epoch(1).JSON())
		if err != nil {
			t.Fatal(err)
		}
		var l1 float64
		for _, v := range w.Vals {
			l1 += math.Abs(v)
		}
		if !keep && math.Abs(l1-1) > 1e-12 {
			t.Errorf("L1 norm %v, want 1", l1)
		}
		if keep && math.Abs(l1-1) < 1e-6 {
			t.Errorf("KeepScale: L1 norm %v, kb-MIRA's own scale expected", l1)
		}
	}
}

// TestBatchDev runs --mode batch with a dev set (Moses' --return-best-dev)
// with kb-MIRA, whose epoch decodes the dev set in its one launch once the
// optimizer has run, and with MERT, whose epoch decodes it in a launch
// after its rounds: every epoch's dev BLEU is that of its own weights,
// found again here by decoding the dev set with them on this machine
// (tune.ScoreSet), and the best epoch is the one with the best dev BLEU.
func TestBatchDev(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	dec, dev := openDecoder(t, d.ini), loadSet(t, d.devSrc, d.devRef)
	for _, algo := range []string{"kbmira", "mert"} {
		o := options(d, t.TempDir())
		o.Mode, o.Algo, o.Epochs = tune.Batch, algo, 3
		if algo == "mert" {
			o.Epochs, o.AlgoConfig.Restarts = 2, 2
		}
		o.DevSrc, o.DevRefs = d.devSrc, []string{d.devRef}
		launches := countLaunches(&o)
		res := mustRun(t, ctx, o)
		want := 1 + o.Epochs // kb-MIRA: a model check and one an epoch
		for _, m := range res.Epochs {
			want += m.MERTRounds + min(m.MERTRounds, 1) // MERT: its rounds and the dev set's launch
		}
		if *launches != want {
			t.Errorf("%s: %d launches, want %d", algo, *launches, want)
		}
		best := 0
		for _, m := range res.Epochs {
			if m.DevScore == nil {
				t.Fatalf("%s: epoch %d has no dev BLEU", algo, m.Epoch)
			}
			ww, err := weights.ReadByName(ctx, rundir.Layout{Root: o.Out}.Epoch(m.Epoch).JSON())
			if err != nil {
				t.Fatal(err)
			}
			stats, err := tune.ScoreSet(ctx, dec, dev, ww, tune.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var sum metric.Stats
			for _, st := range stats {
				sum.Add(st)
			}
			t.Logf("%s: epoch %d: dev BLEU %.4f, tune BLEU (pool) %.2f", algo, m.Epoch, *m.DevScore, m.TuneScore)
			if want := 100 * metric.BLEUStats(sum).BLEU(); math.Abs(*m.DevScore-want) > 1e-9 {
				t.Errorf("%s: epoch %d: dev BLEU %v, its weights decode the dev set to %v", algo, m.Epoch, *m.DevScore, want)
			}
			if best == 0 || *m.DevScore > *res.Epochs[best-1].DevScore {
				best = m.Epoch
			}
		}
		if res.Best != best {
			t.Errorf("%s: best epoch %d, want %d (by dev BLEU)", algo, res.Best, best)
		}
	}
}

// openDecoder loads the real decoder of the moses.ini ini.
func openDecoder(t *testing.T, ini string) tune.Decoder {
	t.Helper()
	dec, err := transforms.OpenDecoder(context.Background(), tune.MosesDecoderName, ini)
	if err != nil {
		t.Fatal(err)
	}
	return dec
}

// loadSet reads a source and its reference as tune.Sentences.
func loadSet(t *testing.T, src, ref string) []tune.Sentence {
	t.Helper()
	c, err := corpus.Load(context.Background(), src, []string{ref})
	if err != nil {
		t.Fatal(err)
	}
	return tune.SentencesOf(c, 0)
}
