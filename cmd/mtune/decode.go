package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/weights"
)

// decodeFlags registers the flags of "mtune decode" and returns the
// command. Besides mtune's own flags it takes Moses' command line (see
// mosesDecodeArgs for the one option rewritten before parsing), so that it
// stands in for Moses under mert-moses.pl and under "mtune tune --decoder".
func decodeFlags(fs *flag.FlagSet) runFunc {
	ini := fs.String("config", "", "the model's moses.ini (paths may use ${NAME} from the environment)")
	fs.StringVar(ini, "f", "", "the same as --config (Moses' -f)")
	weightsPath := fs.String("weights", "", "weights replacing the moses.ini's [weight] section (any format rerank takes)")
	overwrite := fs.String("weight-overwrite", "", "Moses' -weight-overwrite: dense weights 'Name= v … Name2= v …' replacing those of the moses.ini and of --weights for the features they name")
	sparsePath := fs.String("sparse-weights", "", "Moses sparse weights file ('name value' lines)")
	fs.StringVar(sparsePath, "weight-file", "", "the same as --sparse-weights (Moses' -weight-file, as mert-moses.pl passes sparse weights)")
	sparse := fs.String("sparse", "", "sparse feature templates to switch on, comma-separated: pt (phrase pairs), al (alignments), lo (reordering classes), tu (target unaligned), cb (count bins), lb (length bins), or all")
	nb := fs.Int("nbest", 0, "size of the n-best lists (distinct targets); 0 = none unless the moses.ini asks")
	nbOut := fs.String("nbest-out", "", "file for the n-best lists (local or gs://, .gz/.zst allowed)")
	allDerivations := fs.Bool("nbest-all-derivations", false, "list every derivation in the n-best lists, so a target may come more than once (Moses' -n-best-list FILE N without distinct); default: distinct targets")
	threads := fs.Int("threads", runtime.NumCPU(), "decoding goroutines (the default is this machine's cores; Moses' -threads all is the same)")
	inputFile := fs.String("input-file", "", "the input (Moses' -input-file; the same as the INPUT argument); default: standard input")
	inputType := fs.Int("inputtype", 0, "Moses' -inputtype: 0 (plain text), the only one mtune reads")
	fullModel := fs.Bool("full-model", false, "load every line of the phrase table and reordering table; default: only those whose source phrase occurs in the input, as Moses' filter-model-given-input.pl keeps (same translations, less load time)")
	showWeights := fs.Bool("show-weights", false, "print the model's features and weights as Moses' -show-weights does ('Name= v …', 'Name UNTUNEABLE') and exit, as mert-moses.pl asks")
	var search decoder.SearchOptions
	fs.Func("search-algorithm", "search: normal (or 0: Moses' stack search) or cube (or 1: cube pruning); default: the moses.ini's [search-algorithm]", func(v string) (err error) {
		search.Algorithm, err = decoder.ParseAlgorithm(v)
		return err
	})
	fs.IntVar(&search.CubePruningPopLimit, "cube-pruning-pop-limit", 0, "cube pruning: hypotheses popped into each stack (default: the moses.ini's, else Moses' 1000)")
	fs.IntVar(&search.CubePruningDiversity, "cube-pruning-diversity", 0, "cube pruning: hypotheses of each coverage popped after the pop limit; 0 = none (default: the moses.ini's, else 0)")
	return func(ctx context.Context, a *app, args []string) error {
		if len(args) > 1 || len(args) == 1 && *inputFile != "" {
			return usagef("one input at most (an INPUT argument or --input-file), got %d", len(args)+min(1, len(*inputFile)))
		}
		if *inputFile != "" {
			args = []string{*inputFile}
		}
		if *ini == "" {
			return usagef("--config (or -f) is required")
		}
		if *inputType != 0 {
			return usagef("-inputtype %d: mtune reads plain text only (0)", *inputType)
		}
		if err := positiveFlags(fs, "threads"); err != nil {
			return err
		}
		if *nb < 0 {
			return usagef("--nbest %d: must be positive (leave it out for no n-best lists)", *nb)
		}
		if (*nb > 0) != (*nbOut != "") {
			return usagef("--nbest and --nbest-out go together")
		}
		if *allDerivations && *nb == 0 {
			return usagef("--nbest-all-derivations needs --nbest and --nbest-out")
		}
		if err := positiveFlags(fs, "cube-pruning-pop-limit"); err != nil {
			return err
		}
		if search.CubePruningDiversity < 0 {
			return usagef("--cube-pruning-diversity %d: must not be negative", search.CubePruningDiversity)
		}
		if search.CubePruningDiversity == 0 && flagSet(fs, "cube-pruning-diversity") {
			search.CubePruningDiversity = -1 // a typed-in 0: none, whatever the moses.ini says
		}
		opts := decoder.LoadOptions{WeightsFile: *weightsPath, SparseWeightsFile: *sparsePath, SparseFromWeights: true, Search: search}
		if *sparse != "" {
			t, err := decoder.ParseTemplates(strings.Split(*sparse, ",")...)
			if err != nil {
				return usagef("--sparse: %v", err)
			}
			opts.Sparse = t
		}
		warnSparseBeside(ctx, "decode", *weightsPath, *sparsePath)
		if flagSet(fs, "weight-overwrite") {
			if _, err := weights.ParseOverwrite(*overwrite, nil); err != nil {
				return usagef("-weight-overwrite %q: %v", *overwrite, err)
			}
			opts.WeightOverwrite = *overwrite
		}
		if *showWeights {
			return decoder.ShowWeights(ctx, a.stdout, *ini, opts)
		}
		var input []string
		var err error
		if len(args) == 1 {
			input, err = corpus.ReadFile(ctx, args[0])
		} else {
			input, err = corpus.ReadLines(a.stdin)
		}
		if err != nil {
			return err
		}
		if !*fullModel {
			opts.Sources = append([]string{}, input...) // never nil: no input loads no line
		}
		start := time.Now()
		m, err := decoder.Load(ctx, *ini, opts)
		if err != nil {
			return err
		}
		loaded := time.Since(start)
		if t := m.Templates(); t != opts.Sparse {
			slog.Info("decode: the weights have sparse features: switched on their templates", "sparse", strings.Join(t.Names(), ","))
		}
		if none := m.SparseWithoutTemplate(); len(none) > 0 {
			slog.Warn("decode: weights for sparse features no template fires (they have no effect)", "count", len(none), "names", feature.ShortList(none))
		}
		slog.Info("decode: loaded the model", "seconds", fmt.Sprintf("%.1f", loaded.Seconds()), "sentences", len(input), "threads", *threads)
		start = time.Now()
		if err := decoder.Translate(ctx, m, input, a.stdout, decoder.StreamOptions{Threads: *threads, NBestPath: *nbOut, Progress: a.stderr,
			Decode: decoder.DecodeOptions{NBest: *nb, AllDerivations: *allDerivations}}); err != nil {
			return err
		}
		secs := time.Since(start).Seconds()
		slog.Info("decode", "sentences", len(input), "load_s", fmt.Sprintf("%.2f", loaded.Seconds()),
			"decode_s", fmt.Sprintf("%.2f", secs), "sent_per_s", fmt.Sprintf("%.1f", float64(len(input))/max(secs, 1e-9)))
		return nil
	}
}

// mosesDecodeArgs rewrites the options of Moses' command line that Go's
// flag package cannot take, before decode's flags are parsed:
//
//	-n-best-list FILE N distinct  →  --nbest-out FILE --nbest N
//	-n-best-list FILE N           →  --nbest-out FILE --nbest N --nbest-all-derivations
//	-threads all                  →  --threads NCPU
//
// (one or two dashes). The rest of Moses' options that mtune takes
// (-f, -config, -weight-overwrite, -weight-file, -threads N, -input-file,
// -inputtype, -show-weights, -search-algorithm, …) are decode's own flags,
// which Go's flag package reads with one dash as with two. Everything
// after "--" is left as it is.
func mosesDecodeArgs(args []string) ([]string, error) {
	out := make([]string, 0, len(args)+2)
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch a {
		case "--":
			return append(out, args[i:]...), nil
		case "-n-best-list", "--n-best-list":
			if i+2 >= len(args) {
				return nil, usagef("%s FILE N [distinct]: too few values", a)
			}
			file, size := args[i+1], args[i+2]
			if n, err := strconv.Atoi(size); err != nil || n < 1 {
				return nil, usagef("%s %s %s: N must be a positive count", a, file, size)
			}
			out = append(out, "--nbest-out", file, "--nbest", size)
			i += 2
			if i+1 < len(args) && args[i+1] == "distinct" {
				i++
			} else {
				out = append(out, "--nbest-all-derivations")
			}
		case "-threads", "--threads":
			if i+1 < len(args) && args[i+1] == "all" {
				out = append(out, "--threads", strconv.Itoa(runtime.NumCPU()))
				i++
				continue
			}
			out = append(out, a)
		default:
			out = append(out, a)
		}
	}
	return out, nil
}
