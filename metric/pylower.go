package metric

import (
	"unicode"
	"unicode/utf8"
)

// appendPyLower appends to dst the code points of s lower-cased as Python
// 3's str.lower does it, which is what sacreBLEU's lowercase options call.
// Python applies the full case mappings of the Unicode standard (§3.13,
// "Default Case Conversion"), which differ from Go's simple mappings
// (unicode.ToLower, strings.ToLower) in two places:
//
//   - U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE becomes two code points,
//     U+0069 U+0307 (SpecialCasing.txt), where Go gives U+0069 alone;
//   - U+03A3 GREEK CAPITAL LETTER SIGMA becomes U+03C2 (final sigma) when it
//     ends a word, in the Final_Sigma context of Table 3-17: preceded by a
//     cased letter and not followed by one, case-ignorable code points
//     skipped on both sides. Go always gives U+03C3.
//
// Every other code point maps as unicode.ToLower maps it (checked against
// Python 3.11's str.lower for all code points). Invalid UTF-8 bytes become
// U+FFFD each.
func appendPyLower(dst []rune, s string) []rune {
	for i, r := range s {
		switch r {
		case 0x130:
			dst = append(dst, 'i', 0x307)
		case 0x3a3:
			if finalSigma(s, i, i+len("Σ")) {
				dst = append(dst, 0x3c2)
			} else {
				dst = append(dst, 0x3c3)
			}
		default:
			dst = append(dst, unicode.ToLower(r))
		}
	}
	return dst
}

// finalSigma reports whether the capital sigma at bytes [i, end) of s is
// in the Final_Sigma context, \p{cased} \p{case-ignorable}* Σ
// !(\p{case-ignorable}* \p{cased}), as CPython's handle_capital_sigma
// tests it.
func finalSigma(s string, i, end int) bool {
	j := i
	found := false
	for j > 0 {
		r, w := utf8.DecodeLastRuneInString(s[:j])
		j -= w
		if !isCaseIgnorable(r) {
			found = isCased(r)
			break
		}
	}
	if !found {
		return false
	}
	for _, r := range s[end:] {
		if !isCaseIgnorable(r) {
			return !isCased(r)
		}
	}
	return true
}

// isCased is Unicode's Cased property (DerivedCoreProperties.txt):
// Lowercase, Uppercase or Lt.
func isCased(r rune) bool {
	return unicode.In(r, unicode.Ll, unicode.Lu, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// isCaseIgnorable is Unicode's Case_Ignorable property
// (DerivedCoreProperties.txt): Mn, Me, Cf, Lm, Sk, or Word_Break MidLetter,
// MidNumLet or Single_Quote (the code points listed in the switch, from
// WordBreakProperty.txt).
func isCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xb7, 0x387, 0x55f, 0x5f4, 0x2018, 0x2019, 0x2024, 0x2027,
		0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// appendPyLowerBytes appends s lower-cased as Python 3's str.lower does it to dst:
// Unicode's simple lower-case mapping (unicode.ToLower) except for U+0130 İ,
// which becomes "i̇" (U+0069 U+0307, its full mapping), and for U+03A3 Σ,
// which becomes ς at the end of a word (the Final_Sigma rule of Unicode's
// SpecialCasing.txt, as CPython applies it) and σ elsewhere. Bytes that are
// not valid UTF-8 are copied unchanged.
//
// python-unicode.json in testdata, written by Python 3.11 (Unicode 14.0),
// checks every code point: they agree on all code points assigned in Unicode
// 14.0. Characters added to Unicode later may be case-ignorable or cased for
// Go's tables and not for that Python.
func appendPyLowerBytes(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		if c >= 0xc2 && c <= 0xdf && i+1 < len(s) && s[i+1]&0xc0 == 0x80 {
			// Two bytes: U+0080..U+07FF (Latin, Greek, Cyrillic, ...).
			r := rune(c&0x1f)<<6 | rune(s[i+1]&0x3f)
			switch {
			case r == 0x130:
				dst = append(dst, "i\u0307"...)
			case r == 0x3a3 && finalSigma(s, i, i+2):
				dst = append(dst, "ς"...)
			default:
				dst = utf8.AppendRune(dst, lowerTable[r])
			}
			i += 2
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, c)
		} else {
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
		i += size
	}
	return dst
}

// lowerTable is unicode.ToLower of the code points below U+0800.
var lowerTable = func() (t [0x800]rune) {
	for r := range t {
		t[r] = unicode.ToLower(rune(r))
	}
	return t
}()
