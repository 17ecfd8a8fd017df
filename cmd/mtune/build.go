package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/mtune/mtune/decoder/build"
	"github.com/mtune/mtune/io/storage"
)

// buildFlags registers the flags of "mtune build" and returns the command.
func buildFlags(fs *flag.FlagSet) runFunc {
	var o build.Options
	fs.StringVar(&o.Src, "src", "", "source side of the bitext, one tokenised sentence a line")
	fs.StringVar(&o.Tgt, "tgt", "", "target side of the bitext")
	fs.StringVar(&o.Align, "align", "", "word alignment, one line of i-j points a sentence pair (i source, j target, 0-based)")
	lines := fs.String("lines", "", "the 1-based inclusive range of lines to build from, e.g. 1-8000 (default: all)")
	fs.IntVar(&o.LMOrder, "lm-order", 0, "order of the Kneser-Ney language model (default 5)")
	fs.IntVar(&o.MaxPhrase, "max-phrase", 0, "maximum phrase length (default 7)")
	fs.IntVar(&o.DistortionLimit, "distortion-limit", 0, "distortion limit written to moses.ini (default 6, as Moses; -1 = none)")
	fs.BoolVar(&o.RelativePaths, "relative-paths", false, "write paths in moses.ini relative to its folder")
	fs.IntVar(&o.Workers, "threads", 0, "goroutines (default: all cores)")
	sparse := fs.String("sparse", "", "comma-separated sparse feature templates to record for decoding")
	demo := fs.Bool("demo", false, "generate the embedded synthetic language pair into DIR/corpus and build its model in DIR")
	seed := fs.Uint64("seed", 1, "seed of the demo generator")
	fs.StringVar(&o.Out, "out", "", "output folder (local or gs://)")
	return func(ctx context.Context, a *app, args []string) error {
		if o.Out == "" {
			return usagef("--out is required")
		}
		if err := positiveFlags(fs, "lm-order", "max-phrase", "threads"); err != nil {
			return err
		}
		if o.DistortionLimit == 0 && flagSet(fs, "distortion-limit") {
			return usagef("--distortion-limit 0 (monotone decoding) cannot be written by build: give a positive limit or -1 for none, and edit [distortion-limit] in the moses.ini for monotone decoding")
		}
		if o.DistortionLimit < -1 {
			return usagef("--distortion-limit %d: give a positive limit or -1 for none", o.DistortionLimit)
		}
		if *sparse != "" {
			o.Sparse = strings.Split(*sparse, ",")
		}
		if *lines != "" {
			r, err := build.ParseLineRange(*lines)
			if err != nil {
				return usagef("--lines: %v", err)
			}
			o.Lines = r
		}
		if *demo {
			if o.Src != "" || o.Tgt != "" || o.Align != "" {
				return usagef("--demo makes its own bitext: leave out --src, --tgt and --align")
			}
			files, err := build.Demo(build.DemoOptions{Seed: *seed}).Write(ctx, storage.Join(o.Out, "corpus"))
			if err != nil {
				return err
			}
			d := files.BuildOptions(o.Out)
			o.Src, o.Tgt, o.Align = d.Src, d.Tgt, d.Align
			fmt.Fprintf(a.stderr, "build: demo corpus in %s (tune.src/tune.ref, test.src/test.ref)\n", storage.Join(o.Out, "corpus"))
		} else if o.Src == "" || o.Tgt == "" || o.Align == "" {
			return usagef("--src, --tgt and --align are required (or --demo)")
		}
		res, err := build.Run(ctx, o)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "build: %d sentence pairs (%d skipped), %d phrase pairs, LM n-grams %v, %.2f s\n",
			res.Sentences, res.Skipped, res.PhrasePairs, res.NGrams, res.Seconds)
		fmt.Fprintln(a.stdout, res.Config)
		return nil
	}
}
