package corpus

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

func FuzzReadLines(f *testing.F) {
	for _, s := range []string{"", "\n", "a b\nc", "a\r\nb\r", "a\r\r\n", "\ufeffx\n\ufeff", "ok\n\xff\n", "é\xc3", "\r", "\n\n\r\n", "\ufeff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := ReadLines(bytes.NewReader(data))
		slow, slowErr := ReadLines(iotest.OneByteReader(bytes.NewReader(data)))
		if (err == nil) != (slowErr == nil) || !slices.Equal(lines, slow) {
			t.Fatalf("one byte reader: %q, %v; plain: %q, %v", slow, slowErr, lines, err)
		}
		body := bytes.TrimPrefix(data, []byte("\ufeff"))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalidUTF8) || utf8.Valid(body) {
				t.Fatalf("error %v for input %q", err, data)
			}
			// The line and column point at the first invalid byte.
			segs := bytes.Split(body, []byte("\n"))
			if pe.Line < 1 || pe.Line > len(segs) {
				t.Fatalf("line %d of %d", pe.Line, len(segs))
			}
			seg := segs[pe.Line-1]
			if !utf8.Valid(bytes.Join(segs[:pe.Line-1], nil)) || pe.Column < 1 || pe.Column > len(seg) || !utf8.Valid(seg[:pe.Column-1]) {
				t.Fatalf("error at %d:%d for input %q", pe.Line, pe.Column, data)
			}
			return
		}
		// Lines are the input split at '\n', less one '\r' at each end.
		segs := bytes.Split(body, []byte("\n"))
		if len(segs[len(segs)-1]) == 0 {
			segs = segs[:len(segs)-1]
		}
		if len(lines) != len(segs) {
			t.Fatalf("%d lines, input has %d: %q", len(lines), len(segs), data)
		}
		for i, seg := range segs {
			if want := string(bytes.TrimSuffix(seg, []byte("\r"))); lines[i] != want {
				t.Fatalf("line %d = %q, want %q", i+1, lines[i], want)
			}
		}
	})
}

// FuzzRanges checks Scan and ReadRange against Load: Scan accepts a
// tuning set exactly when Load does and no source line is empty, and its
// ranges read back what Load reads.
func FuzzRanges(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("x\ny\nz\n"), uint8(2))
	f.Add([]byte("\ufeffa\r\nb"), []byte("x\ny\n"), uint8(1))
	f.Add([]byte("a\n\xffb\n"), []byte("x\ny\n"), uint8(3))
	f.Add([]byte("a\n\ufeffb\n"), []byte("x\n\n"), uint8(1))
	f.Fuzz(func(t *testing.T, src, ref []byte, n uint8) {
		ctx := context.Background()
		dir := t.TempDir()
		sp, rp := filepath.Join(dir, "src"), filepath.Join(dir, "ref")
		if os.WriteFile(sp, src, 0o644) != nil || os.WriteFile(rp, ref, 0o644) != nil {
			t.Skip("cannot write the files")
		}
		rangeLines := int(n%7) + 1
		ix, err := Scan(ctx, sp, []string{rp}, rangeLines, 1000)
		c, loadErr := Load(ctx, sp, []string{rp})
		if errors.Is(err, ErrLongLine) && loadErr == nil {
			return // Load takes any length
		}
		if loadErr == nil && len(c.EmptySource()) > 0 {
			if !errors.Is(err, ErrEmptyLine) {
				t.Fatalf("Scan: %v, want ErrEmptyLine", err)
			}
			return
		}
		if (err == nil) != (loadErr == nil) {
			t.Fatalf("Scan: %v; Load: %v", err, loadErr)
		}
		if err != nil {
			return
		}
		var got []string
		for _, r := range ix.Ranges() {
			part, err := ReadRange(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			for i := range part.Source {
				if part.Refs[i][0] != c.Refs[r.First+i][0] {
					t.Fatalf("reference %d = %q, want %q", r.First+i, part.Refs[i][0], c.Refs[r.First+i][0])
				}
			}
			got = append(got, part.Source...)
		}
		if !slices.Equal(got, c.Source) {
			t.Fatalf("ranges read %q, Load %q", got, c.Source)
		}
	})
}
