package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/mtune/mtune/registry"
	"github.com/mtune/mtune/rundir"
)

// registryFlags registers the flags of "mtune registry
// status|history|rollback|repair": what nightly retraining promoted, night
// after night, putting earlier weights back, and mending a registry whose
// files do not parse.
func registryFlags(fs *flag.FlagSet) runFunc {
	root := fs.String("registry", "", "the registry: a folder or gs://bucket/prefix (required)")
	to := fs.String("to", "", "rollback: the night whose weights to promote again (default: the night promoted before the current one)")
	return func(ctx context.Context, a *app, args []string) error {
		if len(args) != 1 {
			return usagef("give one action: status, history, rollback or repair")
		}
		if *root == "" {
			return usagef("--registry is required")
		}
		if flagSet(fs, "to") && args[0] != "rollback" {
			return usagef("--to applies to rollback only")
		}
		if flagSet(fs, "to") {
			if err := registry.CheckRunID(*to); err != nil {
				return usagef("--to: %v", err)
			}
		}
		reg, err := registry.Open(*root)
		if err != nil {
			return err
		}
		reg.Log = a.stderr
		switch args[0] {
		case "status":
			return reg.WriteStatus(ctx, a.stdout)
		case "history":
			return reg.WriteHistory(ctx, a.stdout)
		case "rollback":
			e, err := reg.Rollback(ctx, *to, rundir.LeaseOptions{})
			if errors.Is(err, rundir.ErrBusy) {
				return exitError{code: exitBusy, err: fmt.Errorf("registry busy: %w", err)}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "promoted %s again (%s); dev %s when it ran\n", e.Run, e.Note, e.Scores())
			return nil
		case "repair":
			return registryRepair(ctx, a, reg)
		}
		return usagef("unknown action %q (status, history, rollback, repair)", args[0])
	}
}

func registryRepair(ctx context.Context, a *app, reg registry.Registry) error {
	rep, err := reg.Repair(ctx, rundir.LeaseOptions{})
	if errors.Is(err, rundir.ErrBusy) {
		return exitError{code: exitBusy, err: fmt.Errorf("registry busy: %w", err)}
	}
	if err != nil {
		return err
	}
	reg.WriteRepaired(a.stdout, rep)
	return nil
}
