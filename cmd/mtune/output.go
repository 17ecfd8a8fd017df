package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/mtune/mtune/rundir"
)

// outputFolder is the --out of a command that writes a folder of fixed
// names in one go (build, tune-nbest): held under a lease while written,
// recorded by a manifest.json, and replaced only with --overwrite, which
// removes only what such a command wrote there.
type outputFolder struct {
	dir     *rundir.RunDir
	man     rundir.Manifest
	started bool // manifest.json written
}

// openOutput opens the folder out for command cmd, whose files owns
// names. A folder holding an earlier output is refused without overwrite;
// one holding files of the user's and no manifest.json always (before
// any work). With overwrite, the earlier output is removed but for the
// inputs (paths; see rundir.RunDir.Clear), once the caller has checked
// them: call clear.
func openOutput(ctx context.Context, cmd, out string, overwrite bool, owns func(string) bool) (*outputFolder, error) {
	dir, err := rundir.Open(ctx, out, rundir.OpenOptions{Overwrite: overwrite, Owns: owns, Command: cmd,
		Lease: rundir.LeaseOptions{Owner: "mtune " + cmd}})
	if errors.Is(err, rundir.ErrNotEmpty) {
		return nil, fmt.Errorf("%s holds the output of an earlier run: give --overwrite to replace it, or another --out", out)
	}
	if err != nil {
		return nil, err
	}
	return &outputFolder{dir: dir, man: rundir.Manifest{
		CommandLine: append([]string{"mtune", cmd}, os.Args[min(len(os.Args), 2):]...),
		Version:     rundir.Version(), Start: time.Now().UTC(), Status: "running",
	}}, nil
}

// start removes the earlier output with --overwrite, but for the inputs,
// and records the run's manifest.json (status running) with inputs, so
// that from now on the folder holds a run.
func (f *outputFolder) start(ctx context.Context, overwrite bool, seed uint64, inputs ...rundir.InputFile) error {
	if overwrite {
		keep := make([]string, len(inputs))
		for i, in := range inputs {
			keep[i] = in.Path
		}
		if err := f.dir.Clear(ctx, keep...); err != nil {
			return err
		}
	}
	f.man.Inputs, f.man.Seed = inputs, seed
	if err := rundir.WriteJSON(ctx, f.dir.Manifest(), f.man); err != nil {
		return err
	}
	f.started = true
	return nil
}

// close records the end and status (done, or failed with err) in the
// manifest, if the run started, and releases the folder; it returns err,
// or the error of recording it.
func (f *outputFolder) close(ctx context.Context, err error) error {
	ctx = context.WithoutCancel(ctx)
	if f.started {
		end := time.Now().UTC()
		f.man.End, f.man.Status = &end, "done"
		if err != nil {
			f.man.Status, f.man.Error = "failed", err.Error()
		}
		if werr := rundir.WriteJSON(ctx, f.dir.Manifest(), f.man); werr != nil && err == nil {
			err = werr
		}
	}
	return errors.Join(err, f.dir.Close(ctx))
}
