package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// scoringFlags are the flags of every command that computes BLEU.
type scoringFlags struct {
	refs      listFlag
	tokenize  string
	lowercase bool
	order     int
}

func (f *scoringFlags) add(fs *flag.FlagSet, refHelp string) {
	fs.Var(&f.refs, "r", refHelp)
	fs.Var(&f.refs, "ref", "same as -r")
	fs.StringVar(&f.tokenize, "tokenize", "none", "tokeniser applied to hypotheses and references: none (split on spaces, as multi-bleu.perl) or 13a (as sacreBLEU and mteval-v13a)")
	fs.BoolVar(&f.lowercase, "lowercase", false, "lower-case hypotheses and references before scoring (multi-bleu.perl -lc)")
	fs.IntVar(&f.order, "order", 4, "maximum n-gram order of BLEU (1-6)")
}

// tokenizer returns the tokeniser the flags select, nil for plain
// whitespace splitting.
func (f *scoringFlags) tokenizer() (metric.Tokenizer, error) {
	if f.order < 1 || f.order > metric.MaxOrder {
		return nil, usagef("--order %d: must be 1 to %d", f.order, metric.MaxOrder)
	}
	if f.tokenize == "none" && !f.lowercase {
		return nil, nil
	}
	tok, err := metric.NewTokenizer(f.tokenize, f.lowercase)
	if err != nil {
		return nil, usagef("--tokenize: %v", err)
	}
	return tok, nil
}

// scorer loads the references and prepares them for scoring.
func (f *scoringFlags) scorer(ctx context.Context) (*pool.Scorer, error) {
	tok, err := f.tokenizer()
	if err != nil {
		return nil, err
	}
	refs, err := corpus.LoadRefs(ctx, f.refs)
	if err != nil {
		return nil, err
	}
	return pool.NewScorer(refs, f.order, tok)
}

// readWeights reads a weights file (any format weights.Read detects) and an
// optional Moses sparse-weights file into one Set over idx.
func readWeights(ctx context.Context, path, sparsePath string, idx *feature.Index) (*weights.Set, error) {
	set, err := weights.Read(ctx, path, idx)
	if err != nil {
		return nil, err
	}
	if sparsePath != "" {
		sp, err := weights.ReadFormat(ctx, sparsePath, weights.Sparse, idx)
		if err != nil {
			return nil, err
		}
		if err := set.Merge(sp); err != nil {
			return nil, fmt.Errorf("merge %s into %s: %w", sparsePath, path, err)
		}
	}
	if !set.Weights.Finite() {
		return nil, fmt.Errorf("%s: weights must be finite numbers", path)
	}
	return set, nil
}
