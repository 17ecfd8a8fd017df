package pipelines_test

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/decoder/external"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pipelines"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/tune"
)

// watchedDecoder names the real decoder, watched: it records whether a
// decoding was given a weight for the added feature "ref" (addedLeaks).
const watchedDecoder = "watched-moses"

var addedLeaks atomic.Int32

func init() {
	tune.RegisterDecoder(watchedDecoder, "a test decoder", func(ctx context.Context, config string, _ tune.Logf) (tune.Decoder, error) {
		m, err := decoder.Load(ctx, config, decoder.LoadOptions{})
		if err != nil {
			return nil, err
		}
		return watched{tune.NewMoses(m)}, nil
	})
}

type watched struct{ tune.Decoder }

func (d watched) NBest(ctx context.Context, id int, src string, w feature.Weights, n int) ([]decoder.Hypothesis, error) {
	if _, ok := d.Features().Lookup("ref_0"); ok {
		addedLeaks.Add(1)
	}
	return d.Decoder.NBest(ctx, id, src, w, n)
}

// featureRun is one run of the test's feature command: the lowest and
// highest sentence id of the lists it read, their lines, and the set.
type featureRun struct {
	lo, hi, lines int
	set           string
}

// refFeature writes a feature command that scores each n-best line by the
// share of the hypothesis' words found in the sentence's reference (of
// tuneRef or devRef, as MTUNE_SET says): a feature that matters to BLEU.
// Each run appends a line to a log; runs returns them.
func refFeature(t *testing.T, tuneRef, devRef string) (command string, runs func() []featureRun) {
	t.Helper()
	for _, p := range []string{"sh", "awk"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s on PATH: %v", p, err)
		}
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "runs")
	q := func(s string) string { return external.Quote([]string{s}) }
	script := `#!/bin/sh
ref=` + q(tuneRef) + `
[ "$MTUNE_SET" = dev ] && ref=` + q(devRef) + `
exec awk -v runs=` + q(log) + ` -v set="$MTUNE_SET" -F' [|][|][|] ' '
NR == FNR { ref[NR - 1] = $0; next }
{ if (c == 0 || $1 + 0 < lo) lo = $1 + 0
  if (c == 0 || $1 + 0 > hi) hi = $1 + 0
  c++
  split("", seen); n = split(ref[$1], r, " "); for (k = 1; k <= n; k++) seen[r[k]] = 1
  n = split($2, w, " "); m = 0; for (k = 1; k <= n; k++) if (w[k] in seen) m++
  printf "%.4f\n", (n > 0 ? m / n : 0) }
END { printf "%d %d %d %s\n", lo, hi, c, set >> runs }' "$ref" -
`
	path := filepath.Join(dir, "ref-feature.sh")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return q(path), func() []featureRun {
		data, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		var out []featureRun
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			f := strings.Fields(line)
			if len(f) != 4 {
				t.Fatalf("run log line %q", line)
			}
			var r featureRun
			r.lo, _ = strconv.Atoi(f[0])
			r.hi, _ = strconv.Atoi(f[1])
			r.lines, _ = strconv.Atoi(f[2])
			r.set = f[3]
			out = append(out, r)
		}
		return out
	}
}

// TestFeatureCommandBatch tunes the small demo's tuning set seven times
// over (280 sentences, two pool parts) for two batch epochs with kb-MIRA
// and a feature command that matters: the command runs once a part an
// epoch, on that part's sentences; the epochs' weights give the added
// feature a weight (0 at the start) and the pool files hold it; the
// decoder is never given it; one epoch and a resumed second give the same
// bits, and a resume with another command is refused.
func TestFeatureCommandBatch(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	tmp := t.TempDir()
	for _, p := range []*string{&d.tuneSrc, &d.tuneRef} {
		text := readFile(t, *p)
		*p = filepath.Join(tmp, filepath.Base(*p))
		if err := os.WriteFile(*p, slices.Concat(text, text, text, text, text, text, text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	command, runs := refFeature(t, d.tuneRef, d.devRef)
	o := options(d, filepath.Join(tmp, "full"))
	o.Mode, o.Algo, o.Epochs, o.Decoder = tune.Batch, "kbmira", 2, watchedDecoder
	o.FeatureCommands = []tune.FeatureCommand{{Name: "ref", Command: command}}
	addedLeaks.Store(0)
	res := mustRun(t, ctx, o)
	if n := addedLeaks.Load(); n > 0 {
		t.Errorf("the decoder was given the added feature's weight in %d decodings", n)
	}
	rs := runs()
	t.Logf("runs of the command: %+v", rs)
	if len(rs) != 2*2 {
		t.Errorf("%d runs of the command, want 2 epochs × 2 parts", len(rs))
	}
	parts := map[int]int{}
	for _, r := range rs {
		if tune.PoolPartOf(r.lo) != tune.PoolPartOf(r.hi) || r.set != "tune" {
			t.Errorf("a run on sentences %d-%d of %s", r.lo, r.hi, r.set)
		}
		parts[tune.PoolPartOf(r.lo)]++
		if want := min(279, (tune.PoolPartOf(r.lo)+1)*tune.PoolPartSentences-1); r.lo != tune.PoolPartOf(r.lo)*tune.PoolPartSentences || r.hi != want {
			t.Errorf("a run on sentences %d-%d, not a whole part", r.lo, r.hi)
		}
	}
	if parts[0] != 2 || parts[1] != 2 {
		t.Errorf("runs by part %v, want 2 each", parts)
	}
	l := rundir.Layout{Root: o.Out}
	start, err := weights.ReadByName(ctx, l.Init())
	if err != nil {
		t.Fatal(err)
	}
	if w := start.Map(); len(w) != 16 || w["ref_0"] != 0 {
		t.Errorf("starting weights %v: want the model's 15 and ref_0 at 0", w)
	}
	for _, m := range res.Epochs {
		w, err := weights.ReadByName(ctx, l.Epoch(m.Epoch).JSON())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("epoch %d: tune BLEU %.2f (decoded %.2f), ref %.4f", m.Epoch, m.TuneScore, m.ProgressiveScore, w.Map()["ref_0"])
		if w.Map()["ref_0"] <= 0 {
			t.Errorf("epoch %d: weight of ref %v, want it positive", m.Epoch, w.Map()["ref_0"])
		}
		text := string(readFile(t, filepath.Join(l.Epoch(m.Epoch).Dir, "weights")))
		if !strings.Contains(text, "\nref= ") {
			t.Errorf("epoch %d: weights file without a ref= line:\n%s", m.Epoch, text)
		}
	}
	// The pool holds the feature: PartOneBest re-ranks with it.
	last := l.Epoch(2)
	w, _ := weights.ReadByName(ctx, last.JSON())
	idx := feature.NewIndexOf(w.Names...)
	lists, err := tune.ReadPoolPart(ctx, last.PoolPart(1), idx)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := idx.Lookup("ref_0")
	if len(lists) != 280-256 || lists[0].Hyps[0].Features.At(id) == 0 && lists[0].Hyps[1].Features.At(id) == 0 {
		t.Errorf("pool part 1: %d lists, the first without ref_0", len(lists))
	}

	checkResumed(t, ctx, o, filepath.Join(tmp, "resumed"))

	again := o
	again.Epochs, again.Resume = 3, true
	again.FeatureCommands = []tune.FeatureCommand{{Name: "ref", Command: "awk '{ print 1 }'"}}
	if _, err := pipelines.Run(ctx, again); err == nil || !strings.Contains(err.Error(), "--feature-command") {
		t.Errorf("resumed with another command: error %v", err)
	}
}

// TestFeatureCommandDev tunes the small demo for one batch epoch with
// MERT, a dev set and the feature command: the dev set is decoded into
// n-best lists, which the command scores (MTUNE_SET=dev), and each dev
// score (epoch 0's and epoch 1's) is that of those lists re-ranked with
// every weight, found again here.
func TestFeatureCommandDev(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	command, runs := refFeature(t, d.tuneRef, d.devRef)
	o := options(d, filepath.Join(t.TempDir(), "out"))
	o.Mode, o.Algo, o.Epochs, o.DevSrc, o.DevRefs = tune.Batch, "mert", 1, d.devSrc, []string{d.devRef}
	o.AlgoConfig.Restarts = 2
	o.FeatureCommands = []tune.FeatureCommand{{Name: "ref", Command: command}}
	res := mustRun(t, ctx, o)
	sets := map[string]int{}
	for _, r := range runs() {
		sets[r.set]++
	}
	if sets["tune"] != 1 || sets["dev"] != 2 {
		t.Errorf("runs by set %v: want 1 of the tuning set's part, 2 of the dev set's (epoch 0 and 1)", sets)
	}
	dec, dev := openDecoder(t, d.ini), loadSet(t, d.devSrc, d.devRef)
	l := rundir.Layout{Root: o.Out}
	added := tune.FeatureCommands{Commands: o.FeatureCommands, Set: "dev", Source: d.devSrc}
	score := func(path string) (reranked, decoded float64) {
		w, err := weights.ReadByName(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		added.Dense = w.Names
		dw, err := added.DecoderWeights(w).Over(dec.Features())
		if err != nil {
			t.Fatal(err)
		}
		lists, _, err := tune.DecodeSentences(ctx, dec, dev, dw, tune.DecodeOptions{NBest: o.NBest, Added: added, ScoreAdded: true})
		if err != nil {
			t.Fatal(err)
		}
		idx := feature.NewIndexOf(w.Names...)
		ww, err := w.Over(idx)
		if err != nil {
			t.Fatal(err)
		}
		var sum, first metric.Stats
		for _, n := range lists {
			pl, err := n.List(idx)
			if err != nil {
				t.Fatal(err)
			}
			sum.Add(pool.OneBest([]pool.List{pl}, ww))
			first.Add(n.Hyps[0].Stats)
		}
		return 100 * metric.BLEUStats(sum).BLEU(), 100 * metric.BLEUStats(first).BLEU()
	}
	s0, d0 := score(l.Init())
	got0, err := rundir.ReadScore(ctx, l.InitDevStats(), metric.DefaultBLEU())
	if err != nil {
		t.Fatal(err)
	}
	s1, d1 := score(l.Epoch(1).JSON())
	t.Logf("dev BLEU: start %.4f (decoder's 1-best %.4f), epoch 1 %.4f (decoder's 1-best %.4f)", s0, d0, s1, d1)
	if math.Abs(got0-s0) > 1e-9 {
		t.Errorf("epoch 0: dev BLEU %v, re-ranked here %v", got0, s0)
	}
	if m := res.Epochs[0]; m.DevScore == nil || math.Abs(*m.DevScore-s1) > 1e-9 {
		t.Errorf("epoch 1: dev BLEU %v, re-ranked here %v", m.DevScore, s1)
	}
}

// TestFeatureCommandFails runs the small demo in batch mode with a feature
// command that fails: the epoch's error, as the driver reports it, names
// the command, the pool part, its exit status and what it said.
func TestFeatureCommandFails(t *testing.T) {
	d := smallDemo(t)
	o := options(d, filepath.Join(t.TempDir(), "out"))
	o.Mode, o.Algo, o.Epochs = tune.Batch, "kbmira", 1
	o.FeatureCommands = []tune.FeatureCommand{{Name: "rev", Command: `sh -c 'echo "scorer: no model at /models/rev" >&2; exit 3'`}}
	_, err := pipelines.Run(context.Background(), o)
	if err == nil {
		t.Fatal("the run did not fail")
	}
	for _, want := range []string{"epoch 1 failed", "--feature-command rev (sh -c ", "epoch 1, pool part 0", "exit status 3", "scorer: no model at /models/rev"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
