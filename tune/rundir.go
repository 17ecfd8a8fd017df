package tune

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mtune/mtune/io/storage"
)

// RunDir is a run's output folder (local or gs://, DESIGN.md §6), held
// under its lease for as long as it is open: no other process writes it
// meanwhile. Its paths are those of its Layout.
type RunDir struct {
	Layout
	lease *Lease
	fresh bool // the folder held no file when opened, and not to resume
}

// LeaseName is the lease file of a run folder.
const LeaseName = "lease"

// OpenOptions say how OpenRunDir treats a folder that holds files already.
type OpenOptions struct {
	// Resume continues the run in the folder: its files are kept, and the
	// temporary files of writes a killed run left behind are removed.
	Resume bool
	// Overwrite accepts a folder that holds files: the caller removes them
	// with Clear once it has checked its inputs, so that a bad command line
	// does not destroy the earlier run.
	Overwrite bool
	// Lease configures the folder's lease (owner, lifetime).
	Lease LeaseOptions
}

// ErrNotEmpty is returned, wrapped, by OpenRunDir for a folder that holds
// files when neither Resume nor Overwrite is set.
var ErrNotEmpty = errors.New("folder is not empty")

// OpenRunDir takes the lease of the run folder root (a *BusyError if
// another process holds it) and readies the folder: with o.Resume the
// temporary files of killed writes are removed; with o.Overwrite its files
// are accepted, for the caller to Clear; with neither, a folder holding any
// file is refused (ErrNotEmpty), so that two runs never mix in one folder.
// The caller must Close the RunDir.
func OpenRunDir(ctx context.Context, root string, o OpenOptions) (*RunDir, error) {
	if o.Resume && o.Overwrite {
		return nil, errors.New("tune: resume and overwrite exclude each other")
	}
	if root == "" {
		return nil, errors.New("tune: no output folder")
	}
	l, err := AcquireLease(ctx, Layout{Root: root}.LeaseFile(), o.Lease)
	if err != nil {
		return nil, err
	}
	d := &RunDir{Layout: Layout{Root: root}, lease: l}
	if err := d.ready(ctx, o); err != nil {
		d.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return d, nil
}

// ready empties, tidies or checks the folder as o says.
func (d *RunDir) ready(ctx context.Context, o OpenOptions) error {
	others, err := d.files(ctx)
	if err != nil {
		return err
	}
	switch {
	case o.Overwrite:
		return nil
	case o.Resume:
		if _, err := storage.RemoveTemps(d.Root); err != nil {
			return fmt.Errorf("tune: %w", err)
		}
		return nil
	case len(others) > 0:
		rel := strings.TrimPrefix(strings.TrimPrefix(others[0], d.Root), "/")
		return fmt.Errorf("tune: %s holds %d files of an earlier run (%s, …): give --resume to continue that run or --overwrite to remove them first: %w",
			d.Root, len(others), rel, ErrNotEmpty)
	}
	d.fresh = true
	return nil
}

// files returns every file of the folder but the lease.
func (d *RunDir) files(ctx context.Context) ([]string, error) {
	files, err := storage.Walk(ctx, d.Root)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	lease := d.LeaseFile()
	out := files[:0]
	for _, f := range files {
		if f != lease {
			out = append(out, f)
		}
	}
	return out, nil
}

// Clear removes every file of the folder but the lease and those under
// the sub-folders keep names (relative to Root: the run's own inputs, such
// as the demo model); locally the emptied sub-folders go too.
func (d *RunDir) Clear(ctx context.Context, keep ...string) error {
	kept := func(p string) bool {
		for _, k := range keep {
			k = storage.Join(d.Root, k)
			if p == k || strings.HasPrefix(p, strings.TrimSuffix(k, "/")+"/") {
				return true
			}
		}
		return false
	}
	if storage.IsGCS(d.Root) {
		files, err := d.files(ctx)
		if err != nil {
			return err
		}
		for _, f := range files {
			if !kept(f) {
				if err := storage.Remove(ctx, f); err != nil {
					return fmt.Errorf("tune: %w", err)
				}
			}
		}
		return nil
	}
	var dirs []string
	err := filepath.WalkDir(d.Root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == d.Root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		name := e.Name()
		switch {
		case p == d.Root:
		case e.IsDir():
			dirs = append(dirs, p)
		case filepath.Dir(p) == filepath.Clean(d.Root) && (name == LeaseName || strings.HasPrefix(name, "."+LeaseName+".")):
			// the lease and its lock file
		case !kept(p):
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("tune: clear %s: %w", d.Root, err)
	}
	// The sub-folders left empty go, deepest first.
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i]) // fails, as it should, on a folder still holding files
	}
	return nil
}

// Hold keeps the folder's lease renewed until Close and returns a context
// that is cancelled if the lease is lost (see Lease.Hold).
func (d *RunDir) Hold(ctx context.Context) context.Context { return d.lease.Hold(ctx) }

// Lease returns the folder's lease.
func (d *RunDir) Lease() *Lease { return d.lease }

// Close releases the folder's lease. A folder that was empty when opened
// (without Resume or Overwrite) and in which no run started — no
// manifest.json, as when the run's inputs were refused — is emptied first
// (Clear), so that it does not refuse the corrected command that follows.
func (d *RunDir) Close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var err error
	if d.fresh {
		var started bool
		if started, err = storage.Exists(ctx, d.Manifest()); err == nil && !started {
			err = d.Clear(ctx)
		}
	}
	return errors.Join(err, d.lease.Release(ctx))
}
