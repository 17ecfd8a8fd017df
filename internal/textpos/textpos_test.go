package textpos

import (
	"errors"
	"testing"
)

func TestFormat(t *testing.T) {
	err := errors.New("bad number")
	tests := []struct {
		name, file string
		line, col  int
		want       string
	}{
		{"file line column", "a.gz", 12, 16, "x: a.gz:12:16: bad number"},
		{"file line", "a.gz", 12, 0, "x: a.gz:12: bad number"},
		{"file only", "a.gz", 0, 3, "x: a.gz: bad number"},
		{"no file", "", 3, 5, "x: line 3, column 5: bad number"},
		{"no file no column", "", 3, 0, "x: line 3: bad number"},
		{"nothing", "", 0, 0, "x: bad number"},
	}
	for _, tc := range tests {
		if got := Format("x", tc.file, tc.line, tc.col, err); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestQuote(t *testing.T) {
	tests := []struct {
		name, tok, want string
	}{
		{"short", "1x", `"1x"`},
		{"empty", "", `""`},
		{"exactly the limit", "0123456789abcdef", `"0123456789abcdef"`},
		{"cut", "resumption of the session", `"resumption of th"…`},
		{"cut on a rune boundary", "éééééééééééééééééé", `"éééééééééééééééé"…`},
		{"invalid UTF-8 escaped", "a\xffb", `"a\xffb"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Quote(tc.tok); got != tc.want {
				t.Errorf("Quote(%q) = %s, want %s", tc.tok, got, tc.want)
			}
			if got := Quote([]byte(tc.tok)); got != tc.want {
				t.Errorf("Quote([]byte(%q)) = %s, want %s", tc.tok, got, tc.want)
			}
		})
	}
}
