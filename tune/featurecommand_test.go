package tune_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/decoder/external"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/tune"
)

// needShell skips a test whose commands need sh and awk.
func needShell(t *testing.T) {
	t.Helper()
	for _, p := range []string{"sh", "awk"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s on PATH: %v", p, err)
		}
	}
}

// featureLists are two decoded n-best lists, out of order: sentence 1's
// one hypothesis, sentence 0's two.
func featureLists() []tune.NBest {
	v := func(ids []feature.ID, vals ...float64) feature.Vector { return feature.Vector{IDs: ids, Vals: vals} }
	st := metric.StatsOf(1, 1)
	return []tune.NBest{
		{Sent: 1, Names: []string{"LM0_0", "TM0_1"}, Hyps: []tune.WireHyp{
			{Target: "b", Features: v([]feature.ID{0, 1}, -2, 0.5), Stats: st, Score: -1.5, HasScore: true},
		}},
		{Sent: 0, Names: []string{"LM0_0", "TM0_0"}, Hyps: []tune.WireHyp{
			{Target: "a b", Features: v([]feature.ID{0, 1}, -4, -1), Stats: st, Score: -3.25, HasScore: true},
			{Target: "a c", Features: v([]feature.ID{0}, -5), Stats: st, Score: -5, HasScore: true},
		}},
	}
}

// TestFeatureCommandAdd: the command reads the lists as one Moses n-best
// list by sentence id, with the decoder's dense groups only, and its k-th
// line's score becomes the k-th hypothesis' feature (a zero is no entry);
// a part written from them holds "ref= v" as a dense group, which reads
// back as ref_0.
func TestFeatureCommandAdd(t *testing.T) {
	needShell(t)
	ctx := context.Background()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.nbest")
	f := tune.FeatureCommands{
		Commands: []tune.FeatureCommand{
			{Name: "ref", Command: "sh -c " + external.Quote([]string{"tee " + external.Quote([]string{in}) + " | awk '{ print 2 - NR }'"})},
			{Name: "len", Command: `awk -F" [|][|][|] " '{ print length($2) }'`},
		},
		Dense: []string{"LM0_0", "TM0_0", "TM0_1", "ref_0", "len_0"},
	}
	got, err := f.Add(ctx, featureLists(), "the test's lists")
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	want := "0 ||| a b ||| LM0= -4 TM0= -1 0 ||| -3.25\n0 ||| a c ||| LM0= -5 TM0= 0 0 ||| -5\n1 ||| b ||| LM0= -2 TM0= 0 0.5 ||| -1.5\n"
	if string(text) != want {
		t.Errorf("the command read\n%s\nwant\n%s", text, want)
	}
	if len(got) != 2 || got[0].Sent != 0 || got[1].Sent != 1 {
		t.Fatalf("lists %+v", got)
	}
	// ref: 1, 0, -1 by line; len: 3, 3, 1.
	wantVals := map[string][]float64{"ref_0": {1, 0, -1}, "len_0": {3, 3, 1}}
	k := 0
	for _, n := range got {
		if err := n.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, h := range n.Hyps {
			for name, vals := range wantVals {
				x := 0.0
				if id := slices.Index(n.Names, name); id >= 0 {
					x = h.Features.At(feature.ID(id))
				}
				if x != vals[k] {
					t.Errorf("sentence %d %q: %s = %v, want %v", n.Sent, h.Target, name, x, vals[k])
				}
			}
			k++
		}
	}
	part := rundir.PoolPart{NBest: filepath.Join(dir, "p.nbest"), Scores: filepath.Join(dir, "p.scores")}
	if _, err := tune.MergePoolPart(ctx, 0, rundir.PoolPart{}, got, f.Dense, part, metric.DefaultBLEU()); err != nil {
		t.Fatal(err)
	}
	pooled, err := os.ReadFile(part.NBest)
	if err != nil {
		t.Fatal(err)
	}
	if first := strings.SplitN(string(pooled), "\n", 2)[0]; !strings.Contains(first, " ref= 1 len= 3 |||") {
		t.Errorf("pooled line %q: want the added features as dense groups", first)
	}
}

// TestFeatureCommandErrors: a command that fails, writes too few or too
// many lines or a line that is not a finite number is an error naming the
// command, the lists and the line; so is a list that has the feature
// already.
func TestFeatureCommandErrors(t *testing.T) {
	needShell(t)
	ctx := context.Background()
	sh := func(script string) string { return "sh -c " + external.Quote([]string{script}) }
	for _, tc := range []struct {
		name, command string
		want          []string
	}{
		{"failing", sh("echo one; echo 'model not found' >&2; exit 3"), []string{"exit status 3", "model not found", "3 n-best lines"}},
		{"too few", sh("echo 1; echo 2"), []string{"2 output lines for 3 n-best lines"}},
		{"too many", sh("seq 4"), []string{"more output lines than the 3 n-best lines"}},
		{"NaN", sh("printf '1\\nNaN\\n2\\n'"), []string{`output line 2 (sentence 0, hypothesis 1): "NaN" is not a finite number`}},
		{"Inf", sh("printf '1\\n2\\n-inf\\n'"), []string{`output line 3 (sentence 1, hypothesis 0): "-inf"`}},
		{"not a number", sh("printf 'x1\\n2\\n3\\n'"), []string{`output line 1 (sentence 0, hypothesis 0): "x1"`}},
		{"empty line", sh("printf '1\\n\\n3\\n'"), []string{`output line 2 (sentence 0, hypothesis 1): ""`}},
		{"no program", "mtune-no-such-scorer --n-best", []string{"mtune-no-such-scorer", "executable file not found"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tune.FeatureCommands{Commands: []tune.FeatureCommand{{Name: "rev", Command: tc.command}}, Dense: []string{"LM0_0", "TM0_0", "TM0_1", "rev_0"}}
			_, err := f.Add(ctx, featureLists(), "epoch 2, pool part 0")
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, w := range append([]string{"--feature-command rev (" + tc.command + ")", "epoch 2, pool part 0"}, tc.want...) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
	lists := featureLists()
	lists[1].Names[1] = "rev_0"
	f := tune.FeatureCommands{Commands: []tune.FeatureCommand{{Name: "rev", Command: "awk '{ print 1 }'"}}}
	if _, err := f.Add(ctx, lists, "here"); err == nil || !strings.Contains(err.Error(), "sentence 0 has a feature rev_0 already") {
		t.Errorf("a list with the feature: error %v", err)
	}
}

// TestParseFeatureCommand: NAME=CMD with a feature name as --feature's
// and a command that splits into words; two of one name are refused.
func TestParseFeatureCommand(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"rev=scorer --n-best", ""},
		{"r2l.v2=sh -c 'awk 1'", ""},
		{"rev", "want NAME=COMMAND"},
		{"rev=  ", "want NAME=COMMAND"},
		{"rev_lm=x", `feature name "rev_lm"`},
		{"=x", "empty feature name"},
		{"rev=awk 'x", "unterminated '"},
	} {
		c, err := tune.ParseFeatureCommand(tc.in)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.want == "" && c.String() != tc.in:
			t.Errorf("%q: parsed as %q", tc.in, c.String())
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
	two := tune.FeatureCommands{Commands: []tune.FeatureCommand{{Name: "rev", Command: "a"}, {Name: "rev", Command: "b"}}}
	if err := two.Check(); err == nil || !strings.Contains(err.Error(), "two commands for the feature rev") {
		t.Errorf("two of one name: %v", err)
	}
	if p := (tune.FeatureCommand{Name: "x", Command: "./score.sh --n-best"}).Program(); p != "./score.sh" {
		t.Errorf("Program of a path: %q", p)
	}
	if p := (tune.FeatureCommand{Name: "x", Command: "awk 1"}).Program(); p != "" {
		t.Errorf("Program of a name on PATH: %q", p)
	}
}

// TestFeatureCommandWeights: the run starts with the added features'
// weights (--init's, else 0) after the others, and the decoder's weights
// lack them.
func TestFeatureCommandWeights(t *testing.T) {
	f := tune.FeatureCommands{Commands: []tune.FeatureCommand{{Name: "rev", Command: "a"}, {Name: "len", Command: "b"}}}
	init := weights.ByName{Names: []string{"LM0_0", "len_0", "TM0_0"}, Vals: []float64{0.5, 0.25, -0.25}}
	start := f.StartWeights(init)
	if !slices.Equal(start.Names, []string{"LM0_0", "len_0", "TM0_0", "rev_0"}) || !slices.Equal(start.Vals, []float64{0.5, 0.25, -0.25, 0}) {
		t.Errorf("starting weights %+v", start)
	}
	if !slices.Equal(init.Names, []string{"LM0_0", "len_0", "TM0_0"}) {
		t.Errorf("StartWeights changed its argument: %+v", init)
	}
	dec := f.DecoderWeights(start)
	if !slices.Equal(dec.Names, []string{"LM0_0", "TM0_0"}) || !slices.Equal(dec.Vals, []float64{0.5, -0.25}) {
		t.Errorf("decoder's weights %+v", dec)
	}
	if got := (tune.FeatureCommands{}).DecoderWeights(start); !slices.Equal(got.Names, start.Names) {
		t.Errorf("no command: decoder's weights %+v", got)
	}
}
