package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
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
	return func(ctx context.Context, a *app, args []string) error {
		if *weightsPath == "" || len(in.nbests) == 0 {
			return usagef("--weights and --nbest are required")
		}
		warnSparseBeside(ctx, "rerank", *weightsPath, *sparsePath)
		idx := feature.NewIndex()
		set, err := weights.ReadWithSparse(ctx, *weightsPath, *sparsePath, idx)
		if err != nil {
			return err
		}
		var sc *pool.Scorer
		if _, err := in.parseMetric(); err != nil {
			return err
		} else if len(in.refs)+len(in.scores) > 0 {
			if sc, err = in.scorer(ctx); err != nil {
				return err
			}
		}
		out := bufio.NewWriter(a.stdout)
		var sum metric.Stats
		next, missing := 0, 0
		emit := func(h nbest.Hypothesis) error {
			if sc != nil && (h.File != "" || !sc.External()) { // a missing sentence has no external score
				st, err := sc.Hyp(next, h.Target, h.File, h.Line)
				if err != nil {
					return err
				}
				sum.Add(st)
			}
			next++
			_, err := fmt.Fprintln(out, h.Target)
			return err
		}
		sentences := 0 // without references, ids must run 0, 1, 2, …
		if sc != nil {
			sentences = sc.Len()
		}
		lf, err := poolfile.Rerank(ctx, in.nbests, in.format, idx, sentences, set.Weights, *weightsPath, func(sent int, best nbest.Hypothesis) error {
			for next < sent { // a sentence the lists lack: an empty line keeps the lines aligned
				missing++
				if err := emit(nbest.Hypothesis{}); err != nil {
					return err
				}
			}
			return emit(best)
		})
		if errors.Is(err, poolfile.ErrSentenceID) && sc == nil {
			return fmt.Errorf("%w; give the references with -r to allow sentences missing from the lists", err)
		}
		if err != nil {
			return err
		}
		if err := poolfile.CheckWeights(*weightsPath, set, lf, in.nbests); err != nil {
			return err
		}
		if sc != nil {
			for next < sc.Len() {
				missing++
				if err := emit(nbest.Hypothesis{}); err != nil {
					return err
				}
			}
		}
		if missing > 0 {
			slog.Warn("sentences missing from the n-best lists were output as empty lines", "count", missing)
		}
		if err := out.Flush(); err != nil {
			return err
		}
		if sc != nil {
			fmt.Fprintln(a.stderr, scoreLine(sc.Metric(), sum, sc.Refs(), false))
		}
		return nil
	}
}
