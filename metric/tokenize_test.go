package metric

import (
	"regexp"
	"strings"
	"testing"
)

// pySpace is the white space of Python's str.split and str.strip, spelled
// out independently of isPySpace.
const pySpace = "\t\n\v\f\r\x1c\x1d\x1e\x1f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006" +
	"\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

func pyFields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(pySpace, r) })
}

// regex13a is sacreBLEU's tokenizer_13a written with its regular expressions
// (Go's regexp substitutes left to right without overlap, as Python's re.sub
// does): the reference Tokenize13a is checked against.
var regex13a = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`([\{-\~\[-\x60 -\&\(-\+\:-\@\/])`), " $1 "},
	{regexp.MustCompile(`([^0-9])([\.,])`), "$1 $2 "},
	{regexp.MustCompile(`([\.,])([^0-9])`), " $1 $2"},
	{regexp.MustCompile(`([0-9])(-)`), "$1 $2 "},
}

func regexpTokenize13a(line string) string {
	line = strings.TrimRight(line, pySpace)
	for _, r := range [][2]string{{"<skipped>", ""}, {"-\n", ""}, {"\n", " "},
		{"&quot;", `"`}, {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}} {
		line = strings.ReplaceAll(line, r[0], r[1])
	}
	line = " " + line + " "
	for _, r := range regex13a {
		line = r.re.ReplaceAllString(line, r.repl)
	}
	return strings.Join(pyFields(line), " ")
}

// tokenizeCase is a case of a tokenizer test: in tokenizes to want.
type tokenizeCase struct{ name, in, want string }

// checkTokenizer runs tok, named fn in the errors, on the cases, and ref,
// a reference implementation, if not nil.
func checkTokenizer(t *testing.T, fn string, tok, ref func(string) string, tests []tokenizeCase) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tok(tc.in); got != tc.want {
				t.Errorf("%s(%q) = %q, want %q", fn, tc.in, got, tc.want)
			}
			if ref == nil {
				return
			}
			if got := ref(tc.in); got != tc.want {
				t.Errorf("regexp reference(%q) = %q, want %q (bad test case?)", tc.in, got, tc.want)
			}
		})
	}
}

func TestTokenize13a(t *testing.T) {
	checkTokenizer(t, "Tokenize13a", Tokenize13a, regexpTokenize13a, []tokenizeCase{
		{"sentence", "The dog bit the man.", "The dog bit the man ."},
		{"apostrophe kept", "It wasn't surprising.", "It wasn't surprising ."},
		{"numbers", "3.14, 1,000 and 5-6 or a-b.", "3.14 , 1,000 and 5 - 6 or a-b ."},
		{"entities", "&quot;q&quot; &amp; &lt;t&gt; &amp;quot;", `" q " & < t > & quot ;`},
		{"skipped", "<skipped> text", "text"},
		{"hyphenation", "end-\nline\nnext", "endline next"},
		{"trailing hyphen", "word-\n", "word-"},
		{"abbreviation", "U.S.A.", "U . S . A ."},
		{"symbols", "a{b}c|d~e[f]g^h_i`j", "a { b } c | d ~ e [ f ] g ^ h _ i ` j"},
		{"more symbols", `!"#$%&()*+:;<=>?@/`, `! " # $ % & ( ) * + : ; < = > ? @ /`},
		{"period before digit", "v.2 .5 ,5", "v . 2 . 5 , 5"},
		{"non-ascii", "zahăr alb; ţ.", "zahăr alb ; ţ ."},
		{"unicode space", "a\u00a0b\u3000c\x1fd", "a b c d"},
		{"empty", "", ""},
		{"blank", " \t ", ""},
	})
}

func TestTokenizeChar(t *testing.T) {
	checkTokenizer(t, "TokenizeChar", TokenizeChar, nil, []tokenizeCase{
		{"ascii", "ab c", "a b c"},
		{"unicode", "zahăr\u00a0ţ", "z a h ă r ţ"},
		{"invalid utf-8", "a\xffb", "a \xff b"},
		{"blank", " \u3000 ", ""},
	})
}

func TestNewTokenizer(t *testing.T) {
	tests := []struct {
		name      string
		lowercase bool
		in, want  string
	}{
		{"none", false, "A  b.", "A  b."},
		{"", false, "A b.", "A b."},
		{"none", true, "ÉTÉ B.", "été b."},
		{"13a", false, "A b.", "A b ."},
		{"13a", true, "ÉTÉ B.", "été b ."},
		{"char", true, "ÀB", "à b"},
	}
	for _, tc := range tests {
		tok, err := NewTokenizer(tc.name, tc.lowercase)
		if err != nil {
			t.Fatalf("NewTokenizer(%q): %v", tc.name, err)
		}
		if got := tok(tc.in); got != tc.want {
			t.Errorf("%q lowercase=%v: %q → %q, want %q", tc.name, tc.lowercase, tc.in, got, tc.want)
		}
	}
	if _, err := NewTokenizer("intl", false); err == nil {
		t.Error("unknown tokenizer: no error")
	}
}
