package textpos

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// BOM is the UTF-8 byte order mark, which the line readers of mtune's
// formats drop at the start of a file.
var BOM = []byte("\xef\xbb\xbf")

// LineReader reads lines of any length. It drops each line's newline, one
// '\r' before it, and a byte order mark at the start of the input.
type LineReader struct {
	// BOMOnlyEmpty makes an input that is nothing but a byte order mark,
	// with no newline, hold no lines rather than one empty line.
	BOMOnlyEmpty bool
	// Continued marks input that starts inside a stream (a reader opened
	// at a line's offset): a byte order mark at its start is text, kept.
	Continued bool

	br   *bufio.Reader
	acc  []byte
	line int
	off  int64 // bytes consumed through the last line returned
}

// NewLineReader returns a LineReader reading r through a buffer of size
// bytes (bufio's default when size is not positive); lines may be longer.
func NewLineReader(r io.Reader, size int) *LineReader {
	if size <= 0 {
		return &LineReader{br: bufio.NewReader(r)}
	}
	return &LineReader{br: bufio.NewReaderSize(r, size)}
}

// Line returns the 1-based number of the line Next returned last.
func (lr *LineReader) Line() int { return lr.line }

// Offset returns the number of bytes of input consumed through the end of
// the line Next returned last, its newline included: the byte offset at
// which the next line starts.
func (lr *LineReader) Offset() int64 { return lr.off }

// Next returns the next line, valid until the following call; io.EOF at
// the end of input; any other error of the underlying reader as it is,
// with Line left at the last line returned.
func (lr *LineReader) Next() ([]byte, error) {
	lr.acc = lr.acc[:0]
	var b []byte
	for {
		frag, err := lr.br.ReadSlice('\n')
		if err == nil {
			if len(lr.acc) > 0 {
				lr.acc = append(lr.acc, frag...)
				b = lr.acc
			} else {
				b = frag
			}
			lr.off += int64(len(b))
			b = b[:len(b)-1]
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			lr.acc = append(lr.acc, frag...)
			continue
		}
		if err != io.EOF {
			return nil, err
		}
		lr.acc = append(lr.acc, frag...)
		if len(lr.acc) == 0 || (lr.BOMOnlyEmpty && !lr.Continued && lr.line == 0 && bytes.Equal(lr.acc, BOM)) {
			return nil, io.EOF
		}
		b = lr.acc
		lr.off += int64(len(b))
		break
	}
	lr.line++
	if lr.line == 1 && !lr.Continued {
		b = bytes.TrimPrefix(b, BOM)
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, nil
}
