package textpos

import (
	"io"
	"strings"
	"testing"
)

// TestLineReaderOffset checks that Offset is where the next line starts:
// reading again from that byte gives the remaining lines.
func TestLineReaderOffset(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, in := range []string{
		"",
		"a\nb\nc\n",
		"a\nb\nc",
		"a\r\n\r\nb\r\n",
		"\xef\xbb\xbfa\nb\n",
		long + "\n" + long + "\nend",
		"\n\n\n",
	} {
		lr := NewLineReader(strings.NewReader(in), 16)
		var lines []string
		var offs []int64
		for {
			b, err := lr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, string(b))
			offs = append(offs, lr.Offset())
		}
		if len(offs) > 0 && offs[len(offs)-1] != int64(len(in)) {
			t.Errorf("%q: offset after the last line %d, want %d", in, offs[len(offs)-1], len(in))
		}
		for i, off := range offs {
			rest := NewLineReader(strings.NewReader(in[off:]), 16)
			for j := i + 1; j < len(lines); j++ {
				b, err := rest.Next()
				if err != nil || string(b) != lines[j] {
					t.Fatalf("%q: from offset %d, line %d is %q (%v), want %q", in, off, j+1, b, err, lines[j])
				}
			}
			if _, err := rest.Next(); err != io.EOF {
				t.Errorf("%q: from offset %d, more lines than %d", in, off, len(lines))
			}
		}
	}
}
