package textpos

import "iter"

// Separators is the set of bytes that separate the tokens of a format's
// lines and surround its fields, as a table indexed by byte. Each parser
// declares its format's set: Moses' n-best lists and ARPA files use space,
// tab, CR, VT and FF; its weights files only space and tab; lmplz's text
// space, tab, CR, LF and NUL.
type Separators [256]bool

// Trim returns b without the separators at either end.
func (s *Separators) Trim(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && s[b[i]] {
		i++
	}
	for j > i && s[b[j-1]] {
		j--
	}
	return b[i:j]
}

// Tokens yields the start and the text of each run of bytes of b that are
// not separators, in order.
func (s *Separators) Tokens(b []byte) iter.Seq2[int, []byte] {
	return func(yield func(start int, tok []byte) bool) {
		for i := 0; i < len(b); {
			for i < len(b) && s[b[i]] {
				i++
			}
			j := i
			for j < len(b) && !s[b[j]] {
				j++
			}
			if j > i && !yield(i, b[i:j]) {
				return
			}
			i = j
		}
	}
}
