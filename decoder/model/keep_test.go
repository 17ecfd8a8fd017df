package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// dumpTable writes every entry of t (source, then each option's target,
// scores, alignment, counts and reordering scores), in entry order, so
// that two tables compare as strings.
func dumpTable(t *PhraseTable) string {
	var b strings.Builder
	word := func(v *Vocab, ids []int32) string {
		ws := make([]string, len(ids))
		for i, id := range ids {
			ws[i] = v.Word(id)
		}
		return strings.Join(ws, " ")
	}
	fmt.Fprintf(&b, "scores %d counts %d reordering %d\n", t.NumScores(), t.NumCounts(), t.NumReordering())
	for e := range int32(t.NumSources()) {
		fmt.Fprintf(&b, "%s:\n", word(t.src, t.Source(e)))
		start, end := t.Options(e)
		for o := start; o < end; o++ {
			r, ok := t.Reordering(o)
			fmt.Fprintf(&b, "  %s %v %v %v %v %v\n", word(t.tgt, t.Target(o)), t.Scores(o), t.Alignment(o), t.Counts(o), ok, r)
		}
	}
	return b.String()
}

// keepSet is the PhraseSet of the sentences the Keep tests load for.
func keepSet() *PhraseSet {
	return NewPhraseSet([][]string{{"a", "b"}, {"c"}}, 2)
}

// TestReadPhraseTableKeep checks that PhraseTableOptions.Keep reads the
// lines FilterPhraseTable keeps, and that a line not kept is checked for
// its fields only.
func TestReadPhraseTableKeep(t *testing.T) {
	const table = "a ||| x ||| 0.5 0.25 ||| 0-0 ||| 1 2 3\n" +
		"a ||| y ||| 0.5 0.5 ||| 0-0 ||| 1 2 3\n" +
		"a b ||| x y ||| 0.1 0.2 ||| 0-0 1-1 ||| 1 2 3\n" +
		"a c ||| x z ||| 0.1 0.2 ||| ||| 1 2 3\n" + // not a sequence of a sentence
		"b ||| y ||| 0.3 0.3 ||| 0-0 ||| 1 2 3\n" +
		"b a ||| y x ||| 0.3 0.3 ||| 0-0 ||| 1 2 3\n" +
		"d ||| w ||| 0.9 0.9 ||| 0-0 ||| 1 2 3\n" +
		"c ||| z ||| 0.7 0.7 ||| 0-0 ||| 1 2 3\n"
	tests := []struct {
		name    string
		edit    func(string) string
		wantErr error  // nil: success
		want    string // in the error
	}{
		{"as filtered", nil, nil, ""},
		{"bad score, not kept", func(s string) string { return strings.Replace(s, "0.9 0.9", "0.9 x", 1) }, nil, ""},
		{"too few scores, not kept", func(s string) string { return strings.Replace(s, "0.9 0.9", "0.9", 1) }, nil, ""},
		{"bad alignment, not kept", func(s string) string {
			return strings.Replace(s, "y x ||| 0.3 0.3 ||| 0-0", "y x ||| 0.3 0.3 ||| 7-7", 1)
		}, nil, ""},
		{"invalid UTF-8, not kept", func(s string) string { return strings.Replace(s, "d ||| w", "d ||| \xff", 1) }, nil, ""},
		{"no fields, not kept", func(s string) string { return strings.Replace(s, "d ||| w ||| 0.9 0.9 |||", "d w 0.9 0.9", 1) }, ErrSyntax, "pt:7:"},
		{"8 fields, not kept", func(s string) string { return strings.Replace(s, "d ||| w |||", "d ||| w ||| ||| ||| ||| ||| |||", 1) }, ErrSyntax, "pt:7:"},
		{"bad score, kept", func(s string) string { return strings.Replace(s, "0.7 0.7", "0.7 x", 1) }, ErrNumber, "pt:8:"},
		{"invalid UTF-8, kept", func(s string) string { return strings.Replace(s, "c ||| z", "c ||| \xff", 1) }, ErrUTF8, "pt:8:"},
		{"other counts, kept", func(s string) string {
			return strings.Replace(s, "0.3 0.3 ||| 0-0 ||| 1 2 3\nb a", "0.3 0.3 ||| 0-0 ||| 1 2\nb a", 1)
		}, ErrCount, "counts"},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := table
			if tc.edit != nil {
				in = tc.edit(in)
			}
			for _, chunk := range []int{0, 40} {
				got, err := ReadPhraseTable(ctx, strings.NewReader(in), "pt", PhraseTableOptions{NumScores: 2, Keep: keepSet(), ChunkSize: chunk, Workers: 2})
				if tc.wantErr != nil {
					if !errors.Is(err, tc.wantErr) || !strings.Contains(fmt.Sprint(err), tc.want) {
						t.Errorf("chunk %d: error %v, want %v at %q", chunk, err, tc.wantErr, tc.want)
					}
					continue
				}
				if err != nil {
					t.Fatalf("chunk %d: %v", chunk, err)
				}
				var filtered bytes.Buffer
				if _, err := FilterPhraseTable(ctx, strings.NewReader(in), "pt", &filtered, keepSet(), FilterOptions{NumScores: 2}); err != nil {
					t.Fatal(err)
				}
				want := readTable(t, filtered.String(), PhraseTableOptions{NumScores: 2})
				if g, w := dumpTable(got), dumpTable(want); g != w {
					t.Errorf("chunk %d: table\n%s\nwant (the filtered table's)\n%s", chunk, g, w)
				}
				if got.NumOptions() != 5 || got.NumSources() != 4 {
					t.Errorf("chunk %d: %d options of %d sources, want 5 of 4 (a, a b, b, c)", chunk, got.NumOptions(), got.NumSources())
				}
			}
		})
	}
}

// TestReadReorderingKeep checks that ReorderingOptions.Keep attaches the
// scores of the kept lines as the filtered table does, counts the other
// lines as unmatched and checks them for their fields only.
func TestReadReorderingKeep(t *testing.T) {
	const pt = "a ||| x ||| 0.5 ||| 0-0\nb ||| y ||| 0.3 ||| 0-0\nd ||| w ||| 0.9 ||| 0-0\n"
	const table = "a ||| x ||| 0.1 0.2\nb ||| y ||| 0.3 0.4\nd ||| w ||| 0.5 0.6\n"
	tests := []struct {
		name    string
		edit    func(string) string
		wantErr error
	}{
		{"as filtered", nil, nil},
		{"bad score, not kept", func(s string) string { return strings.Replace(s, "0.5 0.6", "0.5 -1", 1) }, nil},
		{"3 scores, not kept", func(s string) string { return strings.Replace(s, "0.5 0.6", "0.5 0.6 0.7", 1) }, nil},
		{"no fields, not kept", func(s string) string { return strings.Replace(s, "d ||| w |||", "d w |||", 1) }, ErrSyntax},
		{"4 fields, not kept", func(s string) string { return strings.Replace(s, "d ||| w |||", "d ||| w ||| x |||", 1) }, ErrUnsupported},
		{"bad score, kept", func(s string) string { return strings.Replace(s, "0.3 0.4", "0.3 -1", 1) }, ErrNumber},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := table
			if tc.edit != nil {
				in = tc.edit(in)
			}
			keep := keepSet()
			got := readTable(t, pt, PhraseTableOptions{Keep: keep})
			st, err := got.ReadReordering(ctx, strings.NewReader(in), "ro", ReorderingOptions{NumScores: 2, Keep: keep})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("error %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if st.Lines != 3 || st.Attached != 2 || st.Unmatched != 1 {
				t.Errorf("stats %+v, want 3 lines, 2 attached, 1 unmatched", st)
			}
			var filtered bytes.Buffer
			if _, err := FilterReordering(ctx, strings.NewReader(in), "ro", &filtered, keep, FilterOptions{NumScores: 2}); err != nil {
				t.Fatal(err)
			}
			want := readTable(t, pt, PhraseTableOptions{Keep: keep})
			if _, err := want.ReadReordering(ctx, &filtered, "ro", ReorderingOptions{NumScores: 2}); err != nil {
				t.Fatal(err)
			}
			if g, w := dumpTable(got), dumpTable(want); g != w {
				t.Errorf("table\n%s\nwant (the filtered table's)\n%s", g, w)
			}
		})
	}
}

// TestKeepEmptyFile (issue 33): a phrase table read with Keep (decode's
// filtered load) that kept no phrase pair is an empty table when the file
// had lines, and an error naming the file when the file itself is empty
// (decode copied its input through with no word of a model).
func TestKeepEmptyFile(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, in string
		empty    bool // refused as ErrEmpty
	}{
		{"empty file", "", true},
		{"blank lines only", "\n\n", true},
		{"no phrase of the sentences", "zz ||| x ||| 0.5\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pt, err := ReadPhraseTable(ctx, strings.NewReader(tc.in), "phrase-table.gz", PhraseTableOptions{Keep: keepSet(), AllowEmpty: true})
			if tc.empty {
				if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "phrase-table.gz") {
					t.Fatalf("%v, want ErrEmpty naming the file", err)
				}
				return
			}
			if err != nil || pt.NumOptions() != 0 {
				t.Fatalf("%v, want an empty table", err)
			}
		})
	}
}

// FuzzReadPhraseTableKeep checks that reading a table with Keep gives the
// table FilterPhraseTable's output reads to, and fails when the filter
// fails.
func FuzzReadPhraseTableKeep(f *testing.F) {
	f.Add("a ||| x ||| 0.5 ||| 0-0 ||| 1 2 3\nd ||| w ||| x\nc ||| z ||| 0.7\n")
	f.Add("a b ||| x ||| 0.5\nb a ||| y\n\n c  ||| z ||| 1 ||| ||| ||| |||\n")
	f.Add("a ||| x ||| 0.5 0.5\na ||| y ||| 0.5\n")
	f.Add(" ||| x ||| 0.5\nc ||| \xff ||| 1\n")
	f.Fuzz(func(t *testing.T, in string) {
		ctx := context.Background()
		keep := keepSet()
		got, err := ReadPhraseTable(ctx, strings.NewReader(in), "pt", PhraseTableOptions{Keep: keep, AllowEmpty: true, ChunkSize: 16, Workers: 2})
		var filtered bytes.Buffer
		_, ferr := FilterPhraseTable(ctx, strings.NewReader(in), "pt", &filtered, keep, FilterOptions{})
		if (err == nil) != (ferr == nil) {
			t.Fatalf("Keep: %v; filter: %v", err, ferr)
		}
		if err != nil {
			return
		}
		want, err := ReadPhraseTable(ctx, &filtered, "pt", PhraseTableOptions{AllowEmpty: true})
		if err != nil {
			t.Fatalf("reading the filtered table: %v", err)
		}
		if g, w := dumpTable(got), dumpTable(want); g != w {
			t.Errorf("table\n%s\nwant (the filtered table's)\n%s", g, w)
		}
	})
}
