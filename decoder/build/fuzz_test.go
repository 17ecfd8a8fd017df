package build

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/mtune/mtune/io/corpus"
)

// FuzzAlignLine parses alignment lines: no panic, and a parsed line
// written back parses to the same points.
func FuzzAlignLine(f *testing.F) {
	for _, s := range []string{"0-0 1-1", "", "  0-0\t2-1 ", "0-x", "1-2-3", "-1-0", "0-0 0-0", "99999999999-0", "3-0"} {
		f.Add(s, 4, 3)
	}
	f.Fuzz(func(t *testing.T, line string, nf, ne int) {
		nf, ne = nf&0xff, ne&0xff
		var p alignParser
		pts, err := p.parse([]byte(line), nf, ne)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		var b strings.Builder
		for i, pt := range pts {
			if int(pt.f) >= nf || int(pt.e) >= ne {
				t.Fatalf("point %v out of %dx%d", pt, nf, ne)
			}
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.Itoa(int(pt.f)) + "-" + strconv.Itoa(int(pt.e)))
		}
		var q alignParser
		again, err := q.parse([]byte(b.String()), nf, ne)
		if err != nil || len(again) != len(pts) {
			t.Fatalf("%q → %q: %v, %v", line, b.String(), again, err)
		}
		for i := range pts {
			if pts[i] != again[i] {
				t.Fatalf("%q → %q: %v ≠ %v", line, b.String(), again, pts)
			}
		}
	})
}

// FuzzParseLineRange: no panic, and String reads back as the same range.
func FuzzParseLineRange(f *testing.F) {
	for _, s := range []string{"", "1-8000", "5", "7-", "0-1", "3-2", "x", "1--2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseLineRange(s)
		if err != nil {
			return
		}
		if r != (LineRange{}) && (r.First < 1 || (r.Last != 0 && r.Last < r.First)) {
			t.Fatalf("%q → %+v", s, r)
		}
		again, err := ParseLineRange(r.String())
		if err != nil || again != r {
			t.Fatalf("%q → %+v → %q → %+v, %v", s, r, r.String(), again, err)
		}
	})
}

// FuzzExtract compares phrase extraction with the definition of
// consistency on alignments made from the fuzzer's bytes.
func FuzzExtract(f *testing.F) {
	f.Add(uint8(3), uint8(3), uint8(7), []byte{0, 0, 1, 1, 2, 2})
	f.Add(uint8(4), uint8(2), uint8(2), []byte{0, 1, 3, 0})
	f.Add(uint8(1), uint8(5), uint8(1), []byte{})
	f.Fuzz(func(t *testing.T, nf, ne, maxLen uint8, pairs []byte) {
		nF, nE, m := 1+int(nf%10), 1+int(ne%10), 1+int(maxLen%7)
		var pts []point
		for k := 0; k+1 < len(pairs) && k < 80; k += 2 {
			pts = append(pts, point{uint16(int(pairs[k]) % nF), uint16(int(pairs[k+1]) % nE)})
		}
		checkExtract(t, nF, nE, pts, m)
	})
}

// FuzzReadBitext reads fuzzed source, target and alignment texts: no
// panic, errors are *ParseError or name the line counts, and what is read
// is consistent (every alignment point inside its sentence pair).
func FuzzReadBitext(f *testing.F) {
	f.Add("a b\nc\n", "x y\nz\n", "0-0 1-1\n0-0\n", 0, 0)
	f.Add("a\r\n\n", "x\ty\n\n", "0-1\n\n", 1, 2)
	f.Add("a\n", "x\n", "1-0\n", 0, 0)
	f.Add("a |||\n", "x\n", "0-0\n", 0, 0)
	f.Fuzz(func(t *testing.T, src, tgt, align string, first, last int) {
		lines := LineRange{first & 7, last & 7}
		var rs [3]*lineReader
		for i, s := range []string{src, tgt, align} {
			rs[i] = &lineReader{path: []string{"f", "e", "a"}[i], r: corpus.NewReader(strings.NewReader(s))}
		}
		b, err := readLines(context.Background(), rs, lines)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) && !errors.Is(err, ErrLineCount) && !errors.Is(err, ErrEmpty) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		if len(b.srcOff) != b.len()+1 || len(b.atOff) != len(b.tgt)+1 || int(b.atOff[len(b.tgt)]) != len(b.atF) {
			t.Fatalf("inconsistent offsets")
		}
		for s := range b.len() {
			for j := range len(b.tgtSent(s)) {
				for _, i := range b.alignedTo(s, j) {
					if int(i) >= len(b.srcSent(s)) {
						t.Fatalf("sentence %d: point %d-%d out of range", s, i, j)
					}
				}
			}
		}
	})
}
