package model

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/testsupport/shared"
)

func TestLoadConfigMosesModels(t *testing.T) {
	type feat struct {
		typ, name string
		n         int
		file      string // base name of path=, "" for none
		weights   []float64
	}
	tests := []struct {
		name, dir, env string
		feats          []feat
		distortion     int
		early, seg     bool
		nbest          string
		nbestSize      int
	}{
		{
			name: "early-distortion", dir: "early-distortion-de-en", env: "TEST_PATH",
			feats: []feat{
				{"KENLM", "KENLM0", 1, "mini.irstlm.en.3g.lm", []float64{0.5}},
				{"Distortion", "Distortion0", 1, "", []float64{0.05}},
				{"WordPenalty", "WordPenalty0", 1, "", []float64{-1}},
				{"UnknownWordPenalty", "UnknownWordPenalty0", 1, "", []float64{1}},
				{"PhraseDictionaryMemory", "PhraseDictionaryMemory0", 5, "phrase-table.gz", []float64{0.2, 0.2, 0.2, 0.2, 0.2}},
			},
			distortion: 6, early: true, seg: true, nbest: "nbest", nbestSize: 50,
		},
		{
			name: "lexicalized-reordering", dir: "lexicalized-reordering-fr-en", env: "MODEL_PATH",
			feats: []feat{
				{"KENLM", "KENLM0", 1, "europarl.lm.gz", []float64{0.5}},
				{"Distortion", "Distortion0", 1, "", []float64{0.5}},
				{"LexicalReordering", "LexicalReordering0", 6, "reordering-table.msd-bidirectional-fe.0.5.0-0.gz", []float64{0.3, 0.3, 0.3, 0.3, 0.3, 0.3}},
				{"WordPenalty", "WordPenalty0", 1, "", []float64{-1}},
				{"UnknownWordPenalty", "UnknownWordPenalty0", 1, "", []float64{1}},
				{"PhraseDictionaryMemory", "PhraseDictionaryMemory0", 5, "phrase-table.0-0.gz", []float64{0.2, 0.2, 0.2, 0.2, 0.2}},
			},
			distortion: 6,
		},
		{
			name: "europarl-8k", dir: "europarl-fr-en-8k", env: "MODEL_PATH",
			feats: []feat{
				{"UnknownWordPenalty", "UnknownWordPenalty0", 1, "", []float64{1}},
				{"WordPenalty", "WordPenalty0", 1, "", []float64{-1}},
				{"PhrasePenalty", "PhrasePenalty0", 1, "", []float64{0.2}},
				{"PhraseDictionaryMemory", "TranslationModel0", 4, "phrase-table.gz", []float64{0.2, 0.2, 0.2, 0.2}},
				{"LexicalReordering", "LexicalReordering0", 6, "reordering-table.wbe-msd-bidirectional-fe.gz", []float64{0.3, 0.3, 0.3, 0.3, 0.3, 0.3}},
				{"Distortion", "Distortion0", 1, "", []float64{0.3}},
				{"KENLM", "LM0", 1, "lm.en.5.arpa.gz", []float64{0.5}},
			},
			distortion: 6,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := shared.Path(t, "moses-models", tc.dir)
			t.Setenv(tc.env, dir)
			c, err := LoadConfig(context.Background(), filepath.Join(dir, "moses.ini"), ConfigOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Features) != len(tc.feats) {
				t.Fatalf("%d features, want %d", len(c.Features), len(tc.feats))
			}
			for i, want := range tc.feats {
				f := c.Features[i]
				if f.Type != want.typ || f.Name != want.name || f.NumFeatures != want.n {
					t.Errorf("feature %d = %s %s %d, want %s %s %d", i, f.Type, f.Name, f.NumFeatures, want.typ, want.name, want.n)
				}
				if want.file != "" {
					if f.Path() != filepath.Join(dir, want.file) {
						t.Errorf("%s path %q, want %q", f.Name, f.Path(), filepath.Join(dir, want.file))
					}
					if _, err := os.Stat(f.Path()); err != nil {
						t.Error(err)
					}
				}
				if got := c.FeatureWeights(f.Name); !reflect.DeepEqual(got, want.weights) {
					t.Errorf("%s weights %v, want %v", f.Name, got, want.weights)
				}
				if !f.Tuneable() {
					t.Errorf("%s not tuneable", f.Name)
				}
			}
			if c.DistortionLimit != tc.distortion || c.EarlyDistortionCost != tc.early || c.IncludeSegmentation != tc.seg ||
				c.NBestFile != tc.nbest || c.NBestSize != tc.nbestSize {
				t.Errorf("settings: distortion %d early %v seg %v nbest %q %d", c.DistortionLimit, c.EarlyDistortionCost,
					c.IncludeSegmentation, c.NBestFile, c.NBestSize)
			}
			if c.StackSize != DefaultStackSize || c.BeamThreshold != DefaultBeamThreshold || c.MaxPhraseLength != DefaultMaxPhraseLength {
				t.Errorf("defaults: stack %d beam %v max phrase %d", c.StackSize, c.BeamThreshold, c.MaxPhraseLength)
			}
			for _, pt := range c.FeaturesOfType(TypePhraseDictionaryMemory) {
				if pt.TableLimit() != 20 {
					t.Errorf("table limit %d", pt.TableLimit())
				}
			}
			for _, lr := range c.FeaturesOfType(TypeLexicalReordering) {
				rt, err := lr.ReorderingType()
				if err != nil || rt.Model != MSD || rt.Direction != Bidirectional || rt.Condition != ConditionFE || rt.NumScores() != 6 {
					t.Errorf("reordering type %+v, %v", rt, err)
				}
			}
			checkConfigRoundTrip(t, c)
		})
	}
}

// checkConfigRoundTrip writes c, reads it back and compares.
func checkConfigRoundTrip(t *testing.T, c *Config) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteConfig(&buf, c); err != nil {
		t.Fatalf("WriteConfig: %v", err)
	}
	c2, err := ReadConfig(bytes.NewReader(buf.Bytes()), c.File, ConfigOptions{Getenv: noEnv})
	if err != nil {
		t.Fatalf("reading back: %v\n%s", err, buf.String())
	}
	if msg := configDiff(c, c2); msg != "" {
		t.Fatalf("round trip: %s\n%s", msg, buf.String())
	}
}

func noEnv(string) (string, bool) { return "", false }

// configDiff compares what WriteConfig writes.
func configDiff(a, b *Config) string {
	strip := func(fs []Feature) []Feature {
		out := make([]Feature, len(fs))
		for i, f := range fs {
			f.Line = 0
			out[i] = f
		}
		return out
	}
	if !reflect.DeepEqual(strip(a.Features), strip(b.Features)) {
		return "features differ"
	}
	if a.DistortionLimit != b.DistortionLimit || a.EarlyDistortionCost != b.EarlyDistortionCost || a.MaxPhraseLength != b.MaxPhraseLength ||
		a.StackSize != b.StackSize || a.BeamThreshold != b.BeamThreshold || a.NBestFile != b.NBestFile || a.NBestSize != b.NBestSize ||
		a.NBestDistinct != b.NBestDistinct || a.IncludeSegmentation != b.IncludeSegmentation || a.IncludeAlignment != b.IncludeAlignment ||
		a.WeightFile != b.WeightFile || a.SearchAlgorithm != b.SearchAlgorithm || a.CubePruningPopLimit != b.CubePruningPopLimit ||
		a.CubePruningDiversity != b.CubePruningDiversity {
		return "settings differ"
	}
	if !reflect.DeepEqual(a.Weights.Groups, b.Weights.Groups) {
		return "weight groups differ"
	}
	for _, name := range feature.GroupNames(a.Weights.Groups) {
		if a.Weights.Value(name) != b.Weights.Value(name) {
			return "weight " + name + " differs"
		}
	}
	return ""
}

func TestReadConfig(t *testing.T) {
	env := map[string]string{"MODEL_PATH": "/models/m1", "X": "x"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	const head = "[feature]\n"
	tests := []struct {
		name  string
		in    string
		check func(t *testing.T, c *Config)
	}{
		{"naming counter per type", head + "KENLM path=/a.lm\nKENLM name=LM path=/b.lm\nKENLM path=/c.lm\nDistortion\nDistortion\n[weight]\nKENLM0= 1\nLM= 2\nKENLM1= 3\nDistortion0= 4\nDistortion1= 5\n",
			func(t *testing.T, c *Config) {
				var names []string
				for _, f := range c.Features {
					names = append(names, f.Name)
				}
				want := []string{"KENLM0", "LM", "KENLM1", "Distortion0", "Distortion1"}
				if !reflect.DeepEqual(names, want) {
					t.Errorf("names %v, want %v", names, want)
				}
				if w := c.FeatureWeights("KENLM1"); w[0] != 3 {
					t.Errorf("KENLM1 weight %v", w)
				}
			}},
		{"env and relative paths", head + "PhraseDictionaryMemory num-features=2 path=${MODEL_PATH}/pt.gz\nLexicalReordering type=msd-fe path=${X}/r.gz\n[weight]\nPhraseDictionaryMemory0= 1 1\nLexicalReordering0= 1 1 1\n[weight-file]\nsparse.w\n",
			func(t *testing.T, c *Config) {
				if got := c.Features[0].Path(); got != "/models/m1/pt.gz" {
					t.Errorf("path %q", got)
				}
				if wd, _ := os.Getwd(); c.Features[1].Path() != filepath.Join(wd, "x", "r.gz") {
					t.Errorf("relative variable path %q, want it against the working directory", c.Features[1].Path())
				}
				if c.Features[1].NumFeatures != 3 {
					t.Errorf("msd-fe num features %d", c.Features[1].NumFeatures)
				}
				if c.WeightFile != "/ini/dir/sparse.w" {
					t.Errorf("weight file %q", c.WeightFile)
				}
			}},
		{"settings", "# comment\n[distortion-limit]\n-1 # unlimited\n[stack]\n100\n[beam-threshold]\n0.001\n[max-phrase-length]\n7\n[early-distortion-cost]\n[n-best-list]\nout.nbest\n100\ndistinct\n[print-alignment-info-in-n-best]\ntrue\n" +
			head + "WordPenalty tuneable=false\n[weight]\nWordPenalty0= -1\n",
			func(t *testing.T, c *Config) {
				if c.DistortionLimit != -1 || c.StackSize != 100 || c.BeamThreshold != 0.001 || c.MaxPhraseLength != 7 || !c.EarlyDistortionCost ||
					c.NBestFile != "out.nbest" || c.NBestSize != 100 || !c.NBestDistinct || !c.IncludeAlignment || c.IncludeSegmentation {
					t.Errorf("settings %+v", c)
				}
				if c.Features[0].Tuneable() {
					t.Error("tuneable=false ignored")
				}
			}},
		{"cube pruning", "[search-algorithm]\n1\n[cube-pruning-pop-limit]\n200 # pops per stack\n[cube-pruning-diversity]\n5\n" +
			head + "WordPenalty\n[weight]\nWordPenalty0= -1\n",
			func(t *testing.T, c *Config) {
				if c.SearchAlgorithm != SearchCubePruning || c.CubePruningPopLimit != 200 || c.CubePruningDiversity != 5 {
					t.Errorf("search %d pop limit %d diversity %d", c.SearchAlgorithm, c.CubePruningPopLimit, c.CubePruningDiversity)
				}
			}},
		{"search defaults", "[search-algorithm]\n0\n" + head + "WordPenalty\n[weight]\nWordPenalty0= -1\n",
			func(t *testing.T, c *Config) {
				if c.SearchAlgorithm != SearchNormal || c.CubePruningPopLimit != 1000 || c.CubePruningDiversity != 0 {
					t.Errorf("search %d pop limit %d diversity %d, want Moses' 0 1000 0", c.SearchAlgorithm, c.CubePruningPopLimit, c.CubePruningDiversity)
				}
			}},
		{"repeated section continues", head + "WordPenalty\n[weight]\nWordPenalty0= -1\n[feature]\nDistortion\n[weight]\nDistortion0= 0.3\n",
			func(t *testing.T, c *Config) {
				if len(c.Features) != 2 || c.FeatureWeights("Distortion0")[0] != 0.3 {
					t.Errorf("features %v", c.Features)
				}
			}},
		{"missing weights get Moses' default 1", head + "WordPenalty\nUnknownWordPenalty\nPhrasePenalty\n[weight]\nWordPenalty0= -1\n",
			func(t *testing.T, c *Config) {
				if w := c.FeatureWeights("UnknownWordPenalty0"); w[0] != 1 {
					t.Errorf("UnknownWordPenalty0 %v", w)
				}
				if w := c.FeatureWeights("PhrasePenalty0"); w[0] != 1 {
					t.Errorf("PhrasePenalty0 %v", w)
				}
				if len(c.Weights.Groups) != 3 {
					t.Errorf("groups %v", c.Weights.Groups)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ReadConfig(strings.NewReader(tc.in), "/ini/dir/moses.ini", ConfigOptions{Getenv: getenv})
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
			checkConfigRoundTrip(t, c)
		})
	}
}

func TestReadConfigErrors(t *testing.T) {
	const head = "[feature]\n"
	tests := []struct {
		name string
		in   string
		kind error
		line int
		msg  string // in the error text
	}{
		{"unset variable", head + "KENLM path=${NOPE_UNSET}/lm\n[weight]\nKENLM0= 1\n", ErrConfig, 2, "NOPE_UNSET"},
		{"unclosed variable", head + "KENLM path=${A/lm\n[weight]\nKENLM0= 1\n", ErrSyntax, 2, "unclosed"},
		{"unknown features listed", head + "KENLM path=/lm\nPhraseDictionaryCompact path=/x num-features=4\nOpSequenceModel path=/y\n[weight]\nKENLM0= 1\n", ErrUnsupported, 3,
			"PhraseDictionaryCompact (line 3), OpSequenceModel (line 4)"},
		{"unknown section", "[threads]\n4\n" + head + "WordPenalty\n[weight]\nWordPenalty0= 1\n", ErrUnsupported, 1, "[threads]"},
		{"unknown argument", head + "KENLM path=/lm foo=1\n[weight]\nKENLM0= 1\n", ErrUnsupported, 2, "foo=1"},
		{"factor 1", head + "PhraseDictionaryMemory path=/p input-factor=1\n[weight]\nPhraseDictionaryMemory0= 1\n", ErrUnsupported, 2, "factor"},
		{"duplicate key", head + "KENLM path=/a path=/b\n[weight]\nKENLM0= 1\n", ErrSyntax, 2, "duplicate"},
		{"not key=value", head + "KENLM path\n", ErrSyntax, 2, "key=value"},
		{"duplicate name", head + "KENLM name=A path=/a\nDistortion name=A\n", ErrConfig, 3, "A"},
		{"no path", head + "KENLM order=3\n[weight]\nKENLM0= 1\n", ErrConfig, 2, "path"},
		{"weights too short", head + "PhraseDictionaryMemory path=/p num-features=4\n[weight]\nPhraseDictionaryMemory0= 1 1\n", ErrConfig, 3, "2 weights"},
		{"stray weights", head + "WordPenalty\n[weight]\nWordPenalty0= 1\nLM0= 0.5\n", ErrConfig, 3, "LM0"},
		{"no weight section", head + "WordPenalty\n", ErrConfig, 0, "[weight]"},
		{"bad weight", head + "WordPenalty\n[weight]\nWordPenalty0= nan\n", weights.ErrNumber, 4, "nan"},
		{"bad weight is model's ErrNumber too", head + "WordPenalty\n[weight]\nWordPenalty0= nan\n", ErrNumber, 4, "nan"},
		{"lr num-features mismatch", head + "LexicalReordering type=msd-bidirectional-fe path=/r num-features=3\n[weight]\nLexicalReordering0= 1 1 1\n", ErrConfig, 2, "num-features=3"},
		{"lr hierarchical", head + "LexicalReordering type=hier-mslr-bidirectional-fe path=/r\n", ErrUnsupported, 2, "hier"},
		{"lr no condition", head + "LexicalReordering type=msd-bidirectional path=/r\n", ErrConfig, 2, "condition"},
		{"lr default scores count", head + "LexicalReordering type=msd-fe path=/r default-scores=0.5,0.5\n", ErrConfig, 2, "default-scores"},
		{"distortion-limit not int", "[distortion-limit]\nsix\n" + head + "WordPenalty\n[weight]\nWordPenalty0= 1\n", ErrNumber, 2, "six"},
		{"two distortion limits", "[distortion-limit]\n6\n7\n" + head + "WordPenalty\n[weight]\nWordPenalty0= 1\n", ErrSyntax, 3, "2 values"},
		{"chart search algorithm", "[search-algorithm]\n3\n" + head + "WordPenalty\n[weight]\nWordPenalty0= 1\n", ErrUnsupported, 2, "[search-algorithm] 3 (Moses' CYK+ chart decoding)"},
		{"search algorithm after the weights", "[feature]\nWordPenalty\n[weight]\nWordPenalty0= 1\n\n[search-algorithm]\n42\n", ErrUnsupported, 7, "42 (unknown to Moses)"},
		{"negative search algorithm", "[search-algorithm]\n-1\n", ErrUnsupported, 2, "mtune has 0 (normal stack search) and 1 (cube pruning)"},
		{"search algorithm by name", "[search-algorithm]\ncube\n", ErrNumber, 2, `"cube"`},
		{"search algorithm empty", "[search-algorithm]\n[stack]\n100\n", ErrSyntax, 1, "[search-algorithm] has no value"},
		{"two search algorithms", "[search-algorithm]\n0\n1\n", ErrSyntax, 3, "2 values"},
		{"pop limit 0", "[cube-pruning-pop-limit]\n0\n", ErrNumber, 2, "[cube-pruning-pop-limit] value \"0\" is not an integer ≥ 1"},
		{"pop limit float", "[cube-pruning-pop-limit]\n1e3\n", ErrNumber, 2, "1e3"},
		{"negative diversity", "[cube-pruning-diversity]\n-2\n", ErrNumber, 2, "is not an integer ≥ 0"},
		{"bad bool", "[early-distortion-cost]\nmaybe\n" + head + "WordPenalty\n[weight]\nWordPenalty0= 1\n", ErrSyntax, 2, "maybe"},
		{"bad n-best", "[n-best-list]\nout\n0\n" + head + "WordPenalty\n[weight]\nWordPenalty0= 1\n", ErrNumber, 2, ""},
		{"mapping two steps", "[mapping]\n0 T 0\n0 G 0\n" + head + "WordPenalty\n[weight]\nWordPenalty0= 1\n", ErrUnsupported, 3, ""},
		{"input factor 1", "[input-factors]\n0\n1\n", ErrUnsupported, 3, ""},
		{"value before section", "6\n[distortion-limit]\n", ErrSyntax, 1, ""},
		{"bad header", "[feature\n", ErrSyntax, 1, ""},
		{"invalid utf-8", head + "KENLM path=/\xff\n", ErrUTF8, 2, ""},
		{"wp two features", head + "WordPenalty num-features=2\n[weight]\nWordPenalty0= 1 1\n", ErrConfig, 2, "num-features=2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadConfig(strings.NewReader(tc.in), "m.ini", ConfigOptions{Getenv: noEnv})
			if err == nil {
				t.Fatal("no error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%v is not a *ParseError", err)
			}
			if !errors.Is(err, tc.kind) {
				t.Errorf("%v is not %v", err, tc.kind)
			}
			if pe.Line != tc.line || pe.File != "m.ini" {
				t.Errorf("%v: at %s:%d, want m.ini:%d", err, pe.File, pe.Line, tc.line)
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "model: ") {
				t.Errorf("%q does not say %q", err, tc.msg)
			}
		})
	}
}

func TestWriteConfigBuilt(t *testing.T) {
	c := NewConfig()
	c.DistortionLimit = 6
	c.Features = []Feature{
		{Type: TypeUnknownWordPenalty, Name: "UnknownWordPenalty0", NumFeatures: 1},
		{Type: TypePhraseDictionaryMemory, Name: "TranslationModel0", NumFeatures: 4, Args: []Arg{{"path", "/m/phrase-table.gz"}, {"input-factor", "0"}, {"output-factor", "0"}}},
		{Type: TypeKENLM, Name: "LM0", NumFeatures: 1, Args: []Arg{{"factor", "0"}, {"path", "/m/lm.gz"}, {"order", "5"}}},
		{Type: TypeKENLM, Name: "KENLM0", NumFeatures: 1, Args: []Arg{{"path", "/m/lm2.gz"}}},
	}
	for _, f := range c.Features {
		c.Weights.Groups = append(c.Weights.Groups, feature.Group{Label: f.Name, Len: f.NumFeatures})
		for i := range f.NumFeatures {
			c.Weights.SetValue(feature.DenseName(f.Name, i), 0.25)
		}
	}
	var buf bytes.Buffer
	if err := WriteConfig(&buf, c); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"\nUnknownWordPenalty\n",
		"\nPhraseDictionaryMemory name=TranslationModel0 num-features=4 path=/m/phrase-table.gz input-factor=0 output-factor=0\n",
		"\nKENLM name=LM0 factor=0 path=/m/lm.gz order=5\n",
		"\nKENLM path=/m/lm2.gz\n",
		"[distortion-limit]\n6\n",
		"TranslationModel0= 0.25 0.25 0.25 0.25\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	checkConfigRoundTrip(t, c)

	bad := *c
	bad.Features = append([]Feature(nil), c.Features...)
	bad.Features[2].Args = append([]Arg{{"path", "has space"}}, bad.Features[2].Args[1:]...)
	if err := WriteConfig(&buf, &bad); err == nil {
		t.Error("path with a space written")
	}
	bad = *c
	bad.StackSize = 0
	if err := WriteConfig(&buf, &bad); err == nil {
		t.Error("stack 0 written")
	}
	for _, edit := range []func(*Config){
		func(c *Config) { c.SearchAlgorithm = 3 },
		func(c *Config) { c.CubePruningPopLimit = 0 },
		func(c *Config) { c.CubePruningDiversity = -1 },
	} {
		bad = *c
		edit(&bad)
		if err := WriteConfig(&buf, &bad); err == nil {
			t.Errorf("search settings %d %d %d written", bad.SearchAlgorithm, bad.CubePruningPopLimit, bad.CubePruningDiversity)
		}
	}
	cube := *c
	cube.SearchAlgorithm, cube.CubePruningPopLimit, cube.CubePruningDiversity = SearchCubePruning, 200, 3
	buf.Reset()
	if err := WriteConfig(&buf, &cube); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[search-algorithm]\n1\n", "[cube-pruning-pop-limit]\n200\n", "[cube-pruning-diversity]\n3\n"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, buf.String())
		}
	}
	if strings.Contains(out, "search-algorithm") || strings.Contains(out, "cube-pruning") {
		t.Errorf("Moses' default search settings written:\n%s", out)
	}
	checkConfigRoundTrip(t, &cube)
}

func TestResolveConfigPath(t *testing.T) {
	const ini, wd = "/ini/dir", "/work/wd"
	tests := []struct {
		name, iniDir, raw, expanded, want string
		err                               string // in the error; "" for none
	}{
		{"literal relative: the ini's folder", ini, "pt.gz", "pt.gz", "/ini/dir/pt.gz", ""},
		{"literal relative with ..", ini, "../lm/lm.gz", "../lm/lm.gz", "/ini/lm/lm.gz", ""},
		{"literal relative, local .. above the root kept as filepath.Join does", ini, "../../../x", "../../../x", "/x", ""},
		{"variable relative: the working directory", ini, "${MODEL_PATH}/pt.gz", "models/m1/pt.gz", "/work/wd/models/m1/pt.gz", ""},
		{"variable with ..: the working directory", ini, "${MODEL_PATH}/pt.gz", "../shared/m/pt.gz", "/work/shared/m/pt.gz", ""},
		{"variable alone", ini, "${PT}", "pt.gz", "/work/wd/pt.gz", ""},
		{"variable absolute", ini, "${MODEL_PATH}/pt.gz", "/models/m1/pt.gz", "/models/m1/pt.gz", ""},
		{"variable gs://", ini, "${MODEL_PATH}/pt.gz", "gs://b/m1/pt.gz", "gs://b/m1/pt.gz", ""},
		{"variable after a literal part: the ini's folder", ini, "models/${M}/pt.gz", "models/m1/pt.gz", "/ini/dir/models/m1/pt.gz", ""},
		{"literal absolute", ini, "/abs/pt.gz", "/abs/pt.gz", "/abs/pt.gz", ""},
		{"literal relative, gs:// ini", "gs://b/m", "pt.gz", "pt.gz", "gs://b/m/pt.gz", ""},
		{"gs:// ini, .. within the bucket", "gs://b/m/v1", "../lm.gz", "../lm.gz", "gs://b/m/lm.gz", ""},
		{"gs:// ini, .. to the bucket's root", "gs://b/m", "../lm.gz", "../lm.gz", "gs://b/lm.gz", ""},
		{"gs:// ini, .. out of the bucket", "gs://b/m", "../../other/pt.gz", "../../other/pt.gz", "", "../../other/pt.gz"},
		{"gs:// ini, .. far out of the bucket", "gs://b/m", "../../../../etc/passwd", "../../../../etc/passwd", "", "../../../../etc/passwd"},
		{"variable relative, gs:// ini: still the working directory", "gs://b/m", "${M}/pt.gz", "m1/pt.gz", "/work/wd/m1/pt.gz", ""},
		{"empty", ini, "", "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolveConfigPath(tc.iniDir, wd, tc.raw, tc.expanded)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("resolveConfigPath(%q, %q, %q, %q) = %q, %v; want an error naming %s", tc.iniDir, wd, tc.raw, tc.expanded, got, err, tc.err)
			case tc.err == "" && (err != nil || got != tc.want):
				t.Errorf("resolveConfigPath(%q, %q, %q, %q) = %q, %v; want %q", tc.iniDir, wd, tc.raw, tc.expanded, got, err, tc.want)
			}
		})
	}
}

// TestReadConfigGCSClimbsOut reads a gs:// moses.ini whose relative paths
// use "..": within the bucket they resolve, out of it they are an error
// naming the ini, the line and the path.
func TestReadConfigGCSClimbsOut(t *testing.T) {
	tests := []struct {
		name, path string
		want       string // resolved path= ; "" for an error
	}{
		{"within the bucket", "../lm/lm.arpa", "gs://b/lm/lm.arpa"},
		{"into another bucket", "../../other/lm.arpa", ""},
		{"above every bucket", "../../../../etc/passwd", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := "[feature]\nKENLM path=" + tc.path + " order=3\n[weight]\nKENLM0= 1\n"
			c, err := ReadConfig(strings.NewReader(in), "gs://b/m/moses.ini", ConfigOptions{Getenv: noEnv})
			if tc.want != "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := c.Features[0].Path(); got != tc.want {
					t.Fatalf("path %s, want %s", got, tc.want)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), "gs://b/m/moses.ini") {
				t.Fatalf("error %v (path %v), want one at gs://b/m/moses.ini line 2 naming %s", err, c, tc.path)
			}
		})
	}
}

// TestLoadConfigRelativeModelPath loads an ini from a temporary working
// directory with MODEL_PATH relative to it, as README's
// "MODEL_PATH=../shared/… mtune decode --config ../shared/…/moses.ini"
// does: the variable's paths must not be joined onto the ini's folder a
// second time, while a literal relative path stays relative to the ini.
func TestLoadConfigRelativeModelPath(t *testing.T) {
	wd := t.TempDir()
	t.Chdir(wd)
	model := filepath.Join("models", "m1")
	if err := os.MkdirAll(model, 0o755); err != nil {
		t.Fatal(err)
	}
	const ini = "[feature]\nKENLM path=${MODEL_PATH}/lm.arpa order=3\nPhraseDictionaryMemory num-features=1 path=pt.gz\n" +
		"[weight]\nKENLM0= 1\nPhraseDictionaryMemory0= 1\n[weight-file]\n${MODEL_PATH}/sparse.w\n"
	iniPath := filepath.Join(model, "moses.ini")
	if err := os.WriteFile(iniPath, []byte(ini), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MODEL_PATH", model)
	c, err := LoadConfig(context.Background(), iniPath, ConfigOptions{})
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(wd, model)
	for _, check := range []struct{ what, got, want string }{
		{"${MODEL_PATH}/lm.arpa", c.Features[0].Path(), filepath.Join(abs, "lm.arpa")},
		{"pt.gz", c.Features[1].Path(), filepath.Join(abs, "pt.gz")},
		{"[weight-file] ${MODEL_PATH}/sparse.w", c.WeightFile, filepath.Join(abs, "sparse.w")},
	} {
		if check.got != check.want {
			t.Errorf("%s resolved to %s, want %s", check.what, check.got, check.want)
		}
	}
}
