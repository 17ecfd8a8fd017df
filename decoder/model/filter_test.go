package model

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestPhraseSet(t *testing.T) {
	s := NewPhraseSet([][]string{{"a", "b", "c"}, {"c", "d"}}, 2)
	tests := []struct {
		words []string
		want  bool
	}{
		{[]string{"a"}, true},
		{[]string{"a", "b"}, true},
		{[]string{"b", "c"}, true},
		{[]string{"c", "d"}, true},
		{[]string{"a", "b", "c"}, false}, // longer than 2
		{[]string{"b", "c", "d"}, false},
		{[]string{"a", "c"}, false},
		{[]string{"c", "c"}, false},
		{[]string{"x"}, false},
		{nil, false},
	}
	for _, tc := range tests {
		if got := s.Contains(tc.words...); got != tc.want {
			t.Errorf("Contains(%q) = %v, want %v", tc.words, got, tc.want)
		}
	}
	if s.Len() != 7 { // a, b, c, d, a b, b c, c d
		t.Errorf("Len() = %d, want 7", s.Len())
	}
}

// TestFilterPhraseTableChunks filters with blocks of a few lines, so that
// kept lines span blocks, and checks the kept lines and their order.
func TestFilterPhraseTableChunks(t *testing.T) {
	var in strings.Builder
	var want strings.Builder
	for i := range 200 {
		src := []string{"a", "b", "a b", "b a", "c"}[i%5]
		line := src + " ||| t" + string(rune('a'+i%26)) + " ||| 0.5 0.25 ||| 0-0 ||| 1 2 3\n"
		in.WriteString(line)
		if src == "a" || src == "b" || src == "a b" {
			want.WriteString(line)
		}
	}
	keep := NewPhraseSet([][]string{{"a", "b"}}, 0)
	var out bytes.Buffer
	st, err := FilterPhraseTable(context.Background(), strings.NewReader(in.String()), "pt", &out, keep,
		FilterOptions{NumScores: 2, Workers: 3, ChunkSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != want.String() {
		t.Errorf("kept lines differ")
	}
	if st.Lines != 200 || st.Kept != 120 || st.Bytes != int64(want.Len()) {
		t.Errorf("stats %+v", st)
	}
}
