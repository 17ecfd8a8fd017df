package build

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/testsupport/testfile"
)

// writeBitext writes a small bitext into dir and returns Options for it
// (output in dir/model, no language model).
func writeBitext(t testing.TB, src, tgt, align []string) Options {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, lines []string) string {
		return testfile.Write(t, dir, name, strings.Join(lines, "\n")+"\n")
	}
	return Options{Src: write("f", src), Tgt: write("e", tgt), Align: write("a", align), Out: filepath.Join(dir, "model"), SkipLM: true}
}

// mustRun runs Run on o and fails t on an error.
func mustRun(t testing.TB, o Options) Result {
	t.Helper()
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// readText returns the lines of the gzip file at path joined by "\n".
func readText(t testing.TB, path string) string {
	t.Helper()
	return strings.Join(testfile.GunzipLines(t, path, -1), "\n")
}

// TestRunSmall checks every line of a small model against values worked
// out by hand from the definitions of Moses' train-model.perl steps 4–7.
func TestRunSmall(t *testing.T) {
	o := writeBitext(t,
		[]string{"a b", "a", "a c"},
		[]string{"x y", "x w", "v"},
		[]string{"0-0 1-1", "0-0", "0-0"})
	res := mustRun(t, o)
	// Lexical tables: c(a,x)=2 c(b,y)=1 c(NULL,w)=1 c(a,v)=1 c(c,NULL)=1,
	// c(a)=3: w(x|a)=2/3, w(v|a)=1/3, every other w is 1.
	// Pairs: "a b|x y" (S1), "a|x" (S1, S2), "a|x w" (S2), "a|v" and
	// "a c|v" (S3, over unaligned c); "b|y"; count(a)=4, count(v)=2.
	// Order: "a b |||" < "a c |||" < "a |||" < "b |||" (' ' < 'b' < '|').
	wantPT := `a b ||| x y ||| 1 1 1 0.666667 ||| 0-0 1-1 ||| 1 1 1 ||| |||
a c ||| v ||| 0.5 1 1 0.333333 ||| 0-0 ||| 2 1 1 ||| |||
a ||| v ||| 0.5 1 0.25 0.333333 ||| 0-0 ||| 2 4 1 ||| |||
a ||| x w ||| 1 1 0.25 0.666667 ||| 0-0 ||| 1 4 1 ||| |||
a ||| x ||| 1 1 0.5 0.666667 ||| 0-0 ||| 2 4 2 ||| |||
b ||| y ||| 1 1 1 1 ||| 0-0 ||| 1 1 1 ||| |||`
	// Orientations (prev, next): "a|x" mono/mono in S1, mono/other in S2
	// (x is followed by unaligned w); "a|v" mono/other; the rest mono/mono.
	// (c+0.5)/(n+1.5): 1 of 1 → 0.6, 0 of 1 → 0.2; 2 of 2 → 0.714286,
	// 1 of 2 → 0.428571, 0 of 2 → 0.142857.
	wantRT := `a b ||| x y ||| 0.6 0.2 0.2 0.6 0.2 0.2
a c ||| v ||| 0.6 0.2 0.2 0.6 0.2 0.2
a ||| v ||| 0.6 0.2 0.2 0.2 0.2 0.6
a ||| x w ||| 0.6 0.2 0.2 0.6 0.2 0.2
a ||| x ||| 0.714286 0.142857 0.142857 0.428571 0.142857 0.428571
b ||| y ||| 0.6 0.2 0.2 0.6 0.2 0.2`
	if got := readText(t, res.PhraseTable); got != wantPT {
		t.Errorf("phrase table:\n%s\nwant:\n%s", got, wantPT)
	}
	if got := readText(t, res.ReorderingTable); got != wantRT {
		t.Errorf("reordering table:\n%s\nwant:\n%s", got, wantRT)
	}
	if res.PhrasePairs != 6 || res.Occurrences != 7 || res.Sentences != 3 || res.SourcePhrases != 4 || res.TargetPhrases != 5 {
		t.Errorf("result %+v", res)
	}
	if res.LM != "" || res.NGrams != nil {
		t.Errorf("SkipLM: LM %q, n-grams %v", res.LM, res.NGrams)
	}
}

// TestRunBestAlignment checks Moses' choice of a phrase pair's alignment
// (ExtractionPhrasePair): counts are kept per run of equal alignments in
// the sorted extract file, not per distinct alignment, ties go to the
// greatest alignment.
func TestRunBestAlignment(t *testing.T) {
	// "a b ||| x" three times. Direct alignment strings sorted: " 0-0 1-0"
	// {0,1}, " 1-0" {1}, " 1-0 0-0" {0,1}: three runs of 1, the greatest
	// is {1} (0 < 1): alignment "1-0", lex(e|f) = w(x|b) = 3/3 = 1, where
	// merging by value would give {0,1} and (2/3+1)/2. Inverse: " 0-0 0-1"
	// [{0},{0}], " 0-1" [{},{0}], " 0-1 0-0" [{0},{0}]; the greatest is
	// [{0},{0}]: lex(f|e) = w(a|x) w(b|x) = 2/5 · 3/5 = 0.24.
	o := writeBitext(t,
		[]string{"a b", "a b", "a b"},
		[]string{"x", "x", "x"},
		[]string{"0-0 1-0", "1-0", "1-0 0-0"})
	res := mustRun(t, o)
	want := `a b ||| x ||| 0.75 0.24 1 1 ||| 1-0 ||| 4 3 3 ||| |||
b ||| x ||| 0.25 0.6 1 1 ||| 0-0 ||| 4 1 1 ||| |||`
	if got := readText(t, res.PhraseTable); got != want {
		t.Errorf("phrase table:\n%s\nwant:\n%s", got, want)
	}
}

// TestRunINI checks moses.ini: Moses' layout and default weights (as in
// the europarl-fr-en-8k model Moses trained), with paths that exist.
func TestRunINI(t *testing.T) {
	o := writeBitext(t, []string{"a b"}, []string{"x y"}, []string{"0-0 1-1"})
	o.SkipLM = false
	o.LM = LMFunc(func(_ context.Context, s [][]string, order int, w io.Writer) ([]int, error) {
		_, err := io.WriteString(w, "\\data\\\nngram 1=3\n\n\\1-grams:\n-1\t<unk>\n-1\t<s>\n-1\t</s>\n\n\\end\\\n")
		return []int{3}, err
	})
	for _, rel := range []bool{false, true} {
		o.AbsolutePaths = !rel
		res := mustRun(t, o)
		ini, err := os.ReadFile(res.Config)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(ini), "\n") {
			if _, p, ok := strings.Cut(line, " path="); ok {
				p, _, _ = strings.Cut(p, " ")
				if rel != !filepath.IsAbs(p) {
					t.Errorf("AbsolutePaths %v: path %q", !rel, p)
				}
				if !filepath.IsAbs(p) {
					p = filepath.Join(filepath.Dir(res.Config), p)
				}
				if _, err := os.Stat(p); err != nil {
					t.Errorf("moses.ini names a missing file: %v", err)
				}
			}
		}
		if !strings.Contains(string(ini), "KENLM name=LM0 factor=0 path=") || !strings.Contains(string(ini), " order=5\n") {
			t.Errorf("no LM line in\n%s", ini)
		}
		if rel {
			continue
		}
		wantINI, err := os.ReadFile(filepath.Join(shared.Path(t, "moses-models", "europarl-fr-en-8k"), "moses.ini"))
		if err != nil {
			t.Fatal(err)
		}
		norm := func(s string) string {
			s = regexp.MustCompile(`path=(\S*/)?`).ReplaceAllString(s, "path=")
			return strings.ReplaceAll(s, "lm.en.5.arpa.gz", LMFile(5))
		}
		if g, w := norm(string(ini)), norm(string(wantINI)); g != w {
			t.Errorf("moses.ini, paths aside:\n%s\nMoses':\n%s", g, w)
		}
	}
}

func TestRunDefaultLM(t *testing.T) {
	c := Demo(DemoOptions{Seed: 3, Train: 200, Tune: 1, Test: 1})
	f, err := c.Write(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := f.BuildOptions(filepath.Join(t.TempDir(), "model"))
	o.LMOrder = 3
	res := mustRun(t, o)
	got, err := arpaCounts(res.LM)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NGrams) != 3 || !slices.Equal(got, res.NGrams) || got[0] < 10 {
		t.Errorf("n-grams %v, the ARPA file says %v", res.NGrams, got)
	}
}

func TestRunErrors(t *testing.T) {
	good := writeBitext(t, []string{"a b", "c"}, []string{"x y", "z"}, []string{"0-0 1-1", "0-0"})
	lmErr := errors.New("no memory")
	tests := []struct {
		name   string
		modify func(*Options)
		want   error
		inMsg  string
	}{
		{"no source", func(o *Options) { o.Src = "" }, ErrOptions, ""},
		{"no output", func(o *Options) { o.Out = "" }, ErrOptions, ""},
		{"phrase length", func(o *Options) { o.MaxPhrase = 256 }, ErrOptions, ""},
		{"LM order", func(o *Options) { o.LMOrder = 99 }, ErrOptions, ""},
		{"range reversed", func(o *Options) { o.Lines = LineRange{3, 2} }, ErrOptions, ""},
		{"range past the end", func(o *Options) { o.Lines = LineRange{1, 3} }, ErrLineCount, "has 2 lines"},
		{"range after the end", func(o *Options) { o.Lines = LineRange{First: 5} }, ErrEmpty, ""},
		{"missing file", func(o *Options) { o.Src += ".missing" }, os.ErrNotExist, ""},
		{"LM fails", func(o *Options) {
			o.SkipLM = false
			o.LM = LMFunc(func(context.Context, [][]string, int, io.Writer) ([]int, error) { return nil, lmErr })
		}, lmErr, "language model"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := good
			o.Out = filepath.Join(t.TempDir(), "m")
			tc.modify(&o)
			_, err := Run(context.Background(), o)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.inMsg) || !strings.HasPrefix(err.Error(), "build: ") {
				t.Fatalf("error %v, want %v containing %q", err, tc.want, tc.inMsg)
			}
			if _, err := os.Stat(filepath.Join(o.Out, ConfigFile)); err == nil {
				t.Errorf("moses.ini written despite the error")
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		o := good
		o.Out = t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := Run(ctx, o); !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v", err)
		}
	})
}

func TestReadBitext(t *testing.T) {
	tests := []struct {
		name            string
		src, tgt, align string
		lines           LineRange
		want            error
		file, line, col string // expected in the message
		sentences, nTgt int
	}{
		{name: "ok", src: "a b\nc\n", tgt: "x\ty  z\n z\n", align: "0-0 1-1 1-2\n0-0\n", sentences: 2, nTgt: 4},
		{name: "no final newline, CRLF", src: "a b\r\nc", tgt: "x y\r\nz", align: "0-0\r\n0-0", sentences: 2, nTgt: 3},
		{name: "range", src: "a\nb\nc\nd\n", tgt: "w\nx\ny\nz\n", align: "\n0-0\n0-0\n\n", lines: LineRange{2, 3}, sentences: 2, nTgt: 2},
		{name: "empty sides", src: "\na\n", tgt: "x\n\n", align: "\n\n", sentences: 2, nTgt: 1},
		{name: "bad token", src: "a\n", tgt: "x\n", align: "0-x\n", want: ErrAlignment, file: "/a:1:1", line: "0-x"},
		{name: "no dash", src: "a\n", tgt: "x\n", align: "0-0 00\n", want: ErrAlignment, file: "/a:1:5"},
		{name: "trailing garbage", src: "a\n", tgt: "x\n", align: "0-0x\n", want: ErrAlignment},
		{name: "negative", src: "a\n", tgt: "x\n", align: "-1-0\n", want: ErrAlignment},
		{name: "huge", src: "a\n", tgt: "x\n", align: "0-99999999999999999999\n", want: ErrAlignment},
		{name: "source out of range", src: "a b\nc\n", tgt: "x\ny\n", align: "0-0\n1-0\n", want: ErrOutOfRange, file: "/a:2:1"},
		{name: "target out of range", src: "a\n", tgt: "x\n", align: "0-0 0-1\n", want: ErrOutOfRange, file: "/a:1:5"},
		{name: "short target", src: "a\nb\n", tgt: "x\n", align: "0-0\n0-0\n", want: ErrLineCount, file: "/e]"},
		{name: "long alignment", src: "a\n", tgt: "x\n", align: "0-0\n0-0\n", want: ErrLineCount},
		{name: "invalid UTF-8", src: "a\n\xff\n", tgt: "x\ny\n", align: "\n\n", want: errors.New(""), file: "/f:2"},
		{name: "nothing", src: "", tgt: "", align: "", want: ErrEmpty},
		{name: "separator token", src: "a\n", tgt: "x ||| y\n", align: "0-0\n", want: ErrToken, file: "/e:1:3"},
		{name: "separator inside a token", src: "a|||b\n", tgt: "x\n", align: "0-0\n", sentences: 1, nTgt: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			w := testfile.Writer(t, dir)
			b, err := readBitext(context.Background(), w("f", tc.src), w("e", tc.tgt), w("a", tc.align), tc.lines)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if b.len() != tc.sentences || len(b.tgt) != tc.nTgt {
					t.Errorf("%d sentences, %d target tokens", b.len(), len(b.tgt))
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want.Error() != "" && !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			for _, s := range []string{tc.file, tc.line} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

func TestReadBitextAlignmentOrder(t *testing.T) {
	dir := t.TempDir()
	w := testfile.Writer(t, dir)
	b, err := readBitext(context.Background(), w("f", "a b c\n"), w("e", "x y\n"), w("a", "2-1 0-0 1-1 0-1 1-1\n"), LineRange{})
	if err != nil {
		t.Fatal(err)
	}
	// alignedToT keeps the line's order and duplicates.
	if got := b.alignedTo(0, 0); !slices.Equal(got, []uint16{0}) {
		t.Errorf("x: %v", got)
	}
	if got := b.alignedTo(0, 1); !slices.Equal(got, []uint16{2, 1, 0, 1}) {
		t.Errorf("y: %v", got)
	}
	if b.sv.words[0] != nullWord || b.tv.words[0] != nullWord {
		t.Errorf("NULL is not word 0")
	}
}

func TestParseLineRange(t *testing.T) {
	tests := []struct {
		in   string
		want LineRange
		bad  bool
	}{
		{"", LineRange{}, false},
		{"1-8000", LineRange{1, 8000}, false},
		{"8001-9000", LineRange{8001, 9000}, false},
		{"5", LineRange{5, 5}, false},
		{"7-", LineRange{First: 7}, false},
		{"0-5", LineRange{}, true},
		{"5-4", LineRange{}, true},
		{"-5", LineRange{}, true},
		{"a-b", LineRange{}, true},
		{"1-2-3", LineRange{}, true},
	}
	for _, tc := range tests {
		got, err := ParseLineRange(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseLineRange(%q) = %v, %v", tc.in, got, err)
		}
		if err == nil && got.String() != strings.TrimSuffix(tc.in, "") && tc.in != "5" {
			t.Errorf("String() = %q, want %q", got.String(), tc.in)
		}
	}
}

// TestG6 checks the number format against C's printf("%g") (values and
// strings from Python's "%g" %, which uses C's conventions).
func TestG6(t *testing.T) {
	tests := []struct {
		x    float64
		want string
	}{
		{0, "0"}, {1, "1"}, {0.5, "0.5"}, {2.0 / 3, "0.666667"}, {1.0 / 3, "0.333333"},
		{1e-05, "1e-05"}, {0.0001, "0.0001"}, {0.00012345678, "0.000123457"},
		{123456, "123456"}, {1234567, "1.23457e+06"}, {999999.5, "1e+06"}, {1e6, "1e+06"},
		{5.00782e-15, "5.00782e-15"}, {0.0833333358168602, "0.0833333"},
		{0.10000000149011612, "0.1"}, {0.6666666865348816, "0.666667"}, {0.3333335, "0.333334"},
		{100000, "100000"}, {12.5, "12.5"}, {7.50406e-08, "7.50406e-08"}, {1.5e-300, "1.5e-300"},
	}
	for _, tc := range tests {
		if got := string(g6(nil, tc.x)); got != tc.want {
			t.Errorf("g6(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
	if got := countRound(1234567); got != 1.23457e6 {
		t.Errorf("countRound(1234567) = %v", got)
	}
}

func TestRound7(t *testing.T) {
	for _, tc := range []struct{ x, want float64 }{
		{2.0 / 3, 0.6666667}, {1.0 / 3, 0.3333333}, {1.0 / 64, 0.015625}, {1e-8, 0}, {0.00000005, 0}, {0.00000015, 0.0000001}, {1, 1}, // as Python's "%.7f" %
	} {
		if got := round7(tc.x); got != tc.want {
			t.Errorf("round7(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
}

// refVecSet builds the vector<set> of a canonical alignment.
func refVecSet(a []uint16, n int) [][]int {
	v := make([][]int, n)
	for k := 0; k < len(a); k += 2 {
		v[a[k]] = append(v[a[k]], int(a[k+1]))
	}
	return v
}

// refCmp compares as C++'s vector<set<size_t>> operator< does.
func refCmp(a, b [][]int) int {
	for i := range min(len(a), len(b)) {
		if c := slices.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

func TestCmpVecSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(n int) []uint16 {
		var a []uint16
		for i := range n {
			for j := range 3 {
				if rng.IntN(3) == 0 {
					a = append(a, uint16(i), uint16(j))
				}
			}
		}
		return a
	}
	for range 20000 {
		n := 1 + rng.IntN(3)
		a, b := gen(n), gen(n)
		if got, want := cmpVecSet(a, b), refCmp(refVecSet(a, n), refVecSet(b, n)); sign(got) != sign(want) {
			t.Fatalf("cmpVecSet(%v, %v) = %d, want %d", a, b, got, want)
		}
	}
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}
