package main

import (
	"context"
	"flag"
	"log/slog"

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

// nbestFlags are the inputs of the commands that read n-best lists (rerank,
// extract, tune-nbest): the lists, several files given by repeating --nbest
// or after one (nbestMulti), and the references with the other
// scoringFlags.
type nbestFlags struct {
	scoringFlags
	nbests listFlag
}

// nbestMulti names the flags of nbestFlags that take several values after
// one flag: a command's multi.
var nbestMulti = []string{"nbest", "r", "ref"}

// add registers --nbest, with nbestHelp, and the scoring flags, with
// refHelp, on fs.
func (f *nbestFlags) add(fs *flag.FlagSet, nbestHelp, refHelp string) {
	f.scoringFlags.add(fs, refHelp)
	fs.Var(&f.nbests, "nbest", nbestHelp)
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

// warnSparseBeside warns, for command cmd, when the weights file path has
// a non-empty sparse weights file beside it (PATH.sparse: the
// weights.sparse of a weights trio, as `mtune tune` writes best/weights)
// and no --sparse-weights (sparsePath) was given: the sparse weights are
// then not read, and the translations are those of the dense weights
// alone. The complete weights are the trio's weights.json.
func warnSparseBeside(ctx context.Context, cmd, path, sparsePath string) {
	if path == "" || sparsePath != "" {
		return
	}
	if side, n := weights.SparseBeside(ctx, path); n > 0 {
		slog.Warn(cmd+": the sparse weights beside --weights are not read: give the complete weights (weights.json beside them) or --sparse-weights "+side,
			"weights", path, "sparse", side, "count", n)
	}
}
