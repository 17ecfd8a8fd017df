package poolfile

import (
	"context"
	"fmt"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/pool"
)

// Tuning is what tuning on n-best files starts from: their pool and the
// starting weights, over one feature index.
type Tuning struct {
	// Index interns the features of the lists and the weights.
	Index *feature.Index
	// Lists is the pool, one list a sentence (Load).
	Lists []pool.List
	// Set is the starting weights with the lists' dense layout, and
	// Weights its weights grown to Index (StartWeights).
	Set     *weights.Set
	Weights feature.Weights
}

// LoadTuning reads the tuning problem of `mtune tune-nbest`: the n-best
// files at paths pooled and scored with sc (Load, with opts), and the
// weights tuning starts from, read from initPath (any format weights.Read
// detects, every weight a finite number) or, when initPath is "", each of
// the lists' dense features 1/N (StartWeights, which checks them against
// the lists). Lists without a hypothesis are an error.
func LoadTuning(ctx context.Context, paths []string, initPath string, sc *pool.Scorer, opts Options) (Tuning, error) {
	t := Tuning{Index: feature.NewIndex()}
	if initPath != "" {
		var err error
		if t.Set, err = weights.ReadWithSparse(ctx, initPath, "", t.Index); err != nil {
			return Tuning{}, err
		}
	}
	lists, groups, err := Load(ctx, paths, t.Index, sc, opts)
	if err != nil {
		return Tuning{}, err
	}
	if len(lists) == 0 {
		return Tuning{}, fmt.Errorf("poolfile: the n-best lists %v hold no hypotheses", paths)
	}
	t.Lists = lists
	t.Set, t.Weights, err = StartWeights(ctx, paths, opts, t.Index, sc.Len(), lists, groups, t.Set, initPath)
	if err != nil {
		return Tuning{}, err
	}
	return t, nil
}
