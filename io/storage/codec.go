package storage

import (
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// codec is a compression format chosen by a path's extension.
type codec int

const (
	codecNone codec = iota
	codecGzip       // .gz
	codecZstd       // .zst
)

// codecOf returns the compression format of path p.
func codecOf(p string) codec {
	switch {
	case strings.HasSuffix(p, ".gz"):
		return codecGzip
	case strings.HasSuffix(p, ".zst"):
		return codecZstd
	}
	return codecNone
}

// reader decompresses src if needed and names the path in its errors.
type reader struct {
	path     string
	r        io.Reader // decompressed content
	src      io.Closer // the file or object
	closeDec func()    // releases the decompressor, or nil
	err      error     // first read error, wrapped
	closed   bool
}

// newReader returns a reader of src, which was opened at path p. On error it
// closes src.
func newReader(p string, src io.ReadCloser) (io.ReadCloser, error) {
	r := &reader{path: p, src: src}
	switch codecOf(p) {
	case codecNone:
		r.r = src
	case codecGzip:
		zr, err := gzip.NewReader(bufferedReader(src))
		if err != nil {
			src.Close()
			return nil, fmt.Errorf("storage: open %s: %w", p, noEOF(err))
		}
		r.r = zr
		r.closeDec = func() { zr.Close() }
	case codecZstd:
		br := bufferedReader(src)
		// An empty stream has no frame at all: the decoder would report a
		// clean end of input, but no writer produces it.
		if _, err := br.Peek(1); err != nil {
			src.Close()
			return nil, fmt.Errorf("storage: open %s: zstd: %w", p, noEOF(err))
		}
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			src.Close()
			return nil, fmt.Errorf("storage: open %s: %w", p, err)
		}
		r.r = zr
		r.closeDec = zr.Close
	}
	return r, nil
}

// noEOF turns io.EOF, the end of input where more was required, into
// io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (r *reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.closed {
		return 0, fmt.Errorf("storage: read %s: %w", r.path, fs.ErrClosed)
	}
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = fmt.Errorf("storage: read %s: %w", r.path, err)
		return n, r.err
	}
	return n, err
}

// Close releases the decompressor and closes the file or object. Closing
// again does nothing.
func (r *reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.closeDec != nil {
		r.closeDec()
	}
	if err := r.src.Close(); err != nil {
		return fmt.Errorf("storage: close %s: %w", r.path, err)
	}
	return nil
}

// newCompressor returns a writer compressing into w in the format of path p,
// at the default level, or nil if p is not compressed.
func newCompressor(p string, w io.Writer) (io.WriteCloser, error) {
	switch codecOf(p) {
	case codecGzip:
		return gzip.NewWriter(w), nil
	case codecZstd:
		// One goroutine: the encoder then writes to w only from inside
		// Write and Close, never behind the Writer's back.
		zw, err := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		return zw, nil
	}
	return nil, nil
}
