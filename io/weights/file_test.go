package weights

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/testsupport/floattest"
	"github.com/mtune/mtune/testsupport/parsetest"
	"github.com/mtune/mtune/testsupport/shared"
)

// nbestLayout returns the dense layout of the first line of a Moses n-best
// list, read independently of this package: labels are tokens ending in
// '=' or ':' in the third field.
func nbestLayout(t *testing.T, path string) []feature.Group {
	t.Helper()
	line, err := bufio.NewReader(parsetest.OpenGzip(t, path)).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var out []feature.Group
	for _, tok := range strings.Fields(strings.Split(line, "|||")[2]) {
		if strings.HasSuffix(tok, "=") || strings.HasSuffix(tok, ":") {
			out = append(out, feature.Group{Label: tok[:len(tok)-1]})
		} else {
			out[len(out)-1].Len++
		}
	}
	return out
}

// iniLayout returns the number of dense features each [feature] line of a
// moses.ini declares with num-features=N (1 when absent), by feature name
// (name=X, or the feature type followed by 0).
func iniLayout(t *testing.T, path string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]int)
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			in = line == "[feature]"
			continue
		}
		if !in || line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		name, n := f[0]+"0", 1
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "name":
				name = v
			case "num-features":
				if n, err = strconv.Atoi(v); err != nil {
					t.Fatal(err)
				}
			}
		}
		out[name] = n
	}
	return out
}

func TestReadRealData(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		path   []string
		format Format
		want   want
	}{
		{
			name:   "europarl100 init.weights",
			path:   []string{"nbest", "europarl100", "init.weights"},
			format: Moses,
			want: want{
				groups: []feature.Group{g("d", 7), g("lm", 2), g("tm", 5), g("w", 1)},
				dense:  []float64{0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.5, 0.5, 0.2, 0.2, 0.2, 0.2, 0.2, -1},
			},
		},
		{
			name:   "europarl-fr-en-8k moses.ini",
			path:   []string{"moses-models", "europarl-fr-en-8k", "moses.ini"},
			format: Moses,
			want: want{
				groups: []feature.Group{g("UnknownWordPenalty0", 1), g("WordPenalty0", 1), g("PhrasePenalty0", 1), g("TranslationModel0", 4), g("LexicalReordering0", 6), g("Distortion0", 1), g("LM0", 1)},
				dense:  []float64{1, -1, 0.2, 0.2, 0.2, 0.2, 0.2, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.5},
			},
		},
		{
			name:   "europarl-fr-en-8k moses-mert.weights",
			path:   []string{"moses-models", "europarl-fr-en-8k", "moses-mert.weights"},
			format: Moses,
			want: want{
				groups: []feature.Group{g("LexicalReordering0", 6), g("Distortion0", 1), g("LM0", 1), g("WordPenalty0", 1), g("PhrasePenalty0", 1), g("TranslationModel0", 4), g("UnknownWordPenalty0", 1)},
				dense:  []float64{0.0197899, 0.0234859, 0.067297, 0.212238, 0.0301055, 0.0328249, 0.0711468, 0.0669999, 0.000212138, 0.26255, 0.0611463, 0.0282795, 0.0580151, 0.065909, 1},
			},
		},
		{
			name:   "early-distortion-de-en moses.ini",
			path:   []string{"moses-models", "early-distortion-de-en", "moses.ini"},
			format: Moses,
			want: want{
				groups: []feature.Group{g("WordPenalty0", 1), g("KENLM0", 1), g("Distortion0", 1), g("PhraseDictionaryMemory0", 5)},
				dense:  []float64{-1, 0.5, 0.05, 0.2, 0.2, 0.2, 0.2, 0.2},
			},
		},
		{
			name:   "lexicalized-reordering-fr-en moses.ini",
			path:   []string{"moses-models", "lexicalized-reordering-fr-en", "moses.ini"},
			format: Moses,
			want: want{
				groups: []feature.Group{g("WordPenalty0", 1), g("KENLM0", 1), g("Distortion0", 1), g("LexicalReordering0", 6), g("PhraseDictionaryMemory0", 5)},
				dense:  []float64{-1, 0.5, 0.5, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.2, 0.2, 0.2, 0.2, 0.2},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := shared.Path(t, tc.path...)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if f, err := Detect(data); err != nil || f != tc.format {
				t.Fatalf("Detect = %v, %v; want %v", f, err, tc.format)
			}
			s, err := Read(ctx, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			check(t, s, tc.want)
		})
	}
}

// TestLayoutsAgree checks the dense layouts read here against the files
// that use them: the n-best lists' labels and the moses.ini [feature]
// declarations.
func TestLayoutsAgree(t *testing.T) {
	ctx := context.Background()
	s, err := Read(ctx, shared.Path(t, "nbest", "europarl100", "init.weights"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := nbestLayout(t, shared.Path(t, "nbest", "europarl100", "nbest.gz")); !slices.Equal(s.Groups, want) {
		t.Errorf("init.weights layout %v, n-best layout %v", s.Groups, want)
	}
	for _, model := range []string{"europarl-fr-en-8k", "early-distortion-de-en", "lexicalized-reordering-fr-en"} {
		p := shared.Path(t, "moses-models", model, "moses.ini")
		s, err := Read(ctx, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Moses gives UnknownWordPenalty0 the weight 1 when [weight] omits
		// it, as two of these files do; every other feature has weights.
		decl := iniLayout(t, p)
		for _, g := range s.Groups {
			if decl[g.Label] != g.Len {
				t.Errorf("%s: %s has %d weights, [feature] declares %d", model, g.Label, g.Len, decl[g.Label])
			}
		}
		for name := range decl {
			if _, ok := s.Group(name); !ok && name != "UnknownWordPenalty0" {
				t.Errorf("%s: [feature] declares %s, [weight] has no weights for it", model, name)
			}
		}
	}
	mert, err := Read(ctx, shared.Path(t, "moses-models", "europarl-fr-en-8k", "moses-mert.weights"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Moses leaves the untuneable UnknownWordPenalty0 out of its n-best
	// lists; the tuned weights hold it.
	nb := nbestLayout(t, shared.Path(t, "moses-models", "europarl-fr-en-8k", "expected-moses-test20.nbest.gz"))
	if len(nb) != len(mert.Groups)-1 {
		t.Fatalf("n-best layout %v, mert weights %v", nb, mert.Groups)
	}
	for _, g := range nb {
		if h, ok := mert.Group(g.Label); !ok || h != g {
			t.Errorf("n-best group %v, mert weights %v", g, h)
		}
	}
}

// readStats reads a Moses mert FEATSTAT or SCORESTAT file: per sentence,
// the rows of numbers, and the header's names.
func readStats(t *testing.T, path string) (names []string, sents [][][]float64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		switch {
		case strings.Contains(f[0], "_BEGIN_"):
			names = f[4:]
			sents = append(sents, nil)
		case strings.Contains(f[0], "_END_"):
		default:
			row := make([]float64, len(f))
			for i, s := range f {
				if row[i], err = strconv.ParseFloat(s, 64); err != nil {
					t.Fatal(err)
				}
			}
			sents[len(sents)-1] = append(sents[len(sents)-1], row)
		}
	}
	return names, sents
}

// TestReadListMertBasic reads mert-basic's weights.txt with the FEATSTAT
// header's names and checks the weights by the result Moses' mert printed:
// re-ranking with them gives corpus BLEU 0.3043391.
func TestReadListMertBasic(t *testing.T) {
	names, feats := readStats(t, shared.Path(t, "nbest", "mert-basic", "FEATSTAT.txt"))
	_, stats := readStats(t, shared.Path(t, "nbest", "mert-basic", "SCORESTAT.txt"))
	p := shared.Path(t, "nbest", "mert-basic", "weights.txt")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := Detect(data); err != nil || f != List {
		t.Fatalf("Detect = %v, %v; want List", f, err)
	}
	// The error tells a user what to do, not which Go function to call.
	if _, err := Read(context.Background(), p, nil); err == nil || strings.Contains(err.Error(), "ReadListFile") ||
		!strings.Contains(err.Error(), "'Name= v …' lines") || !strings.Contains(err.Error(), p) {
		t.Fatalf("Read of a list: error %v", err)
	}
	s, err := ReadListFile(context.Background(), p, names, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []feature.Group{g("d", 7), g("lm", 1), g("tm", 5), g("w", 1)}; !slices.Equal(s.Groups, want) {
		t.Fatalf("groups %v, want %v", s.Groups, want)
	}
	w := s.Dense()
	var sum [9]float64
	for i, rows := range feats {
		best, bestScore := 0, math.Inf(-1)
		for k, row := range rows {
			score := 0.0
			for j, x := range row {
				score += w[j] * x
			}
			if score > bestScore {
				best, bestScore = k, score
			}
		}
		for j, x := range stats[i][best] {
			sum[j] += x
		}
	}
	logp := 0.0
	for n := 0; n < 4; n++ {
		logp += math.Log(sum[2*n]/sum[2*n+1]) / 4
	}
	bleu := math.Exp(logp + min(0, 1-sum[8]/sum[1]))
	if math.Abs(bleu-0.3043391) > 5e-8 {
		t.Errorf("BLEU with the weights read = %.7f, Moses' mert: 0.3043391", bleu)
	}
}

func TestFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := testSet()
	for _, tc := range []struct {
		file   string
		format Format
	}{
		{"w.json", JSON},
		{"w.json.gz", JSON},
		{"w.ini", Moses},
		{"w.sparse.zst", Sparse},
	} {
		t.Run(tc.file, func(t *testing.T) {
			p := filepath.Join(dir, tc.file)
			if err := Write(ctx, p, s, tc.format); err != nil {
				t.Fatal(err)
			}
			got, err := Read(ctx, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := s.Clone()
			switch tc.format {
			case Moses:
				want = NewSet(nil)
				b := newDenseBuilder(want)
				for _, g := range s.Groups {
					for i := 0; i < g.Len; i++ {
						b.add(g.Label, s.Value(feature.DenseName(g.Label, i)))
					}
				}
			case Sparse:
				want.Groups = nil
				for _, g := range s.Groups {
					for i := 0; i < g.Len; i++ {
						want.SetValue(feature.DenseName(g.Label, i), 0)
					}
				}
			}
			if !sameSet(got, want) {
				t.Errorf("read back %v %v, want %v %v", got.Groups, got.Sparse(), want.Groups, want.Sparse())
			}
			again, err := ReadFormat(ctx, p, tc.format, nil)
			if err != nil || !sameSet(again, got) {
				t.Errorf("ReadFormat: %v", err)
			}
		})
	}
	list := filepath.Join(dir, "w.list")
	if err := Write(ctx, list, s, List); err != nil {
		t.Fatal(err)
	}
	got, err := ReadListFile(ctx, list, feature.GroupNames(s.Groups), nil)
	if err != nil || !floattest.SameBits(got.Dense(), s.Dense()) {
		t.Fatalf("list: %v, %v", got, err)
	}

	bad := filepath.Join(dir, "bad.weights")
	if err := os.WriteFile(bad, []byte("LM0= 1\nTM0= 1 x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Read(ctx, bad, nil)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != bad || pe.Line != 2 || pe.Column != 8 || !errors.Is(err, ErrNumber) {
		t.Fatalf("err = %v, want a ParseError at %s:2:8", err, bad)
	}
	if want := "weights: " + bad + ":2:8: bad number"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q, want prefix %q", err, want)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(ctx, empty, nil); !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty file: %v", err)
	}
	if s, err := ReadFormat(ctx, empty, Sparse, nil); err != nil || len(s.Sparse()) != 0 {
		t.Errorf("empty sparse file: %v, %v", s, err)
	}
	missing := filepath.Join(dir, "missing")
	if _, err := Read(ctx, missing, nil); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
	nan := testSet()
	nan.SetValue("aa", math.NaN())
	p := filepath.Join(dir, "nan.json")
	if err := Write(ctx, p, nan, JSON); err == nil {
		t.Error("Write of NaN: no error")
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("failed Write left a file: %v", err)
	}
	if err := Write(ctx, p, s, Auto); err == nil {
		t.Error("Write with Auto: no error")
	}
}

// TestWriteTrio: a set with dense groups gives weights ([weight] and Moses
// lines), weights.sparse (possibly empty) and weights.json; a set without
// groups (cdec, Joshua) gives "name value" weights and no weights.sparse;
// each file reads back to the same weights.
func TestWriteTrio(t *testing.T) {
	ctx := context.Background()
	dense := func() *Set {
		s := NewSet(nil)
		s.Groups = []feature.Group{{Label: "LM0", Len: 1}, {Label: "TM0", Len: 2}}
		s.SetValue("LM0_0", 0.5)
		s.SetValue("TM0_0", 0.25)
		s.SetValue("TM0_1", -0.125)
		return s
	}
	withSparse := dense()
	withSparse.SetValue("pp_a~b", 0.75)
	flat := NewSet(nil)
	flat.SetValue("LanguageModel", 1.5)
	flat.SetValue("tm_pt_0", -0.5)
	cases := []struct {
		name          string
		set           *Set
		moses, sparse string // "" sparse: no file
		noSparseFile  bool
		wantErr       string
	}{
		{name: "dense", set: dense(), moses: "[weight]\nLM0= 0.5\nTM0= 0.25 -0.125\n", sparse: ""},
		{name: "dense and sparse", set: withSparse, moses: "[weight]\nLM0= 0.5\nTM0= 0.25 -0.125\n", sparse: "pp_a~b 0.75\n"},
		{name: "no groups", set: flat, moses: "LanguageModel 1.5\ntm_pt_0 -0.5\n", noSparseFile: true},
		{name: "all zero", set: NewSet(nil), wantErr: "every weight is zero"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			err := WriteTrio(ctx, dir, c.set)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.HasPrefix(err.Error(), "weights: ") {
					t.Fatalf("error %v, want one with %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			read := func(name string) string {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			if got := read(TrioMoses); got != c.moses {
				t.Errorf("%s:\n%s\nwant\n%s", TrioMoses, got, c.moses)
			}
			if c.noSparseFile {
				if _, err := os.Stat(filepath.Join(dir, TrioSparse)); !os.IsNotExist(err) {
					t.Errorf("%s written for a set without groups (%v)", TrioSparse, err)
				}
			} else if got := read(TrioSparse); got != c.sparse {
				t.Errorf("%s: %q, want %q", TrioSparse, got, c.sparse)
			}
			for _, name := range []string{TrioMoses, TrioJSON} {
				back, err := Read(ctx, filepath.Join(dir, name), nil)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				want := c.set.Sparse()
				if len(c.set.Groups) > 0 {
					if name == TrioMoses {
						want = nil // the sparse weights are in weights.sparse
					}
					for _, g := range c.set.Groups {
						for i := 0; i < g.Len; i++ {
							n := feature.DenseName(g.Label, i)
							if back.Value(n) != c.set.Value(n) {
								t.Errorf("%s: %s = %v, want %v", name, n, back.Value(n), c.set.Value(n))
							}
						}
					}
				}
				for _, e := range want {
					if back.Value(e.Name) != e.Value {
						t.Errorf("%s: %s = %v, want %v", name, e.Name, back.Value(e.Name), e.Value)
					}
				}
			}
		})
	}
}

func TestWriteTrioOf(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ww := ByName{Names: []string{"pp_a~b", "LM0_0", "tm_1", "tm_0", "wt_x"}, Vals: []float64{0.125, 0.5, 0, -0.25, 0}}
	if err := WriteTrioOf(ctx, dir, ww, []string{"LM0_0", "tm_0", "tm_1"}); err != nil {
		t.Fatal(err)
	}
	back, err := Read(ctx, filepath.Join(dir, TrioJSON), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := NewByName(back.Index, back.Weights).Map(), map[string]float64{"LM0_0": 0.5, "tm_0": -0.25, "tm_1": 0, "pp_a~b": 0.125}; !reflect.DeepEqual(got, want) {
		t.Errorf("%s: %v, want %v", TrioJSON, got, want)
	}
	if got := back.Groups; len(got) != 2 || got[0].Label != "LM0" || got[1].Label != "tm" {
		t.Errorf("dense groups %v, want LM0 and tm", got)
	}
	for _, name := range []string{TrioMoses, TrioSparse} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if err := WriteTrioOf(ctx, dir, ByName{Names: []string{"a"}}, nil); err == nil {
		t.Error("one name, no value: no error")
	}
}
