package rundir

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/mtune/mtune/io/storage"
)

// A folder is mtune's only by its own record: the manifest.json a run, a
// build, a tune-nbest folder or a registry writes names its schema and
// version and the command, and lists every file the command wrote there
// with the digest of its bytes (Files). --overwrite removes exactly the
// listed files whose bytes are still those (Record.Clear); a listed file
// changed since, and any file not listed, stays and is named. A folder that
// holds files but no such manifest is never written into (ErrNoRun).

// ManifestSchema and ManifestSchemaVersion are the "schema" and
// "schema_version" of every manifest.json mtune writes: what tells its
// manifest from another program's file of that name.
const (
	ManifestSchema        = "mtune.manifest"
	ManifestSchemaVersion = 2
)

// FileRecord is one file of a folder's record: its slash-separated path
// relative to the folder, the digest of its stored bytes (storage.Digest)
// and its stamp when the digest was taken (storage.FileStamp: what tells,
// without reading the file, that it is unchanged).
type FileRecord struct {
	Path   string `json:"path"`
	Digest string `json:"digest"`
	Stamp  string `json:"stamp,omitempty"`
}

// Record is the record of the files a command of mtune wrote into the
// folder Root: held in memory while the command runs (by the holder of the
// folder's lease) and written into manifest.json with the manifest
// (Write). Every file Owns accepts that appears in the folder while the
// command holds it is the command's (Update), unless it was found there
// before and kept (Kept) and is unchanged.
type Record struct {
	// Root is the folder (its one spelling: storage.Clean).
	Root string
	// Command is the mtune command whose folder this is ("tune", "build",
	// "tune-nbest", "retrain").
	Command string
	// Owns says which files, by their path relative to Root, the command
	// writes: the only ones it records. A file it does not own is never
	// recorded, whoever wrote it.
	Owns func(rel string) bool

	files map[string]FileRecord // written by the command, with these bytes
	kept  map[string]FileRecord // found and left: the user's, or changed since written
}

// ErrNotMtune is returned, wrapped, by Record.Load for a manifest.json that
// is not one mtune wrote with a record of its files (schema 2).
var ErrNotMtune = errors.New("not a manifest of mtune's")

// manifestName is the manifest's name in a folder.
const manifestName = "manifest.json"

// Load reads the record of the folder's manifest.json into r and returns
// the manifest: an error wrapping ErrNotMtune if the file is not mtune's
// (another schema, or none: a manifest of an mtune before the record, or
// another program's), or names another command.
func (r *Record) Load(ctx context.Context) (Manifest, error) {
	var m Manifest
	path := storage.Join(r.Root, manifestName)
	if err := ReadJSON(ctx, path, &m); err != nil {
		return Manifest{}, fmt.Errorf("%w (%w)", err, ErrNotMtune)
	}
	switch {
	case m.Schema != ManifestSchema:
		return Manifest{}, fmt.Errorf("%s: %w: no \"schema\": %q", path, ErrNotMtune, ManifestSchema)
	case m.SchemaVersion != ManifestSchemaVersion:
		return Manifest{}, fmt.Errorf("%s: %w: schema version %d, this mtune reads %d", path, ErrNotMtune, m.SchemaVersion, ManifestSchemaVersion)
	case r.Command != "" && m.Command != r.Command:
		return Manifest{}, fmt.Errorf("%s: %w %s: it records the output of mtune %s", path, ErrNotMtune, r.Command, m.Command)
	}
	r.files, r.kept = byPath(m.Files), byPath(m.Kept)
	return m, nil
}

// byPath indexes records by path.
func byPath(rs []FileRecord) map[string]FileRecord {
	out := make(map[string]FileRecord, len(rs))
	for _, f := range rs {
		out[f.Path] = f
	}
	return out
}

// init readies an empty record.
func (r *Record) init() {
	if r.files == nil {
		r.files = map[string]FileRecord{}
	}
	if r.kept == nil {
		r.kept = map[string]FileRecord{}
	}
}

// rel returns the slash-separated path of p, a path under Root, relative
// to Root.
func (r *Record) rel(p string) string {
	if storage.IsGCS(r.Root) {
		return strings.TrimPrefix(strings.TrimPrefix(p, strings.TrimSuffix(r.Root, "/")), "/")
	}
	rel, err := filepath.Rel(r.Root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

// skip reports whether rel is a file no record holds: the manifest and
// the lease.
func skip(rel string) bool { return rel == manifestName || rel == LeaseName }

// digest returns the digest of f: the listing's, or the file's read.
func digest(ctx context.Context, f storage.FileStamp) (string, error) {
	if f.Digest != "" {
		return f.Digest, nil
	}
	if strings.HasPrefix(f.Stamp, "mode ") {
		return f.Stamp, nil // a link or a device: never read (storage.Stamps)
	}
	return storage.Digest(ctx, f.Path)
}

// Reconcile checks the recorded files against the folder, before the
// command writes anything: a recorded file whose bytes changed since it
// was written is the user's now, kept (it stays, and is not recorded
// again unless the command writes it anew).
func (r *Record) Reconcile(ctx context.Context) error {
	r.init()
	files, err := storage.Stamps(ctx, r.Root)
	if err != nil {
		return err
	}
	for _, f := range files {
		rel := r.rel(f.Path)
		w, ok := r.files[rel]
		if !ok || w.Stamp == f.Stamp {
			continue
		}
		d, err := digest(ctx, f)
		if err != nil {
			return err
		}
		if d == w.Digest {
			w.Stamp = f.Stamp
			r.files[rel] = w
			continue
		}
		delete(r.files, rel)
		r.kept[rel] = FileRecord{Path: rel, Digest: d, Stamp: f.Stamp}
	}
	return nil
}

// Update records every file of the folder the command owns that appeared
// or changed since the last Update (the command holds the folder: it wrote
// them, here or on a worker), but for the files kept that are unchanged,
// and forgets the recorded files that are gone.
func (r *Record) Update(ctx context.Context) error {
	r.init()
	files, err := storage.Stamps(ctx, r.Root)
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		rel := r.rel(f.Path)
		seen[rel] = true
		if skip(rel) {
			continue
		}
		if w, ok := r.files[rel]; ok && w.Stamp == f.Stamp {
			continue
		}
		k, wasKept := r.kept[rel]
		if wasKept && k.Stamp == f.Stamp {
			continue
		}
		if _, ok := r.files[rel]; !ok && !r.Owns(rel) {
			continue
		}
		d, err := digest(ctx, f)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since listed
		}
		if err != nil {
			return err
		}
		if wasKept && k.Digest == d {
			k.Stamp = f.Stamp
			r.kept[rel] = k
			continue
		}
		delete(r.kept, rel)
		r.files[rel] = FileRecord{Path: rel, Digest: d, Stamp: f.Stamp}
	}
	for rel := range r.files {
		if !seen[rel] {
			delete(r.files, rel)
		}
	}
	for rel := range r.kept {
		if !seen[rel] {
			delete(r.kept, rel)
		}
	}
	return nil
}

// Clear removes the recorded files whose bytes are still those recorded,
// but for the files under the paths keep names (inputs of the command that
// follows: cleaned paths, storage.Clean), and returns the paths, relative
// to Root, of every file left: changed since recorded, or never recorded
// (the user's), each named in a warning. The lease and the manifest stay.
// Locally the sub-folders left empty go too.
func (r *Record) Clear(ctx context.Context, keep ...string) ([]string, error) {
	r.init()
	files, err := storage.Stamps(ctx, r.Root)
	if err != nil {
		return nil, err
	}
	var clean []string
	for _, k := range keep {
		c, err := storage.Clean(k)
		if err != nil {
			return nil, err
		}
		clean = append(clean, c)
	}
	kept := func(p string) bool {
		for _, k := range clean {
			if k != "" && (p == k || strings.HasPrefix(p, strings.TrimSuffix(k, "/")+"/")) {
				return true
			}
		}
		return false
	}
	var left []string
	dirs := map[string]bool{}
	for _, f := range files {
		rel := r.rel(f.Path)
		if skip(rel) || kept(f.Path) {
			continue
		}
		w, recorded := r.files[rel]
		same := recorded && w.Stamp == f.Stamp
		if recorded && !same {
			d, err := digest(ctx, f)
			if err != nil {
				return nil, err
			}
			same = d == w.Digest
		}
		if !same {
			left = append(left, rel)
			if recorded || r.kept[rel].Stamp != f.Stamp {
				d, err := digest(ctx, f)
				if err != nil {
					return nil, err
				}
				r.kept[rel] = FileRecord{Path: rel, Digest: d, Stamp: f.Stamp}
			}
			delete(r.files, rel)
			why := "not written by mtune " + r.Command
			if recorded {
				why = "changed since mtune " + r.Command + " wrote it"
			}
			slog.Warn(fmt.Sprintf("%s: kept %s (%s)", r.Root, rel, why))
			continue
		}
		if err := storage.Remove(ctx, f.Path); err != nil {
			return nil, fmt.Errorf("clear %s: %w", r.Root, err)
		}
		delete(r.files, rel)
		if !storage.IsGCS(f.Path) {
			dirs[filepath.Dir(f.Path)] = true
		}
	}
	// A killed write's temporary file goes with the file it is for.
	if !storage.IsGCS(r.Root) {
		err := filepath.WalkDir(r.Root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			if base, ok := storage.TempOf(e.Name()); ok {
				if rel := r.rel(filepath.Join(filepath.Dir(p), base)); r.Owns(rel) && !kept(p) {
					dirs[filepath.Dir(p)] = true
					return os.Remove(p)
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("clear %s: %w", r.Root, err)
		}
	}
	// The local sub-folders left empty go, deepest first.
	var ds []string
	for d := range dirs {
		for ; d != r.Root && strings.HasPrefix(d, r.Root+string(filepath.Separator)); d = filepath.Dir(d) {
			ds = append(ds, d)
		}
	}
	slices.Sort(ds)
	for i := len(ds) - 1; i >= 0; i-- {
		removeEmptyDir(ds[i])
	}
	return left, nil
}

// removeEmptyDir removes the local folder d if it is empty.
func removeEmptyDir(d string) {
	os.Remove(d) // fails, as it should, on a folder still holding files
}

// Files returns the recorded files, sorted by path.
func (r *Record) Files() []FileRecord { return sorted(r.files) }

// Kept returns the files found in the folder and left there (the user's,
// or changed since written), sorted by path.
func (r *Record) Kept() []FileRecord { return sorted(r.kept) }

func sorted(m map[string]FileRecord) []FileRecord {
	out := make([]FileRecord, 0, len(m))
	for _, f := range m {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b FileRecord) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// Write updates the record (Update) and writes m as its manifest.json, with
// the schema, the command and the record.
func (r *Record) Write(ctx context.Context, m Manifest) error {
	if err := r.Update(ctx); err != nil {
		return err
	}
	m.Schema, m.SchemaVersion, m.Command = ManifestSchema, ManifestSchemaVersion, r.Command
	m.Files, m.Kept = r.Files(), r.Kept()
	path := storage.Join(r.Root, manifestName)
	err := writeJSON(ctx, path, m)
	if errors.Is(err, syscall.ENOSPC) && !storage.IsGCS(path) {
		// A full disk: the manifest, a few KiB, is rewritten in the
		// blocks it holds rather than left saying "running" after the
		// run failed (storage.OverwriteInPlace's last resort).
		data, merr := json.Marshal(m)
		if merr == nil && storage.OverwriteInPlace(path, append(data, '\n')) == nil {
			return nil
		}
	}
	return err
}

// writeJSON is WriteJSON; a test makes it fail as on a full disk.
var writeJSON = WriteJSON

// CheckInputs refuses an input (a cleaned path, storage.Clean) that lies
// in the folder at a name the command writes there: the command would
// write over what it reads (tune --init OUT/best/weights.json --out OUT).
// role names each input in the error.
func (r *Record) CheckInputs(inputs ...InputFile) error {
	prefix := strings.TrimSuffix(r.Root, "/") + "/"
	if !storage.IsGCS(r.Root) {
		prefix = strings.TrimSuffix(r.Root, string(filepath.Separator)) + string(filepath.Separator)
	}
	for _, in := range inputs {
		if in.Path == "" {
			continue
		}
		p, err := storage.Clean(in.Path)
		if err != nil {
			return err
		}
		if p == r.Root {
			return fmt.Errorf("%s %s is the output folder: give the command another --out", in.Role, in.Path)
		}
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		if rel := r.rel(p); r.Owns(rel) || skip(rel) {
			return fmt.Errorf("%s %s lies in the output folder %s, where mtune %s writes %s: copy it elsewhere first, or give another --out",
				in.Role, in.Path, r.Root, r.Command, rel)
		}
	}
	return nil
}
