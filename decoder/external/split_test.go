package external

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
		err      string // the error's text holds it; "" means no error
	}{
		{"words", "moses -v 0", []string{"moses", "-v", "0"}, ""},
		{"blanks", " \tmtune\n decode  ", []string{"mtune", "decode"}, ""},
		{"single quotes", "moses -f 'my model/moses.ini'", []string{"moses", "-f", "my model/moses.ini"}, ""},
		{"single quotes keep backslashes", `a '\n\'`, []string{"a", `\n\`}, ""},
		{"double quotes", `a "b \"c\" \\ \$d \e"`, []string{"a", `b "c" \ $d \e`}, ""},
		{"joined", `a"b c"d''e`, []string{"ab cde"}, ""},
		{"empty word", `x '' ""`, []string{"x", "", ""}, ""},
		{"backslash escapes", `a\ b c\'d`, []string{"a b", "c'd"}, ""},
		{"backslash newline", "a\\\nb \"c\\\nd\"", []string{"ab", "cd"}, ""},
		{"no word", "  \t", nil, "holds no command"},
		{"empty", "", nil, "holds no command"},
		{"open single quote", "moses -f 'x", nil, "column 10: unterminated '"},
		{"open double quote", `moses "x\"`, nil, `column 7: unterminated "`},
		{"trailing backslash", `moses \`, nil, "column 7: a backslash ends"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Split(tc.in)
			if tc.err != "" {
				if err == nil || !errors.Is(err, ErrCommand) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Split(%q) = %q, %v; want an ErrCommand saying %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Split(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			if back, err := Split(Quote(got)); err != nil || !reflect.DeepEqual(back, got) {
				t.Errorf("Split(Quote(%q)) = %q, %v", got, back, err)
			}
		})
	}
}

// FuzzSplit checks that Split never panics, that its words quoted by Quote
// split back into the same words, and that an ASCII line without quotes,
// backslashes or blanks other than spaces splits as strings.Fields does
// (a shell splits on ASCII blanks only).
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"moses -v 0", `a "b \"c" 'd e'`, `x\ y`, "'", `"\`, "a\\\nb", "\t\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := Split(s)
		if err != nil {
			if !errors.Is(err, ErrCommand) {
				t.Fatalf("Split(%q): error %v is not an ErrCommand", s, err)
			}
			if !strings.ContainsAny(s, `'"\`) && strings.TrimSpace(s) != "" && strings.Trim(s, " \t\n") != "" {
				t.Fatalf("Split(%q): %v on a line without quotes", s, err)
			}
			return
		}
		back, err := Split(Quote(words))
		if err != nil || !reflect.DeepEqual(back, words) {
			t.Fatalf("Split(Quote(%q)) = %q, %v", words, back, err)
		}
		if !strings.ContainsAny(s, "'\"\\\t\n\r\v\f") && strings.IndexFunc(s, func(r rune) bool { return r >= 0x80 }) < 0 {
			if f := strings.Fields(s); !reflect.DeepEqual(f, words) {
				t.Fatalf("Split(%q) = %q, strings.Fields gives %q", s, words, f)
			}
		}
	})
}
