package model

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/parsetest"
	"github.com/mtune/mtune/testsupport/shared"
)

func TestParseReorderingType(t *testing.T) {
	tests := []struct {
		in   string
		want ReorderingType
		n    int
		kind error
	}{
		{in: "msd-bidirectional-fe", want: ReorderingType{Model: MSD, Direction: Bidirectional, Condition: ConditionFE}, n: 6},
		{in: "wbe-msd-bidirectional-fe-allff", want: ReorderingType{Model: MSD, Direction: Bidirectional, Condition: ConditionFE, WordBased: true}, n: 6},
		{in: "msd-fe", want: ReorderingType{Model: MSD, Condition: ConditionFE}, n: 3},
		{in: "msd-bidirectional-f", want: ReorderingType{Model: MSD, Direction: Bidirectional, Condition: ConditionF}, n: 6},
		{in: "mslr-forward-fe", want: ReorderingType{Model: MSLR, Direction: Forward, Condition: ConditionFE}, n: 4},
		{in: "monotonicity-bidirectional-fe-collapseff", want: ReorderingType{Model: Monotonicity, Direction: Bidirectional, Condition: ConditionFE, Collapse: true}, n: 2},
		{in: "phrase-leftright-unidirectional-f", want: ReorderingType{Model: LeftRight, Condition: ConditionF}, n: 2},
		{in: "hier-mslr-bidirectional-fe", kind: ErrUnsupported},
		{in: "msd-bidirectional-fe-xyz", kind: ErrUnsupported},
		{in: "bidirectional-fe", kind: ErrConfig},
		{in: "msd-bidirectional", kind: ErrConfig},
		{in: "", kind: ErrUnsupported},
	}
	for _, tc := range tests {
		got, err := ParseReorderingType(tc.in)
		if tc.kind != nil {
			if !errors.Is(err, tc.kind) {
				t.Errorf("%q: %v, want %v", tc.in, err, tc.kind)
			}
			continue
		}
		tc.want.Text = tc.in
		if err != nil || got != tc.want || got.NumScores() != tc.n {
			t.Errorf("%q: %+v (%d scores), %v; want %+v (%d)", tc.in, got, got.NumScores(), err, tc.want, tc.n)
		}
	}
}

func TestReadReordering(t *testing.T) {
	ro := `das Haus ||| the house ||| 0.6 0.2 0.2 0.5 0.25 0.25
das Haus ||| house ||| 0.1 0.2 0.7 0.3 0.3 0.4
das ||| the ||| 0.3 0.3 0.4 0.1 0.1 0.8
Auto ||| car ||| 0.5 0.25 0.25 0.5 0.25 0.25
das ||| the car ||| 0.5 0.25 0.25 0.5 0.25 0.25
ist ||| ||| 0.5 0.25 0.25 0.5 0.25 0

das Haus ||| house ||| 0.2 0.2 0.6 0.3 0.3 0.4
`
	for _, opts := range []ReorderingOptions{{}, {NumScores: 6, ChunkSize: 9, Workers: 3}} {
		pt := readTable(t, smallTable, PhraseTableOptions{})
		st, err := pt.ReadReordering(context.Background(), strings.NewReader(ro), "ro", opts)
		if err != nil {
			t.Fatal(err)
		}
		if want := (ReorderingStats{Lines: 7, Attached: 4, Unmatched: 2, Duplicates: 1}); st != want {
			t.Errorf("stats %+v, want %+v", st, want)
		}
		if pt.NumReordering() != 6 {
			t.Errorf("%d reordering scores", pt.NumReordering())
		}
		got := optionsOf(pt, "das Haus")
		want := [][]float32{{0.6, 0.2, 0.2, 0.5, 0.25, 0.25}, nil, {0.2, 0.2, 0.6, 0.3, 0.3, 0.4}}
		for i := range want {
			if !slices.Equal(got[i].reord, want[i]) {
				t.Errorf("das Haus option %d (%s): %v, want %v", i, got[i].tgt, got[i].reord, want[i])
			}
		}
		if got := optionsOf(pt, "ist"); got[0].reord == nil || got[0].reord[5] != 0 {
			t.Errorf("empty target: %v", got)
		}
	}

	// Condition f: every option of the source phrase.
	pt := readTable(t, smallTable, PhraseTableOptions{})
	st, err := pt.ReadReordering(context.Background(), strings.NewReader("das ||| 0.5 0.5\nAuto ||| 1 0\n"), "ro", ReorderingOptions{Condition: ConditionF})
	if err != nil {
		t.Fatal(err)
	}
	if st != (ReorderingStats{Lines: 2, Attached: 2, Unmatched: 1}) {
		t.Errorf("f stats %+v", st)
	}
	for _, op := range optionsOf(pt, "das") {
		if !slices.Equal(op.reord, []float32{0.5, 0.5}) {
			t.Errorf("das %s: %v", op.tgt, op.reord)
		}
	}

	// A duplicate pair in the phrase table gets the scores on both copies.
	pt = readTable(t, "a ||| x ||| 1\na ||| y ||| 1\na ||| x ||| 0.5\n", PhraseTableOptions{})
	if _, err := pt.ReadReordering(context.Background(), strings.NewReader("a ||| x ||| 0.1 0.9\n"), "ro", ReorderingOptions{}); err != nil {
		t.Fatal(err)
	}
	got := optionsOf(pt, "a")
	if got[0].reord == nil || got[1].reord != nil || got[2].reord == nil {
		t.Errorf("duplicates: %v", got)
	}
}

func TestReadReorderingErrors(t *testing.T) {
	tests := []parsetest.ErrCase[ReorderingOptions]{
		{Name: "two fields for fe", In: "das ||| 0.5 0.5\n", Kind: ErrSyntax, Line: 1},
		{Name: "context field", In: "das ||| the ||| x ||| 0.5\n", Kind: ErrUnsupported, Line: 1},
		{Name: "three fields for f", In: "das ||| the ||| 0.5\n", Opts: ReorderingOptions{Condition: ConditionF}, Kind: ErrSyntax, Line: 1},
		{Name: "wrong count", In: "das ||| the ||| 0.5 0.5\n", Opts: ReorderingOptions{NumScores: 6}, Kind: ErrCount, Line: 1},
		{Name: "count differs", In: "das ||| the ||| 0.5 0.5\nAuto ||| car ||| 0.5\n", Kind: ErrCount, Line: 2},
		{Name: "nan", In: "das ||| the ||| 0.5 NaN\n", Kind: ErrNumber, Line: 1},
		{Name: "negative", In: "Auto ||| car ||| -1 0.5\n", Kind: ErrNumber, Line: 1},
		{Name: "no scores", In: "das ||| the |||\n", Kind: ErrCount, Line: 1},
		{Name: "invalid utf-8 unknown source", In: "a ||| b ||| 1\nAu\xfft ||| car ||| 0.5\n", Kind: ErrUTF8, Line: 2},
		{Name: "invalid utf-8 target", In: "das ||| th\xffe ||| 0.5\n", Kind: ErrUTF8, Line: 1},
		{Name: "invalid utf-8 target of unknown source", In: "Auto ||| \xff ||| 0.5\n", Kind: ErrUTF8, Line: 1},
		{Name: "empty", In: "\n\n", Kind: ErrEmpty},
	}
	for _, tc := range tests {
		pt := readTable(t, smallTable, PhraseTableOptions{})
		_, err := pt.ReadReordering(context.Background(), strings.NewReader(tc.In), "ro.gz", tc.Opts)
		parsetest.At[pkgPrefix](t, tc.Name, err, tc.Kind, "ro.gz", tc.Line, -1)
		if pt.NumReordering() != 0 {
			t.Errorf("%s: scores attached after an error", tc.Name)
		}
	}
}

func TestParseLines(t *testing.T) {
	pp, err := ParsePhraseLine("das  Haus ||| the house ||| 0.5 1e-05 ||| 1-1 0-0 ||| 2 3 1 ||| ||| {{Tree x}}")
	want := PhrasePair{Source: []string{"das", "Haus"}, Target: []string{"the", "house"}, Scores: []float32{0.5, 1e-5}, Alignment: []int{1, 1, 0, 0}, Counts: []float32{2, 3, 1}}
	if err != nil || !reflect.DeepEqual(pp, want) {
		t.Errorf("ParsePhraseLine: %+v, %v", pp, err)
	}
	line, err := AppendPhraseLine(nil, want)
	if err != nil || string(line) != "das Haus ||| the house ||| 0.5 1e-05 ||| 1-1 0-0 ||| 2 3 1\n" {
		t.Errorf("AppendPhraseLine: %q, %v", line, err)
	}
	for _, bad := range []PhrasePair{
		{Target: []string{"x"}, Scores: []float32{1}},
		{Source: []string{"a b"}, Scores: []float32{1}},
		{Source: []string{"a|||"}, Scores: []float32{1}},
		{Source: []string{"a"}},
		{Source: []string{"a"}, Scores: []float32{-1}},
		{Source: []string{"a"}, Scores: []float32{1}, Alignment: []int{0, 0}},
		{Source: []string{"\xff"}, Scores: []float32{1}},
	} {
		if _, err := AppendPhraseLine(nil, bad); err == nil {
			t.Errorf("AppendPhraseLine(%+v) accepted", bad)
		}
	}
	e, err := ParseReorderingLine("a b ||| c ||| 0.6 0.2 0.2", ConditionFE)
	if err != nil || !reflect.DeepEqual(e, ReorderingEntry{Source: []string{"a", "b"}, Target: []string{"c"}, Scores: []float32{0.6, 0.2, 0.2}}) {
		t.Errorf("ParseReorderingLine: %+v, %v", e, err)
	}
	if line, err := AppendReorderingLine(nil, e, ConditionFE); err != nil || string(line) != "a b ||| c ||| 0.6 0.2 0.2\n" {
		t.Errorf("AppendReorderingLine: %q, %v", line, err)
	}
}

// TestReorderingMosesModels attaches the reordering tables of the Moses
// models and checks every (or every step-th) entry against a naive parse.
func TestReorderingMosesModels(t *testing.T) {
	tests := []struct {
		dir, pt, ro string
		ptScores    int
		pairs       int
		step        int
	}{
		{"lexicalized-reordering-fr-en", "phrase-table.0-0.gz", "reordering-table.msd-bidirectional-fe.0.5.0-0.gz", 5, 41915, 1},
		{"europarl-fr-en-8k", "phrase-table.gz", "reordering-table.wbe-msd-bidirectional-fe.gz", 4, 607252, 89},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			if testing.Short() && tc.pairs > 100000 {
				t.Skip("large table in -short mode")
			}
			ctx := context.Background()
			pt, err := LoadPhraseTable(ctx, shared.Path(t, "moses-models", tc.dir, tc.pt), PhraseTableOptions{NumScores: tc.ptScores})
			if err != nil {
				t.Fatal(err)
			}
			roPath := shared.Path(t, "moses-models", tc.dir, tc.ro)
			st, err := pt.LoadReordering(ctx, roPath, ReorderingOptions{NumScores: 6})
			if err != nil {
				t.Fatal(err)
			}
			if want := (ReorderingStats{Lines: tc.pairs, Attached: tc.pairs}); st != want {
				t.Errorf("stats %+v, want %+v", st, want)
			}
			eachNthLine(t, roPath, tc.step, func(n int, line string) {
				src, tgt, scores, _, _ := naivePair(t, line)
				found := false
				for _, op := range optionsOf(pt, src) {
					if op.tgt == tgt {
						found = slices.Equal(op.reord, scores)
						break
					}
				}
				if !found {
					t.Fatalf("%s:%d: %q ||| %q: scores %v not attached", roPath, n, src, tgt, scores)
				}
			})
		})
	}
}
