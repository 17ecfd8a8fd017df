package fastnum

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

var seeds = []string{
	"-7.66174", "0", "-0", "+0.0", "1e-5", "+.5", "5.", "-.0e3", "00012", "1E+07", "2.5e-7",
	"123456789012345678901234", "1234567890123456789", "12345678901234567890", "0.000000000000000000001",
	"1e22", "1e23", "1e-22", "1e-23", "9007199254740992", "9007199254740993", "4.9e-324", "2e-324",
	"1e400", "-1e400", "1.7976931348623157e308", "1.7976931348623159e308", "3.4028235e38", "3.4028236e38",
	"3.40282357e38", "1e-45", "1e-46", "1.17549435e-38", "16777217", "16777219", "0.1", "0e99999999",
	"1e1000000000", "1e-1000000000", "0." + strings.Repeat("0", 99990) + "1e1000000",
	"nan", "NaN", "Inf", "-inf", "infinity", "0x1p3", "0X10", "1_0", "1e", "e5", ".", "-", "+", "",
	"1.2.3", "2e+", "2e-", "1e5.0", " 1", "1 ", "1,5", "--1", "1e+-2", "１",
}

// parseCase is a case of a parser test: in parses to want, or fails (ok
// false, want 0).
type parseCase[F float32 | float64] struct {
	name, in string
	ok       bool
	want     F
}

// checkParse runs parse, named fn in the errors, on the cases and compares
// the bits of the results.
func checkParse[F float32 | float64](t *testing.T, fn string, parse func([]byte) (F, bool), tests []parseCase[F]) {
	t.Helper()
	for _, tc := range tests {
		got, ok := parse([]byte(tc.in))
		if ok != tc.ok || math.Float64bits(float64(got)) != math.Float64bits(float64(tc.want)) {
			t.Errorf("%s: %s(%q) = %v, %v; want %v, %v", tc.name, fn, tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParse(t *testing.T) {
	checkParse(t, "ParseFloat64", ParseFloat64, []parseCase[float64]{
		{"integer", "12", true, 12},
		{"negative", "-7.66174", true, -7.66174},
		{"plus and point first", "+.5", true, 0.5},
		{"point last", "5.", true, 5},
		{"exponent", "1E+07", true, 1e7},
		{"negative exponent", "2.5e-7", true, 2.5e-7},
		{"leading zeros", "00012", true, 12},
		{"many digits", "123456789012345678901234", true, 123456789012345678901234},
		{"above 2^53", "9007199254740993", true, 9007199254740992},
		{"outside fast exponent", "1e23", true, 1e23},
		{"underflow", "1e-400", true, 0},
		{"empty", "", false, 0},
		{"sign only", "-", false, 0},
		{"point only", ".", false, 0},
		{"two points", "1.2.3", false, 0},
		{"bare exponent", "e5", false, 0},
		{"empty exponent", "2e+", false, 0},
		{"overflow", "1e400", false, 0},
		{"nan", "nan", false, 0},
		{"inf", "Inf", false, 0},
		{"hex", "0x1p3", false, 0},
		{"underscore", "1_0", false, 0},
		{"blank", " 1", false, 0},
		{"comma", "1,5", false, 0},
	})
}

func TestParseFloat32(t *testing.T) {
	checkParse(t, "ParseFloat32", ParseFloat32, []parseCase[float32]{
		{"simple", "-2.5", true, -2.5},
		{"negative zero", "-0.0", true, float32(math.Copysign(0, -1))},
		// 16777217 = 2^24+1 lies halfway between two float32s: ties to even.
		{"halfway", "16777217", true, 16777216},
		{"halfway above", "16777219", true, 16777220},
		{"max", "3.4028235e38", true, math.MaxFloat32},
		{"subnormal", "1e-45", true, math.SmallestNonzeroFloat32},
		{"underflow", "1e-46", true, 0},
		{"overflow", "3.5e38", false, 0},
		{"fits float64 only", "1e300", false, 0},
		{"nan", "NaN", false, 0},
	})
}

// TestSeedsMatchStrconv runs the fuzz checks on the seeds, so that they
// hold without -fuzz too.
func TestSeedsMatchStrconv(t *testing.T) {
	for _, s := range seeds {
		check64(t, s)
		check32(t, s)
	}
}

// rejectedByDesign reports whether strconv may accept s while fastnum
// must not: special values, hexadecimal and underscores.
func rejectedByDesign(s string) bool {
	return strings.ContainsAny(s, "xX_pPiInN")
}

func check64(t *testing.T, s string) {
	t.Helper()
	checkStrconv(t, "ParseFloat64", ParseFloat64, 64, s)
}

func check32(t *testing.T, s string) {
	t.Helper()
	checkStrconv(t, "ParseFloat32", ParseFloat32, 32, s)
}

// checkStrconv checks parse, named fn in the errors, against
// strconv.ParseFloat(s, bitSize).
func checkStrconv[F float32 | float64](t *testing.T, fn string, parse func([]byte) (F, bool), bitSize int, s string) {
	t.Helper()
	got, ok := parse([]byte(s))
	w, err := strconv.ParseFloat(s, bitSize)
	want := F(w)
	finite := err == nil && !math.IsInf(w, 0) && !math.IsNaN(w)
	if ok {
		if !finite || math.Float64bits(float64(got)) != math.Float64bits(float64(want)) {
			t.Fatalf("%s(%q) = %v, strconv: %v, %v", fn, clip(s), got, want, err)
		}
		return
	}
	if finite && !rejectedByDesign(s) {
		t.Fatalf("%s(%q) failed, strconv gives %v", fn, clip(s), want)
	}
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// FuzzParseFloat64 checks ParseFloat64 against strconv.ParseFloat.
func FuzzParseFloat64(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { check64(t, s) })
}

// FuzzParseFloat32 checks ParseFloat32 against strconv.ParseFloat(s, 32).
func FuzzParseFloat32(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { check32(t, s) })
}

func BenchmarkParseFloat64(b *testing.B) {
	in := [][]byte{[]byte("-7.66174"), []byte("0.000123"), []byte("-14"), []byte("1e-05"), []byte("2.718281828459045")}
	for i := 0; b.Loop(); i++ {
		if _, ok := ParseFloat64(in[i%len(in)]); !ok {
			b.Fatal("rejected")
		}
	}
}

func BenchmarkParseFloat32(b *testing.B) {
	in := [][]byte{[]byte("-7.66174"), []byte("0.000123"), []byte("-14"), []byte("1e-05"), []byte("-2.718281")}
	for i := 0; b.Loop(); i++ {
		if _, ok := ParseFloat32(in[i%len(in)]); !ok {
			b.Fatal("rejected")
		}
	}
}
