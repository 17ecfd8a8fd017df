package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	gcs "cloud.google.com/go/storage"
)

// Operations on a whole folder (a local directory, or every object under
// a gs:// prefix): what a run folder needs to be checked, cleared or
// tidied after a killed run.

// isLockName reports whether a local file name is that of a conditional
// write's lock file (see WriteIfVersion).
func isLockName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, lockMarker)
}

// TempOf returns the name of the file whose temporary or lock file the
// local file name is (".x.json.mtune-tmp-1a2b" and ".x.json.mtune-lock"
// are x.json's), and false for any other name.
func TempOf(name string) (string, bool) {
	switch {
	case isTempName(name):
		base, _, _ := strings.Cut(name[1:], tempMarker)
		return base, true
	case isLockName(name):
		return strings.TrimSuffix(name[1:], lockMarker), true
	}
	return "", false
}

// Walk returns the sorted paths of every file under dir, recursively:
// local regular files (temporary and lock files left out), or every object
// whose name starts with "prefix/" of a gs:// dir. A missing dir gives an
// empty list and a nil error.
func Walk(ctx context.Context, dir string) ([]string, error) {
	return defaultFS.Walk(ctx, dir)
}

// Walk lists the files under dir; see the package function.
func (f *FS) Walk(ctx context.Context, dir string) ([]string, error) {
	if !IsGCS(dir) {
		return walkLocal(dir, func(name string) bool { return !isTempName(name) && !isLockName(name) })
	}
	files, err := f.Stamps(ctx, dir)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(files))
	for i, fi := range files {
		out[i] = fi.Path
	}
	return out, nil
}

// walkLocal returns the sorted regular files under dir whose base names
// keep accepts.
func walkLocal(dir string, keep func(name string) bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if !d.IsDir() && keep(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("storage: walk %s: %w", dir, err)
	}
	sort.Strings(out)
	return out, nil
}

// Remove removes the file p; a missing file is no error.
func Remove(ctx context.Context, p string) error { return defaultFS.Remove(ctx, p) }

// Remove removes the file p; see the package function.
func (f *FS) Remove(ctx context.Context, p string) error {
	if !IsGCS(p) {
		return removeLocal(p)
	}
	obj, err := f.object(ctx, "remove", p)
	if err != nil {
		return err
	}
	rt := f.retrier("remove", p)
	ctx, done := rt.bound(ctx)
	defer done()
	// Removing again is safe: a missing object is no error.
	if err := obj.Retryer(rt.always()...).Delete(ctx); err != nil && !errors.Is(err, gcs.ErrObjectNotExist) {
		return rt.err(err)
	}
	return nil
}

// RemoveFiles removes the files directly in the folder dir (not those of
// its sub-folders) and then the local folder itself if that leaves it
// empty; a missing dir is no error. It is for a folder of intermediate
// files one step wrote and the next has read (line search's list files).
func RemoveFiles(ctx context.Context, dir string) error { return defaultFS.RemoveFiles(ctx, dir) }

// RemoveFiles removes the files of dir; see the package function.
func (f *FS) RemoveFiles(ctx context.Context, dir string) error {
	files, err := f.List(ctx, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, p := range files {
		if err := f.Remove(ctx, p); err != nil {
			return err
		}
	}
	if IsGCS(dir) {
		return nil // a prefix is gone with its last object
	}
	// A folder that still holds something (a sub-folder, a file written
	// meanwhile) stays: only an empty one is removed.
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) && !dirNotEmpty(dir) {
		return fmt.Errorf("storage: remove %s: %w", dir, err)
	}
	return nil
}

// dirNotEmpty reports whether the local folder dir has an entry.
func dirNotEmpty(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) > 0
}

// RemoveTemps removes the temporary files that writes killed before their
// Close left under the local folder dir (".NAME.mtune-tmp-*"), and returns
// how many it removed. A GCS upload is invisible until it completes, so a
// gs:// dir has none.
func RemoveTemps(dir string) (int, error) {
	if IsGCS(dir) {
		return 0, nil
	}
	temps, err := walkLocal(dir, isTempName)
	if err != nil {
		return 0, err
	}
	for i, p := range temps {
		if err := removeLocal(p); err != nil {
			return i, err
		}
	}
	return len(temps), nil
}

// RemoveTempsOf removes the temporary files that writes of the local file
// p killed before their Close left beside it (".NAME.mtune-tmp-*"), and
// returns how many it removed; a gs:// p has none. Only call it when no
// write of p can be under way (its writers hold a lock or a lease).
func RemoveTempsOf(p string) (int, error) {
	if IsGCS(p) {
		return 0, nil
	}
	dir, base := filepath.Split(p)
	if len(base) > 64 {
		base = base[:64]
	}
	ents, err := os.ReadDir(filepath.Clean(dir + "."))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("storage: %w", err)
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() && strings.HasPrefix(e.Name(), "."+base+tempMarker) {
			if err := removeLocal(filepath.Join(dir, e.Name())); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// removeLocal removes the local file p; a file that is not there is no
// error.
func removeLocal(p string) error {
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storage: %w", err)
	}
	return nil
}
