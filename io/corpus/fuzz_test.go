package corpus

import (
	"bytes"
	"errors"
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
