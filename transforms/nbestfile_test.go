package transforms_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/pool/poolfile"
	"github.com/mtune/mtune/testsupport/testfile"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// TestWriteNBestFile writes two lists (out of order, one hypothesis
// without a score, a dense group with a zero, a sparse feature) as a
// gzipped Moses n-best file: the lines are Moses', and poolfile reads back
// every feature under its name.
func TestWriteNBestFile(t *testing.T) {
	ctx := context.Background()
	dense := []string{"LM0_0", "TM0_0", "TM0_1"}
	sc, err := pool.NewScorer([][]string{{"a b"}, {"b"}}, 0, nil)
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
	lists := []tune.NBest{
		{Sent: 1, Names: []string{"LM0_0", "TM0_1"}, Hyps: []tune.WireHyp{
			{Target: "b", Features: v([]feature.ID{0, 1}, -2, 0.5), Stats: st(1, "b"), Score: -1.5, HasScore: true},
		}},
		{Sent: 0, Names: []string{"LM0_0", "TM0_0", "pp_a~b"}, Hyps: []tune.WireHyp{
			{Target: "a b", Features: v([]feature.ID{0, 1, 2}, -4, -1, 1), Stats: st(0, "a b"), Score: -3.25, HasScore: true},
			{Target: "a c", Features: v([]feature.ID{0}, -5), Stats: st(0, "a c")},
		}},
	}
	path := filepath.Join(t.TempDir(), "nbest.gz")
	if err = transforms.WriteNBestFile(ctx, path, lists, dense); err != nil {
		t.Fatal(err)
	}
	text := testfile.GunzipFile(t, path)
	want := "0 ||| a b ||| LM0= -4 TM0= -1 0 pp_a~b= 1 ||| -3.25\n" +
		"0 ||| a c ||| LM0= -5 TM0= 0 0\n" +
		"1 ||| b ||| LM0= -2 TM0= 0 0.5 ||| -1.5\n"
	if string(text) != want {
		t.Fatalf("file:\n%s\nwant:\n%s", text, want)
	}

	idx := feature.NewIndex()
	got, groups, err := poolfile.Load(ctx, []string{path}, idx, sc, poolfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := strings.Join(feature.GroupNames(groups), " "); g != strings.Join(dense, " ") {
		t.Errorf("dense features %q, want %q", g, dense)
	}
	if len(got) != 2 || pool.Size(got) != 3 {
		t.Fatalf("read back %d lists, %d hypotheses", len(got), pool.Size(got))
	}
	for _, l := range got {
		var in tune.NBest
		for _, x := range lists {
			if x.Sent == l.Sent {
				in = x
			}
		}
		for k, h := range l.Hyps {
			wh := in.Hyps[k]
			for j, id := range wh.Features.IDs {
				name := in.Names[id]
				if x := h.Features.At(idx.ID(name)); x != wh.Features.Vals[j] {
					t.Errorf("sentence %d hypothesis %d: %s = %v, wrote %v", l.Sent, k, name, x, wh.Features.Vals[j])
				}
			}
			if len(h.Features.IDs) != len(wh.Features.IDs) {
				t.Errorf("sentence %d hypothesis %d: %d features, wrote %d", l.Sent, k, len(h.Features.IDs), len(wh.Features.IDs))
			}
		}
	}
	for _, l := range got {
		for k, h := range l.Hyps {
			if want := lists[1-l.Sent].Hyps[k].Stats; h.Stats != want {
				t.Errorf("sentence %d hypothesis %d: statistics %+v, want %+v", l.Sent, k, h.Stats, want)
			}
		}
	}
}

// TestWriteNBestFileErrors: lists that would not read back as written are
// refused, and no file is left.
func TestWriteNBestFileErrors(t *testing.T) {
	ctx := context.Background()
	stats := metric.Stats{Order: 1, Matches: [metric.MaxOrder]float64{1}, Totals: [metric.MaxOrder]float64{1}, RefLen: 1}
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
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			err := transforms.WriteNBestFile(ctx, filepath.Join(dir, "nbest.gz"), tc.lists, []string{"LM0_0"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("a failed write left %d files", len(entries))
			}
		})
	}
}
