package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/mtune/mtune/decoder/build"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/rundir"
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
	fs.BoolVar(&o.AbsolutePaths, "absolute-paths", false, "write absolute paths in moses.ini, for Moses run from another folder (default: relative to the ini's folder, so the model folder can be moved; Moses resolves relative paths against its working directory)")
	relative := fs.Bool("relative-paths", true, "paths in moses.ini relative to its folder: the default now, accepted for older scripts (--relative-paths=false is --absolute-paths)")
	fs.IntVar(&o.Workers, "threads", 0, "goroutines (default: all cores)")
	sparse := fs.String("sparse", "", "comma-separated sparse feature templates to record for decoding")
	demo := fs.Bool("demo", false, "generate the embedded synthetic language pair into DIR/corpus and build its model in DIR")
	seed := fs.Uint64("seed", 1, "seed of the demo generator")
	fs.StringVar(&o.Out, "out", "", "output folder (local or gs://): empty, new, or an earlier build's with --overwrite")
	overwrite := fs.Bool("overwrite", false, "replace the model an earlier build wrote in --out (only its files: the model, corpus/ of --demo, manifest.json)")
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
		if flagSet(fs, "relative-paths") {
			if *relative && o.AbsolutePaths {
				return usagef("--relative-paths and --absolute-paths contradict each other: give one")
			}
			o.AbsolutePaths = !*relative
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
		if !*demo && (o.Src == "" || o.Tgt == "" || o.Align == "") {
			return usagef("--src, --tgt and --align are required (or --demo)")
		}
		if *demo && (o.Src != "" || o.Tgt != "" || o.Align != "") {
			return usagef("--demo makes its own bitext: leave out --src, --tgt and --align")
		}
		if err := o.Validate(); err != nil {
			return usagef("%v", err)
		}
		out, err := rundir.OpenOutput(ctx, o.Out, rundir.OutputOptions{Command: "build",
			CommandLine: commandLine("build"), Overwrite: *overwrite, Owns: build.Owns})
		if err != nil {
			return err
		}
		res, err := runBuild(ctx, a, out, &o, *demo, *seed)
		if err = out.Close(ctx, err); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "build: %d sentence pairs (%d skipped), %d phrase pairs, LM n-grams %v, %.2f s\n",
			res.Sentences, res.Skipped, res.PhrasePairs, res.NGrams, res.Seconds)
		fmt.Fprintln(a.stdout, res.Config)
		return nil
	}
}

// runBuild builds the model of o into the opened folder out: the inputs
// checked and checksummed first (an earlier build removed with
// --overwrite only then), the demo's bitext written first with demo.
func runBuild(ctx context.Context, a *app, out *rundir.Output, o *build.Options, demo bool, seed uint64) (build.Result, error) {
	var inputs []rundir.InputFile
	if !demo {
		for _, in := range [][2]string{{"src", o.Src}, {"tgt", o.Tgt}, {"align", o.Align}} {
			f, err := rundir.Checksum(ctx, in[0], in[1])
			if err != nil {
				return build.Result{}, err
			}
			inputs = append(inputs, f)
		}
	}
	if err := out.Start(ctx, seed, inputs...); err != nil {
		return build.Result{}, err
	}
	if demo {
		files, err := build.Demo(build.DemoOptions{Seed: seed}).Write(ctx, storage.Join(o.Out, "corpus"))
		if err != nil {
			return build.Result{}, err
		}
		d := files.BuildOptions(o.Out)
		o.Src, o.Tgt, o.Align = d.Src, d.Tgt, d.Align
		fmt.Fprintf(a.stderr, "build: demo corpus in %s (tune.src/tune.ref, test.src/test.ref)\n", storage.Join(o.Out, "corpus"))
	}
	return build.Run(ctx, *o)
}
