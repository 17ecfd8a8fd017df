package tune

import (
	"context"
	"github.com/mtune/mtune/metric"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/testsupport/europarl100"
)

// worseLearner is an online learner whose every pass scales the weights
// by −1: the first pass makes the pool's 1-bests worse than the start's.
type worseLearner struct{ w feature.Weights }

func (l *worseLearner) Learn(ctx context.Context, lists []pool.List) error {
	for i := range l.w {
		l.w[i] = -l.w[i]
	}
	return nil
}

func (l *worseLearner) Weights() feature.Weights { return l.w.Clone() }

var _ PoolLearner = (*worseLearner)(nil)

// TestPoolEpocher runs tune-nbest's Epocher through the Driver on
// europarl100: each epoch's trio, metrics (the pool's BLEU under the new
// and the previous weights), and best/ by the rule with the starting
// weights as epoch 0: kept when no epoch beats them, replaced by one that
// does.
func TestPoolEpocher(t *testing.T) {
	ctx := context.Background()
	lists, init, idx := europarl100.Shared(t)
	set := func(w feature.Weights) *weights.Set {
		s := weights.NewSet(idx)
		s.Weights = w
		return s
	}
	startBLEU := 100 * metric.BLEUStats(pool.OneBest(lists, init)).BLEU()

	t.Run("adagrad", func(t *testing.T) {
		dir := rundir.Layout{Root: t.TempDir()}
		l, err := algo.New("adagrad", init.Clone(), algo.Config{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		e, start, base, err := NewPoolEpocher(ctx, dir, lists, nil, set(init.Clone()), l)
		if err != nil {
			t.Fatal(err)
		}
		if base == nil || base.Epoch != 0 || base.TuneScore != startBLEU || start.File != dir.Init() {
			t.Fatalf("baseline %+v, start %s; want epoch 0, BLEU %v, %s", base, start.File, startBLEU, dir.Init())
		}
		ms, err := Driver{Dir: dir, Epochs: 3, Start: start, Baseline: base}.Run(ctx, e, nil)
		if err != nil {
			t.Fatal(err)
		}
		prev := startBLEU
		for _, m := range ms {
			w, err := weights.Read(ctx, dir.Epoch(m.Epoch).JSON(), idx)
			if err != nil {
				t.Fatal(err)
			}
			if got := 100 * metric.BLEUStats(pool.OneBest(lists, w.Weights)).BLEU(); got != m.TuneScore || m.ProgressiveScore != prev || m.Pool != pool.Size(lists) || m.Sentences != len(lists) {
				t.Errorf("epoch %d: %+v; the trio's BLEU %v, previous %v", m.Epoch, m, got, prev)
			}
			prev = m.TuneScore
		}
		var b rundir.Best
		b.Add(0, startBLEU)
		for _, m := range ms {
			b.Add(m.Epoch, m.TuneScore)
		}
		if b.Epoch == 0 {
			t.Fatalf("no epoch of AdaGrad beats the start (%v): %+v", startBLEU, ms)
		}
		want, _ := os.ReadFile(dir.Epoch(b.Epoch).JSON())
		if got, _ := os.ReadFile(dir.Best().JSON()); string(got) != string(want) || len(want) == 0 {
			t.Errorf("best/weights.json is not epoch %d's", b.Epoch)
		}
		// A prev the learner did not return is refused.
		if _, _, err := e.Epoch(ctx, 4, start); err == nil || !strings.Contains(err.Error(), "not from the weights its learner holds") {
			t.Errorf("epoch from the start again: %v", err)
		}
	})

	t.Run("no epoch beats the start", func(t *testing.T) {
		dir := rundir.Layout{Root: t.TempDir()}
		e, start, base, err := NewPoolEpocher(ctx, dir, lists, nil, set(init.Clone()), &worseLearner{init.Clone()})
		if err != nil {
			t.Fatal(err)
		}
		// Epoch 2 flips the weights back: as good as the start, which
		// wins the tie.
		ms, err := Driver{Dir: dir, Epochs: 2, Start: start, Baseline: base}.Run(ctx, e, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ms[0].TuneScore >= startBLEU || ms[1].TuneScore != startBLEU {
			t.Fatalf("epochs %+v, start %v", ms, startBLEU)
		}
		for _, f := range []string{weights.TrioMoses, weights.TrioJSON} {
			want, _ := os.ReadFile(filepath.Join(dir.InitTrio().Dir, f))
			if got, _ := os.ReadFile(filepath.Join(dir.Best().Dir, f)); string(got) != string(want) || len(want) == 0 {
				t.Errorf("best/%s is not the starting weights'", f)
			}
		}
		var m rundir.Metrics
		if err := rundir.ReadJSON(ctx, dir.Best().Epoch(), &m); err != nil || m.Epoch != 0 {
			t.Errorf("best/epoch.json: %+v, %v; want epoch 0", m, err)
		}
		// Without the baseline the Driver takes the best epoch it ran.
		dir2 := rundir.Layout{Root: t.TempDir()}
		e2, start2, _, err := NewPoolEpocher(ctx, dir2, lists, nil, set(init.Clone()), &worseLearner{init.Clone()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (Driver{Dir: dir2, Epochs: 2, Start: start2}).Run(ctx, e2, nil); err != nil {
			t.Fatal(err)
		}
		if err := rundir.ReadJSON(ctx, dir2.Best().Epoch(), &m); err != nil || m.Epoch != 2 {
			t.Errorf("best/epoch.json without a baseline: %+v, %v; want epoch 2", m, err)
		}
	})
}
