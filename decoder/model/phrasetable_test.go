package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mtune/mtune/testsupport/parsetest"
	"github.com/mtune/mtune/testsupport/shared"
)

const smallTable = `das Haus ||| the house ||| 0.8 0.5 0.7 0.4 ||| 0-0 1-1 ||| 10 8 6
das Haus ||| the building ||| 0.1 0.2 0.1 0.1 ||| 0-0 1-1 ||| 3 8 1
das Haus ||| house ||| 0.1 0.1 0.05 0 ||| 1-0 ||| 12 8 1
das ||| the ||| 0.6 0.7 0.5 0.6 ||| 0-0 ||| 100 90 60
das ||| that ||| 0.3 0.2 0.2 0.2 ||| 0-0 ||| 40 90 20

Haus ||| house ||| 0.9 0.8 0.9 0.8 ||| 0-0 ||| 30 25 20
ist klein ||| is small ||| 1 1 1 1 ||| 0-0 1-1 ||| 1 1 1
ist ||| ||| 0.01 0.01 0.01 0.01 ||| ||| 5 50 1
`

func readTable(t testing.TB, text string, opts PhraseTableOptions) *PhraseTable {
	t.Helper()
	pt, err := ReadPhraseTable(context.Background(), strings.NewReader(text), "pt", opts)
	if err != nil {
		t.Fatal(err)
	}
	return pt
}

// option is an option in plain form, for comparisons.
type option struct {
	tgt    string
	scores []float32
	align  []int
	counts []float32
	reord  []float32
}

func optionsOf(pt *PhraseTable, src string) []option {
	start, end := pt.LookupWords(strings.Fields(src)...)
	var out []option
	for o := start; o < end; o++ {
		var words []string
		for _, id := range pt.Target(o) {
			words = append(words, pt.TargetVocab().Word(id))
		}
		op := option{tgt: strings.Join(words, " "), scores: pt.Scores(o), counts: pt.Counts(o)}
		a := pt.Alignment(o)
		for i := range a.Len() {
			s, t := a.At(i)
			op.align = append(op.align, s, t)
		}
		if r, ok := pt.Reordering(o); ok {
			op.reord = r
		}
		out = append(out, op)
	}
	return out
}

func TestReadPhraseTable(t *testing.T) {
	pt := readTable(t, smallTable, PhraseTableOptions{NumScores: 4})
	if pt.NumOptions() != 8 || pt.NumSources() != 5 || pt.NumScores() != 4 || pt.NumCounts() != 3 || pt.MaxSourceLen() != 2 {
		t.Fatalf("options %d sources %d scores %d counts %d max len %d", pt.NumOptions(), pt.NumSources(), pt.NumScores(), pt.NumCounts(), pt.MaxSourceLen())
	}
	got := optionsOf(pt, "das Haus")
	want := []option{
		{"the house", []float32{0.8, 0.5, 0.7, 0.4}, []int{0, 0, 1, 1}, []float32{10, 8, 6}, nil},
		{"the building", []float32{0.1, 0.2, 0.1, 0.1}, []int{0, 0, 1, 1}, []float32{3, 8, 1}, nil},
		{"house", []float32{0.1, 0.1, 0.05, 0}, []int{1, 0}, []float32{12, 8, 1}, nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("das Haus:\n got %v\nwant %v", got, want)
	}
	if got := optionsOf(pt, "ist"); len(got) != 1 || got[0].tgt != "" || got[0].align != nil {
		t.Errorf("empty target: %v", got)
	}
	for _, miss := range []string{"Haus das", "klein", "das Haus ist", "Auto"} {
		if s, e := pt.LookupWords(strings.Fields(miss)...); s != e {
			t.Errorf("%q found", miss)
		}
	}
	// Lookup by ids does not allocate.
	ids := []int32{0, 1}
	if n := testing.AllocsPerRun(100, func() { pt.Lookup(ids) }); n != 0 {
		t.Errorf("Lookup allocates %v times", n)
	}
}

func TestLogScore(t *testing.T) {
	tests := []struct {
		p    float32
		want float32
	}{
		{1, 0}, {0, -100}, {float32(math.E), 1}, {2.718, float32(math.Log(2.718))}, {1e-45, -100}, {0.5, float32(math.Log(0.5))},
	}
	for _, tc := range tests {
		if got := LogScore(tc.p); math.Abs(float64(got-tc.want)) > 1e-6 {
			t.Errorf("LogScore(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

// TestReadPhraseTableChunking parses the same tables with tiny blocks,
// one byte at a time, and with one or several workers: the result must
// not depend on how the input is cut.
func TestReadPhraseTableChunking(t *testing.T) {
	// Unsorted: "das" comes back after other sources, a duplicate pair.
	unsorted := smallTable + "das ||| this ||| 0.1 0.1 0.1 0.1 ||| 0-0 ||| 1 90 1\ndas Haus ||| the house ||| 0.8 0.5 0.7 0.4 ||| 0-0 1-1 ||| 10 8 6\n"
	crlf := strings.ReplaceAll(smallTable, "\n", "\r\n")
	for _, text := range []string{smallTable, unsorted, strings.TrimSuffix(smallTable, "\n"), crlf} {
		ref := readTable(t, text, PhraseTableOptions{ChunkSize: 1 << 20, Workers: 1})
		for _, opts := range []PhraseTableOptions{{ChunkSize: 1, Workers: 1}, {ChunkSize: 7, Workers: 3}, {ChunkSize: 64, Workers: 2}} {
			pt, err := ReadPhraseTable(context.Background(), iotest.OneByteReader(strings.NewReader(text)), "pt", opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range []string{"das Haus", "das", "Haus", "ist klein", "ist"} {
				if a, b := optionsOf(ref, src), optionsOf(pt, src); !reflect.DeepEqual(a, b) {
					t.Errorf("chunk size %d: %q: %v, want %v", opts.ChunkSize, src, b, a)
				}
			}
		}
	}
	if a, b := optionsOf(readTable(t, smallTable, PhraseTableOptions{}), "das Haus"), optionsOf(readTable(t, crlf, PhraseTableOptions{}), "das Haus"); !reflect.DeepEqual(a, b) {
		t.Errorf("CRLF: %v, want %v", b, a)
	}
	pt := readTable(t, unsorted, PhraseTableOptions{ChunkSize: 16})
	got := optionsOf(pt, "das")
	if len(got) != 3 || got[2].tgt != "this" {
		t.Errorf("unsorted das: %v", got)
	}
	if got := optionsOf(pt, "das Haus"); len(got) != 4 || got[3].tgt != "the house" {
		t.Errorf("duplicate pair: %v", got)
	}
}

func TestReadPhraseTableErrors(t *testing.T) {
	tests := []parsetest.ErrCase[PhraseTableOptions]{
		{Name: "too few fields", In: "a ||| b\n", Kind: ErrSyntax, Line: 1},
		{Name: "too many fields", In: "a ||| b ||| 1 ||| ||| ||| ||| ||| x\n", Kind: ErrSyntax, Line: 1, Col: 31},
		{Name: "wrong count vs num-features", In: "a ||| b ||| 0.5 0.5 0.5\n", Opts: PhraseTableOptions{NumScores: 4}, Kind: ErrCount, Line: 1, Col: 12},
		{Name: "wrong count vs first line", In: "a ||| b ||| 0.5 0.5\nc ||| d ||| 0.5\n", Kind: ErrCount, Line: 2, Col: 12},
		{Name: "no scores", In: "a ||| b |||   \n", Kind: ErrCount, Line: 1, Col: 12},
		{Name: "nan", In: "a ||| b ||| 0.5\nc ||| d ||| nan\n", Kind: ErrNumber, Line: 2, Col: 13},
		{Name: "inf", In: "a ||| b ||| inf\n", Kind: ErrNumber, Line: 1, Col: 13},
		{Name: "negative", In: "a ||| b ||| 0.5 -0.1\n", Kind: ErrNumber, Line: 1, Col: 17},
		{Name: "overflow", In: "a ||| b ||| 1e39\n", Kind: ErrNumber, Line: 1, Col: 13},
		{Name: "garbage", In: "a ||| b ||| 0.5x\n", Kind: ErrNumber, Line: 1, Col: 13},
		{Name: "bad alignment", In: "a ||| b ||| 0.5 ||| 0:0\n", Kind: ErrSyntax, Line: 1, Col: 21},
		{Name: "alignment outside", In: "a b ||| c ||| 0.5 ||| 0-0 1-1\n", Kind: ErrSyntax, Line: 1, Col: 27},
		{Name: "bad count", In: "a ||| b ||| 0.5 ||| 0-0 ||| 1 x\n", Kind: ErrNumber, Line: 1, Col: 31},
		{Name: "counts differ", In: "a ||| b ||| 0.5 ||| 0-0 ||| 1 1\nc ||| d ||| 0.5 ||| 0-0 ||| 1\n", Kind: ErrCount, Line: 2, Col: 28},
		{Name: "sparse features", In: "a ||| b ||| 0.5 ||| 0-0 ||| 1 ||| f 1\n", Kind: ErrUnsupported, Line: 1, Col: 34},
		{Name: "invalid utf-8 source", In: "a ||| b ||| 0.5\nx \xff ||| b ||| 0.5\n", Kind: ErrUTF8, Line: 2, Col: 3},
		{Name: "invalid utf-8 target", In: "a ||| b \xc3 ||| 0.5\n", Kind: ErrUTF8, Line: 1, Col: 9},
		{Name: "empty", In: "", Kind: ErrEmpty},
		{Name: "only blank and empty sources", In: "\n  \n ||| x ||| 1\n", Kind: ErrEmpty},
	}
	for _, tc := range tests {
		for _, chunk := range []int{0, 5} {
			_, err := ReadPhraseTable(context.Background(), strings.NewReader(tc.In), "pt.gz", PhraseTableOptions{NumScores: tc.Opts.NumScores, ChunkSize: chunk})
			name, col := tc.Name, tc.Col
			if chunk != 0 {
				name += " (in chunks)"
				col = -1 // the column is checked on the read without chunks only
			}
			parsetest.At[pkgPrefix](t, name, err, tc.Kind, "pt.gz", tc.Line, col)
		}
	}
}

// TestReadPhraseTableFirstError checks that the error reported is the
// first in the file when several blocks fail.
func TestReadPhraseTableFirstError(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		if i == 700 || i == 1500 {
			b.WriteString("bad line\n")
			continue
		}
		b.WriteString("w" + strconv.Itoa(i) + " ||| v ||| 0.5\n")
	}
	for range 5 {
		_, err := ReadPhraseTable(context.Background(), strings.NewReader(b.String()), "pt", PhraseTableOptions{ChunkSize: 100, Workers: 4})
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 701 {
			t.Fatalf("%v, want an error at line 701", err)
		}
	}
}

func TestReadPhraseTableSkipsEmptySource(t *testing.T) {
	pt := readTable(t, " ||| x ||| 1\na ||| b ||| 1\n\t ||| y ||| 1\n", PhraseTableOptions{})
	if pt.Skipped() != 2 || pt.NumOptions() != 1 {
		t.Errorf("skipped %d, options %d", pt.Skipped(), pt.NumOptions())
	}
}

func TestReadPhraseTableReadErrors(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		b.WriteString("w" + strconv.Itoa(i) + " ||| v ||| 0.5 0.25\n")
	}
	full, cut := parsetest.GzipWholeAndCut(t, b.String(), "pt.gz", "cut.gz", 1, 2)
	dir := filepath.Dir(full)
	ctx := context.Background()
	pt, err := LoadPhraseTable(ctx, full, PhraseTableOptions{NumScores: 2})
	if err != nil || pt.NumOptions() != 5000 {
		t.Fatalf("full: %v", err)
	}
	if _, err := LoadPhraseTable(ctx, cut, PhraseTableOptions{ChunkSize: 1000}); !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "cut.gz") {
		t.Errorf("truncated gzip: %v", err)
	}
	if _, err := LoadPhraseTable(ctx, filepath.Join(dir, "missing.gz"), PhraseTableOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	boom := errors.New("boom")
	r := iotest.DataErrReader(io.MultiReader(strings.NewReader("a ||| b ||| 1\n"), iotest.ErrReader(boom)))
	if _, err := ReadPhraseTable(ctx, r, "x", PhraseTableOptions{}); !errors.Is(err, boom) {
		t.Errorf("read error: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ReadPhraseTable(cctx, strings.NewReader(smallTable), "x", PhraseTableOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestPrune(t *testing.T) {
	pt := readTable(t, smallTable, PhraseTableOptions{})
	if _, err := pt.ReadReordering(context.Background(), strings.NewReader(
		"das Haus ||| house ||| 0.1 0.2 0.7 0.3 0.3 0.4\ndas ||| that ||| 0.5 0.25 0.25 0.5 0.25 0.25\n"), "ro", ReorderingOptions{}); err != nil {
		t.Fatal(err)
	}
	// Rank by the last score only: ties keep file order.
	before := make([]string, pt.NumOptions())
	for o := range before {
		before[o] = fmt.Sprint(pt.Target(int32(o)), pt.Scores(int32(o)))
	}
	order := pt.Prune(2, func(o int32) float32 { return pt.Scores(o)[3] })
	// The order returned names each kept option's number before Prune.
	if len(order) != pt.NumOptions() {
		t.Fatalf("Prune returned %d options, the table has %d", len(order), pt.NumOptions())
	}
	for i, o := range order {
		if got := fmt.Sprint(pt.Target(int32(i)), pt.Scores(int32(i))); got != before[o] {
			t.Errorf("option %d after Prune is %s, order says old option %d: %s", i, got, o, before[o])
		}
	}
	got := optionsOf(pt, "das Haus")
	if len(got) != 2 || got[0].tgt != "the house" || got[1].tgt != "the building" {
		t.Errorf("das Haus after prune: %v", got)
	}
	got = optionsOf(pt, "das")
	if len(got) != 2 || got[0].tgt != "the" || got[1].tgt != "that" || !slices.Equal(got[1].reord, []float32{0.5, 0.25, 0.25, 0.5, 0.25, 0.25}) || got[0].reord != nil {
		t.Errorf("das after prune: %+v", got)
	}
	if pt.NumOptions() != 7 {
		t.Errorf("%d options", pt.NumOptions())
	}
	// TableLimit with weights: the third score decides.
	pt = readTable(t, smallTable, PhraseTableOptions{TableLimit: 1, PruneWeights: []float32{0, 0, 1, 0}})
	if got := optionsOf(pt, "das Haus"); len(got) != 1 || got[0].tgt != "the house" {
		t.Errorf("table limit 1: %v", got)
	}
	if _, err := ReadPhraseTable(context.Background(), strings.NewReader(smallTable), "pt", PhraseTableOptions{TableLimit: 1, PruneWeights: []float32{1}}); err == nil {
		t.Error("prune weights of the wrong length accepted")
	}
}

// naivePair parses a phrase-table line with strings.Split, independently
// of the package's parser.
func naivePair(t testing.TB, line string) (src, tgt string, scores []float32, align []int, counts []float32) {
	f := strings.Split(line, "|||")
	src = strings.Join(strings.Fields(f[0]), " ")
	tgt = strings.Join(strings.Fields(f[1]), " ")
	for _, s := range strings.Fields(f[2]) {
		x, err := strconv.ParseFloat(s, 32)
		if err != nil {
			t.Fatal(err)
		}
		scores = append(scores, float32(x))
	}
	if len(f) > 3 {
		for _, a := range strings.Fields(f[3]) {
			i, j, _ := strings.Cut(a, "-")
			x, _ := strconv.Atoi(i)
			y, _ := strconv.Atoi(j)
			align = append(align, x, y)
		}
	}
	if len(f) > 4 {
		for _, s := range strings.Fields(f[4]) {
			x, _ := strconv.ParseFloat(s, 32)
			counts = append(counts, float32(x))
		}
	}
	return
}

// checkAgainstFile compares every step-th line of a gzip phrase table
// with the loaded table, using naivePair; it returns the number of lines.
func checkAgainstFile(t *testing.T, pt *PhraseTable, path string, step int) int {
	t.Helper()
	checked := 0
	n := eachNthLine(t, path, step, func(n int, line string) {
		src, tgt, scores, align, counts := naivePair(t, line)
		found := false
		for _, op := range optionsOf(pt, src) {
			if op.tgt == tgt && slices.Equal(op.scores, scores) && slices.Equal(op.align, align) && slices.Equal(op.counts, counts) {
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("%s:%d: %q ||| %q not found with its scores %v, alignment %v, counts %v", path, n, src, tgt, scores, align, counts)
		}
		checked++
	})
	if checked == 0 {
		t.Fatal("nothing checked")
	}
	return n
}

// eachNthLine calls fn with the number and the text of every step-th line
// of the gzip file at path, read with the standard library only; it
// returns the number of lines.
func eachNthLine(t *testing.T, path string, step int, fn func(n int, line string)) int {
	t.Helper()
	sc := parsetest.GzipScanner(t, path)
	n := 0
	for sc.Scan() {
		n++
		if n%step == 0 {
			fn(n, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPhraseTablesMosesModels(t *testing.T) {
	tests := []struct {
		dir, file string
		scores    int
		pairs     int
		counts    int
		step      int
	}{
		{"early-distortion-de-en", "phrase-table.gz", 5, 4813, 2, 1},
		{"lexicalized-reordering-fr-en", "phrase-table.0-0.gz", 5, 41915, 0, 1},
		{"europarl-fr-en-8k", "phrase-table.gz", 4, 607252, 3, 97},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			if testing.Short() && tc.pairs > 100000 {
				t.Skip("large table in -short mode")
			}
			path := shared.Path(t, "moses-models", tc.dir, tc.file)
			pt, err := LoadPhraseTable(context.Background(), path, PhraseTableOptions{NumScores: tc.scores})
			if err != nil {
				t.Fatal(err)
			}
			if pt.NumOptions() != tc.pairs || pt.NumCounts() != tc.counts || pt.Skipped() != 0 {
				t.Errorf("%d pairs, %d counts, %d skipped; want %d, %d, 0", pt.NumOptions(), pt.NumCounts(), pt.Skipped(), tc.pairs, tc.counts)
			}
			if n := checkAgainstFile(t, pt, path, tc.step); n != tc.pairs {
				t.Errorf("file has %d lines", n)
			}
		})
	}
}
