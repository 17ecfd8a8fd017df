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
			if finalSigma(s, i) {
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

// finalSigma reports whether the capital sigma at byte i of s is in the
// Final_Sigma context, \p{cased} \p{case-ignorable}* Σ !(\p{case-ignorable}*
// \p{cased}), as CPython's handle_capital_sigma tests it.
func finalSigma(s string, i int) bool {
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
	for _, r := range s[i+utf8.RuneLen(0x3a3):] {
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
