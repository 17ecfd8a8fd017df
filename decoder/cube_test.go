package decoder

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/decoder/model"
	"github.com/mtune/mtune/feature"
)

// exhaustive is a search without pruning: every hypothesis is kept, and
// cube pruning pops every hypothesis it can build.
func exhaustive(algo Algorithm, limit int) SearchOptions {
	return SearchOptions{StackSize: 1 << 20, BeamThreshold: -1, DistortionLimit: &limit,
		Algorithm: algo, CubePruningPopLimit: 1 << 30}
}

var cubeInputs = []string{"le chat noir dort", "noir le chat", "dort le chat noir", "chat le chien noir dort", "le chien dort", "dort", ""}

// checkHypothesis checks that h translates n source words, each once, into
// as many target words as its segments say, and that its score is its
// features times w.
func checkHypothesis(t *testing.T, what string, h *Hypothesis, n int, w feature.Weights) {
	t.Helper()
	checkScore(t, what, h, w)
	covered := make([]bool, n)
	words := 0
	for _, s := range h.Segments {
		for i := s.SrcStart; i <= s.SrcEnd; i++ {
			if covered[i] {
				t.Fatalf("%s %q: word %d covered twice", what, h.Target, i)
			}
			covered[i] = true
		}
		words += s.TgtEnd - s.TgtStart + 1
	}
	if i := slices.Index(covered, false); i >= 0 {
		t.Fatalf("%s %q: word %d not covered", what, h.Target, i)
	}
	if got := len(strings.Fields(h.Target)); got != words {
		t.Fatalf("%s %q: %d target words, segments say %d", what, h.Target, got, words)
	}
}

// checkNBest checks an n-best list: it starts with the 1-best, is sorted
// best first, has distinct targets and each entry is a valid translation.
func checkNBest(t *testing.T, what string, res *Result, n int, w feature.Weights) {
	t.Helper()
	if len(res.NBest) == 0 || res.NBest[0].Target != res.Best.Target || res.NBest[0].Score != res.Best.Score {
		t.Fatalf("%s: the n-best list (%d entries) does not start with the 1-best", what, len(res.NBest))
	}
	seen := map[string]bool{}
	for i := range res.NBest {
		h := &res.NBest[i]
		checkHypothesis(t, what, h, n, w)
		if seen[h.Target] {
			t.Errorf("%s: target %q twice in a distinct list", what, h.Target)
		}
		seen[h.Target] = true
		if i > 0 && h.Score > res.NBest[i-1].Score {
			t.Errorf("%s: entry %d scores %g, above entry %d (%g)", what, i, h.Score, i-1, res.NBest[i-1].Score)
		}
	}
}

// TestCubePruningExhaustive checks that cube pruning without any pruning
// (every hypothesis popped, no beam, unlimited stacks) finds what the
// stack search finds, and the best of all derivations: the same 1-best
// score and the same n-best list (targets and scores), under every
// distortion limit.
func TestCubePruningExhaustive(t *testing.T) {
	m := loadSmall(t, LoadOptions{})
	w := m.Weights()
	for _, in := range cubeInputs {
		for _, limit := range []int{0, 1, 2, 3, -1} {
			stack, err := Decode(context.Background(), m, in, DecodeOptions{NBest: 30, Search: exhaustive(StackSearch, limit)})
			if err != nil {
				t.Fatal(err)
			}
			cube, err := Decode(context.Background(), m, in, DecodeOptions{NBest: 30, Search: exhaustive(CubePruning, limit)})
			if err != nil {
				t.Fatal(err)
			}
			if cube.Best.Score != stack.Best.Score {
				t.Errorf("%q limit %d: cube pruning %q %.6f, stack search %q %.6f", in, limit, cube.Best.Target, cube.Best.Score,
					stack.Best.Target, stack.Best.Score)
			}
			// (The decoder scores an empty input 0, without </s>.)
			if want, target := bruteForce(t, m, strings.Fields(in), limit); in != "" && math.Abs(cube.Best.Score-want) > 1e-4 {
				t.Errorf("%q limit %d: cube pruning %q %.5f, exhaustive %q %.5f", in, limit, cube.Best.Target, cube.Best.Score, target, want)
			}
			checkNBest(t, "cube", &cube, len(strings.Fields(in)), w)
			if len(cube.NBest) != len(stack.NBest) {
				t.Fatalf("%q limit %d: %d-best with cube pruning, %d with the stack search", in, limit, len(cube.NBest), len(stack.NBest))
			}
			scores := map[string]float64{}
			for _, h := range stack.NBest {
				scores[h.Target] = h.Score
			}
			for i, h := range cube.NBest {
				if want, ok := scores[h.Target]; !ok || math.Abs(h.Score-want) > 1e-9 || math.Abs(h.Score-stack.NBest[i].Score) > 1e-9 {
					t.Errorf("%q limit %d: entry %d %q %.6f; the stack search has it %v at %.6f, entry %d at %.6f",
						in, limit, i, h.Target, h.Score, ok, want, i, stack.NBest[i].Score)
				}
			}
		}
	}
}

// TestCubePruningDefaults decodes the easy inputs with Moses' default
// settings (stack 200, beam 1e-5, pop limit 1000): the same 1-best as the
// stack search.
func TestCubePruningDefaults(t *testing.T) {
	m := loadSmall(t, LoadOptions{})
	cubeModel := loadSmall(t, LoadOptions{Search: SearchOptions{Algorithm: CubePruning}})
	if got := cubeModel.Search(); got.Algorithm != CubePruning || got.CubePruningPopLimit != 1000 || got.CubePruningDiversity != 0 {
		t.Fatalf("search settings %+v", got)
	}
	for _, in := range cubeInputs {
		stack, err := Decode(context.Background(), m, in, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cube, err := Decode(context.Background(), cubeModel, in, DecodeOptions{NBest: 10})
		if err != nil {
			t.Fatal(err)
		}
		if cube.Best.Target != stack.Best.Target || cube.Best.Score != stack.Best.Score {
			t.Errorf("%q: cube pruning %q %.6f, stack search %q %.6f", in, cube.Best.Target, cube.Best.Score, stack.Best.Target, stack.Best.Score)
		}
		checkNBest(t, in, &cube, len(strings.Fields(in)), cubeModel.Weights())
	}
}

// TestCubePruningPopLimitOne pops one hypothesis per stack: it still
// translates every input, no better than the exhaustive search, with one
// hypothesis stored per stack, and a diversity of 2 pops more.
func TestCubePruningPopLimitOne(t *testing.T) {
	m := loadSmall(t, LoadOptions{})
	w := m.Weights()
	for _, in := range cubeInputs {
		n := len(strings.Fields(in))
		for _, limit := range []int{0, 3, -1} {
			so := SearchOptions{Algorithm: CubePruning, CubePruningPopLimit: 1, DistortionLimit: &limit}
			res, err := Decode(context.Background(), m, in, DecodeOptions{NBest: 5, Search: so})
			if err != nil {
				t.Fatalf("%q limit %d: %v", in, limit, err)
			}
			checkHypothesis(t, "pop limit 1", &res.Best, n, w)
			checkNBest(t, "pop limit 1", &res, n, w)
			if res.Stats.Hypotheses > n+1 {
				t.Errorf("%q limit %d: %d hypotheses stored, want at most one a stack (%d)", in, limit, res.Stats.Hypotheses, n+1)
			}
			if want, _ := bruteForce(t, m, strings.Fields(in), limit); in != "" && res.Best.Score > want+1e-6 {
				t.Errorf("%q limit %d: %.5f above the best derivation's %.5f", in, limit, res.Best.Score, want)
			}
			so.CubePruningDiversity = 2
			div, err := Decode(context.Background(), m, in, DecodeOptions{NBest: 5, Search: so})
			if err != nil {
				t.Fatal(err)
			}
			checkNBest(t, "diversity 2", &div, n, w)
			if n >= 3 && div.Stats.Hypotheses <= res.Stats.Hypotheses {
				t.Errorf("%q limit %d: %d hypotheses with diversity 2, %d without", in, limit, div.Stats.Hypotheses, res.Stats.Hypotheses)
			}
		}
	}
}

// TestCubePruningRandom decodes random sentences with random settings,
// with every sparse template on and sparse weights: each translation and
// n-best entry is valid and scores its features times the weights, no
// better than the stack search without pruning; without pruning, cube
// pruning scores the same as the stack search.
func TestCubePruningRandom(t *testing.T) {
	all, _ := ParseTemplates("all")
	m := loadSmall(t, LoadOptions{Sparse: all, SparseWeightsFile: writeFile(t, "lb_s1 0.1\npp_le~the 0.2\nlo_fd_chat~cat -0.3\ntu_is 0.4\ncb_1 -0.1\n")})
	w := m.Weights()
	vocab := []string{"le", "chat", "noir", "dort", "chien", "la"}
	rng := rand.New(rand.NewPCG(7, 12))
	for trial := range 150 {
		words := make([]string, 1+rng.IntN(6))
		for i := range words {
			words[i] = vocab[rng.IntN(len(vocab))]
		}
		in := strings.Join(words, " ")
		limit := rng.IntN(5) - 1
		exact, err := Decode(context.Background(), m, in, DecodeOptions{Search: exhaustive(StackSearch, limit)})
		if err != nil {
			t.Fatal(err)
		}
		full, err := Decode(context.Background(), m, in, DecodeOptions{Search: exhaustive(CubePruning, limit)})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(full.Best.Score-exact.Best.Score) > 1e-9 {
			t.Errorf("trial %d %q limit %d: unpruned cube pruning %.6f, stack search %.6f", trial, in, limit, full.Best.Score, exact.Best.Score)
		}
		so := SearchOptions{Algorithm: CubePruning, DistortionLimit: &limit, StackSize: 1 + rng.IntN(10),
			CubePruningPopLimit: 1 + rng.IntN(30), CubePruningDiversity: rng.IntN(3)}
		res, err := Decode(context.Background(), m, in, DecodeOptions{NBest: 8, AllDerivations: rng.IntN(2) == 0, Search: so})
		if err != nil {
			t.Fatalf("trial %d %q %+v: %v", trial, in, so, err)
		}
		checkHypothesis(t, in, &res.Best, len(words), w)
		for i := range res.NBest {
			checkHypothesis(t, in, &res.NBest[i], len(words), w)
		}
		if res.Best.Score > exact.Best.Score+1e-9 {
			t.Errorf("trial %d %q: %.6f above the unpruned search's %.6f", trial, in, res.Best.Score, exact.Best.Score)
		}
	}
}

func TestSearchOptions(t *testing.T) {
	const cubeIni = "[search-algorithm]\n1\n[cube-pruning-pop-limit]\n200\n[cube-pruning-diversity]\n3\n"
	withCube := func(s string) string { return cubeIni + s }
	tests := []struct {
		name      string
		edit      func(string) string
		load      SearchOptions
		algo      Algorithm
		pop, div  int
		wantError bool
	}{
		{name: "Moses' defaults", algo: StackSearch, pop: 1000, div: 0},
		{name: "moses.ini", edit: withCube, algo: CubePruning, pop: 200, div: 3},
		{name: "normal search in the ini", edit: func(s string) string { return "[search-algorithm]\n0\n" + s }, algo: StackSearch, pop: 1000},
		{name: "load options", load: SearchOptions{Algorithm: CubePruning, CubePruningPopLimit: 50, CubePruningDiversity: 1},
			algo: CubePruning, pop: 50, div: 1},
		{name: "load options over the ini", edit: withCube, load: SearchOptions{Algorithm: StackSearch, CubePruningDiversity: -1},
			algo: StackSearch, pop: 200, div: 0},
		{name: "zero load options change nothing", edit: withCube, load: SearchOptions{}, algo: CubePruning, pop: 200, div: 3},
		{name: "unknown algorithm", load: SearchOptions{Algorithm: 3}, wantError: true},
		{name: "negative pop limit", load: SearchOptions{CubePruningPopLimit: -1}, wantError: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Load(context.Background(), writeSmall(t, tc.edit), LoadOptions{Search: tc.load})
			if tc.wantError {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := m.Search()
			if got.Algorithm != tc.algo || got.CubePruningPopLimit != tc.pop || got.CubePruningDiversity != tc.div {
				t.Errorf("search %v pop limit %d diversity %d, want %v %d %d", got.Algorithm, got.CubePruningPopLimit,
					got.CubePruningDiversity, tc.algo, tc.pop, tc.div)
			}
			if got.StackSize != 200 || *got.DistortionLimit != 3 {
				t.Errorf("other settings changed: %+v", got)
			}
		})
	}
}

// TestSearchAlgorithmErrors loads a moses.ini whose search settings
// mtune does not run: the error names the file and line.
func TestSearchAlgorithmErrors(t *testing.T) {
	tests := []struct {
		name string
		ini  string // prepended to the small system's moses.ini
		kind error
		line int
	}{
		{"chart decoding", "[search-algorithm]\n3\n", model.ErrUnsupported, 2},
		{"after a comment", "# cube pruning?\n[search-algorithm]\n\n2\n", model.ErrUnsupported, 4},
		{"a name", "[search-algorithm]\ncube\n", model.ErrNumber, 2},
		{"pop limit 0", "[cube-pruning-pop-limit]\n0\n", model.ErrNumber, 2},
		{"negative diversity", "[cube-pruning-diversity]\n-1\n", model.ErrNumber, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeSmall(t, func(s string) string { return tc.ini + s })
			_, err := Load(context.Background(), path, LoadOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			var pe *model.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tc.kind) {
				t.Fatalf("%v: want a *model.ParseError wrapping %v", err, tc.kind)
			}
			if pe.File != path || pe.Line != tc.line {
				t.Errorf("%v: at %s:%d, want %s:%d", err, pe.File, pe.Line, path, tc.line)
			}
			if !strings.Contains(err.Error(), path+":") {
				t.Errorf("%q does not name the file", err)
			}
		})
	}
}

func TestDecodeSearchOptionErrors(t *testing.T) {
	m := loadSmall(t, LoadOptions{})
	for _, so := range []SearchOptions{{Algorithm: 3}, {Algorithm: -1}, {CubePruningPopLimit: -5}} {
		if _, err := Decode(context.Background(), m, "le chat", DecodeOptions{Search: so}); err == nil {
			t.Errorf("%+v: no error", so)
		}
	}
	// Per call: one pop a stack.
	res, err := Decode(context.Background(), m, "le chat noir dort", DecodeOptions{Search: SearchOptions{Algorithm: CubePruning, CubePruningPopLimit: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Hypotheses > 5 {
		t.Errorf("%d hypotheses with one pop a stack", res.Stats.Hypotheses)
	}
}

func TestParseAlgorithm(t *testing.T) {
	tests := []struct {
		in   string
		want Algorithm
		ok   bool
	}{
		{"0", StackSearch, true}, {"normal", StackSearch, true}, {"stack", StackSearch, true},
		{"1", CubePruning, true}, {"cube", CubePruning, true}, {"cube-pruning", CubePruning, true},
		{"2", 0, false}, {"", 0, false}, {"Cube", 0, false}, {"model", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseAlgorithm(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseAlgorithm(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
		if tc.ok {
			if back, err := ParseAlgorithm(got.String()); err != nil || back != got {
				t.Errorf("%v.String() = %q reads back as %v, %v", got, got.String(), back, err)
			}
		}
	}
	if s := Algorithm(9).String(); s != "Algorithm(9)" {
		t.Errorf("Algorithm(9).String() = %q", s)
	}
}
