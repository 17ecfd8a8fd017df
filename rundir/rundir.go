package rundir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
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
	owns  func(rel string) bool
}

// LeaseName is the lease file of a run folder.
const LeaseName = "lease"

// OpenOptions say how Open treats a folder that holds files already.
type OpenOptions struct {
	// Resume continues the run in the folder: its files are kept, and the
	// temporary files of writes a killed run left behind are removed.
	Resume bool
	// Overwrite accepts a folder that holds an earlier run: the caller
	// removes that run's files with Clear once it has checked its inputs,
	// so that a bad command line does not destroy the earlier run.
	Overwrite bool
	// Owns says which files, by their slash-separated path relative to
	// the folder, a run of the command writes there: the only files
	// Clear removes. nil means a tuning run's (Layout.Owns).
	Owns func(rel string) bool
	// Command is the mtune command that writes the folder ("tune",
	// "build", …): a folder whose manifest.json records another is
	// refused (ErrNoRun), so that one command never removes or adopts
	// another's output. "" accepts any.
	Command string
	// Lease configures the folder's lease (owner, lifetime).
	Lease LeaseOptions
}

// ErrNotEmpty is returned, wrapped, by Open for a folder that holds
// an earlier run when neither Resume nor Overwrite is set.
var ErrNotEmpty = errors.New("folder is not empty")

// ErrNoRun is returned, wrapped, by Open for a folder that holds
// files of which none is a run's manifest.json and some are not a run's:
// a folder of the user's, which no flag lets mtune write into.
var ErrNoRun = errors.New("holds no run of mtune")

// Open takes the lease of the run folder root (a *BusyError if
// another process holds it) and readies the folder. A folder that holds
// files but no run (no manifest.json, and files a run does not write) is
// refused whatever the options (ErrNoRun): it is the user's. Otherwise,
// with o.Resume the temporary files of killed writes are removed; with
// o.Overwrite the earlier run is accepted, for the caller to Clear; with
// neither, a folder holding any file is refused (ErrNotEmpty), so that two
// runs never mix in one folder. The caller must Close the RunDir.
func Open(ctx context.Context, root string, o OpenOptions) (*RunDir, error) {
	if o.Resume && o.Overwrite {
		return nil, errors.New("--resume and --overwrite exclude each other")
	}
	if root == "" {
		return nil, errors.New("no output folder")
	}
	if o.Owns == nil {
		o.Owns = Layout{}.Owns
	}
	l, err := AcquireLease(ctx, Layout{Root: root}.LeaseFile(), o.Lease)
	if err != nil {
		return nil, err
	}
	d := &RunDir{Layout: Layout{Root: root}, lease: l, owns: o.Owns}
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
	if len(others) == 0 {
		d.fresh = !o.Resume && !o.Overwrite
		return nil
	}
	var foreign []string
	run := false
	for _, f := range others {
		rel := d.rel(f)
		run = run || rel == "manifest.json"
		if !d.owns(rel) {
			foreign = append(foreign, rel)
		}
	}
	switch {
	case !run && len(foreign) > 0:
		return fmt.Errorf("%s %w: it holds %d files (%s, …) and no manifest.json; mtune writes only into an empty folder or one of its own runs, and removes only what a run wrote: give another output folder",
			d.Root, ErrNoRun, len(others), foreign[0])
	case run && o.Command != "":
		var m struct {
			CommandLine []string `json:"command_line"`
		}
		if err := ReadJSON(ctx, d.Manifest(), &m); err != nil {
			return err
		}
		if len(m.CommandLine) > 1 && m.CommandLine[1] != o.Command {
			return fmt.Errorf("%s %w %s: it holds the output of mtune %s: give another output folder",
				d.Root, ErrNoRun, o.Command, m.CommandLine[1])
		}
	}
	switch {
	case o.Overwrite:
		return nil
	case o.Resume:
		if _, err := storage.RemoveTemps(d.Root); err != nil {
			return err
		}
		return nil
	}
	return fmt.Errorf("%s holds %d files of an earlier run (%s, …): give --resume to continue that run or --overwrite to remove them first: %w",
		d.Root, len(others), d.rel(others[0]), ErrNotEmpty)
}

// rel returns the slash-separated path of p, a path under Root, relative
// to Root.
func (d *RunDir) rel(p string) string {
	if storage.IsGCS(d.Root) {
		return strings.TrimPrefix(strings.TrimPrefix(p, strings.TrimSuffix(d.Root, "/")), "/")
	}
	r, err := filepath.Rel(d.Root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// files returns every file of the folder but the lease.
func (d *RunDir) files(ctx context.Context) ([]string, error) {
	files, err := storage.Walk(ctx, d.Root)
	if err != nil {
		return nil, err
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

// Clear removes the files of the folder that a run writes (OpenOptions'
// Owns: for a tuning run the names of its Layout), but for the lease and
// for inputs: the paths keep name (local paths, compared once resolved to
// an absolute path without links, or gs:// object names), each with every
// file below it. Nothing else is touched: a file of the user's in the
// folder stays. Locally the emptied sub-folders go too.
func (d *RunDir) Clear(ctx context.Context, keep ...string) error {
	kept, err := resolveAll(keep)
	if err != nil {
		return err
	}
	isKept := func(p string) bool {
		r, err := resolve(p)
		if err != nil {
			return true // when in doubt, keep
		}
		for _, k := range kept {
			if r == k || strings.HasPrefix(r, strings.TrimSuffix(k, "/")+"/") {
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
			if d.owns(d.rel(f)) && !isKept(f) {
				if err := storage.Remove(ctx, f); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var dirs []string
	err = filepath.WalkDir(d.Root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == d.Root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if p == d.Root {
			return nil
		}
		rel := d.rel(p)
		if base, ok := storage.TempOf(e.Name()); ok {
			// A temporary or lock file goes with the file it is for.
			rel = path.Join(path.Dir(rel), base)
		}
		switch {
		case rel == LeaseName:
			// the lease and its lock file
		case !d.owns(rel) || isKept(p):
			if e.IsDir() && !d.owns(rel) {
				return fs.SkipDir // a folder of the user's
			}
		case e.IsDir():
			dirs = append(dirs, p)
		default:
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("clear %s: %w", d.Root, err)
	}
	// The sub-folders left empty go, deepest first.
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i]) // fails, as it should, on a folder still holding files
	}
	return nil
}

// resolve returns the name p is compared by in Clear: a gs:// path as it
// is, a local one absolute, cleaned and, where it exists, with its links
// followed.
func resolve(p string) (string, error) {
	if storage.IsGCS(p) {
		return p, nil
	}
	a, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r, nil
	}
	// A path that does not exist yet (or no longer): its folder's links
	// followed, as far as they exist.
	dir, base := filepath.Split(a)
	if dir != a && dir != "" {
		if rd, err := resolve(filepath.Clean(dir)); err == nil {
			return filepath.Join(rd, base), nil
		}
	}
	return a, nil
}

// resolveAll resolves every path of ps (resolve); "" is skipped.
func resolveAll(ps []string) ([]string, error) {
	var out []string
	for _, p := range ps {
		if p == "" {
			continue
		}
		r, err := resolve(p)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", p, err)
		}
		out = append(out, r)
	}
	return out, nil
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
