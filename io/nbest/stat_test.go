package nbest

import (
	"bytes"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/testsupport/parsetest"
	"github.com/mtune/mtune/testsupport/shared"
)

// TestAppendNum checks the default precision against C's printf("%g"),
// which C++'s ostream uses; the expectations come from Python's "%g" %
// x, which follows C.
func TestAppendNum(t *testing.T) {
	tests := []struct {
		x    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "-0"}, {1, "1"}, {0.5, "0.5"},
		{100000, "100000"}, {1000000, "1e+06"}, {123456.7, "123457"}, {1234567, "1.23457e+06"},
		{0.0001, "0.0001"}, {0.00001, "1e-05"}, {-3.30693, "-3.30693"}, {8.99907, "8.99907"},
		{1e100, "1e+100"}, {2.5e-300, "2.5e-300"}, {123456789, "1.23457e+08"},
		{-47.29824, "-47.2982"}, {tenth + 0.2, "0.3"}, {1.0 / 3, "0.333333"},
	}
	for _, tc := range tests {
		if got := string(appendNum(nil, tc.x, 0)); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.x, got, tc.want)
		}
	}
	if got := string(appendNum(nil, tenth+0.2, -1)); got != "0.30000000000000004" {
		t.Errorf("shortest: got %q", got)
	}
	if got := string(appendNum(nil, 1.0/3, 3)); got != "0.333" {
		t.Errorf("3 digits: got %q", got)
	}
}

func readFeatBlocks(tb testing.TB, data []byte, idx *feature.Index) []FeatBlock {
	tb.Helper()
	return parsetest.MustReadAll(tb, NewFeatStatReader(bytes.NewReader(data), "feat", idx).Read)
}

func readScoreBlocks(tb testing.TB, data []byte) []ScoreBlock {
	tb.Helper()
	return parsetest.MustReadAll(tb, NewScoreStatReader(bytes.NewReader(data), "score").Read)
}

func writeFeat(tb testing.TB, idx *feature.Index, prec int, blocks []FeatBlock) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := NewFeatStatWriter(&buf, idx)
	w.Precision = prec
	writeBlocks(tb, w, blocks)
	return buf.Bytes()
}

func writeScore(tb testing.TB, prec int, blocks []ScoreBlock) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := NewScoreStatWriter(&buf)
	w.Precision = prec
	writeBlocks(tb, w, blocks)
	return buf.Bytes()
}

// writeBlocks writes blocks with w and flushes it, failing tb on an error.
func writeBlocks[B any](tb testing.TB, w interface {
	Write(B) error
	Flush()
	Error() error
}, blocks []B) {
	tb.Helper()
	for _, b := range blocks {
		if err := w.Write(b); err != nil {
			tb.Fatal(err)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		tb.Fatal(err)
	}
}

func readFile(tb testing.TB, rel ...string) []byte {
	tb.Helper()
	b, err := os.ReadFile(shared.Path(tb, rel...))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// tenth is a variable so that tenth+0.2 is computed in float64 (as a
// constant expression it would be exactly 0.3).
var tenth = 0.1

var mertNames = strings.Fields("d_0 d_1 d_2 d_3 d_4 d_5 d_6 lm_0 tm_0 tm_1 tm_2 tm_3 tm_4 w_0")

func TestMertBasic(t *testing.T) {
	feat := readFile(t, "nbest", "mert-basic", "FEATSTAT.txt")
	score := readFile(t, "nbest", "mert-basic", "SCORESTAT.txt")
	idx := feature.NewIndex()
	fb := readFeatBlocks(t, feat, idx)
	sb := readScoreBlocks(t, score)
	if len(fb) != 10 || len(sb) != 10 {
		t.Fatalf("%d feature and %d score blocks, want 10 and 10", len(fb), len(sb))
	}
	for i := range fb {
		if fb[i].Sentence != i || sb[i].Sentence != i || len(fb[i].Vectors) != 100 || len(sb[i].Stats) != 100 {
			t.Errorf("block %d: sentences %d, %d; %d vectors, %d stat rows", i, fb[i].Sentence, sb[i].Sentence, len(fb[i].Vectors), len(sb[i].Stats))
		}
		if strings.Join(fb[i].Dense, " ") != strings.Join(mertNames, " ") || sb[i].Metric != "BLEU" {
			t.Errorf("block %d: names %v, metric %q", i, fb[i].Dense, sb[i].Metric)
		}
		for _, row := range sb[i].Stats {
			if len(row) != 9 {
				t.Fatalf("block %d: row of %d statistics", i, len(row))
			}
		}
	}
	// First rows of the files:
	// 0 -3.30693 0 0 -2.83036 0 0 -47.2982 -36.7163 -58.3679 -12.6473 -17.133 7.99917 -14
	// 6 14 1 13 0 12 0 11 18
	wantF := fv{"d_1": -3.30693, "d_4": -2.83036, "lm_0": -47.2982, "tm_0": -36.7163, "tm_1": -58.3679,
		"tm_2": -12.6473, "tm_3": -17.133, "tm_4": 7.99917, "w_0": -14}
	if got := named(idx, fb[0].Vectors[0]); !equalFV(got, wantF) {
		t.Errorf("first row %v, want %v", got, wantF)
	}
	if got := sb[0].Stats[0]; !slices.Equal(got, []float64{6, 14, 1, 13, 0, 12, 0, 11, 18}) {
		t.Errorf("first statistics %v", got)
	}
	// Written again with Moses' formatting, byte for byte.
	if got := writeFeat(t, idx, 0, fb); !bytes.Equal(got, feat) {
		t.Errorf("FEATSTAT written differs from Moses':\n%s", firstDiff(got, feat))
	}
	if got := writeScore(t, 0, sb); !bytes.Equal(got, score) {
		t.Errorf("SCORESTAT written differs from Moses':\n%s", firstDiff(got, score))
	}
}

func firstDiff(got, want []byte) string {
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			return "line " + itoa(i+1) + ":\n got " + gl[i] + "\nwant " + wl[i]
		}
	}
	return "lines " + itoa(len(gl)) + " and " + itoa(len(wl))
}

func itoa(i int) string { return string(appendNum(nil, float64(i), -1)) }

// extractorSections returns the FEATURES and SCORES blocks of Moses'
// expected extractor output, the "STDOUT_N=" prefixes stripped, as one
// text per iteration each.
func extractorSections(tb testing.TB) (feats, scores [][]byte) {
	tb.Helper()
	data := readGz(tb, "nbest", "mert-extractor", "expected-extractor-output.txt.gz")
	prefix := regexp.MustCompile(`^STDOUT_\d+=`)
	var cur *bytes.Buffer
	var fs, ss []*bytes.Buffer
	nf := 0
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if !prefix.MatchString(line) {
			continue // TOTAL_WALLTIME
		}
		line = prefix.ReplaceAllString(line, "")
		switch {
		case strings.HasPrefix(line, featBegin):
			if nf%10 == 0 {
				fs = append(fs, new(bytes.Buffer))
			}
			nf++
			cur = fs[len(fs)-1]
		case strings.HasPrefix(line, scoreBegin):
			if len(ss) < len(fs) {
				ss = append(ss, new(bytes.Buffer))
			}
			cur = ss[len(ss)-1]
		}
		cur.WriteString(line)
	}
	for i := range fs {
		feats = append(feats, fs[i].Bytes())
		scores = append(scores, ss[i].Bytes())
	}
	return feats, scores
}

func TestExtractorOutput(t *testing.T) {
	feats, scores := extractorSections(t)
	if len(feats) != 5 || len(scores) != 5 {
		t.Fatalf("%d feature and %d score sections, want 5 and 5", len(feats), len(scores))
	}
	for it := range feats {
		idx := feature.NewIndex()
		fb := readFeatBlocks(t, feats[it], idx)
		sb := readScoreBlocks(t, scores[it])
		if len(fb) != 10 || len(sb) != 10 {
			t.Fatalf("iteration %d: %d and %d blocks", it+1, len(fb), len(sb))
		}
		for i := range fb {
			if len(fb[i].Vectors) != len(sb[i].Stats) || fb[i].Sentence != sb[i].Sentence {
				t.Errorf("iteration %d block %d: %d vectors, %d statistics", it+1, i, len(fb[i].Vectors), len(sb[i].Stats))
			}
		}
		if got := writeFeat(t, idx, 0, fb); !bytes.Equal(got, feats[it]) {
			t.Errorf("iteration %d: FEATSTAT differs:\n%s", it+1, firstDiff(got, feats[it]))
		}
		if got := writeScore(t, 0, sb); !bytes.Equal(got, scores[it]) {
			t.Errorf("iteration %d: SCORESTAT differs:\n%s", it+1, firstDiff(got, scores[it]))
		}
	}
}

func TestStatRoundTripSparse(t *testing.T) {
	idx := feature.NewIndex()
	dense := []string{"lm_0", "w_0"}
	blocks := []FeatBlock{
		{Sentence: 3, Dense: dense, Vectors: []feature.Vector{
			vec(idx, "lm_0", tenth+0.2, "pp_a~b", 1, "x=y", -2.5e-9),
			vec(idx, "w_0", -7),
			{},
		}},
		{Sentence: 0, Dense: nil, Vectors: []feature.Vector{vec(idx, "lm_0", 1e300)}},
	}
	data := writeFeat(t, idx, -1, blocks)
	want := "FEATURES_TXT_BEGIN_0 3 3 2 lm_0 w_0 \n0.30000000000000004 0 pp_a~b=1 x=y=-2.5e-09 \n0 -7 \n0 0 \nFEATURES_TXT_END_0\n" +
		"FEATURES_TXT_BEGIN_0 0 1 0 \nlm_0=1e+300 \nFEATURES_TXT_END_0\n"
	if string(data) != want {
		t.Errorf("got\n%s\nwant\n%s", data, want)
	}
	back := readFeatBlocks(t, data, idx)
	if len(back) != 2 {
		t.Fatalf("%d blocks", len(back))
	}
	for i := range blocks {
		if back[i].Sentence != blocks[i].Sentence || strings.Join(back[i].Dense, " ") != strings.Join(blocks[i].Dense, " ") ||
			len(back[i].Vectors) != len(blocks[i].Vectors) {
			t.Fatalf("block %d: %+v", i, back[i])
		}
		for k := range blocks[i].Vectors {
			if !back[i].Vectors[k].Equal(blocks[i].Vectors[k]) {
				t.Errorf("block %d row %d: %v, want %v", i, k, back[i].Vectors[k], blocks[i].Vectors[k])
			}
		}
	}
	sb := []ScoreBlock{{Sentence: 1, Metric: "TER", Stats: [][]float64{{tenth + 0.2, 2}, {-1, 1e-7}}}, {Sentence: 2, Metric: "TER"}}
	sdata := writeScore(t, -1, sb)
	if want := "SCORES_TXT_BEGIN_0 1 2 2 TER\n0.30000000000000004 2 \n-1 1e-07 \nSCORES_TXT_END_0\nSCORES_TXT_BEGIN_0 2 0 0 TER\nSCORES_TXT_END_0\n"; string(sdata) != want {
		t.Errorf("got %q, want %q", sdata, want)
	}
	sback := readScoreBlocks(t, sdata)
	if len(sback) != 2 || !slices.Equal(sback[0].Stats[0], sb[0].Stats[0]) || !slices.Equal(sback[0].Stats[1], sb[0].Stats[1]) || len(sback[1].Stats) != 0 {
		t.Errorf("read back %+v", sback)
	}
}

func TestStatReadErrors(t *testing.T) {
	const scoreBlocks = true // Opts: the input is SCORESTAT, not FEATSTAT
	tests := []parsetest.ErrCase[bool]{
		{Name: "wrong marker", In: "FEATURES_BEGIN 0 1 0\n", Line: 1, Kind: ErrBadHeader},
		{Name: "binary", In: "FEATURES_BIN_BEGIN_0 0 1 0\n", Line: 1, Kind: ErrBadHeader},
		{Name: "short header", In: "FEATURES_TXT_BEGIN_0 0 1\n", Line: 1, Kind: ErrBadHeader},
		{Name: "bad count", In: "FEATURES_TXT_BEGIN_0 0 x 0\n", Line: 1, Kind: ErrBadHeader},
		{Name: "names and width differ", In: "FEATURES_TXT_BEGIN_0 0 1 2 a_0\n", Line: 1, Kind: ErrBadHeader},
		{Name: "repeated name", In: "FEATURES_TXT_BEGIN_0 0 1 2 a_0 a_0\n", Line: 1, Kind: ErrBadHeader},
		{Name: "too few values", In: "FEATURES_TXT_BEGIN_0 0 1 2 a_0 b_0 \n1 x_y=2\nFEATURES_TXT_END_0\n", Line: 2, Kind: ErrColumnCount},
		{Name: "too many values", In: "FEATURES_TXT_BEGIN_0 0 1 1 a_0 \n1 2\nFEATURES_TXT_END_0\n", Line: 2, Kind: ErrColumnCount},
		{Name: "nan", In: "FEATURES_TXT_BEGIN_0 0 1 1 a_0 \nnan\nFEATURES_TXT_END_0\n", Line: 2, Kind: ErrBadNumber},
		{Name: "bad sparse value", In: "FEATURES_TXT_BEGIN_0 0 1 1 a_0 \n1 x=inf\nFEATURES_TXT_END_0\n", Line: 2, Kind: ErrBadNumber},
		{Name: "empty sparse name", In: "FEATURES_TXT_BEGIN_0 0 1 1 a_0 \n1 =1\nFEATURES_TXT_END_0\n", Line: 2, Kind: ErrBadFeature},
		{Name: "rows cut off", In: "FEATURES_TXT_BEGIN_0 0 2 1 a_0 \n1\n", Line: 2, Kind: io.ErrUnexpectedEOF},
		{Name: "footer missing", In: "FEATURES_TXT_BEGIN_0 0 1 1 a_0 \n1\n", Line: 2, Kind: io.ErrUnexpectedEOF},
		{Name: "wrong footer", In: "FEATURES_TXT_BEGIN_0 0 1 1 a_0 \n1\n2\n", Line: 3, Kind: ErrBadFooter},
		{Name: "invalid UTF-8", In: "FEATURES_TXT_BEGIN_0 0 1 1 a_0 \n1 \xff=1\nFEATURES_TXT_END_0\n", Line: 2, Kind: ErrInvalidUTF8},
		{Name: "scores: no metric", In: "SCORES_TXT_BEGIN_0 0 1 1\n", Opts: scoreBlocks, Line: 1, Kind: ErrBadHeader},
		{Name: "scores: extra header field", In: "SCORES_TXT_BEGIN_0 0 1 1 BLEU x\n", Opts: scoreBlocks, Line: 1, Kind: ErrBadHeader},
		{Name: "scores: short row", In: "SCORES_TXT_BEGIN_0 0 1 2 BLEU\n1 \nSCORES_TXT_END_0\n", Opts: scoreBlocks, Line: 2, Kind: ErrColumnCount},
		{Name: "scores: long row", In: "SCORES_TXT_BEGIN_0 0 1 1 BLEU\n1 2\nSCORES_TXT_END_0\n", Opts: scoreBlocks, Line: 2, Kind: ErrColumnCount},
		{Name: "scores: bad number", In: "\nSCORES_TXT_BEGIN_0 0 1 1 BLEU\n1e999\nSCORES_TXT_END_0\n", Opts: scoreBlocks, Line: 3, Kind: ErrBadNumber},
		{Name: "scores: wrong footer", In: "SCORES_TXT_BEGIN_0 0 1 1 BLEU\n1\nFEATURES_TXT_END_0\n", Opts: scoreBlocks, Line: 3, Kind: ErrBadFooter},
		{Name: "scores: feature block", In: "FEATURES_TXT_BEGIN_0 0 1 1 a\n", Opts: scoreBlocks, Line: 1, Kind: ErrBadHeader},
	}
	for _, tc := range tests {
		t.Run(tc.Name, func(t *testing.T) {
			var err error
			if tc.Opts == scoreBlocks {
				r := NewScoreStatReader(strings.NewReader(tc.In), "s.txt")
				for err == nil {
					_, err = r.Read()
				}
			} else {
				r := NewFeatStatReader(strings.NewReader(tc.In), "s.txt", feature.NewIndex())
				for err == nil {
					_, err = r.Read()
				}
			}
			parsetest.At[pkgPrefix](t, tc.Name, err, tc.Kind, "s.txt", tc.Line, -1)
		})
	}
}

func TestStatWriteErrors(t *testing.T) {
	idx := feature.NewIndex()
	fw := NewFeatStatWriter(io.Discard, idx)
	for name, b := range map[string]FeatBlock{
		"negative sentence":  {Sentence: -1},
		"space in name":      {Dense: []string{"a b"}},
		"empty name":         {Dense: []string{""}},
		"infinite value":     {Dense: []string{"lm_0"}, Vectors: []feature.Vector{{IDs: []feature.ID{idx.ID("lm_0")}, Vals: []float64{math.Inf(-1)}}}},
		"sparse name spaced": {Vectors: []feature.Vector{vec(idx, "a\tb", 1)}},
		"id not in index":    {Vectors: []feature.Vector{{IDs: []feature.ID{1 << 20}, Vals: []float64{1}}}},
	} {
		if err := fw.Write(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	sw := NewScoreStatWriter(io.Discard)
	for name, b := range map[string]ScoreBlock{
		"negative sentence": {Sentence: -1, Metric: "BLEU"},
		"no metric":         {},
		"ragged rows":       {Metric: "BLEU", Stats: [][]float64{{1, 2}, {1}}},
		"nan":               {Metric: "BLEU", Stats: [][]float64{{math.NaN()}}},
	} {
		if err := sw.Write(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
