package transforms

import (
	"context"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/learner/linesearch"
	"github.com/mtune/mtune/learner/mert"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/tune"
)

// MERTRound runs one round of batch MERT's passes over the pool's parts:
// each of parts (a PCollection<int> of part numbers) is read on a worker,
// which computes its share (tune.MERTShare: 1-best statistics at every
// run's point, envelopes along every line); the envelopes of each line
// meet in a CombineFn (MERTLineFn) that sweeps them, the statistics of each
// run are summed, and the round's mert.PassResult is written to path. No
// worker holds more of the pool than a part, nor more of the envelopes
// than those of one line.
func MERTRound(s beam.Scope, parts beam.PCollection, fn *MERTShareFn, path string) {
	s = s.Scope("transforms.MERTRound")
	envs, stats := beam.ParDo2(s, fn, beam.Reshuffle(s, parts))
	swept := beam.ParDo(s, searchItem, beam.CombinePerKey(s, &MERTLineFn{Metric: fn.Round.Metric}, envs))
	summed := beam.ParDo(s, statsItem, beam.CombinePerKey(s, &SumStatsFn{}, stats))
	items := beam.Flatten(s, swept, summed)
	beam.ParDo0(s, &writeRoundFn{Path: path, Round: fn.Round.Pass}, beam.GroupByKey(s, beam.AddFixedKey(s, items)))
}

// MERTShareFn computes a part's share of a round: PCollection<int> (part
// numbers) to PCollection<KV<int, linesearch.Packed>> (envelopes by
// tune.LineKey, packed: they go through the shuffle) and
// PCollection<KV<int, metric.Stats>> (by run index).
type MERTShareFn struct {
	Round tune.MERTRound
	// Dir is the epoch's folder, which holds the pool's parts.
	Dir rundir.EpochLayout
}

func (f *MERTShareFn) ProcessElement(ctx context.Context, part int, envs func(int, linesearch.Packed), stats func(int, metric.Stats)) error {
	sh, err := tune.MERTShare(ctx, f.Dir.PoolPart(part), f.Round)
	if err != nil {
		return err
	}
	stride := tune.LineStride(f.Round.Pass)
	for i := range sh.Stats {
		stats(i, sh.Stats[i])
		for d, e := range sh.Envelopes[i] {
			p, err := e.Pack()
			if err != nil {
				return fmt.Errorf("transforms: MERT round %d part %d: %w", f.Round.Pass.N, part, err)
			}
			envs(tune.LineKey(i, d, stride), p)
		}
	}
	return nil
}

// MERTLineFn merges the envelopes of one line, packed (linesearch.Packed),
// and sweeps them (tune.SearchLine) for the corpus score of Metric, the
// run's metric spec ("" is BLEU).
type MERTLineFn struct{ Metric string }

// CreateAccumulator returns the empty union.
func (f *MERTLineFn) CreateAccumulator() linesearch.Packed { return linesearch.Packed{} }

// AddInput merges a part's envelopes.
func (f *MERTLineFn) AddInput(a, x linesearch.Packed) (linesearch.Packed, error) {
	return f.MergeAccumulators(a, x)
}

// MergeAccumulators merges b into a.
func (f *MERTLineFn) MergeAccumulators(a, b linesearch.Packed) (linesearch.Packed, error) {
	if err := a.Merge(b); err != nil {
		return a, fmt.Errorf("transforms: %w", err)
	}
	return a, nil
}

// ExtractOutput sweeps the line.
func (f *MERTLineFn) ExtractOutput(a linesearch.Packed) (linesearch.Result, error) {
	e, err := a.Unpack()
	if err != nil {
		return linesearch.Result{}, fmt.Errorf("transforms: %w", err)
	}
	return tune.SearchLine(e, f.Metric)
}

func searchItem(key int, r linesearch.Result) tune.RoundItem {
	return tune.RoundItem{Key: key, Line: true, Search: r}
}

func statsItem(key int, st metric.Stats) tune.RoundItem { return tune.RoundItem{Key: key, Stats: st} }

// writeRoundFn writes a round's items (tune.WriteRound) to Path.
type writeRoundFn struct {
	Path  string
	Round mert.Pass
}

func (f *writeRoundFn) ProcessElement(ctx context.Context, _ int, iter func(*tune.RoundItem) bool) error {
	var items []tune.RoundItem
	for it := (tune.RoundItem{}); iter(&it); it = (tune.RoundItem{}) {
		items = append(items, it)
	}
	return tune.WriteRound(ctx, f.Round, items, f.Path)
}
