package metric

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// TestMosesExtractor checks the statistics of every hypothesis of the first
// tuning iteration of Moses' mert-extractor regression test against the
// SCORESTAT lines Moses' extractor wrote for them.
func TestMosesExtractor(t *testing.T) {
	nbest := readNbest(t, shared.Path(t, "nbest", "mert-extractor", "nbest.1.gz"))
	refs := readReferences(t, 4, nil, shared.Path(t, "nbest", "mert-extractor", "reference"))
	blocks := readBlocks(t, shared.Path(t, "nbest", "mert-extractor", "expected-extractor-output.txt.gz"), "SCORES_TXT_BEGIN_0")
	if len(blocks) < len(refs) {
		t.Fatalf("%d SCORES_TXT blocks, want at least %d", len(blocks), len(refs))
	}
	bySent := make(map[int][]string)
	for _, e := range nbest {
		bySent[e.sent] = append(bySent[e.sent], e.target)
	}
	compared := 0
	for _, b := range blocks[:len(refs)] {
		hyps := bySent[b.sent]
		// Moses de-duplicates by features and statistics together; in this
		// iteration no entry was removed, so the block follows the list.
		if b.count != len(hyps) || len(b.rows) != b.count {
			t.Fatalf("sentence %d: block of %d (%d rows), n-best list of %d", b.sent, b.count, len(b.rows), len(hyps))
		}
		for i, row := range b.rows {
			want, err := ParseMoses(row)
			if err != nil {
				t.Fatalf("sentence %d row %d: %v", b.sent, i, err)
			}
			got := refs[b.sent].StatsString(hyps[i])
			if got != want {
				t.Errorf("sentence %d hyp %d %q:\n got %v\nwant %v", b.sent, i, hyps[i], got, want)
			}
			compared++
		}
	}
	if compared != 1000 {
		t.Errorf("compared %d hypotheses, want 1000", compared)
	}
}

func parseFloats(tb testing.TB, line string) []float64 {
	tb.Helper()
	var out []float64
	for _, f := range strings.Fields(line) {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			tb.Fatalf("%q: %v", line, err)
		}
		out = append(out, x)
	}
	return out
}

// TestMertBasic re-ranks Moses' mert-basic n-best lists with the weights mert
// found and checks the corpus BLEU mert reported for them.
func TestMertBasic(t *testing.T) {
	dir := func(name string) string { return shared.Path(t, "nbest", "mert-basic", name) }
	feats := readBlocks(t, dir("FEATSTAT.txt"), "FEATURES_TXT_BEGIN_0")
	scores := readBlocks(t, dir("SCORESTAT.txt"), "SCORES_TXT_BEGIN_0")
	w := parseFloats(t, readLines(t, dir("weights.txt"))[0])
	if len(feats) != 10 || len(scores) != 10 {
		t.Fatalf("%d feature blocks, %d score blocks, want 10", len(feats), len(scores))
	}
	var sum Stats
	for i := range feats {
		fb, sb := feats[i], scores[i]
		if fb.sent != sb.sent || len(fb.rows) != len(sb.rows) || len(fb.rows) != fb.count {
			t.Fatalf("block %d: features %d×%d, scores %d×%d", i, fb.sent, len(fb.rows), sb.sent, len(sb.rows))
		}
		best, bestScore := -1, math.Inf(-1)
		for j, row := range fb.rows {
			x := parseFloats(t, row)
			if len(x) != len(w) {
				t.Fatalf("sentence %d row %d: %d features, %d weights", fb.sent, j, len(x), len(w))
			}
			var s float64
			for k := range x {
				s += w[k] * x[k]
			}
			if s > bestScore {
				best, bestScore = j, s
			}
		}
		st, err := ParseMoses(sb.rows[best])
		if err != nil {
			t.Fatal(err)
		}
		sum.Add(st)
	}
	// expected-mert-output.txt: "=> 0.304339"; the data README gives 0.3043391.
	if got, want := BLEUStats(sum).BLEU(), 0.3043391; math.Abs(got-want) > 1e-6 {
		t.Errorf("BLEU of the re-ranked 1-best = %.7f, want %.7f (stats %v)", got, want, sum)
	}
}

// TestMosesLayout checks the conversions to and from Moses' fields.
func TestMosesLayout(t *testing.T) {
	tests := []struct {
		name    string
		fields  []int
		wantErr bool
	}{
		{"bleu4", []int{6, 14, 1, 13, 0, 12, 0, 11, 18}, false},
		{"bleu1", []int{3, 4, 5}, false},
		{"bleu6", []int{1, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2}, false},
		{"even", []int{1, 2, 3, 4}, true},
		{"too long", make([]int, 15), true},
		{"empty", nil, true},
		{"matches above totals", []int{3, 2, 0, 1, 0, 0, 0, 0, 2}, true},
		{"negative", []int{0, 2, 0, 1, 0, 0, 0, 0, -2}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := FromMoses(tc.fields)
			if (err != nil) != tc.wantErr {
				t.Fatalf("FromMoses(%v) error %v, want error %v", tc.fields, err, tc.wantErr)
			}
			if err != nil {
				return
			}
			back, err := s.ToMoses()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(back, tc.fields) {
				t.Errorf("ToMoses(FromMoses(%v)) = %v", tc.fields, back)
			}
			p, err := ParseMoses(s.String() + " ")
			if err != nil || p != s {
				t.Errorf("ParseMoses(%q) = %v, %v; want %v", s.String(), p, err, s)
			}
		})
	}
	frac := NewBLEUStats(1, []float64{0.5}, []float64{1}, 1)
	if _, err := frac.ToMoses(); err == nil {
		t.Error("ToMoses of fractional statistics: no error")
	}
}

func TestParseMoses(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr bool
	}{
		{"moses", "6 14 1 13 0 12 0 11 18 ", false},
		{"tabs", "\t6\t14 1 13 0 12 0 11 18", false},
		{"fractional", "0.5 1.5 0 0.25 2.75", false},
		{"exponent", "1e+06 2e+06 1000000", false},
		{"empty", "", true},
		{"blank", "   ", true},
		{"even", "1 2 3 4", true},
		{"word", "1 2 x", true},
		{"nan", "NaN 2 3", true},
		{"inf", "1 Inf 3", true},
		{"too many", strings.Repeat("0 ", 14), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseMoses(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseMoses(%q) = %v, %v; want error %v", tc.in, s, err, tc.wantErr)
			}
			if err == nil && len(strings.Fields(tc.in)) != 2*BLEUStats(s).Order()+1 {
				t.Errorf("order %d from %d fields", BLEUStats(s).Order(), len(strings.Fields(tc.in)))
			}
		})
	}
}
