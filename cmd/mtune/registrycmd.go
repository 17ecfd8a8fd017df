package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/mtune/mtune/io/storage"
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
		reg, err := openRegistry(*root)
		if err != nil {
			return err
		}
		reg.Log = a.stderr
		switch args[0] {
		case "status":
			return registryStatus(ctx, a, reg)
		case "history":
			return registryHistory(ctx, a, reg)
		case "rollback":
			e, err := reg.Rollback(ctx, *to, rundir.LeaseOptions{})
			if errors.Is(err, rundir.ErrBusy) {
				return exitError{code: exitBusy, err: fmt.Errorf("registry busy: %w", err)}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "promoted %s again (%s); dev BLEU when it ran %.2f\n", e.Run, e.Note, *e.CandidateBLEU)
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
	if len(rep.DroppedLines) > 0 {
		fmt.Fprintf(a.stdout, "dropped line(s) %v of %s that did not parse; the history as it was: %s\n", rep.DroppedLines, reg.History(), rep.HistoryCopy)
	}
	if rep.PointerError != "" {
		now := "nothing is promoted: the model's own weights are in use"
		if p := rep.Pointer; p != nil {
			now = fmt.Sprintf("promoted: run %s (%s)", p.Run, p.Weights)
		}
		fmt.Fprintf(a.stdout, "rebuilt %s from the history (%s); it was: %s\n", reg.Promoted(), now, rep.PointerCopy)
	}
	if len(rep.DroppedLines) == 0 && rep.PointerError == "" {
		fmt.Fprintf(a.stdout, "%s and %s parse: nothing to repair\n", reg.Promoted(), reg.History())
	}
	return nil
}

func registryStatus(ctx context.Context, a *app, reg registry.Registry) error {
	ptr, _, err := reg.ReadPointer(ctx)
	if err != nil {
		return err
	}
	hist, _, err := reg.ReadHistory(ctx)
	if err != nil {
		return err
	}
	if ptr == nil {
		fmt.Fprintf(a.stdout, "nothing promoted in %s yet (%d history lines)\n", reg.Root, len(hist))
		return nil
	}
	ok, err := storage.Exists(ctx, ptr.Weights)
	if err != nil {
		return err
	}
	missing := ""
	if !ok {
		missing = " (MISSING)"
	}
	fmt.Fprintf(a.stdout, "promoted: run %s since %s (%s ago)\nweights:  %s%s\ndev BLEU: %.2f\n",
		ptr.Run, ptr.Since.Format(time.RFC3339), time.Since(ptr.Since).Round(time.Second), ptr.Weights, missing, ptr.DevBLEU)
	if len(hist) > 0 {
		e := hist[len(hist)-1]
		fmt.Fprintf(a.stdout, "last:     run %s, %s at %s\n", e.Run, e.Decision, e.End.Format(time.RFC3339))
	}
	if !ok {
		return fmt.Errorf("the promoted weights file %s is missing: the next night cannot start from it; put it back, or promote another night's weights with `mtune registry rollback --registry %s --to ID`", ptr.Weights, reg.Root)
	}
	return nil
}

func registryHistory(ctx context.Context, a *app, reg registry.Registry) error {
	hist, _, err := reg.ReadHistory(ctx)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "run\tdecision\tcandidate\tpromoted\tgain 95% CI\tp\tgate\tend\tnote")
	opt := func(x *float64) string {
		if x == nil {
			return "–"
		}
		return fmt.Sprintf("%.2f", *x)
	}
	for _, e := range hist {
		ci, p := "–", "–"
		if e.CI != nil {
			ci = fmt.Sprintf("[%.2f, %.2f]", e.CI[0], e.CI[1])
		}
		if e.PValue != nil {
			p = fmt.Sprintf("%.4g", *e.PValue)
		}
		note, gate := e.Note, "–"
		if e.Error != "" {
			note = e.Error
		}
		if e.Gate != nil {
			gate = e.Gate.String()
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Run, e.Decision, opt(e.CandidateBLEU), opt(e.PromotedBLEU),
			ci, p, gate, e.End.Format(time.RFC3339), note)
	}
	return w.Flush()
}

// openRegistry names the registry at root; a local one by its absolute
// path, so that the paths it hands the night (the weights, resolved from
// the registry's relative ones) hold from any folder (cron and systemd
// start in another).
func openRegistry(root string) (registry.Registry, error) {
	if storage.IsGCS(root) {
		return registry.Registry{Root: root}, nil
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return registry.Registry{}, fmt.Errorf("registry %s: %w", root, err)
	}
	return registry.Registry{Root: abs}, nil
}
