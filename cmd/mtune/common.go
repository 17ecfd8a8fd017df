package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/storage"
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

// listFeatures records the features n-best lists hold: those with a
// non-zero value in some hypothesis and every component of their dense
// groups (which may be zero throughout, as Moses' first distortion score).
type listFeatures struct {
	ids    []bool // by feature id
	groups []feature.Group
}

func (l *listFeatures) add(v feature.Vector) {
	for _, id := range v.IDs {
		if int(id) >= len(l.ids) {
			l.ids = append(l.ids, make([]bool, int(id)+1-len(l.ids))...)
		}
		l.ids[id] = true
	}
}

func (l *listFeatures) has(idx *feature.Index, id feature.ID) bool {
	if int(id) < len(l.ids) && l.ids[id] {
		return true
	}
	label, i, ok := feature.SplitDenseName(idx.Name(id))
	if !ok {
		return false
	}
	for _, g := range l.groups {
		if g.Label == label && i < g.Len {
			return true
		}
	}
	return false
}

// maxNamesInWarning bounds how many feature names a warning lists.
const maxNamesInWarning = 20

// checkWeightsMatch checks the weights read from path against the features
// of the n-best lists nbests: an error when none of the weights' features
// (the groups' components and the non-zero others) is in the lists, as
// every hypothesis would then score 0, and a warning naming those that are
// not when only some are.
func checkWeightsMatch(path string, set *weights.Set, lf *listFeatures, nbests []string) error {
	named := map[feature.ID]bool{}
	for _, name := range feature.GroupNames(set.Groups) {
		named[set.Index.ID(name)] = true
	}
	for id, x := range set.Weights {
		if x != 0 {
			named[feature.ID(id)] = true
		}
	}
	var missing []string
	for id := range named {
		if !lf.has(set.Index, id) {
			missing = append(missing, set.Index.Name(id))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	if len(missing) == len(named) {
		return fmt.Errorf("no feature of the weights in %s is in the n-best lists %v (weights for %s): check that they belong to the same model",
			path, nbests, namesForMessage(missing))
	}
	slog.Warn("weights for features the n-best lists do not have", "weights", path, "count", len(missing), "names", namesForMessage(missing))
	return nil
}

// namesForMessage joins names with spaces, at most maxNamesInWarning of
// them.
func namesForMessage(names []string) string {
	if len(names) <= maxNamesInWarning {
		return strings.Join(names, " ")
	}
	return fmt.Sprintf("%s … (%d more)", strings.Join(names[:maxNamesInWarning], " "), len(names)-maxNamesInWarning)
}

// nonFiniteScore is the error for a hypothesis (at pos, "file:line")
// whose model score w·φ is NaN or infinite under the weights of the file
// weightsPath ("" for the default weights).
func nonFiniteScore(pos string, score float64, weightsPath string) error {
	w := "the default weights"
	if weightsPath != "" {
		w = "the weights of " + weightsPath
	}
	return fmt.Errorf("%s: the model score of this hypothesis under %s is %v, not a number the hypotheses can be ranked by: a feature value times its weight overflows (check the line's values)", pos, w, score)
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
	side := path + ".sparse"
	data, err := storage.ReadFile(ctx, side)
	if err != nil {
		return
	}
	n := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	if n == 0 {
		return
	}
	slog.Warn(cmd+": the sparse weights beside --weights are not read: give the complete weights (weights.json beside them) or --sparse-weights "+side,
		"weights", path, "sparse", side, "count", n)
}
