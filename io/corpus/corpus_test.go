package corpus

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/testsupport/testfile"
)

func TestReadLines(t *testing.T) {
	long := strings.Repeat("é", 100000) // 200 kB, past every buffer
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"one empty line", "\n", []string{""}},
		{"no final newline", "a b\nc", []string{"a b", "c"}},
		{"final newline", "a b\nc\n", []string{"a b", "c"}},
		{"CRLF", "a\r\nb\r\n", []string{"a", "b"}},
		{"CR at end of input", "a\r\nb\r", []string{"a", "b"}},
		{"only one CR dropped", "a\r\r\n", []string{"a\r"}},
		{"lone CR kept", "a\rb\n", []string{"a\rb"}},
		{"empty lines kept", "a\n\n\nb\n", []string{"a", "", "", "b"}},
		{"white space kept", "  a  \t\n", []string{"  a  \t"}},
		{"BOM dropped at start only", "\ufeffa\n\ufeffb\n", []string{"a", "\ufeffb"}},
		{"BOM only", "\ufeff", nil},
		{"BOM and newline", "\ufeff\n", []string{""}},
		{"long line", "x\n" + long + "\ny", []string{"x", long, "y"}},
		{"NUL is valid UTF-8", "a\x00b\n", []string{"a\x00b"}},
	}
	readers := map[string]func(string) io.Reader{
		"plain":    func(s string) io.Reader { return strings.NewReader(s) },
		"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"data+err": func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
		"half":     func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
	}
	for _, tc := range tests {
		for rname, mk := range readers {
			t.Run(tc.name+"/"+rname, func(t *testing.T) {
				got, err := ReadLines(mk(tc.in))
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("got %q, want %q", got, tc.want)
				}
			})
		}
	}
}

func TestReadLinesErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		line, col int
	}{
		{"invalid byte", "ok\nab\xffc\n", 2, 3},
		{"truncated rune at end", "ok\nok\né\xc3", 3, 3},
		{"surrogate", "\xed\xa0\x80\n", 1, 1},
		{"overlong", "a\n\xc0\xaf\n", 2, 1},
		{"after BOM", "\ufeff\xff\n", 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadLines(strings.NewReader(tc.in))
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("err = %v, want a ParseError for invalid UTF-8", err)
			}
			if pe.Line != tc.line || pe.Column != tc.col {
				t.Errorf("at %d:%d, want %d:%d", pe.Line, pe.Column, tc.line, tc.col)
			}
		})
	}
	// A read error is reported with the line being read, and is sticky.
	r := NewReader(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(io.ErrUnexpectedEOF)))
	if s, err := r.Read(); s != "a" || err != nil {
		t.Fatalf("Read = %q, %v", s, err)
	}
	for range 2 {
		if _, err := r.Read(); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("err = %v, want io.ErrUnexpectedEOF", err)
		}
	}
	if got, want := (&ParseError{Line: 2, Err: io.ErrUnexpectedEOF}).Error(), "corpus: line 2: unexpected EOF"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got, want := (&ParseError{File: "f", Line: 2, Column: 3, Err: ErrInvalidUTF8}).Error(), "corpus: f:2:3: invalid UTF-8"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

func TestLoadEuroparl(t *testing.T) {
	fr := shared.Path(t, "europarl-fr-en", "fr.gz")
	en := shared.Path(t, "europarl-fr-en", "en.gz")
	c, err := Load(context.Background(), fr, []string{en})
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 10000 || c.NumRefs() != 1 || len(c.Refs) != 10000 {
		t.Fatalf("%d sentences, %d refs, want 10000 and 1", c.Len(), c.NumRefs())
	}
	wantFr, wantEn := testfile.GunzipLines(t, fr, -1), testfile.GunzipLines(t, en, -1)
	if !slices.Equal(c.Source, wantFr) {
		t.Error("source differs from the file read with compress/gzip")
	}
	for i, r := range c.Refs {
		if len(r) != 1 || r[0] != wantEn[i] {
			t.Fatalf("reference %d = %q, want %q", i, r, wantEn[i])
		}
	}
	if e := c.EmptySource(); len(e) != 0 {
		t.Errorf("empty source lines %v", e)
	}
	// The tune split, lines 8001–9000.
	tune := c.Sub(8000, 9000)
	if tune.Len() != 1000 || tune.Source[0] != wantFr[8000] || tune.Refs[999][0] != wantEn[8999] {
		t.Errorf("Sub(8000, 9000) is wrong")
	}
	if c.SourcePath != fr || !slices.Equal(c.RefPaths, []string{en}) {
		t.Errorf("paths %s %v", c.SourcePath, c.RefPaths)
	}
}

func TestLoadRefsCdec(t *testing.T) {
	dir := shared.Path(t, "bleu", "cdec", "test_data")
	ctx := context.Background()
	var want [][]string
	for k := range 4 {
		data, err := os.ReadFile(filepath.Join(dir, "re.txt."+string(rune('0'+k))))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		for i, l := range lines {
			if k == 0 {
				want = append(want, nil)
			}
			want[i] = append(want[i], l)
		}
	}
	if len(want) != 5 {
		t.Fatalf("the test data changed: %d lines", len(want))
	}
	for _, prefix := range []string{"re.txt.", "re.txt"} {
		t.Run(prefix, func(t *testing.T) {
			refs, err := LoadRefs(ctx, []string{filepath.Join(dir, prefix)})
			if err != nil {
				t.Fatal(err)
			}
			if len(refs) != len(want) {
				t.Fatalf("%d sentences, want %d", len(refs), len(want))
			}
			for i := range want {
				if !slices.Equal(refs[i], want[i]) {
					t.Errorf("sentence %d: %q, want %q", i, refs[i], want[i])
				}
			}
		})
	}
	// The folder also holds devset.txt, of 2 lines: a real count mismatch.
	_, err := LoadRefs(ctx, []string{dir})
	if !errors.Is(err, ErrLineCount) {
		t.Fatalf("err = %v, want ErrLineCount", err)
	}
	for _, s := range []string{"devset.txt", "re.txt.0", "has 2", "has 5"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

// write creates the files of a tuning set in dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		data := []byte(content)
		if strings.HasSuffix(name, ".gz") {
			var b strings.Builder
			zw := gzip.NewWriter(&b)
			zw.Write(data)
			zw.Close()
			data = []byte(b.String())
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name     string
		in       loadInput
		want     [][]string
		refPaths []string
		empty    []int
	}{
		{
			name: "two files",
			in: loadInput{files: map[string]string{"src": "a\nb\n", "r1": "A\nB\n", "r2": "AA\nBB"},
				src: "src", refs: []string{"r1", "r2"}},
			want:     [][]string{{"A", "AA"}, {"B", "BB"}},
			refPaths: []string{"r1", "r2"},
		},
		{
			name: "folder: sorted, hidden files and sub-folders skipped, gzip",
			in: loadInput{files: map[string]string{"src": "a\n\n", "refs/b.txt": "B1\nB2\n", "refs/a.gz": "A1\nA2\n",
				"refs/.hidden": "x\n", "refs/sub/c": "C1\nC2\n"},
				src: "src", refs: []string{"refs"}},
			want:     [][]string{{"A1", "B1"}, {"A2", "B2"}},
			refPaths: []string{"refs/a.gz", "refs/b.txt"},
			empty:    []int{1},
		},
		{
			name: "prefix ref0, ref1 until the first gap",
			in: loadInput{files: map[string]string{"src": "a\n", "ref0": "x\n", "ref1": "y\n", "ref3": "z\n"},
				src: "src", refs: []string{"ref"}},
			want:     [][]string{{"x", "y"}},
			refPaths: []string{"ref0", "ref1"},
		},
		{
			name: "prefix ref.0",
			in: loadInput{files: map[string]string{"src": "a\n", "ref.0": "x\n", "ref.1": "y\n"},
				src: "src", refs: []string{"ref"}},
			want:     [][]string{{"x", "y"}},
			refPaths: []string{"ref.0", "ref.1"},
		},
		{
			name: "an existing file wins over its numbered files",
			in: loadInput{files: map[string]string{"src": "a\n", "ref": "r\n", "ref0": "x\n"},
				src: "src", refs: []string{"ref"}},
			want:     [][]string{{"r"}},
			refPaths: []string{"ref"},
		},
		{
			name: "CRLF source",
			in: loadInput{files: map[string]string{"src": "a\r\nb\r\n", "ref": "x\ny"},
				src: "src", refs: []string{"ref"}},
			want:     [][]string{{"x"}, {"y"}},
			refPaths: []string{"ref"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, refs, c, err := loadFiles(t, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(c.Refs, tc.want, slices.Equal) {
				t.Errorf("refs %q, want %q", c.Refs, tc.want)
			}
			var wantPaths []string
			for _, p := range tc.refPaths {
				wantPaths = append(wantPaths, filepath.Join(dir, p))
			}
			if !slices.Equal(c.RefPaths, wantPaths) {
				t.Errorf("ref paths %q, want %q", c.RefPaths, wantPaths)
			}
			if !slices.Equal(c.EmptySource(), tc.empty) {
				t.Errorf("empty source lines %v, want %v", c.EmptySource(), tc.empty)
			}
			got, err := LoadRefs(context.Background(), refs)
			if err != nil || !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("LoadRefs = %q, %v", got, err)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name     string
		in       loadInput
		is       error    // nil: not checked
		mentions []string // in the message, after dir is replaced by "D"
		line     int      // ParseError line, 0: no ParseError expected
	}{
		{"more reference lines", loadInput{map[string]string{"src": "a\nb\n", "ref": "x\ny\nz\n"}, "src", []string{"ref"}},
			ErrLineCount, []string{"corpus: reference D/ref has 3 lines but D/src has 2"}, 0},
		{"fewer lines in the second reference", loadInput{map[string]string{"src": "a\nb\n", "r0": "x\ny\n", "r1": "x\n"}, "src", []string{"r"}},
			ErrLineCount, []string{"D/r1 has 1 lines", "D/src has 2"}, 0},
		{"invalid UTF-8 in a reference", loadInput{map[string]string{"src": "a\nb\n", "ref": "x\nd\xe9j\xe0\n"}, "src", []string{"ref"}},
			ErrInvalidUTF8, []string{"corpus: D/ref:2:2: invalid UTF-8"}, 2},
		{"invalid UTF-8 in the source", loadInput{map[string]string{"src": "\xff\n", "ref": "x\n"}, "src", []string{"ref"}},
			ErrInvalidUTF8, []string{"D/src:1:1"}, 1},
		{"missing source", loadInput{map[string]string{"ref": "x\n"}, "src", []string{"ref"}},
			fs.ErrNotExist, []string{"D/src"}, 0},
		{"missing reference", loadInput{map[string]string{"src": "a\n"}, "src", []string{"ref"}},
			fs.ErrNotExist, []string{"D/ref", "D/ref0", "D/ref.0"}, 0},
		{"empty source", loadInput{map[string]string{"src": "", "ref": ""}, "src", []string{"ref"}},
			ErrEmpty, []string{"D/src"}, 0},
		{"no references", loadInput{map[string]string{"src": "a\n"}, "src", nil}, nil, []string{"no reference"}, 0},
		{"empty folder", loadInput{map[string]string{"src": "a\n", "refs/.x": "x\n"}, "src", []string{"refs"}},
			nil, []string{"D/refs has no files"}, 0},
		{"file given twice", loadInput{map[string]string{"src": "a\n", "refs/r": "x\n"}, "src", []string{"refs", "refs/r"}},
			nil, []string{"D/refs/r given twice"}, 0},
		{"source is a folder", loadInput{map[string]string{"src/x": "a\n", "ref": "x\n"}, "src", []string{"ref"}},
			nil, []string{"D/src"}, 0},
		{"truncated gzip", loadInput{map[string]string{"src": "a\n", "ref.gz": ""}, "src", []string{"ref.gz"}},
			nil, []string{"D/ref.gz"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, _, c, err := loadFiles(t, tc.in)
			if err == nil {
				t.Fatalf("no error; corpus %+v", c)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not match %v", err, tc.is)
			}
			msg := strings.ReplaceAll(err.Error(), dir, "D")
			for _, m := range tc.mentions {
				if !strings.Contains(msg, m) {
					t.Errorf("error %q does not mention %q", msg, m)
				}
			}
			var pe *ParseError
			if got := errors.As(err, &pe); got != (tc.line > 0) || (got && pe.Line != tc.line) {
				t.Errorf("error %v: ParseError %v, want line %d", err, pe, tc.line)
			}
		})
	}
}

func TestLoadRefsErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"e0": "", "e1": "", "a": "x\n", "b": "x\ny\n"})
	ctx := context.Background()
	if _, err := LoadRefs(ctx, []string{filepath.Join(dir, "e")}); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty references: %v", err)
	}
	_, err := LoadRefs(ctx, []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")})
	if !errors.Is(err, ErrLineCount) || !strings.Contains(err.Error(), "b has 2 lines but "+filepath.Join(dir, "a")+" has 1") {
		t.Errorf("count mismatch: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := LoadRefs(cancelled, []string{filepath.Join(dir, "a")}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func BenchmarkReadLines(b *testing.B) {
	data, err := os.ReadFile(shared.Path(b, "europarl-fr-en", "en.gz"))
	if err != nil {
		b.Fatal(err)
	}
	zr, err := gzip.NewReader(strings.NewReader(string(data)))
	if err != nil {
		b.Fatal(err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		lines, err := ReadLines(strings.NewReader(string(text)))
		if err != nil || len(lines) != 10000 {
			b.Fatal(len(lines), err)
		}
	}
}

func BenchmarkLoadEuroparl(b *testing.B) {
	fr := shared.Path(b, "europarl-fr-en", "fr.gz")
	en := shared.Path(b, "europarl-fr-en", "en.gz")
	for b.Loop() {
		if _, err := Load(context.Background(), fr, []string{en}); err != nil {
			b.Fatal(err)
		}
	}
}

// loadInput is a tuning set for Load: its files (path in a new temporary
// folder → content), and the source and reference paths Load is given,
// relative to that folder.
type loadInput struct {
	files map[string]string
	src   string
	refs  []string
}

// loadFiles writes in's files into a new temporary folder and Loads its
// source with its references; it returns the folder and the paths of the
// references.
func loadFiles(t *testing.T, in loadInput) (string, []string, *Corpus, error) {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, in.files)
	var paths []string
	for _, r := range in.refs {
		paths = append(paths, filepath.Join(dir, r))
	}
	c, err := Load(context.Background(), filepath.Join(dir, in.src), paths)
	return dir, paths, c, err
}
