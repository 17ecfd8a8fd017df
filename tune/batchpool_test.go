package tune_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/pool/poolfile"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/testsupport/testfile"
	"github.com/mtune/mtune/tune"
)

// TestMergePoolPart writes a part from two lists (out of order, one
// hypothesis without a score, a dense group with a zero, a sparse
// feature), then the next epoch's part from it and new lists: the files are
// Moses' n-best and SCORESTAT text, a repeated target and features is
// pooled once, a same target with other features is kept, and the part
// reads back (ReadPoolPart, and poolfile as tune-nbest reads it) with every
// feature under its name and every hypothesis' statistics.
func TestMergePoolPart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dense := []string{"LM0_0", "TM0_0", "TM0_1"}
	sc, err := pool.NewScorer([][]string{{"a b"}, {"b"}}, metric.DefaultBLEU())
	if err != nil {
		t.Fatal(err)
	}
	st := func(sent int, target string) metric.Stats {
		x, err := sc.Stats(sent, target)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	v := func(ids []feature.ID, vals ...float64) feature.Vector { return feature.Vector{IDs: ids, Vals: vals} }
	epoch1 := []tune.NBest{
		{Sent: 1, Names: []string{"LM0_0", "TM0_1"}, Hyps: []tune.WireHyp{
			{Target: "b", Features: v([]feature.ID{0, 1}, -2, 0.5), Stats: st(1, "b"), Score: -1.5, HasScore: true},
		}},
		{Sent: 0, Names: []string{"LM0_0", "TM0_0", "pp_a~b"}, Hyps: []tune.WireHyp{
			{Target: "a b", Features: v([]feature.ID{0, 1, 2}, -4, -1, 1), Stats: st(0, "a b"), Score: -3.25, HasScore: true},
			{Target: "a c", Features: v([]feature.ID{0}, -5), Stats: st(0, "a c")},
		}},
	}
	part := func(name string) rundir.PoolPart {
		return rundir.PoolPart{NBest: filepath.Join(dir, name+".nbest.gz"), Scores: filepath.Join(dir, name+".scores.gz")}
	}
	info, err := tune.MergePoolPart(ctx, 0, rundir.PoolPart{}, epoch1, dense, part("e1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if info.Sentences != 2 || info.Hyps != 3 || !slices.Equal(info.Names, []string{"LM0_0", "TM0_0", "TM0_1", "pp_a~b"}) {
		t.Errorf("info %+v", info)
	}
	text := testfile.GunzipFile(t, part("e1").NBest)
	want := "0 ||| a b ||| LM0= -4 TM0= -1 0 pp_a~b= 1 ||| -3.25\n" +
		"0 ||| a c ||| LM0= -5 TM0= 0 0\n" +
		"1 ||| b ||| LM0= -2 TM0= 0 0.5 ||| -1.5\n"
	if string(text) != want {
		t.Fatalf("n-best file:\n%s\nwant:\n%s", text, want)
	}
	scores := string(testfile.GunzipFile(t, part("e1").Scores))
	if !strings.HasPrefix(scores, "SCORES_TXT_BEGIN_0 0 2 9 BLEU\n2 2 1 1 0 0 0 0 2 \n") {
		t.Fatalf("statistics file:\n%s", scores)
	}

	epoch2 := []tune.NBest{
		{Sent: 0, Names: []string{"LM0_0"}, Hyps: []tune.WireHyp{
			{Target: "a c", Features: v([]feature.ID{0}, -5), Stats: st(0, "a c")}, // pooled already
			{Target: "a c", Features: v([]feature.ID{0}, -6), Stats: st(0, "a c")}, // new features
			{Target: "a d", Features: v([]feature.ID{0}, -7), Stats: st(0, "a d")}, // new target
		}},
		{Sent: 1, Names: []string{"LM0_0", "TM0_1"}, Hyps: []tune.WireHyp{
			{Target: "b", Features: v([]feature.ID{0, 1}, -2, 0.5), Stats: st(1, "b"), Score: -9, HasScore: true}, // same but the score
		}},
	}
	info, err = tune.MergePoolPart(ctx, 0, part("e1"), epoch2, dense, part("e2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if info.Sentences != 2 || info.Hyps != 5 {
		t.Errorf("second epoch's info %+v, want 2 sentences and 5 hypotheses", info)
	}
	idx := feature.NewIndex()
	got, err := tune.ReadPoolPart(ctx, part("e2"), idx)
	if err != nil {
		t.Fatal(err)
	}
	wantTargets := [][]string{{"a b", "a c", "a c", "a d"}, {"b"}}
	for i, l := range got {
		if l.Sent != i || len(l.Hyps) != len(wantTargets[i]) {
			t.Fatalf("list %d: sentence %d with %d hypotheses", i, l.Sent, len(l.Hyps))
		}
		for k, h := range l.Hyps {
			if want := st(i, wantTargets[i][k]); h.Stats() != want {
				t.Errorf("sentence %d hypothesis %d: statistics %+v, want %+v", i, k, h.Stats(), want)
			}
		}
	}
	if x := got[0].Hyps[2].Features.At(idx.ID("LM0_0")); x != -6 {
		t.Errorf("sentence 0 hypothesis 2: LM0_0 = %v, want -6", x)
	}
	if x := got[0].Hyps[0].Features.At(idx.ID("pp_a~b")); x != 1 {
		t.Errorf("sentence 0 hypothesis 0: pp_a~b = %v, want 1", x)
	}
	// The n-best file is one tune-nbest reads: the same pool.
	viaFile, _, err := poolfile.Load(ctx, []string{part("e2").NBest}, feature.NewIndex(), sc, poolfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if pool.Size(viaFile) != 5 {
		t.Errorf("poolfile reads %d hypotheses, want 5", pool.Size(viaFile))
	}
}

// TestMergePoolPartErrors: lists that would not read back as written, or
// that belong to another part, are refused and leave no file; parts whose
// two files disagree are refused when read.
func TestMergePoolPartErrors(t *testing.T) {
	ctx := context.Background()
	stats := metric.NewBLEUStats(1, []float64{1}, []float64{1}, 1)
	one := func(sent int, target string) tune.NBest {
		return tune.NBest{Sent: sent, Names: []string{"LM0_0"}, Hyps: []tune.WireHyp{
			{Target: target, Features: feature.Vector{IDs: []feature.ID{0}, Vals: []float64{-1}}, Stats: stats}}}
	}
	tests := []struct {
		name  string
		lists []tune.NBest
		want  string
	}{
		{"two lists of a sentence", []tune.NBest{one(3, "a"), one(3, "b")}, "two n-best lists for sentence 3"},
		{"separator in a target", []tune.NBest{one(0, "a ||| b")}, "sentence 0 hypothesis 0"},
		{"feature id beyond the names", []tune.NBest{{Sent: 0, Names: []string{"LM0_0"}, Hyps: []tune.WireHyp{
			{Target: "a", Features: feature.Vector{IDs: []feature.ID{4}, Vals: []float64{1}}}}}}, "beyond 1 names"},
		{"sentence of another part", []tune.NBest{one(tune.PoolPartSentences, "a")}, "not in pool part 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := rundir.PoolPart{NBest: filepath.Join(dir, "p.nbest.gz"), Scores: filepath.Join(dir, "p.scores.gz")}
			_, err := tune.MergePoolPart(ctx, 0, rundir.PoolPart{}, tc.lists, []string{"LM0_0"}, out, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("a failed write left %d files", len(entries))
			}
		})
	}

	dir := t.TempDir()
	a := rundir.PoolPart{NBest: filepath.Join(dir, "a.nbest.gz"), Scores: filepath.Join(dir, "a.scores.gz")}
	b := rundir.PoolPart{NBest: filepath.Join(dir, "b.nbest.gz"), Scores: filepath.Join(dir, "b.scores.gz")}
	if _, err := tune.MergePoolPart(ctx, 0, rundir.PoolPart{}, []tune.NBest{one(0, "a"), one(1, "b")}, []string{"LM0_0"}, a, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tune.MergePoolPart(ctx, 0, rundir.PoolPart{}, []tune.NBest{one(0, "a")}, []string{"LM0_0"}, b, nil); err != nil {
		t.Fatal(err)
	}
	mixed := rundir.PoolPart{NBest: a.NBest, Scores: b.Scores}
	if _, err := tune.ReadPoolPart(ctx, mixed, feature.NewIndex()); err == nil || !strings.Contains(err.Error(), "end at different sentences") {
		t.Errorf("n-best and statistics files of different parts: error %v", err)
	}
	if _, err := tune.ReadPoolPart(ctx, rundir.PoolPart{NBest: a.NBest, Scores: filepath.Join(dir, "missing")}, feature.NewIndex()); err == nil {
		t.Error("a missing statistics file: no error")
	}
}
