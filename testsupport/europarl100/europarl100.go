package europarl100

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/pool/poolfile"
	"github.com/mtune/mtune/testsupport/shared"
)

// Hyps is the number of hypotheses in the pool: 100 sentences × 100-best,
// none of them duplicates.
const Hyps = 10000

// Load reads the europarl100 lists afresh, with init.weights as init and
// the feature index both are numbered by; the caller owns all three and may
// modify them. init is not grown to idx.Len().
func Load(tb testing.TB) (lists []pool.List, init feature.Weights, idx *feature.Index) {
	tb.Helper()
	lists, init, idx, err := read(shared.Path(tb, "nbest", "europarl100"))
	if err != nil {
		tb.Fatal(err)
	}
	return lists, init, idx
}

var once struct {
	sync.Once
	lists []pool.List
	init  feature.Weights
	idx   *feature.Index
	err   error
}

// Shared is Load reading the data once per test binary: every caller gets
// the same lists and idx, which it must not modify, and its own copy of
// init.
func Shared(tb testing.TB) (lists []pool.List, init feature.Weights, idx *feature.Index) {
	tb.Helper()
	dir := shared.Path(tb, "nbest", "europarl100")
	once.Do(func() {
		once.lists, once.init, once.idx, once.err = read(dir)
	})
	if once.err != nil {
		tb.Fatal(once.err)
	}
	return once.lists, once.init.Clone(), once.idx
}

// scored holds the pools SharedMetric read, by metric.
var scored struct {
	sync.Mutex
	pools map[metric.Metric]*scoredPool
}

type scoredPool struct {
	lists []pool.List
	init  feature.Weights
	idx   *feature.Index
}

// SharedMetric is Shared with the hypotheses scored by m (statistics of
// m, metric.Metric.Segment against reference) instead of BLEU: the pool of
// `mtune tune-nbest --metric` on europarl100. Each metric (compared with
// ==, so pass the same value, as a metric.Parse result held in a package
// variable) is read once per test binary; callers must not modify the
// lists or idx and get their own copy of init.
func SharedMetric(tb testing.TB, m metric.Metric) (lists []pool.List, init feature.Weights, idx *feature.Index) {
	tb.Helper()
	dir := shared.Path(tb, "nbest", "europarl100")
	scored.Lock()
	defer scored.Unlock()
	p, ok := scored.pools[m]
	if !ok {
		lists, init, idx, err := readMetric(dir, m)
		if err != nil {
			tb.Fatal(err)
		}
		if scored.pools == nil {
			scored.pools = map[metric.Metric]*scoredPool{}
		}
		p = &scoredPool{lists, init, idx}
		scored.pools[m] = p
	}
	return p.lists, p.init.Clone(), p.idx
}

// read loads the data in dir, scored with BLEU.
func read(dir string) ([]pool.List, feature.Weights, *feature.Index, error) {
	return readMetric(dir, metric.DefaultBLEU())
}

// readMetric loads the data in dir, scored with m.
func readMetric(dir string, m metric.Metric) ([]pool.List, feature.Weights, *feature.Index, error) {
	ctx := context.Background()
	idx := feature.NewIndex()
	set, err := weights.Read(ctx, filepath.Join(dir, "init.weights"), idx)
	if err != nil {
		return nil, nil, nil, err
	}
	refs, err := corpus.LoadRefs(ctx, []string{filepath.Join(dir, "reference")})
	if err != nil {
		return nil, nil, nil, err
	}
	sc, err := pool.NewScorer(refs, m)
	if err != nil {
		return nil, nil, nil, err
	}
	lists, _, err := poolfile.Load(ctx, []string{filepath.Join(dir, "nbest.gz")}, idx, sc, poolfile.Options{})
	if err != nil {
		return nil, nil, nil, err
	}
	if n := pool.Size(lists); n != Hyps {
		return nil, nil, nil, fmt.Errorf("europarl100: %s holds %d hypotheses, want %d", dir, n, Hyps)
	}
	return lists, set.Weights, idx, nil
}
