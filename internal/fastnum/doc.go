// Package fastnum parses the decimal numbers of mtune's text formats
// (n-best lists, phrase and reordering tables, ARPA language models)
// without allocating, with the same result as strconv.ParseFloat.
//
// The syntax accepted is an optional sign, digits with at most one
// decimal point (at least one digit), and an optional exponent 'e' or
// 'E' with an optional sign and at least one digit:
//
//	-7.66174   0   +.5   5.   1e-05   -2.5E+7
//
// "inf", "nan", hexadecimal numbers, underscores, blanks and values
// that overflow the target type are rejected. Values too small for the
// type round to zero (or a subnormal), as strconv does.
//
// A number whose significant digits form an integer below 2^53 and whose
// decimal exponent is within ±22 is converted by one exact multiplication
// or division (Clinger's fast path), which is correctly rounded; every
// other number goes to strconv.ParseFloat. Either way the result is
// bit-identical to strconv.ParseFloat(s, 64) (ParseFloat64) or
// strconv.ParseFloat(s, 32) (ParseFloat32).
package fastnum
