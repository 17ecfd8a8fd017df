package poolfile

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/testsupport/testfile"
)

// TestParseFeatureFlags pairs --feature values with n-best files by name,
// in order, and refuses bad names, bad syntax and counts that differ from
// the number of n-best files.
func TestParseFeatureFlags(t *testing.T) {
	got, err := ParseFeatureFlags([]string{"rev=a.rev", "lm=a.lm", "rev=b.rev", "lm=b=lm.gz"}, 2)
	want := []FeatureFile{{"rev", []string{"a.rev", "b.rev"}}, {"lm", []string{"a.lm", "b=lm.gz"}}}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
	if got, err := ParseFeatureFlags(nil, 3); err != nil || got != nil {
		t.Errorf("no flags: %v, %v", got, err)
	}
	for _, tc := range []struct {
		values []string
		nbests int
		err    string
	}{
		{[]string{"rev"}, 1, `"rev": want NAME=FILE`},
		{[]string{"rev="}, 1, `"rev=": want NAME=FILE`},
		{[]string{"=f"}, 1, "an empty feature name"},
		{[]string{"rev_lm=f"}, 1, `feature name "rev_lm"`},
		{[]string{"2lm=f"}, 1, `feature name "2lm"`},
		{[]string{"r l=f"}, 1, `feature name "r l"`},
		{[]string{"r|l=f"}, 1, `feature name "r|l"`},
		{[]string{"rev=a"}, 2, "rev: 1 score files for 2 n-best files: give rev=FILE once for each --nbest file"},
		{[]string{"rev=a", "rev=b", "lm=c"}, 2, "lm: 1 score files for 2 n-best files"},
		{[]string{"rev=a", "rev=b"}, 1, "rev: 2 score files for 1 n-best files"},
	} {
		if _, err := ParseFeatureFlags(tc.values, tc.nbests); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v for %d lists: error %v, want %q", tc.values, tc.nbests, err, tc.err)
		}
	}
	for _, name := range []string{"rev", "R2L", "lm-big", "qe.comet", "Ölm"} {
		if err := CheckFeatureName(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// featureValues returns, for each list, the value of each hypothesis'
// feature name_0 in idx.
func featureValues(t *testing.T, lists [][]nbest.Hypothesis, idx *feature.Index, name string) [][]float64 {
	t.Helper()
	id, ok := idx.Lookup(feature.DenseName(name, 0))
	if !ok {
		t.Fatalf("no feature %s_0", name)
	}
	var out [][]float64
	for _, l := range lists {
		var xs []float64
		for _, h := range l {
			xs = append(xs, h.Features.At(id))
		}
		out = append(out, xs)
	}
	return out
}

// walkAll returns the pooled hypotheses of each sentence and the groups.
func walkAll(t *testing.T, paths []string, opts Options, idx *feature.Index) ([][]nbest.Hypothesis, []feature.Group, error) {
	t.Helper()
	var lists [][]nbest.Hypothesis
	groups, err := Walk(context.Background(), paths, opts, idx, 3, func(_ int, hyps []nbest.Hypothesis) error {
		lists = append(lists, slices.Clone(hyps))
		return nil
	})
	return lists, groups, err
}

// TestFeatureFiles adds two features to externalNbest from score files in
// both formats: each hypothesis gets its value, the groups end with the
// added ones; malformed files are errors naming the file and line.
func TestFeatureFiles(t *testing.T) {
	dir := t.TempDir()
	w := testfile.Writer(t, dir)
	nb := w("nb", externalNbest)
	plain := w("rev", "0.5\n-1.25\n3\n0\n1e-3\n")
	indexed := w("lm", "2 ||| 2 ||| 6\n0 ||| 1 ||| 2\n2 ||| 0 ||| 4\n0 ||| 0 ||| 1\n2 ||| 1 ||| 5\n")
	idx := feature.NewIndex()
	lists, groups, err := walkAll(t, []string{nb}, Options{Features: []FeatureFile{{"rev", []string{plain}}, {"lm", []string{indexed}}}}, idx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []feature.Group{{Label: "d", Len: 1}, {Label: "rev", Len: 1}, {Label: "lm", Len: 1}}; !slices.Equal(groups, want) {
		t.Errorf("groups %v, want %v", groups, want)
	}
	if got := featureValues(t, lists, idx, "rev"); fmt.Sprint(got) != "[[0.5 -1.25] [3 0 0.001]]" {
		t.Errorf("rev: %v", got)
	}
	if got := featureValues(t, lists, idx, "lm"); fmt.Sprint(got) != "[[1 2] [4 5 6]]" {
		t.Errorf("lm: %v", got)
	}
	if got := featureValues(t, lists, idx, "d"); fmt.Sprint(got) != "[[1 2] [1 3 2]]" {
		t.Errorf("the list's own d: %v", got)
	}

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("0.5\n-1.25\n3\n0\n1e-3\n"))
	zw.Close()
	truncated := filepath.Join(dir, "cut.gz")
	if err := os.WriteFile(truncated, gz.Bytes()[:gz.Len()-10], 0o666); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text, err string
	}{
		{"too few", "0.5\n-1.25\n3\n0\n", "sc:4: 4 scores for the 5 hypotheses of " + nb + " (" + nb + ":6 has none)"},
		{"too many", "0.5\n-1.25\n3\n0\n1\n2\n", "sc:6: a score beyond the 5 hypotheses of " + nb},
		{"empty", "", "sc:1: no score (an empty file) for the 5 hypotheses of " + nb},
		{"NaN", "0.5\nNaN\n3\n0\n1\n", `sc:2: score "NaN": want a finite number`},
		{"invalid UTF-8", "0.5\n-1\n3\xff\n0\n1\n", "sc:3: invalid UTF-8"},
		{"bad id", "0 ||| 0 ||| 1\n1 ||| 0 ||| 1\n", "sc:2: sentence 1: " + nb + " has no hypothesis of it"},
		{"bad index", "0 ||| 0 ||| 1\n0 ||| 2 ||| 1\n", "sc:2: sentence 0, index 2: " + nb + " has 2 hypotheses of it"},
		{"index missing", "0 ||| 0 ||| 1\n0 ||| 1 ||| 1\n2 ||| 0 ||| 1\n2 ||| 2 ||| 1\n", "sc: no score for sentence 2, index 1 (" + nb + ":5)"},
		{"truncated gzip", "", truncated + ":"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := truncated
			if tc.name != "truncated gzip" {
				sc = w("sc", tc.text)
			}
			_, _, err := walkAll(t, []string{nb}, Options{Features: []FeatureFile{{"rev", []string{sc}}}}, feature.NewIndex())
			if want := strings.ReplaceAll(tc.err, "sc:", sc+":"); err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("error %v, want %q", err, want)
			}
		})
	}
}

// TestFeatureClash: a feature named as one the lists hold is refused,
// whether a dense group of a Moses or Marian list or a sparse feature.
func TestFeatureClash(t *testing.T) {
	w := testfile.Writer(t, t.TempDir())
	scores := w("sc", "1\n2\n")
	for _, tc := range []struct{ name, list, feature, err string }{
		{"dense group", "0 ||| a ||| d= 1 lm= 2\n0 ||| b ||| d= 2 lm= 3\n", "lm", "has a feature lm already (its dense features: d (1), lm (1))"},
		{"dense group, zero", "0 ||| a ||| d= 1 lm= 0\n0 ||| b ||| d= 2 lm= 0\n", "lm", "has a feature lm already"},
		{"marian", "0 ||| a ||| F0= -1 Score= -2 ||| -1\n0 ||| b ||| F0= -2 Score= -1 ||| -2\n", "Score", "has a feature Score already"},
		{"sparse", "0 ||| a ||| lm=1 x=2\n0 ||| b ||| lm=2\n", "lm", "nb:1: the hypothesis has a feature lm already"},
		{"dense component as sparse", "0 ||| a ||| d= 1 rev_0= 2\n0 ||| b ||| d= 2\n", "rev", "nb:1: the hypothesis has a feature rev already"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb := w("nb", tc.list)
			_, _, err := walkAll(t, []string{nb}, Options{Features: []FeatureFile{{tc.feature, []string{scores}}}}, feature.NewIndex())
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
		})
	}
}

// TestFeatureFilesFormats adds a feature to the lists of neural systems:
// one value a line follows fairseq's H- lines and Sockeye's hypotheses in
// file order; "id ||| index" names them by sentence and rank. Several
// n-best files take one score file each, and a hypothesis two files share
// keeps the first copy's value.
func TestFeatureFilesFormats(t *testing.T) {
	w := testfile.Writer(t, t.TempDir())
	for _, tc := range formatLists {
		t.Run(tc.format.String(), func(t *testing.T) {
			nb := w(tc.format.String(), tc.list)
			// One a line in file order: fairseq's sentence 1 comes first.
			// Indexed: ids are sentences, from 0 whatever the list's
			// first id (Marian's and Sockeye's 1).
			plainWant := "[[0.1 0.2] [0.3]]"
			if tc.format == nbest.FormatFairseq {
				plainWant = "[[0.2 0.3] [0.1]]"
			}
			for _, c := range []struct{ text, want string }{
				{"0.1\n0.2\n0.3\n", plainWant},
				{"1 ||| 0 ||| 0.3\n0 ||| 1 ||| 0.2\n0 ||| 0 ||| 0.1\n", "[[0.1 0.2] [0.3]]"},
			} {
				idx := feature.NewIndex()
				lists, _, err := walkAll(t, []string{nb}, Options{Features: []FeatureFile{{"qe", []string{w("qe", c.text)}}}}, idx)
				if err != nil {
					t.Fatal(err)
				}
				if got := featureValues(t, lists, idx, "qe"); fmt.Sprint(got) != c.want {
					t.Errorf("%q: %v, want %v", c.text, got, c.want)
				}
			}
		})
	}
	// Two Moses files, the second repeating sentence 0's "b".
	nb1 := w("nb1", "0 ||| a ||| d= 1\n0 ||| b ||| d= 2\n1 ||| c ||| d= 1\n")
	nb2 := w("nb2", "0 ||| x ||| d= 5\n0 ||| b ||| d= 2\n1 ||| y ||| d= 2\n")
	idx := feature.NewIndex()
	lists, _, err := walkAll(t, []string{nb1, nb2}, Options{Features: []FeatureFile{{"qe", []string{w("qe1", "1\n2\n3\n"), w("qe2", "4\n2\n6\n")}}}}, idx)
	if err != nil {
		t.Fatal(err)
	}
	if got := featureValues(t, lists, idx, "qe"); fmt.Sprint(got) != "[[1 2 4] [3 6]]" {
		t.Errorf("pooled: %v", got)
	}
	// The same "b" with another value is another hypothesis.
	lists, _, err = walkAll(t, []string{nb1, nb2}, Options{Features: []FeatureFile{{"qe", []string{w("qe1", "1\n2\n3\n"), w("qe2", "4\n9\n6\n")}}}}, idx)
	if err != nil {
		t.Fatal(err)
	}
	if got := featureValues(t, lists, idx, "qe"); fmt.Sprint(got) != "[[1 2 4 9] [3 6]]" {
		t.Errorf("pooled, b's values differing: %v", got)
	}
}

// TestFeatureTuningAndExtract: the added feature starts at 0 without
// --init (the lists' own at 1/N) and at the init file's weight with one,
// and Extract writes it into FEATURES_TXT as a dense feature.
func TestFeatureTuningAndExtract(t *testing.T) {
	ctx := context.Background()
	w := testfile.Writer(t, t.TempDir())
	sc := loadScorer(t, w("ref", "a b\nc d\n"))
	nb := w("nb", "0 ||| a b ||| LM0= -1 TM0= 0 -2 ||| 0\n0 ||| a x ||| LM0= -3 TM0= 0 -1 ||| 0\n1 ||| c d ||| LM0= -2 TM0= -1 0 ||| 0\n")
	opts := Options{Features: []FeatureFile{{"rev", []string{w("rev", "-0.5\n-2\n-1\n")}}}}
	for _, tc := range []struct {
		init string
		want map[string]float64
	}{
		{"", map[string]float64{"LM0_0": 1.0 / 3, "TM0_1": 1.0 / 3, "rev_0": 0}},
		{w("init", "LM0= 0.5\nTM0= 0.25 -0.25\nrev= 2\n"), map[string]float64{"LM0_0": 0.5, "rev_0": 2}},
	} {
		got, err := LoadTuning(ctx, []string{nb}, tc.init, sc, opts)
		if err != nil {
			t.Fatal(err)
		}
		if want := []feature.Group{{Label: "LM0", Len: 1}, {Label: "TM0", Len: 2}, {Label: "rev", Len: 1}}; !slices.Equal(got.Set.Groups, want) {
			t.Errorf("init %q: groups %v, want %v", tc.init, got.Set.Groups, want)
		}
		for name, want := range tc.want {
			if x := got.Weights.At(got.Index.ID(name)); x != want {
				t.Errorf("init %q: %s = %v, want %v", tc.init, name, x, want)
			}
		}
		if x := got.Lists[0].Hyps[1].Features.At(got.Index.ID("rev_0")); x != -2 {
			t.Errorf("rev of sentence 0's second hypothesis: %v", x)
		}
	}
	feat, scores := w("features.dat", ""), w("scores.dat", "")
	if _, err := Extract(ctx, []string{nb}, sc, feat, scores, opts); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(feat)
	if s := string(b); err != nil || !strings.HasPrefix(s, "FEATURES_TXT_BEGIN_0 0 2 4 LM0_0 TM0_0 TM0_1 rev_0 \n-1 0 -2 -0.5 \n-3 0 -1 -2 \n") {
		t.Errorf("features.dat:\n%s", s)
	}
}

// FuzzFeatureFile adds a feature from arbitrary score file text to
// externalNbest's five hypotheses: no panic; an error names the score
// file; without one every hypothesis holds the value parseScores reads.
func FuzzFeatureFile(f *testing.F) {
	for _, s := range []string{"0.5\n-1.25\n3\n0\n1e-3\n", "0 ||| 0 ||| 0.5\n0 ||| 1 ||| -1.25\n2 ||| 0 ||| 3\n2 ||| 1 ||| 0\n2 ||| 2 ||| 1\n",
		"", "\xff\n", "1\n2\n3\n4\nNaN\n", "0|||0|||1\n2 ||| 9 ||| 1\n"} {
		f.Add(s)
	}
	dir := f.TempDir()
	nb := filepath.Join(dir, "nb")
	if err := os.WriteFile(nb, []byte(externalNbest), 0o666); err != nil {
		f.Fatal(err)
	}
	hyps := []nbestLine{{0, 0, 1}, {0, 1, 2}, {2, 0, 4}, {2, 1, 5}, {2, 2, 6}}
	f.Fuzz(func(t *testing.T, text string) {
		sc := filepath.Join(t.TempDir(), "sc")
		if err := os.WriteFile(sc, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
		idx := feature.NewIndex()
		lists, _, err := walkAll(t, []string{nb}, Options{Features: []FeatureFile{{"qe", []string{sc}}}}, idx)
		want, perr := parseScores(strings.NewReader(text), sc, nb, hyps)
		if (err == nil) != (perr == nil) {
			t.Fatalf("Walk: %v; parseScores: %v", err, perr)
		}
		if err != nil {
			if !strings.Contains(err.Error(), sc) {
				t.Fatalf("error without the score file: %v", err)
			}
			return
		}
		var got []float64
		for _, xs := range featureValues(t, lists, idx, "qe") {
			got = append(got, xs...)
		}
		if !slices.Equal(got, want) || slices.ContainsFunc(got, func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }) {
			t.Fatalf("values %v, want %v", got, want)
		}
	})
}

// TestFeatureExternalScorer: an added feature and external scores read
// the same n-best file, each through its own file.
func TestFeatureExternalScorer(t *testing.T) {
	ctx := context.Background()
	w := testfile.Writer(t, t.TempDir())
	nb := w("nb", externalNbest)
	sc, err := ExternalScorer(ctx, []string{nb}, []string{w("comet", "0.1\n0.2\n0.3\n0.4\n0.5\n")}, nbest.FormatAuto, metric.External{})
	if err != nil {
		t.Fatal(err)
	}
	idx := feature.NewIndex()
	lists, _, err := Load(ctx, []string{nb}, idx, sc, Options{Features: []FeatureFile{{"rev", []string{w("rev", "5\n4\n3\n2\n1\n")}}}})
	if err != nil {
		t.Fatal(err)
	}
	rev := idx.ID("rev_0")
	var got []string
	for _, l := range lists {
		for _, h := range l.Hyps {
			got = append(got, fmt.Sprintf("%v/%v", h.Features.At(rev), h.StatsValues()[0]))
		}
	}
	if want := "[5/0.1 4/0.2 3/0.3 2/0.4 1/0.5]"; fmt.Sprint(got) != want {
		t.Errorf("rev/external: %v, want %s", got, want)
	}
}
