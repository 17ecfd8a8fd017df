package rundir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/mtune/mtune/io/storage"
)

// RunDir is a run's output folder (local or gs://, DESIGN.md §6), held
// under its lease for as long as it is open: no other process writes it
// meanwhile. Its paths are those of its Layout; its manifest.json records
// every file the run wrote there (Record), and only those are ever removed.
type RunDir struct {
	Layout
	lease *Lease
	fresh bool // the folder held no file when opened, and not to resume
	rec   *Record
	man   *Manifest // the manifest last written (WriteManifest)
}

// LeaseName is the lease file of a run folder.
const LeaseName = "lease"

// OpenOptions say how Open treats a folder that holds files already.
type OpenOptions struct {
	// Resume continues the run in the folder: its files are kept, and the
	// temporary files of writes a killed run left behind are removed.
	Resume bool
	// Overwrite accepts a folder that holds an earlier run of Command: the
	// caller removes that run's files with Clear once it has checked its
	// inputs, so that a bad command line does not destroy the earlier run.
	Overwrite bool
	// Owns says which files, by their slash-separated path relative to
	// the folder, a run of the command writes there: the only files it
	// records as its own (Record). nil means a tuning run's (Layout.Owns).
	Owns func(rel string) bool
	// Command is the mtune command that writes the folder ("tune",
	// "build", …): a folder whose manifest.json records another is
	// refused (ErrNoRun), so that one command never removes or adopts
	// another's output. "" is "tune".
	Command string
	// CommandLine is the command line the manifest Open writes into an
	// empty folder records.
	CommandLine []string
	// Lease configures the folder's lease (owner, lifetime).
	Lease LeaseOptions
}

// ErrNotEmpty is returned, wrapped, by Open for a folder that holds
// an earlier run when neither Resume nor Overwrite is set.
var ErrNotEmpty = errors.New("folder is not empty")

// ErrNoRun is returned, wrapped, by Open for a folder that holds files
// but no manifest.json of mtune's recording a run of the command (Record):
// a folder of the user's (or another command's), which no flag lets mtune
// write into.
var ErrNoRun = errors.New("holds no run of mtune")

// Open takes the lease of the run folder root (a *BusyError if another
// process holds it) and readies the folder. root is cleaned first
// (storage.Clean: one spelling of a gs:// name, a local path absolute with
// its links followed), so that the check, the lease and every write name
// one folder. A folder that holds files but no manifest.json of mtune's
// recording a run of o.Command is refused whatever the options (ErrNoRun):
// it is the user's. Otherwise, with o.Resume the temporary files of killed
// writes are removed; with o.Overwrite the earlier run is accepted, for
// the caller to Clear; with neither, a folder holding any file is refused
// (ErrNotEmpty), so that two runs never mix in one folder. The caller must
// Close the RunDir.
func Open(ctx context.Context, root string, o OpenOptions) (*RunDir, error) {
	if o.Resume && o.Overwrite {
		return nil, errors.New("--resume and --overwrite exclude each other")
	}
	if root == "" {
		return nil, errors.New("no output folder")
	}
	root, err := storage.Clean(root)
	if err != nil {
		return nil, err
	}
	if o.Owns == nil {
		o.Owns = Layout{}.Owns
	}
	if o.Command == "" {
		o.Command = "tune"
	}
	l, err := AcquireLease(ctx, Layout{Root: root}.LeaseFile(), o.Lease)
	if err != nil {
		return nil, err
	}
	d := &RunDir{Layout: Layout{Root: root}, lease: l, rec: &Record{Root: root, Command: o.Command, Owns: o.Owns}}
	if err := d.ready(ctx, o); err != nil {
		d.lease.Release(context.WithoutCancel(ctx))
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
		// The record comes first: from now on every file in the folder
		// is written under it, so a run killed before its own manifest
		// leaves a folder that is still mtune's.
		d.fresh = !o.Resume && !o.Overwrite
		d.rec.init()
		return d.WriteManifest(ctx, Manifest{CommandLine: o.CommandLine, Version: Version(), Start: time.Now().UTC(), Status: StatusStarting})
	}
	man, err := d.rec.Load(ctx)
	if err != nil {
		what := "no manifest.json"
		if ok, _ := storage.Exists(ctx, d.Manifest()); ok {
			what = fmt.Sprintf("a manifest.json that records no run of mtune %s (%v)", o.Command, err)
		}
		return fmt.Errorf("%s %w %s: it holds %d files (%s, …) and %s; mtune writes only into an empty folder or one of its own runs, and removes only what its record lists: give another output folder",
			d.Root, ErrNoRun, o.Command, len(others), d.rel(others[0]), what)
	}
	d.man = &man
	switch {
	case o.Overwrite:
		return d.rec.Reconcile(ctx)
	case o.Resume:
		if _, err := storage.RemoveTemps(d.Root); err != nil {
			return err
		}
		return d.rec.Reconcile(ctx)
	}
	return fmt.Errorf("%s holds %d files of an earlier run (%s, …): give --resume to continue that run or --overwrite to remove them first: %w",
		d.Root, len(others), d.rel(others[0]), ErrNotEmpty)
}

// rel returns the slash-separated path of p, a path under Root, relative
// to Root.
func (d *RunDir) rel(p string) string { return d.rec.rel(p) }

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

// Clear removes the files of the earlier run that its record lists and
// whose bytes are still those it wrote, but for the lease and for inputs:
// the paths keep names, each with every file below it (compared once
// cleaned: storage.Clean). Nothing else is touched: a file of the user's,
// or one of the run's changed since, stays, and is named in a warning.
// Locally the emptied sub-folders go too.
func (d *RunDir) Clear(ctx context.Context, keep ...string) error {
	_, err := d.rec.Clear(ctx, keep...)
	return err
}

// CheckInputs refuses an input that lies in the folder at a name the run
// writes there (Record.CheckInputs).
func (d *RunDir) CheckInputs(inputs ...InputFile) error { return d.rec.CheckInputs(inputs...) }

// WriteManifest records the files the run wrote so far (Record.Update)
// and writes m, with that record, as the folder's manifest.json.
func (d *RunDir) WriteManifest(ctx context.Context, m Manifest) error {
	if err := d.rec.Write(ctx, m); err != nil {
		return err
	}
	d.man = &m
	return nil
}

// Checkpoint rewrites the manifest last written (WriteManifest) with the
// files the run wrote since: a run killed later loses from its record
// only what it wrote after the last checkpoint.
func (d *RunDir) Checkpoint(ctx context.Context) error {
	if d.man == nil {
		return nil
	}
	return d.WriteManifest(ctx, *d.man)
}

// Checkpoints returns the recorder (a tune.Recorder) that, once each
// epoch is complete, records its files in the manifest (Checkpoint).
func (d *RunDir) Checkpoints() Checkpoints { return Checkpoints{d} }

// Checkpoints is RunDir.Checkpoints' recorder.
type Checkpoints struct{ d *RunDir }

// Init does nothing: the manifest is written before the first epoch.
func (Checkpoints) Init(context.Context, int, []Metrics) error { return nil }

// Record rewrites the manifest with the files the epoch wrote.
func (c Checkpoints) Record(ctx context.Context, _, _ []Metrics) error { return c.d.Checkpoint(ctx) }

// Hold keeps the folder's lease renewed until Close and returns a context
// that is cancelled if the lease is lost (see Lease.Hold).
func (d *RunDir) Hold(ctx context.Context) context.Context { return d.lease.Hold(ctx) }

// Lease returns the folder's lease.
func (d *RunDir) Lease() *Lease { return d.lease }

// Close releases the folder's lease. A folder that was empty when opened
// (without Resume or Overwrite) and in which no run started — its
// manifest still the one Open wrote, as when the run's inputs were
// refused — is emptied first, manifest and all,
// so that it does not refuse the corrected command that follows: every
// file in it was written under this lease.
func (d *RunDir) Close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var err error
	if d.fresh {
		var m Manifest
		if err = ReadJSON(ctx, d.Manifest(), &m); err == nil && m.Status == StatusStarting {
			err = d.removeAll(ctx)
		}
	}
	return errors.Join(err, d.lease.Release(ctx))
}

// removeAll removes every file of the folder but the lease.
func (d *RunDir) removeAll(ctx context.Context) error {
	files, err := d.files(ctx)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := storage.Remove(ctx, f); err != nil {
			return err
		}
	}
	if !storage.IsGCS(d.Root) {
		var dirs []string
		filepath.WalkDir(d.Root, func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() && p != d.Root {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			removeEmptyDir(dirs[i])
		}
	}
	return nil
}
