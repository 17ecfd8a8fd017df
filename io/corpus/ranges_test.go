package corpus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/testsupport/storagetest"
)

// readAllRanges reads every range of ix and joins them.
func readAllRanges(t *testing.T, ix *Index) *Corpus {
	t.Helper()
	out := &Corpus{SourcePath: ix.Source, RefPaths: ix.RefPaths}
	for _, r := range ix.Ranges() {
		c, err := ReadRange(context.Background(), r)
		if err != nil {
			t.Fatalf("range from line %d: %v", r.First+1, err)
		}
		out.Source = append(out.Source, c.Source...)
		out.Refs = append(out.Refs, c.Refs...)
	}
	return out
}

// TestScanRanges scans tuning sets of plain and compressed files, locally
// and on the GCS emulator, and checks that the ranges read back what Load
// reads, and the checksums are those of the content.
func TestScanRanges(t *testing.T) {
	ctx := context.Background()
	var lines, refs []string
	for i := range 23 {
		lines = append(lines, fmt.Sprintf("phrase %d é", i))
		refs = append(refs, fmt.Sprintf("ref %d", i))
	}
	body := strings.Join(lines, "\n") + "\n"
	tests := []struct {
		name, src, ref string
		srcData        string
		rangeLines     int
	}{
		{"one range", "src.txt", "ref.txt", body, 100},
		{"ranges of 5", "src.txt", "ref.txt", body, 5},
		{"ranges of 1", "src.txt", "ref.txt", body, 1},
		{"exact ranges, no final newline", "src.txt", "ref.txt", strings.TrimSuffix(body, "\n"), 23},
		{"crlf and a BOM", "src.txt", "ref.txt", "\ufeff" + strings.ReplaceAll(body, "\n", "\r\n"), 4},
		{"compressed source", "src.txt.gz", "ref.txt", body, 6},
		{"compressed reference", "src.txt", "ref.zst", body, 6},
		{"a BOM inside a range is text", "src.txt", "ref.txt", strings.Replace(body, "phrase 5", "\ufeffphrase 5", 1), 5},
	}
	for name, dir := range storagetest.Folders(t, "corpus") {
		for _, tc := range tests {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				d := storage.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
				src, ref := storage.Join(d, tc.src), storage.Join(d, tc.ref)
				if err := storage.WriteFile(ctx, src, []byte(tc.srcData)); err != nil {
					t.Fatal(err)
				}
				refData := strings.Join(refs, "\n") + "\n"
				if err := storage.WriteFile(ctx, ref, []byte(refData)); err != nil {
					t.Fatal(err)
				}
				ix, err := Scan(ctx, src, []string{ref}, tc.rangeLines, 1000)
				if err != nil {
					t.Fatal(err)
				}
				want, err := Load(ctx, src, []string{ref})
				if err != nil {
					t.Fatal(err)
				}
				if ix.Lines != want.Len() || len(ix.Ranges()) != (want.Len()+tc.rangeLines-1)/tc.rangeLines {
					t.Fatalf("%d lines in %d ranges, want %d lines", ix.Lines, len(ix.Ranges()), want.Len())
				}
				got := readAllRanges(t, ix)
				if !slices.Equal(got.Source, want.Source) || !slices.EqualFunc(got.Refs, want.Refs, slices.Equal) {
					t.Errorf("ranges read\n%q\nLoad reads\n%q", got.Source, want.Source)
				}
				for f, data := range []string{tc.srcData, refData} {
					sum := sha256.Sum256([]byte(data))
					if ix.SHA256[f] != hex.EncodeToString(sum[:]) {
						t.Errorf("file %d: sha256 %s, want that of its content", f, ix.SHA256[f])
					}
				}
			})
		}
	}
}

// TestScanErrors checks that Scan refuses what Load refuses, naming the
// file and line.
func TestScanErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		src, ref string
		want     error
		wantText string
	}{
		{"empty", "", "", ErrEmpty, "src"},
		{"reference shorter", "a\nb\nc\n", "a\nb\n", ErrLineCount, "ref has 2 lines but src has more"},
		{"reference longer", "a\nb\n", "a\nb\nc\n", ErrLineCount, "src has 2 lines but ref has more"},
		{"invalid UTF-8 in a reference", "a\nb\nc\n", "a\n\xffb\nc\n", ErrInvalidUTF8, "ref:2:1"},
		{"empty source line", "a\n\nc\n", "a\nb\nc\n", ErrEmptyLine, "src:2"},
		{"source line of white space", "a\n \t\u00a0\nc\n", "a\nb\nc\n", ErrEmptyLine, "src:2"},
		{"source line too long", "a\nb\n" + strings.Repeat("w ", 1001) + "\n", "a\nb\nc\n", ErrLongLine, "src:3: source line too long: 1001 words, at most 1000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, map[string]string{"src": tc.src, "ref": tc.ref})
			_, err := Scan(ctx, filepath.Join(dir, "src"), []string{filepath.Join(dir, "ref")}, 2, 1000)
			if !errors.Is(err, tc.want) || !strings.Contains(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""), tc.wantText) {
				t.Errorf("error %v, want %v naming %q", err, tc.want, tc.wantText)
			}
		})
	}
	// The longest line the caller takes is accepted.
	dir := t.TempDir()
	write(t, dir, map[string]string{"src": strings.Repeat("w ", 1000) + "\n", "ref": "r\n"})
	if _, err := Scan(ctx, filepath.Join(dir, "src"), []string{filepath.Join(dir, "ref")}, 2, 1000); err != nil {
		t.Errorf("a line of 1000 words: %v", err)
	}
	if _, err := Scan(ctx, "x", []string{"y"}, 0, 1000); err == nil {
		t.Error("0 lines a range: no error")
	}
}

// TestReadRangeChanged checks that a range read after its files changed
// fails, naming the file and line, rather than reading the wrong lines.
func TestReadRangeChanged(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		now       string // the source when the ranges are read
		wantRange int
		want      error
		wantText  string
	}{
		{"a line got longer", "aa\nbb\ncc\ndd\nee\n", 1, errMoved, "src:3"},
		{"the file got shorter", "a\nb\nc\n", 1, ErrLineCount, "src ends after line 3"},
		{"the file got longer", "a\nb\nc\nd\ne\nf\n", 2, ErrLineCount, "more than the 5 lines"},
		{"invalid UTF-8 in a later range", "a\nb\nc\n\xff\ne\n", 1, ErrInvalidUTF8, "src:4:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, map[string]string{"src": "a\nb\nc\nd\ne\n", "ref": "1\n2\n3\n4\n5\n"})
			src := filepath.Join(dir, "src")
			ix, err := Scan(ctx, src, []string{filepath.Join(dir, "ref")}, 2, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(src, []byte(tc.now), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = ReadRange(ctx, ix.Ranges()[tc.wantRange])
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("error %v, want %v naming %q", err, tc.want, tc.wantText)
			}
		})
	}
	if _, err := ReadRange(ctx, Range{Source: "src", Lines: 1}); err == nil {
		t.Error("a range without offsets: no error")
	}
}

// TestScanEuroparl scans the 10,000-sentence Europarl files (compressed)
// and checks a range against Load.
func TestScanEuroparl(t *testing.T) {
	fr := shared.Path(t, "europarl-fr-en", "fr.gz")
	en := shared.Path(t, "europarl-fr-en", "en.gz")
	ctx := context.Background()
	ix, err := Scan(ctx, fr, []string{en}, 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Lines != 10000 || len(ix.Ranges()) != 10 {
		t.Fatalf("%d lines in %d ranges", ix.Lines, len(ix.Ranges()))
	}
	c, err := ReadRange(ctx, ix.Ranges()[8])
	if err != nil {
		t.Fatal(err)
	}
	full, err := Load(ctx, fr, []string{en})
	if err != nil {
		t.Fatal(err)
	}
	want := full.Sub(8000, 9000)
	if !slices.Equal(c.Source, want.Source) || !slices.EqualFunc(c.Refs, want.Refs, slices.Equal) {
		t.Error("range 8 differs from lines 8001-9000")
	}
}
