package rundir

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Output is the --out of a command that writes a folder of fixed names in
// one go (build, tune-nbest): held under a lease while written, recorded
// by a manifest.json, and replaced only with --overwrite, which removes
// only what such a command wrote there.
type Output struct {
	// Dir is the folder, opened.
	Dir *RunDir
	// Manifest is what Start records in manifest.json; the caller may
	// set its Options before.
	Manifest  Manifest
	overwrite bool
	started   bool // manifest.json written
}

// OutputOptions configure OpenOutput.
type OutputOptions struct {
	// Command is the mtune command that writes the folder ("build",
	// "tune-nbest"; see OpenOptions.Command), CommandLine its command line
	// as the manifest records it.
	Command     string
	CommandLine []string
	// Overwrite accepts a folder holding an earlier output of Command,
	// which Start removes (only the files its record lists, unchanged).
	Overwrite bool
	// Owns says which files, by their slash-separated path relative to
	// the folder, Command writes there: what it records (see
	// OpenOptions.Owns).
	Owns func(rel string) bool
}

// OpenOutput opens the folder out for o.Command. A folder holding an
// earlier output is refused without o.Overwrite; one holding files of the
// user's and no manifest.json always (before any work). With o.Overwrite,
// the earlier output is removed but for the inputs (paths; see
// RunDir.Clear) by Start, once the caller has checked them.
func OpenOutput(ctx context.Context, out string, o OutputOptions) (*Output, error) {
	dir, err := Open(ctx, out, OpenOptions{Overwrite: o.Overwrite, Owns: o.Owns, Command: o.Command,
		Lease: LeaseOptions{Owner: "mtune " + o.Command}})
	if errors.Is(err, ErrNotEmpty) {
		return nil, fmt.Errorf("%s holds the output of an earlier run: give --overwrite to replace it, or another --out", out)
	}
	if err != nil {
		return nil, err
	}
	return &Output{Dir: dir, overwrite: o.Overwrite, Manifest: Manifest{
		CommandLine: o.CommandLine, Version: Version(), Start: time.Now().UTC(), Status: "running",
	}}, nil
}

// Start refuses an input that lies in the folder at a name the command
// writes (CheckInputs), removes the earlier output with --overwrite (the
// files its record lists, unchanged), but for the inputs, and records the run's manifest.json (status running) with inputs and
// seed, so that from now on the folder holds a run.
func (f *Output) Start(ctx context.Context, seed uint64, inputs ...InputFile) error {
	if err := f.Dir.CheckInputs(inputs...); err != nil {
		return err
	}
	if f.overwrite {
		keep := make([]string, len(inputs))
		for i, in := range inputs {
			keep[i] = in.Path
		}
		if err := f.Dir.Clear(ctx, keep...); err != nil {
			return err
		}
	}
	f.Manifest.Inputs, f.Manifest.Seed = inputs, seed
	if err := f.Dir.WriteManifest(ctx, f.Manifest); err != nil {
		return err
	}
	f.started = true
	return nil
}

// Close records the end and status (done, or failed with err) in the
// manifest, if the run started, and releases the folder; it returns err,
// or the error of recording it.
func (f *Output) Close(ctx context.Context, err error) error {
	ctx = context.WithoutCancel(ctx)
	if f.started {
		end := time.Now().UTC()
		f.Manifest.End, f.Manifest.Status = &end, "done"
		if err != nil {
			f.Manifest.Status, f.Manifest.Error = "failed", err.Error()
		}
		if werr := f.Dir.WriteManifest(ctx, f.Manifest); werr != nil && err == nil {
			err = werr
		}
	}
	return errors.Join(err, f.Dir.Close(ctx))
}

// Produce writes the output folder out of o.Command in one go: opens it
// (OpenOutput, refused before any work as it says), starts it with the
// inputs (Start), runs write, and closes it with write's error (Close).
func Produce(ctx context.Context, out string, o OutputOptions, inputs []InputFile, write func(ctx context.Context) error) error {
	f, err := OpenOutput(ctx, out, o)
	if err != nil {
		return err
	}
	if err := f.Start(ctx, 0, inputs...); err != nil {
		return f.Close(ctx, err)
	}
	return f.Close(ctx, write(ctx))
}

// Inputs returns the paths of lists, every one as an input of the role,
// unchecksummed ("" left out): what a manifest records of inputs it
// does not compare.
func Inputs(role string, lists ...[]string) []InputFile {
	var out []InputFile
	for _, l := range lists {
		for _, p := range l {
			if p != "" {
				out = append(out, InputFile{Role: role, Path: p})
			}
		}
	}
	return out
}
