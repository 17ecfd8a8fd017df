package main

import (
	"context"
	"flag"
	"log/slog"
	"strings"

	"github.com/mtune/mtune/internal/cliflag"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/pool/poolfile"
)

// scoringFlags are the flags of every command that scores translations:
// the references, the metric (--metric, parsed once by metric.Parse) and
// its settings; for the commands that read n-best lists (nbestFlags) the
// lists, and with --metric external their score files and label.
type scoringFlags struct {
	refs, nbests, scores, features cliflag.List
	feats                          []poolfile.FeatureFile // --feature, parsed by parseMetric
	label                          string
	metric                         string
	spec                           string // --metric in canonical form with the flags' options, once parsed
	tokenize                       string
	lowercase                      bool
	order                          int
	m                              metric.Metric // parseMetric's, once parsed
	format                         nbest.Format  // --nbest-format, parsed by the flag package
}

func (f *scoringFlags) add(fs *flag.FlagSet, refHelp string) {
	fs.Var(&f.refs, "r", refHelp)
	fs.Var(&f.refs, "ref", "same as -r")
	fs.StringVar(&f.tokenize, "tokenize", "none", "BLEU's tokeniser, applied to hypotheses and references: none (split on spaces, as multi-bleu.perl), 13a (as sacreBLEU and mteval-v13a); one of "+strings.Join(metric.Tokenizers.Names(), ", "))
	fs.BoolVar(&f.lowercase, "lowercase", false, "lower-case hypotheses and references before scoring (multi-bleu.perl -lc)")
	fs.IntVar(&f.order, "order", 4, "maximum n-gram order of BLEU (1-6)")
	fs.StringVar(&f.metric, "metric", "bleu", "the metric, NAME[:KEY=VALUE…]: "+strings.Join(metric.MetricNames(), ", ")+" (sacreBLEU's defaults; TER case-insensitive; options such as ter:case=true and bleu:tokenize=13a in docs/commands.md), or a weighted sum NAME:W,NAME:W (bleu:0.5,ter:0.5 is (BLEU−TER)/2)")
}

// parseMetric returns the metric the flags choose, parsing the flags
// the first time.
func (f *scoringFlags) parseMetric() (metric.Metric, error) {
	if f.m != nil {
		return f.m, nil
	}
	if f.order < 1 || f.order > metric.MaxOrder {
		return nil, usagef("--order %d: must be 1 to %d", f.order, metric.MaxOrder)
	}
	if _, err := metric.NewTokenizer(f.tokenize, f.lowercase); err != nil {
		return nil, usagef("--tokenize: %v", err)
	}
	// The flags at their defaults leave the spec's options free
	// ("bleu:order=2" with no --order); set, a spec may only repeat them.
	o := metric.Options{Lowercase: f.lowercase, ExternalLabel: f.label}
	if f.order != metric.DefaultOrder {
		o.Order = f.order
	}
	if f.tokenize != "none" {
		o.Tokenize = f.tokenize
	}
	m, spec, err := metric.ParseSpec(f.metric, o)
	if err != nil {
		return nil, usagef("--metric: %v", err)
	}
	f.spec = spec
	switch _, ext := m.(metric.FileScored); {
	case ext && (len(f.scores) == 0 || len(f.scores) != len(f.nbests) || len(f.refs) > 0):
		return nil, usagef("--metric external: scores computed elsewhere come from score files aligned with n-best lists: one --scores a --nbest (%d for %d) and no -r (rerank, extract, tune-nbest)", len(f.scores), len(f.nbests))
	case !ext && len(f.scores) > 0:
		return nil, usagef("--scores: only with --metric external (scores computed elsewhere)")
	}
	if f.feats, err = poolfile.ParseFeatureFlags(f.features, len(f.nbests)); err != nil {
		return nil, usagef("--feature %v", err)
	}
	f.m = m
	return m, nil
}

// nbestFlags are the inputs of the commands that read n-best lists (rerank,
// extract, tune-nbest): the lists, several files given by repeating --nbest
// or after one (nbestMulti), and the references with the other
// scoringFlags, or with --metric external a score file a list (--scores).
type nbestFlags struct{ scoringFlags }

// nbestMulti names the flags of nbestFlags that take several values after
// one flag: a command's multi.
var nbestMulti = []string{"nbest", "r", "ref", "scores"}

// add registers --nbest, with nbestHelp, and the scoring flags, with
// refHelp, on fs.
func (f *nbestFlags) add(fs *flag.FlagSet, nbestHelp, refHelp string) {
	f.scoringFlags.add(fs, refHelp)
	fs.Var(&f.nbests, "nbest", nbestHelp)
	fs.Var(&f.scores, "scores", "with --metric external (no -r): scores computed elsewhere (COMET, QE), one file per --nbest in its order (docs/formats.md)")
	fs.StringVar(&f.label, "scores-label", "", "the name external scores print under (COMET; default external)")
	fs.Var(&f.format, "nbest-format", "the `format` of the --nbest lists: "+strings.Join(nbest.FormatNames(), ", ")+" (auto: detected from each list's first lines; docs/formats.md)")
	fs.Var(&f.features, "feature", "`NAME=FILE` adds to each hypothesis the dense feature NAME, its values from FILE (scores computed elsewhere: one a line, or 'id ||| index ||| value' lines); once per --nbest file, in its order (docs/rerank.md)")
}

// options returns the poolfile options of the lists: their format and the
// added features (parseMetric parses --feature).
func (f *scoringFlags) options(threads int) poolfile.Options {
	return poolfile.Options{Threads: threads, Format: f.format, Features: f.feats}
}

// scorer loads the references and prepares them for scoring under the
// metric the flags choose, or reads the score files of external scores.
func (f *scoringFlags) scorer(ctx context.Context) (*pool.Scorer, error) {
	m, err := f.parseMetric()
	if err != nil {
		return nil, err
	}
	if ext, ok := m.(metric.FileScored); ok {
		return poolfile.ExternalScorer(ctx, f.nbests, f.scores, f.format, ext)
	}
	refs, err := corpus.LoadRefs(ctx, f.refs)
	if err != nil {
		return nil, err
	}
	return pool.NewScorer(refs, m)
}

// scoreLine is the line a command prints for the corpus statistics sum
// under m (metric.ScoreLine: multi-bleu.perl's for BLEU, else "chrF2 =
// 56.76" as sacreBLEU prints it, an external score's mean with 4
// decimals); with sig, the metric's signature for nrefs references after
// it.
func scoreLine(m metric.Metric, sum metric.Stats, nrefs int, sig bool) string {
	line := metric.ScoreLine(m, sum)
	if sig {
		line += " " + m.Signature(nrefs)
	}
	return line
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
