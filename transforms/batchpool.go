package transforms

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/tune"
)

// WritePool writes batch mode's pool after an epoch by parts: it takes the
// epoch's decoded lists, a PCollection<tune.NBest>, groups them by pool
// part (tune.PoolPartOf) and writes each part (tune.MergePoolPart: the
// previous epoch's part plus what is new) on the worker that holds the
// group. It returns the parts' PCollection<tune.PoolPartInfo>.
func WritePool(s beam.Scope, lists beam.PCollection, fn *WritePoolFn) beam.PCollection {
	s = s.Scope("transforms.WritePool")
	keyed := beam.ParDo(s, poolPartKey, lists)
	return beam.ParDo(s, fn, beam.GroupByKey(s, keyed))
}

// poolPartKey keys a list by its pool part.
func poolPartKey(n tune.NBest) (int, tune.NBest) { return tune.PoolPartOf(n.Sent), n }

// WritePoolFn writes one pool part (see WritePool).
type WritePoolFn struct {
	// Prev is the previous epoch's folder, whose parts hold the pool so
	// far; the zero value for the first epoch.
	Prev tune.EpochLayout
	// Out is the epoch's folder.
	Out tune.EpochLayout
	// Dense names the weights' dense features.
	Dense []string
}

func (f *WritePoolFn) ProcessElement(ctx context.Context, part int, iter func(*tune.NBest) bool) (tune.PoolPartInfo, error) {
	var lists []tune.NBest
	var n tune.NBest
	for iter(&n) {
		lists = append(lists, n)
		n = tune.NBest{}
	}
	var prev tune.PoolPart
	if f.Prev.Dir != "" {
		prev = f.Prev.PoolPart(part)
	}
	return tune.MergePoolPart(ctx, part, prev, lists, f.Dense, f.Out.PoolPart(part))
}

// BatchLearn is the optimizer step of a batch epoch on one worker: it
// waits for every part of the pool (the PCollection<tune.PoolPartInfo> of
// WritePool), writes their summary (tune.PoolSummary) and, unless fn.Step
// is nil, runs the optimizer over the parts (tune.BatchStep.RunParts) and
// writes its weights and result.
func BatchLearn(s beam.Scope, infos beam.PCollection, fn *BatchLearnFn) {
	s = s.Scope("transforms.BatchLearn")
	beam.ParDo0(s, fn, beam.GroupByKey(s, beam.AddFixedKey(s, infos)))
}

// BatchLearnFn is BatchLearn's DoFn.
type BatchLearnFn struct {
	// Step is the optimizer; nil only writes the summary (MERT runs its
	// passes in later launches).
	Step *tune.BatchStep
	// Epoch is the 1-based epoch, Dir its folder.
	Epoch int
	Dir   tune.EpochLayout
	// Prev is the previous weights' JSON file.
	Prev string
	// Parts is the number of parts the tuning set has.
	Parts int
}

func (f *BatchLearnFn) ProcessElement(ctx context.Context, _ int, iter func(*tune.PoolPartInfo) bool) error {
	var sum tune.PoolSummary
	seen := make([]bool, f.Parts)
	var info tune.PoolPartInfo
	for iter(&info) {
		if info.Part < 0 || info.Part >= f.Parts || seen[info.Part] {
			return fmt.Errorf("transforms: pool part %d of %d twice or out of range", info.Part, f.Parts)
		}
		seen[info.Part] = true
		sum.Add(info)
		info = tune.PoolPartInfo{}
	}
	if i := slices.Index(seen, false); i >= 0 {
		return fmt.Errorf("transforms: pool part %d of %d was not written", i, f.Parts)
	}
	if err := tune.WriteJSON(ctx, f.Dir.PoolSummary(), sum); err != nil {
		return err
	}
	log.Infof(ctx, "mtune: epoch %d: pool of %d sentences, %d hypotheses, %d features", f.Epoch, sum.Sentences, sum.Hyps, len(sum.Names))
	if f.Step == nil {
		return nil
	}
	prev, err := weights.ReadByName(ctx, f.Prev)
	if err != nil {
		return err
	}
	parts := make([]tune.PoolPart, f.Parts)
	for p := range parts {
		parts[p] = f.Dir.PoolPart(p)
	}
	ww, m, err := f.Step.RunParts(ctx, f.Epoch, parts, prev, f.Dir.LearnerState())
	if err != nil {
		return err
	}
	if err := weights.WriteByName(ctx, f.Dir.Mixed(), ww); err != nil {
		return err
	}
	return tune.WriteJSON(ctx, f.Dir.BatchResult(), tune.BatchResult{Sentences: m.Sentences, Pool: m.Pool, TuneBLEU: m.TuneBLEU})
}
