package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"

	"github.com/mtune/mtune/decoder/build"
	"github.com/mtune/mtune/registry"
	"github.com/mtune/mtune/rundir"
)

// adoptFlags registers "mtune adopt DIR…": folders an mtune before the
// record wrote get their record (rundir.Adopt, registry.Adopt), so that
// --resume, --overwrite and the next night take them again.
func adoptFlags(*flag.FlagSet) runFunc {
	return func(ctx context.Context, a *app, args []string) error {
		if len(args) == 0 {
			return usagef("give the folders to adopt")
		}
		for _, dir := range args {
			var as []rundir.Adoption
			cmd, err := rundir.EarlierCommand(ctx, dir)
			owns := map[string]func(string) bool{"tune": rundir.Layout{}.Owns, "tune-nbest": rundir.Layout{}.Owns,
				"build": build.Owns, "extract": extractOwns}[cmd]
			switch reg, rerr := registry.Open(dir); {
			case errors.Is(err, fs.ErrNotExist) && rerr == nil: // a registry's top has no manifest
				as, err = reg.Adopt(ctx, rundir.LeaseOptions{})
			case err == nil && owns == nil:
				err = fmt.Errorf("%s: a folder of mtune %s: adopt the registry it is in", dir, cmd)
			case err == nil:
				var ad rundir.Adoption
				ad, err = rundir.Adopt(ctx, dir, rundir.AdoptOptions{Command: cmd, Owns: owns})
				as = append(as, ad)
			}
			if err != nil {
				return err
			}
			for _, ad := range as {
				fmt.Fprintln(a.stdout, ad)
			}
		}
		return nil
	}
}
