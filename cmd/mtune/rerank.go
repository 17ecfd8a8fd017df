package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/pool/poolfile"
)

// rerankFlags registers the flags of "mtune rerank" and returns the
// command.
func rerankFlags(fs *flag.FlagSet) runFunc {
	var in nbestFlags
	in.add(fs, "n-best list files (several files are pooled per sentence)",
		"references: with them the score of the re-ranked 1-best (BLEU, or --metric's) goes to stderr")
	weightsPath := fs.String("weights", "", "weights: Moses 'Name= v …' lines, a moses.ini, sparse 'name value' lines or mtune JSON")
	sparsePath := fs.String("sparse-weights", "", "Moses sparse weights file ('name value' lines) added to --weights")
	outNbest := fs.String("out-nbest", "", "also write the re-scored lists here: each sentence's hypotheses best first, with the added features and the new total w·φ (Marian lists as Marian's, others as Moses'; docs/rerank.md)")
	detok := fs.Bool("detok", false, "print each 1-best's detokenized text (fairseq's D- line) instead of its tokens")
	return func(ctx context.Context, a *app, args []string) error {
		if *weightsPath == "" || len(in.nbests) == 0 {
			return usagef("--weights and --nbest are required")
		}
		if _, err := in.parseMetric(); err != nil {
			return err
		}
		warnSparseBeside(ctx, "rerank", *weightsPath, *sparsePath)
		idx := feature.NewIndex()
		set, err := weights.ReadWithSparse(ctx, *weightsPath, *sparsePath, idx)
		if err != nil {
			return err
		}
		o := poolfile.RerankOptions{Options: in.options(0), Weights: set, WeightsPath: *weightsPath, Detok: *detok, Nbest: *outNbest}
		if len(in.refs)+len(in.scores) > 0 {
			if o.Scorer, err = in.scorer(ctx); err != nil {
				return err
			}
		}
		res, err := poolfile.RerankTo(ctx, in.nbests, idx, o, a.stdout)
		if err == nil && o.Scorer != nil {
			fmt.Fprintln(a.stderr, scoreLine(o.Scorer.Metric(), res.Stats, o.Scorer.Refs(), false))
		}
		return err
	}
}
