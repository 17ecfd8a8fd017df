package metric

import (
	"unicode/utf8"
)

// The tercom tokenisation of sacreBLEU's TER (sacrebleu/tokenizers/
// tokenizer_ter.py, a port of tercom's Normalizer.java), applied after
// ter.py's sent.rstrip():
//
//  1. lower-case with Python's str.lower, unless case-sensitive;
//  2. if normalized: join "\n-" line breaks, turn "\n" into a space,
//     unescape &quot; &amp; &lt; &gt; (in this order), pad with spaces the
//     ASCII punctuation of mteval-v13a's class [{-~[-` -&(-+:-@/], split
//     "'s " into " 's ", split "." and "," from a preceding non-digit, then
//     from a following non-digit, and "-" from a preceding digit; with
//     asian support, also pad the CJK ideographs, strokes, radicals,
//     compatibility characters and CJK and full-width punctuation;
//  3. if no punct: delete . , ? : ; ! " ( ) and, with asian support, the CJK
//     and full-width punctuation;
//  4. split on white space (Python's definition).
//
// Every step works on a scratch buffer and allocates nothing once the buffers
// have grown.

// isPyWhiteSpaceByte reports whether the ASCII byte c is white space to
// Python's str.split.
func isPyWhiteSpaceByte(c byte) bool {
	return asciiSpace[c] || (c >= 0x1c && c <= 0x1f)
}

// nextPyField returns the bounds [start, end) of the first token of b split
// on Python's white space (isPySpace), with start == end == len(b) when
// there is none. Bytes that are not valid UTF-8 are not white space.
func nextPyField(b []byte) (start, end int) {
	start = -1
	for i := 0; i < len(b); {
		c := b[i]
		size, space := 1, false
		if c < utf8.RuneSelf {
			space = isPyWhiteSpaceByte(c)
		} else {
			var r rune
			r, size = utf8.DecodeRune(b[i:])
			space = r != utf8.RuneError && isPySpaceNonASCII(r)
		}
		switch {
		case space && start >= 0:
			return start, i
		case !space && start < 0:
			start = i
		}
		i += size
	}
	if start < 0 {
		return len(b), len(b)
	}
	return start, len(b)
}

// isPySpaceNonASCII is isPySpace for r >= 0x80, answering at once for the
// code points below U+2000 that are not white space.
func isPySpaceNonASCII(r rune) bool {
	if r < 0x2000 && r != 0x85 && r != 0xa0 && r != 0x1680 {
		return false
	}
	return isPySpace(r)
}

// trimRightPySpace is Python's str.rstrip().
func trimRightPySpace(s string) string {
	for len(s) > 0 {
		c := s[len(s)-1]
		if c < utf8.RuneSelf {
			if !isPyWhiteSpaceByte(c) {
				return s
			}
			s = s[:len(s)-1]
			continue
		}
		r, size := utf8.DecodeLastRuneInString(s)
		if r == utf8.RuneError || !isPySpace(r) {
			return s
		}
		s = s[:len(s)-size]
	}
	return s
}

// terText holds the two buffers the tokenisation passes alternate between.
type terText struct {
	a, b []byte
}

// normalize returns line tokenised as TER t tokenises it, with tokens
// separated by Python white space (see nextPyField), in memory of x.
func (t TER) normalize(x *terText, line string) []byte {
	line = trimRightPySpace(line)
	if t.CaseSensitive {
		x.a = append(x.a[:0], line...)
	} else {
		x.a = appendPyLowerBytes(x.a[:0], line)
	}
	if t.Normalized {
		x.normalizeWestern()
		if t.AsianSupport {
			x.b = appendAsianSplit(x.b[:0], x.a)
			x.a, x.b = x.b, x.a
		}
	}
	if t.NoPunct {
		x.b = appendWithoutPunct(x.b[:0], x.a, t.AsianSupport)
		x.a, x.b = x.b, x.a
	}
	return x.a
}

// normalizeWestern applies the language-independent and Western part of
// tercom's normalisation (_normalize_general_and_western) to x.a, each
// regular-expression substitution as a left-to-right pass over bytes. The
// patterns that look at a character next to an ASCII one ([^0-9] beside
// [.,]) find the same matches on bytes as on characters, because ASCII bytes
// never occur inside a multi-byte UTF-8 sequence.
func (x *terText) normalizeWestern() {
	// s/\n-//g, then s/\n/ /g.
	b := x.b[:0]
	a := x.a
	for i := 0; i < len(a); i++ {
		switch {
		case a[i] == '\n' && i+1 < len(a) && a[i+1] == '-':
			i++
		case a[i] == '\n':
			b = append(b, ' ')
		default:
			b = append(b, a[i])
		}
	}
	// The XML entities, each in turn: "&amp;lt;" becomes "<".
	for _, e := range [...]struct{ from, to string }{{"&quot;", `"`}, {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}} {
		a, b = b, replaceAllBytes(a[:0], b, e.from, e.to)
	}
	// " " + sent + " ", then " c " for every c in [{-~[-` -&(-+:-@/].
	a = append(a[:0], ' ')
	for _, c := range b {
		if punct13a[c] {
			a = append(a, ' ', c, ' ')
		} else {
			a = append(a, c)
		}
	}
	a = append(a, ' ')
	// s/'s / 's /g. s/'s$/ 's/ cannot match: the text ends with a space.
	b = replaceAllBytes(b[:0], a, "'s ", " 's ")
	a, b = splitNumberPunct(b, a)
	x.a, x.b = a, b
}

// replaceAllBytes appends src to dst with every non-overlapping occurrence
// of from, left to right, replaced by to.
func replaceAllBytes(dst, src []byte, from, to string) []byte {
	for i := 0; i < len(src); {
		if src[i] == from[0] && len(src)-i >= len(from) && string(src[i:i+len(from)]) == from {
			dst = append(dst, to...)
			i += len(from)
			continue
		}
		dst = append(dst, src[i])
		i++
	}
	return dst
}

// isAsianPunct reports tercom's ASIAN_PUNCT and FULL_WIDTH_PUNCT classes.
func isAsianPunct(r rune) bool {
	switch {
	case r == 0x3001, r == 0x3002, 0x3008 <= r && r <= 0x3011, 0x3014 <= r && r <= 0x301f,
		0xff61 <= r && r <= 0xff65, r == 0x30fb:
		return true
	case r == 0xff0e, r == 0xff0c, r == 0xff1f, r == 0xff1a, r == 0xff1b, r == 0xff01,
		r == 0xff02, r == 0xff08, r == 0xff09:
		return true
	}
	return false
}

// isAsianSplit reports the characters _normalize_asian pads with spaces: the
// CJK Unified Ideographs (4E00–9FFF) and Extension A (3400–4DBF), CJK Strokes
// (31C0–31EF), the CJK Radicals Supplement (2E80–2EFF), CJK Compatibility
// (3300–33FF), Compatibility Ideographs (F900–FAFF) and Forms (FE30–FE4F),
// the range 3200–3F22 as tercom writes it, and the CJK and full-width
// punctuation.
func isAsianSplit(r rune) bool {
	switch {
	case 0x4e00 <= r && r <= 0x9fff, 0x3400 <= r && r <= 0x4dbf,
		0x31c0 <= r && r <= 0x31ef, 0x2e80 <= r && r <= 0x2eff,
		0x3300 <= r && r <= 0x33ff, 0xf900 <= r && r <= 0xfaff, 0xfe30 <= r && r <= 0xfe4f,
		0x3200 <= r && r <= 0x3f22:
		return true
	}
	return isAsianPunct(r)
}

// appendAsianSplit appends src to dst with the characters of isAsianSplit
// padded with spaces. The padding of one substitution after another in
// _normalize_asian only adds spaces, which the final split discards. Its
// rules for Hiragana, Katakana and the Katakana Phonetic Extensions are
// anchored at the start of the text, which after the Western normalisation
// is always a space: they never match, and are left out.
func appendAsianSplit(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if r != utf8.RuneError && isAsianSplit(r) {
			dst = append(dst, ' ')
			dst = append(dst, src[i:i+size]...)
			dst = append(dst, ' ')
		} else {
			dst = append(dst, src[i:i+size]...)
		}
		i += size
	}
	return dst
}

// appendWithoutPunct appends src to dst without the characters
// _remove_punct deletes (. , ? : ; ! " ( )) and, with asian, without those
// of _remove_asian_punct.
func appendWithoutPunct(dst, src []byte, asian bool) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			switch c {
			case '.', ',', '?', ':', ';', '!', '"', '(', ')':
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if !(asian && isAsianPunct(r)) {
			dst = append(dst, src[i:i+size]...)
		}
		i += size
	}
	return dst
}
