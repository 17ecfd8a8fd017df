package textpos

import (
	"slices"
	"testing"
)

func TestSeparators(t *testing.T) {
	sep := &Separators{' ': true, '\t': true}
	type tok struct {
		start int
		text  string
	}
	tests := []struct {
		in   string
		trim string
		toks []tok
	}{
		{"", "", nil},
		{" \t ", "", nil},
		{"a", "a", []tok{{0, "a"}}},
		{"  ab\tc  d \t", "ab\tc  d", []tok{{2, "ab"}, {5, "c"}, {8, "d"}}},
		{"x\r y\n", "x\r y\n", []tok{{0, "x\r"}, {3, "y\n"}}},
	}
	for _, tc := range tests {
		if got := string(sep.Trim([]byte(tc.in))); got != tc.trim {
			t.Errorf("Trim(%q) = %q, want %q", tc.in, got, tc.trim)
		}
		var got []tok
		for start, text := range sep.Tokens([]byte(tc.in)) {
			got = append(got, tok{start, string(text)})
		}
		if !slices.Equal(got, tc.toks) {
			t.Errorf("Tokens(%q) = %v, want %v", tc.in, got, tc.toks)
		}
	}
	// A loop that stops early stops the iterator.
	n := 0
	for range sep.Tokens([]byte("a b c")) {
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("%d tokens after break at 2", n)
	}
}
