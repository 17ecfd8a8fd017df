package weights

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/enum"
	"github.com/mtune/mtune/io/storage"
)

// Format names a weights file format.
type Format int

const (
	// Auto asks ReadFormat to detect the format (see Detect).
	Auto Format = iota
	// Moses is Moses dense weights or a moses.ini (ReadMoses). Write
	// writes it with a [weight] header (StyleINI).
	Moses
	// Sparse is Moses' sparse weights file (ReadSparse).
	Sparse
	// List is a plain list of values (ReadList); reading it needs names.
	List
	// JSON is mtune's JSON document (ReadJSON).
	JSON
)

// formatNames are the names String gives the formats.
var formatNames = []string{Auto: "auto", Moses: "moses", Sparse: "sparse", List: "list", JSON: "json"}

func (f Format) String() string { return enum.Name(f, formatNames, "Format") }

// Detect returns the format of a weights file from its content:
//
//   - JSON if the first byte that is not white space is '{';
//   - otherwise the first line that is neither blank nor a comment (starting
//     with '#') decides: Moses if it starts with '[' (a moses.ini section) or
//     its first token ends in '=' or ':' (a label); List if its first token
//     is a number; Sparse otherwise.
//
// A leading byte order mark is skipped. Input with no such line is an
// ErrEmpty *ParseError. A sparse file written "name= value" is detected as
// Moses: read it with ReadSparse.
func Detect(data []byte) (Format, error) {
	data = bytes.TrimPrefix(data, bom)
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return JSON, nil
	}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		t := spaceTab.Trim(bytes.TrimSuffix(line, []byte{'\r'}))
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		if t[0] == '[' {
			return Moses, nil
		}
		first := fields(nil, t)[0].text
		if c := first[len(first)-1]; c == '=' || c == ':' {
			return Moses, nil
		}
		if _, err := strconv.ParseFloat(string(first), 64); err == nil {
			return List, nil
		}
		return Sparse, nil
	}
	return Auto, &ParseError{Err: ErrEmpty}
}

// Read reads the weights file at path (local or gs://, .gz/.zst
// decompressed), detecting its format with Detect, and interns its names
// in idx (a new Index if nil). A List file is an error (its message tells
// the user which formats name the weights): it needs names, see
// ReadListFile.
func Read(ctx context.Context, path string, idx *feature.Index) (*Set, error) {
	return ReadFormat(ctx, path, Auto, idx)
}

// ReadFormat reads the weights file at path in format f, Auto meaning
// detect it. Parse errors carry path as their File.
func ReadFormat(ctx context.Context, path string, f Format, idx *feature.Index) (*Set, error) {
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	if f == Auto {
		if f, err = Detect(data); err != nil {
			return nil, withFile(err, path)
		}
	}
	var s *Set
	switch f {
	case Moses:
		s, err = ReadMoses(bytes.NewReader(data), idx)
	case Sparse:
		s, err = ReadSparse(bytes.NewReader(data), idx)
	case JSON:
		s, err = ReadJSON(bytes.NewReader(data), idx)
	case List:
		return nil, fmt.Errorf("weights: %s is a plain list of values without feature names (as Moses mert's weights.txt): "+
			"give the weights with their names, as Moses 'Name= v …' lines (a moses.ini [weight] section), 'name value' lines or mtune JSON", path)
	default:
		return nil, fmt.Errorf("weights: unknown format %v", f)
	}
	if err != nil {
		return nil, withFile(err, path)
	}
	return s, nil
}

// ReadWithSparse reads the weights file at path (any format Read detects)
// and, unless sparsePath is "", the Moses sparse-weights file at
// sparsePath merged into them; every weight must be a finite number.
func ReadWithSparse(ctx context.Context, path, sparsePath string, idx *feature.Index) (*Set, error) {
	set, err := Read(ctx, path, idx)
	if err != nil {
		return nil, err
	}
	if sparsePath != "" {
		sp, err := ReadFormat(ctx, sparsePath, Sparse, idx)
		if err != nil {
			return nil, err
		}
		if err := set.Merge(sp); err != nil {
			return nil, fmt.Errorf("weights: merge %s into %s: %w", sparsePath, path, err)
		}
	}
	if !set.Weights.Finite() {
		return nil, fmt.Errorf("weights: %s: weights must be finite numbers", path)
	}
	return set, nil
}

// ReadListFile reads the plain list of values at path, naming them by names
// (see ReadList).
func ReadListFile(ctx context.Context, path string, names []string, idx *feature.Index) (*Set, error) {
	r, err := storage.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s, err := ReadList(r, names, idx)
	if err != nil {
		return nil, withFile(err, path)
	}
	return s, nil
}

// Write writes s to path in format f, atomically (nothing is at path unless
// it returns nil): Moses writes the groups with a [weight] header, Sparse
// the non-zero features outside the groups, List every group's values,
// JSON everything. Auto is an error.
func Write(ctx context.Context, path string, s *Set, f Format) error {
	var write func(io.Writer) error
	switch f {
	case Moses:
		write = func(w io.Writer) error { return WriteMoses(w, s, StyleINI) }
	case Sparse:
		write = func(w io.Writer) error { return WriteSparse(w, s) }
	case List:
		write = func(w io.Writer) error { return WriteList(w, s, nil) }
	case JSON:
		write = func(w io.Writer) error { return WriteJSON(w, s) }
	default:
		return fmt.Errorf("weights: cannot write format %v", f)
	}
	w, err := storage.Create(ctx, path)
	if err != nil {
		return err
	}
	if err := write(w); err != nil {
		w.Abort()
		return fmt.Errorf("%w (writing %s)", err, path)
	}
	return w.Close()
}

// The files of a weights trio, as WriteTrio writes them into a folder.
const (
	// TrioMoses holds the dense groups as Moses "Name0= v …" lines under a
	// [weight] header (Write's Moses format); for a set without groups
	// (tuned on cdec or Joshua lists) it holds "name value" lines instead
	// (Sparse), the weights file of those systems.
	TrioMoses = "weights"
	// TrioSparse holds the non-zero weights outside the groups as "name
	// value" lines, Moses' sparse weights file; it is empty when there are
	// none, and not written for a set without groups.
	TrioSparse = "weights.sparse"
	// TrioJSON holds every weight and the dense layout, exactly (mtune's
	// JSON).
	TrioJSON = "weights.json"
)

// WriteTrioOf writes ww as the weights trio in the folder dir (WriteTrio):
// the dense groups are those of the names dense (GroupsOf; a run's starting
// weights' names), which come first, in order, then every other name of ww
// in its order, sparse. It is the one writer of an epoch's weights.
func WriteTrioOf(ctx context.Context, dir string, ww ByName, dense []string) error {
	if err := ww.Validate(); err != nil {
		return err
	}
	idx := feature.NewIndexOf(dense...)
	set := NewSet(idx)
	set.Groups = GroupsOf(dense)
	for i, name := range ww.Names {
		set.Weights.Set(idx.ID(name), ww.Vals[i])
	}
	return WriteTrio(ctx, dir, set)
}

// WriteTrio writes s into the folder dir (local or gs://) as the weights
// trio: dir/weights, dir/weights.sparse and dir/weights.json (see TrioMoses,
// TrioSparse, TrioJSON). Each file is written atomically, the JSON last, so
// a reader that finds weights.json finds the others complete. A set
// without groups and without a non-zero weight is an error: its
// dir/weights would be empty.
func WriteTrio(ctx context.Context, dir string, s *Set) error {
	join := func(name string) string { return storage.Join(dir, name) }
	if len(s.Groups) == 0 {
		if len(s.Sparse()) == 0 {
			return fmt.Errorf("weights: every weight is zero: nothing to write to %s", join(TrioMoses))
		}
		if err := Write(ctx, join(TrioMoses), s, Sparse); err != nil {
			return err
		}
	} else {
		if err := Write(ctx, join(TrioMoses), s, Moses); err != nil {
			return err
		}
		if err := Write(ctx, join(TrioSparse), s, Sparse); err != nil {
			return err
		}
	}
	return Write(ctx, join(TrioJSON), s, JSON)
}

// SparseBeside returns the path of the file beside the weights file path
// that holds its sparse weights when path is a trio's TrioMoses
// (PATH.sparse), and the number of its non-empty lines: 0 when there is
// no such file, or it is empty.
func SparseBeside(ctx context.Context, path string) (side string, n int) {
	side = path + ".sparse"
	data, err := storage.ReadFile(ctx, side)
	if err != nil {
		return side, 0
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	return side, n
}
