package metric

import (
	"cmp"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mtune/mtune/internal/spec"
)

// A Tokenizer turns a line into its tokens separated by single spaces, ready
// for AppendFields, NewReferenceText and StatsString.
type Tokenizer func(line string) string

// Tokenizers holds the tokenizers NewTokenizer knows, in the registry
// idiom of every named choice (internal/spec): "none" (the line
// unchanged; tokens are then split on ASCII white space, as
// multi-bleu.perl and Moses split pre-tokenised text), "13a"
// (mteval-v13a.pl's tokenisation as sacreBLEU's tokenizer_13a does it,
// Tokenize13a) and "char" (sacreBLEU's character tokenizer,
// TokenizeChar).
var Tokenizers = &spec.Registry[Tokenizer]{Kind: "tokenizer"}

func init() {
	for _, t := range []struct {
		name, summary string
		tok           Tokenizer
	}{
		{"none", "the line as it is, split on spaces (multi-bleu.perl, Moses)", func(line string) string { return line }},
		{"13a", "mteval-v13a.pl's, as sacreBLEU's tokenizer_13a", Tokenize13a},
		{"char", "sacreBLEU's character tokenizer", TokenizeChar},
	} {
		spec.Register(Tokenizers, t.name, t.summary, struct{}{}, func(struct{}) (Tokenizer, error) { return t.tok, nil })
	}
}

// NewTokenizer returns the tokenizer called name (Tokenizers; "" is
// "none"). With lowercase the line is first lower-cased with
// strings.ToLower, as sacreBLEU lower-cases before tokenising.
func NewTokenizer(name string, lowercase bool) (Tokenizer, error) {
	t, _, err := Tokenizers.Parse(cmp.Or(name, "none"))
	if err != nil {
		return nil, fmt.Errorf("metric: %w", err)
	}
	if lowercase {
		return func(line string) string { return t(strings.ToLower(line)) }, nil
	}
	return t, nil
}

// isPySpace reports whether Python's str.split and str.strip treat r as
// white space: Unicode white space plus the separators U+001C..U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// punct13a marks the characters mteval-v13a.pl pads with spaces:
// the class [\{-\~\[-\` -\&\(-\+\:-\@\/].
var punct13a = func() (t [256]bool) {
	for _, rg := range [][2]byte{{'{', '~'}, {'[', '`'}, {' ', '&'}, {'(', '+'}, {':', '@'}, {'/', '/'}} {
		for c := rg[0]; c <= rg[1]; c++ {
			t[c] = true
		}
	}
	return t
}()

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Tokenize13a tokenises line as mteval-v13a.pl does, in the version of
// sacreBLEU's tokenizer_13a (which first strips trailing white space):
//
//   - remove "<skipped>", join "-\n" line breaks, turn "\n" into a space,
//     and unescape &quot; &amp; &lt; &gt; (in this order);
//   - pad with spaces the ASCII punctuation and symbols other than ' - . ,
//     (the class [\{-\~\[-\` -\&\(-\+\:-\@\/]);
//   - split "." and "," from a preceding non-digit, then from a following
//     non-digit, and "-" from a preceding digit, each as a left-to-right
//     regular-expression substitution ([^0-9][.,], [.,][^0-9], [0-9]-);
//   - collapse white space (Python's definition) to single spaces.
//
// Case is kept. The work is done on bytes, without regular expressions; the
// tests check it against the regular expressions.
func Tokenize13a(line string) string {
	line = strings.TrimRightFunc(line, isPySpace)
	line = strings.ReplaceAll(line, "<skipped>", "")
	line = strings.ReplaceAll(line, "-\n", "")
	line = strings.ReplaceAll(line, "\n", " ")
	if strings.IndexByte(line, '&') >= 0 {
		line = strings.ReplaceAll(line, "&quot;", `"`)
		line = strings.ReplaceAll(line, "&amp;", "&")
		line = strings.ReplaceAll(line, "&lt;", "<")
		line = strings.ReplaceAll(line, "&gt;", ">")
	}

	// Pad punctuation: ' ' + line + ' ', then " c " for every c in the class.
	a := make([]byte, 0, 2*len(line)+8)
	a = append(a, ' ')
	for i := 0; i < len(line); i++ {
		c := line[i]
		if punct13a[c] {
			a = append(a, ' ', c, ' ')
		} else {
			a = append(a, c)
		}
	}
	a = append(a, ' ')

	b, _ := splitNumberPunct(a, make([]byte, 0, len(a)+len(a)/2))
	return joinPyFields(b)
}

// joinPyFields returns the white-space separated fields of b (Python's
// definition of white space) joined by single spaces.
func joinPyFields(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	inField := false
	for i := 0; i < len(b); {
		c := b[i]
		size := 1
		space := false
		if c < utf8.RuneSelf {
			space = asciiSpace[c] || (c >= 0x1c && c <= 0x1f)
		} else {
			var r rune
			r, size = utf8.DecodeRune(b[i:])
			space = r != utf8.RuneError && isPySpace(r)
		}
		if space {
			inField = false
		} else {
			if !inField && sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			inField = true
			sb.Write(b[i : i+size])
		}
		i += size
	}
	return sb.String()
}

// TokenizeChar tokenises line as sacreBLEU's char tokenizer followed by its
// split: every character that is not white space (Python's definition) is a
// token. Bytes that are not valid UTF-8 are tokens of their own.
func TokenizeChar(line string) string {
	var sb strings.Builder
	sb.Grow(2 * len(line))
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		if (r == utf8.RuneError && size <= 1) || !isPySpace(r) {
			if sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(line[i : i+size])
		}
		i += size
	}
	return sb.String()
}

// splitNumberPunct applies mteval-v13a's last three passes to a, as
// sacreBLEU's 13a and TER's tercom tokenisers do, with b as scratch:
// periods and commas not next to a digit, and a dash after a digit, get
// spaces around them. It returns the result and the other buffer.
func splitNumberPunct(a, b []byte) (out, scratch []byte) {
	// s/([^0-9])([\.,])/$1 $2 /g. A match consumes the character before the
	// period or comma and the period or comma itself. Checking bytes instead
	// of characters finds the same matches: '.' and ',' never occur inside a
	// multi-byte UTF-8 sequence.
	b = b[:0]
	for i := 0; i < len(a); i++ {
		if i+1 < len(a) && !isDigit(a[i]) && (a[i+1] == '.' || a[i+1] == ',') {
			b = append(b, a[i], ' ', a[i+1], ' ')
			i++
			continue
		}
		b = append(b, a[i])
	}

	// s/([\.,])([^0-9])/ $1 $2/g. The match consumes the character after;
	// taking only its first byte leaves the others unchanged, as they cannot
	// start a match.
	a = a[:0]
	for i := 0; i < len(b); i++ {
		if (b[i] == '.' || b[i] == ',') && i+1 < len(b) && !isDigit(b[i+1]) {
			a = append(a, ' ', b[i], ' ', b[i+1])
			i++
			continue
		}
		a = append(a, b[i])
	}

	// s/([0-9])(-)/$1 $2 /g.
	b = b[:0]
	for i := 0; i < len(a); i++ {
		if isDigit(a[i]) && i+1 < len(a) && a[i+1] == '-' {
			b = append(b, a[i], ' ', '-', ' ')
			i++
			continue
		}
		b = append(b, a[i])
	}
	return b, a
}
