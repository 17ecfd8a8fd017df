// Package parsetest holds helpers for the tests of mtune's parsers
// (io/weights, io/nbest, io/corpus, decoder/model, decoder/lm,
// decoder/build). It is test-support code only: no non-test package
// imports it. It imports only the standard library, internal/textpos and
// testsupport/testfile, so that the tests inside any of those packages can
// use it. Its own test checks, in one table for every parser that reads
// files by path, that parse errors name the file and line and do not
// quote the line.
package parsetest

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/internal/textpos"
	"github.com/mtune/mtune/testsupport/testfile"
)

// Secret is a line of a corpus. The tests that feed a parser a file that
// is not what it is named as, or a long bad token made of it (Long), check
// with NoContent that its error does not print it.
const Secret = "resumptionofthesession declared adjourned on friday 17 december"

// Long is Secret as one token.
var Long = strings.ReplaceAll(Secret, " ", "_")

// NoContent fails t unless err is an error that names "file:line:" and
// quotes no part of Secret longer than a short token.
func NoContent(t testing.TB, err error, file string, line int) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, fmt.Sprintf("%s:%d:", file, line)) {
		t.Errorf("error %q does not name %s:%d", msg, file, line)
	}
	if strings.Contains(msg, "declared") || strings.Contains(msg, "resumptionofthesession") {
		t.Errorf("error %q quotes the file's content", msg)
	}
}

// WriteFile writes content to a file name in a new temporary directory of
// t and returns its path.
func WriteFile(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// OpenGzip opens the gzip file at path with the standard library only and
// returns its decompressed content; the file is closed when t ends. It is
// testfile.OpenGzip.
func OpenGzip(t testing.TB, path string) io.Reader {
	t.Helper()
	return testfile.OpenGzip(t, path)
}

// GzipScanner returns a line scanner of the gzip file at path (see
// OpenGzip) that takes lines of up to 1 MiB.
func GzipScanner(t testing.TB, path string) *bufio.Scanner {
	t.Helper()
	sc := bufio.NewScanner(OpenGzip(t, path))
	sc.Buffer(nil, 1<<20)
	return sc
}

// ReadAll calls read until it returns an error and gives back what it
// read and that error (io.EOF at a clean end).
func ReadAll[T any](read func() (T, error)) ([]T, error) {
	var out []T
	for {
		v, err := read()
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
}

// MustReadAll is ReadAll failing tb on an error other than io.EOF.
func MustReadAll[T any](tb testing.TB, read func() (T, error)) []T {
	tb.Helper()
	out, err := ReadAll(read)
	if err != io.EOF {
		tb.Fatal(err)
	}
	return out
}

// GzipWholeAndCut gzips content and writes it, in a new temporary
// directory of t, to the file named whole and, cut to the first num/den of
// its compressed bytes, to the file named cut. It returns their paths.
func GzipWholeAndCut(t testing.TB, content, whole, cut string, num, den int) (wholePath, cutPath string) {
	t.Helper()
	var buf strings.Builder
	zw := gzip.NewWriter(&buf)
	if _, err := io.WriteString(zw, content); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	gz := buf.String()
	dir := t.TempDir()
	wholePath, cutPath = filepath.Join(dir, whole), filepath.Join(dir, cut)
	if err := os.WriteFile(wholePath, []byte(gz), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cutPath, []byte(gz[:len(gz)*num/den]), 0o644); err != nil {
		t.Fatal(err)
	}
	return wholePath, cutPath
}

// QuoteCase is a case of NoQuoteCases: Parse reads a file that holds In
// and must fail with an error that names the file and Line.
type QuoteCase struct {
	Name  string
	Parse func(path string) error
	In    string
	Line  int
}

// NoQuoteCases runs each case as a subtest of t: it writes c.In to a file
// named corpus.en in a new temporary directory, calls c.Parse on its path
// and checks the error with NoContent(t, err, path, c.Line).
func NoQuoteCases(t *testing.T, cases []QuoteCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			path := WriteFile(t, "corpus.en", c.In)
			err := c.Parse(path)
			NoContent(t, err, path, c.Line)
		})
	}
}

// ErrCase is a row of a table of inputs a parser rejects: the subtest
// name, the input, the parser's options and the error expected, a
// *ParseError wrapping Kind at Line and Col (how a test checks the
// position, At or otherwise, is its own).
type ErrCase[O any] struct {
	Name string
	In   string
	Opts O
	Kind error
	Line int
	Col  int
}

// At reports whether err is a *textpos.ParseError[P] (a parser package's
// ParseError) wrapping kind at file:line, and at column col unless col is
// negative. If it is not, At fails t with name and the error.
func At[P textpos.Prefix](t testing.TB, name string, err, kind error, file string, line, col int) bool {
	t.Helper()
	var pe *textpos.ParseError[P]
	if !errors.As(err, &pe) {
		t.Errorf("%s: %v is not a *ParseError", name, err)
		return false
	}
	if !errors.Is(err, kind) || pe.File != file || pe.Line != line || (col >= 0 && pe.Column != col) {
		t.Errorf("%s: %v (at %s:%d:%d), want %v at %s:%d:%d", name, err, pe.File, pe.Line, pe.Column, kind, file, line, col)
		return false
	}
	return true
}
