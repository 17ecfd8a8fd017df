package corpus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mtune/mtune/io/storage"
)

// Corpus is a tuning set: source sentences and their reference
// translations.
type Corpus struct {
	// Source holds the source sentences, one a line of SourcePath.
	Source []string
	// Refs[i] holds every reference translation of sentence i, in the
	// order of RefPaths; len(Refs[i]) == len(RefPaths) for every i.
	Refs [][]string
	// SourcePath is the source file as given to Load.
	SourcePath string
	// RefPaths are the reference files, folders and prefixes expanded.
	RefPaths []string
}

// Len returns the number of sentences.
func (c *Corpus) Len() int { return len(c.Source) }

// NumRefs returns the number of references a sentence.
func (c *Corpus) NumRefs() int { return len(c.RefPaths) }

// EmptySource returns the 0-based indexes of the empty source sentences,
// white space only included (they have no word). They are allowed (Moses
// translates them to empty output); a caller may want to warn about them.
func (c *Corpus) EmptySource() []int {
	var out []int
	for i, s := range c.Source {
		if strings.TrimSpace(s) == "" {
			out = append(out, i)
		}
	}
	return out
}

// Sub returns the sentences [from, to) of c, sharing its memory. Sentence
// i of the result is sentence from+i of c. It panics if the range is out
// of bounds, as slicing does.
func (c *Corpus) Sub(from, to int) *Corpus {
	return &Corpus{
		Source:     c.Source[from:to:to],
		Refs:       c.Refs[from:to:to],
		SourcePath: c.SourcePath,
		RefPaths:   c.RefPaths,
	}
}

// ReadFile reads the lines of the file at path (local or gs://, .gz/.zst
// decompressed by extension). An empty file gives no lines and no error.
// Parse errors are *ParseError values naming path.
func ReadFile(ctx context.Context, path string) ([]string, error) {
	rc, err := storage.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	lines, err := readAll(ctx, rc, path)
	if cerr := rc.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("corpus: %s: %w", path, cerr)
	}
	if err != nil {
		return nil, err
	}
	return lines, nil
}

func readAll(ctx context.Context, rc io.Reader, path string) ([]string, error) {
	r := NewReader(rc)
	var out []string
	for {
		if len(out)&(1<<14-1) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("corpus: %s: %w", path, err)
			}
		}
		s, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, withPath(err, path)
		}
		out = append(out, s)
	}
}

// Load reads a tuning set: the source file src and the references refs,
// each a file, a folder or a prefix (see the package documentation). Every
// reference file must have as many lines as src, and src at least one.
func Load(ctx context.Context, src string, refs []string) (*Corpus, error) {
	source, err := ReadFile(ctx, src)
	if err != nil {
		return nil, err
	}
	if len(source) == 0 {
		return nil, fmt.Errorf("corpus: source %s: %w", src, ErrEmpty)
	}
	paths, err := ResolveRefs(ctx, refs)
	if err != nil {
		return nil, err
	}
	r, err := readRefs(ctx, paths, src, len(source))
	if err != nil {
		return nil, err
	}
	return &Corpus{Source: source, Refs: r, SourcePath: src, RefPaths: paths}, nil
}

// LoadRefs reads references without a source, for scoring: refs as for
// Load; all reference files must have the same number of lines, at least
// one. The result is laid out as Corpus.Refs: element i holds every
// reference of sentence i.
func LoadRefs(ctx context.Context, refs []string) ([][]string, error) {
	paths, err := ResolveRefs(ctx, refs)
	if err != nil {
		return nil, err
	}
	return readRefs(ctx, paths, "", -1)
}

// readRefs reads the reference files and transposes them. Each must have
// n lines (the source file src has n), or with n < 0 as many as the first.
func readRefs(ctx context.Context, paths []string, src string, n int) ([][]string, error) {
	files := make([][]string, len(paths))
	for k, p := range paths {
		lines, err := ReadFile(ctx, p)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			if len(lines) == 0 {
				return nil, fmt.Errorf("corpus: reference %s: %w", p, ErrEmpty)
			}
			n, src = len(lines), p
		}
		if len(lines) != n {
			return nil, fmt.Errorf("corpus: reference %s has %d lines but %s has %d: %w", p, len(lines), src, n, ErrLineCount)
		}
		files[k] = lines
	}
	out := make([][]string, n)
	all := make([]string, n*len(paths))
	for i := range out {
		row := all[i*len(paths) : (i+1)*len(paths) : (i+1)*len(paths)]
		for k := range files {
			row[k] = files[k][i]
		}
		out[i] = row
	}
	return out, nil
}

// ResolveRefs expands reference arguments into the reference files, in
// order: a file stays itself, a folder gives its regular files sorted by
// name (hidden ones skipped), a prefix ref that does not exist gives ref0,
// ref1, … or else ref.0, ref.1, …. A missing reference is an error matching
// fs.ErrNotExist; a file reached twice is an error.
func ResolveRefs(ctx context.Context, refs []string) ([]string, error) {
	if len(refs) == 0 {
		return nil, errors.New("corpus: no reference files")
	}
	var out []string
	from := make(map[string]string) // cleaned path → argument
	for _, ref := range refs {
		paths, err := resolve(ctx, ref)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			key := p
			if !storage.IsGCS(p) {
				if abs, err := filepath.Abs(p); err == nil {
					key = abs
				}
			}
			if arg, dup := from[key]; dup {
				return nil, fmt.Errorf("corpus: reference file %s given twice (by %s and by %s)", p, arg, ref)
			}
			from[key] = ref
			out = append(out, p)
		}
	}
	return out, nil
}

type kind int

const (
	missing kind = iota
	file
	folder
)

// kindOf reports whether p is a file, a folder or missing.
func kindOf(ctx context.Context, p string) (kind, error) {
	if err := ctx.Err(); err != nil {
		return missing, err
	}
	if storage.IsGCS(p) {
		if obj := strings.TrimPrefix(p, "gs://"); !strings.Contains(obj, "/") || strings.HasSuffix(obj, "/") {
			return folder, nil // a bucket or a name ending in "/"
		}
		ok, err := storage.Exists(ctx, p)
		if err != nil {
			return missing, fmt.Errorf("corpus: %w", err)
		}
		if ok {
			return file, nil
		}
		files, err := storage.List(ctx, p)
		if errors.Is(err, fs.ErrNotExist) {
			return missing, nil
		}
		if err != nil {
			return missing, fmt.Errorf("corpus: %w", err)
		}
		if len(files) > 0 {
			return folder, nil
		}
		return missing, nil
	}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return missing, nil
	case err != nil:
		return missing, fmt.Errorf("corpus: %w", err)
	case st.IsDir():
		return folder, nil
	}
	return file, nil
}

func resolve(ctx context.Context, ref string) ([]string, error) {
	if ref == "" {
		return nil, errors.New("corpus: empty reference path")
	}
	k, err := kindOf(ctx, ref)
	if err != nil {
		return nil, err
	}
	switch k {
	case file:
		return []string{ref}, nil
	case folder:
		all, err := storage.List(ctx, ref)
		if err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
		var out []string
		for _, p := range all {
			base := path.Base(p)
			if !storage.IsGCS(p) {
				base = filepath.Base(p)
			}
			if !strings.HasPrefix(base, ".") {
				out = append(out, p)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("corpus: reference folder %s has no files", ref)
		}
		return out, nil
	}
	for _, sep := range []string{"", "."} {
		var out []string
		for i := 0; ; i++ {
			p := ref + sep + strconv.Itoa(i)
			k, err := kindOf(ctx, p)
			if err != nil {
				return nil, err
			}
			if k != file {
				break
			}
			out = append(out, p)
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	return nil, fmt.Errorf("corpus: reference %s: no such file or folder, nor %s0 or %s.0: %w", ref, ref, ref, fs.ErrNotExist)
}
