package poolfile

import (
	"context"
	"errors"
	"fmt"
	"slices"

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
	// Cache says what became of Options.Cache: read, or written and why
	// (missing, stale, corrupt), or why not; "" without a cache.
	Cache string
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
	lists, groups, err := loadCached(ctx, paths, initPath, sc, opts, &t)
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

// loadCached is Load through the pool cache opts.Cache, if any: the pool
// read from it when its key matches the inputs (paths, opts' feature
// files and CacheInputs, initPath, the metric's settings), else loaded and
// written to it. t.Cache says which and why.
func loadCached(ctx context.Context, paths []string, initPath string, sc *pool.Scorer, opts Options, t *Tuning) ([]pool.List, []feature.Group, error) {
	if opts.Cache == "" {
		return Load(ctx, paths, t.Index, sc, opts)
	}
	m := sc.Metric()
	settings := []string{fmt.Sprintf("%T %#v", m, m), m.Signature(sc.Refs()), fmt.Sprint(sc.Len(), sc.External(), opts.Format)}
	files := append(slices.Clone(paths), opts.CacheInputs...)
	for _, f := range opts.Features {
		settings = append(settings, f.Name)
		files = append(files, f.Paths...)
	}
	if initPath != "" {
		files = append(files, initPath)
	}
	if err := CheckCache(opts.Cache, files...); err != nil {
		return nil, nil, err
	}
	key, err := cacheKey(settings, files)
	if err != nil {
		t.Cache = fmt.Sprintf("not used: %v", err)
		return Load(ctx, paths, t.Index, sc, opts)
	}
	lists, groups, err := readCache(opts.Cache, key, t.Index)
	if err == nil {
		t.Cache = "read " + opts.Cache
		return lists, groups, nil
	}
	why := err
	if !errors.Is(why, ErrCacheStale) {
		// A refused cache may have interned names: start the index again.
		if t.Index, t.Set, err = restartIndex(ctx, initPath); err != nil {
			return nil, nil, err
		}
	}
	lists, groups, err = Load(ctx, paths, t.Index, sc, opts)
	if err != nil {
		return nil, nil, err
	}
	if err := writeCache(opts.Cache, key, t.Index, groups, lists); err != nil {
		t.Cache = fmt.Sprintf("not written (%v); it was %v", err, why)
	} else {
		t.Cache = fmt.Sprintf("wrote %s (%v)", opts.Cache, why)
	}
	return lists, groups, nil
}

// restartIndex returns a new index holding the initial weights' names
// only, as LoadTuning starts it, and the weights read again.
func restartIndex(ctx context.Context, initPath string) (*feature.Index, *weights.Set, error) {
	idx := feature.NewIndex()
	if initPath == "" {
		return idx, nil, nil
	}
	set, err := weights.ReadWithSparse(ctx, initPath, "", idx)
	return idx, set, err
}
