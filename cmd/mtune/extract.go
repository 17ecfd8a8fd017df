package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/pool/poolfile"
	"github.com/mtune/mtune/rundir"
)

// extractFlags registers the flags of "mtune extract" and returns the
// command.
func extractFlags(fs *flag.FlagSet) runFunc {
	var in nbestFlags
	in.add(fs, "n-best list files, one per tuning iteration (pooled per sentence, duplicates removed)",
		"reference file, folder or prefix (repeat for several)")
	out := fs.String("out", "", "output folder (local or gs://): features.dat (FEATSTAT) and scores.dat (SCORESTAT)")
	threads := fs.Int("threads", 0, "goroutines scoring sentences (default: all cores)")
	overwrite := fs.Bool("overwrite", false, "replace the files an earlier extract wrote in --out (only those its manifest.json lists, unchanged)")
	return func(ctx context.Context, a *app, args []string) error {
		if len(in.nbests) == 0 || len(in.refs)+len(in.scores) == 0 || *out == "" {
			return usagef("--nbest, -r (--scores with --metric external) and --out are required")
		}
		if err := positiveFlags(fs, "threads"); err != nil {
			return err
		}
		start := time.Now()
		feat, scores := storage.Join(*out, "features.dat"), storage.Join(*out, "scores.dat")
		sc, err := in.scorer(ctx) // refuses bad options before the folder is made
		if err != nil {
			return err
		}
		var res poolfile.ExtractResult
		err = rundir.Produce(ctx, *out, rundir.OutputOptions{Command: "extract", CommandLine: commandLine("extract"), Overwrite: *overwrite,
			Owns: extractOwns}, rundir.Inputs("input", in.nbests, in.refs, in.scores),
			func(ctx context.Context) (err error) {
				res, err = poolfile.Extract(ctx, in.nbests, sc, feat, scores, in.options(*threads))
				return err
			})
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "extract: %d sentences, %d hypotheses read, %d kept after removing duplicates, %d features, %.2f s\n",
			res.Sentences, res.Read, res.Hypotheses, res.Features, time.Since(start).Seconds())
		fmt.Fprintf(a.stderr, "extract: wrote %s and %s\n", feat, scores)
		return nil
	}
}

// extractOwns says which files of its --out extract writes.
func extractOwns(rel string) bool { return rel == "features.dat" || rel == "scores.dat" }
