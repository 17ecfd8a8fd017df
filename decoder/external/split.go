package external

import (
	"errors"
	"fmt"
	"strings"
)

// ErrCommand marks a decoder command line that cannot be split into words:
// an unterminated quote or a trailing backslash, or no word at all.
var ErrCommand = errors.New("external: bad decoder command")

// Split splits a command line into words as a POSIX shell does, without
// expanding anything: words are separated by blanks (spaces, tabs,
// newlines); '…' quotes everything up to the next '; "…" quotes
// everything up to the next unescaped ", in which a backslash escapes only
// ", \, $, ` and a newline; outside quotes a backslash escapes the next
// character. Quotes join what they quote to the word around them:
//
//	moses -f 'my model/moses.ini' -v 0  →  [moses -f "my model/moses.ini" -v 0]
//	mtune decode --sparse=pt,lo         →  [mtune decode --sparse=pt,lo]
//	a"b c"d ''                           →  [ab cd ""]
//
// An unterminated quote, a trailing backslash or a line of blanks only is
// an error wrapping ErrCommand, with the column (1-based, in bytes) where
// the bad quote starts.
func Split(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\\':
			if i+1 == len(s) {
				return nil, fmt.Errorf("%w: column %d: a backslash ends %q", ErrCommand, i+1, s)
			}
			i++
			if s[i] != '\n' { // backslash-newline continues the line
				w.WriteByte(s[i])
			}
			inWord = true
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("%w: column %d: unterminated ' in %q", ErrCommand, i+1, s)
			}
			w.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			start := i
			for i++; ; i++ {
				if i == len(s) {
					return nil, fmt.Errorf("%w: column %d: unterminated \" in %q", ErrCommand, start+1, s)
				}
				if s[i] == '"' {
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue
					}
				}
				w.WriteByte(s[i])
			}
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("%w: %q holds no command", ErrCommand, s)
	}
	return words, nil
}

// Quote returns words as one command line that Split splits back into
// words: a word of safe characters only is written as it is, any other in
// single quotes, where a single quote is written as quote, backslash,
// quote, quote.
func Quote(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w != "" && strings.Trim(w, safeChars) == "" {
			b.WriteString(w)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(w, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

// safeChars need no quoting in a shell word.
const safeChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%^"
