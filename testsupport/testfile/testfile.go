// Package testfile holds the small file helpers that tests across mtune
// write again and again: writing a text file into a test's folder and
// gzipping or gunzipping with the standard library. Every helper fails
// the test on an error.
package testfile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Write writes text to dir/name and returns the file's path.
func Write(t testing.TB, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	return p
}

// Writer returns a function that writes text to dir/name and returns the
// file's path, as Write does.
func Writer(t testing.TB, dir string) func(name, text string) string {
	return func(name, text string) string {
		t.Helper()
		return Write(t, dir, name, text)
	}
}

// OpenGzip opens the gzip file at path and returns a reader of its
// decompressed content; the file is closed when the test ends.
func OpenGzip(t testing.TB, path string) io.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return gunzipReader(t, f)
}

// GunzipFile returns the decompressed content of the gzip file at path.
func GunzipFile(t testing.TB, path string) []byte {
	t.Helper()
	return readAll(t, OpenGzip(t, path))
}

// GunzipLines returns the first n lines of the gzip file at path, all of
// them when n < 0. Lines may be up to 1 MiB long.
func GunzipLines(t testing.TB, path string, n int) []string {
	t.Helper()
	sc := bufio.NewScanner(OpenGzip(t, path))
	sc.Buffer(nil, 1<<20)
	var lines []string
	for (n < 0 || len(lines) < n) && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// Gzip compresses b with the standard library.
func Gzip(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Gunzip decompresses b with the standard library.
func Gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	return readAll(t, gunzipReader(t, bytes.NewReader(b)))
}

func gunzipReader(t testing.TB, r io.Reader) *gzip.Reader {
	t.Helper()
	zr, err := gzip.NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	return zr
}

func readAll(t testing.TB, r io.Reader) []byte {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
