package transforms

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/tune"
)

// WritePool writes batch mode's pool after an epoch by parts: it takes the
// epoch's decoded lists, a PCollection<tune.NBest>, groups them by pool
// part (tune.PoolPartOf) and writes each part (tune.MergePoolPart: the
// previous epoch's part plus what is new) on the worker that holds the
// group; for PRO (fn.Step.SamplesPairs) the worker then samples the
// part's pairs (tune.BatchStep.SamplePart). It returns the parts'
// PCollection<tune.PartResult>.
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
	Prev rundir.EpochLayout
	// Out is the epoch's folder.
	Out rundir.EpochLayout
	// Dense names the weights' dense features.
	Dense []string
	// Step is the epoch's optimizer (required), Epoch the 1-based epoch:
	// a step that samples pairs has them sampled here.
	Step  *tune.BatchStep
	Epoch int
}

func (f *WritePoolFn) ProcessElement(ctx context.Context, part int, iter func(*tune.NBest) bool) (tune.PartResult, error) {
	var lists []tune.NBest
	var n tune.NBest
	for iter(&n) {
		lists = append(lists, n)
		n = tune.NBest{}
	}
	var prev rundir.PoolPart
	if f.Prev.Dir != "" {
		prev = f.Prev.PoolPart(part)
	}
	return f.Step.WritePart(ctx, f.Epoch, part, prev, f.Out.PoolPart(part), lists, f.Dense)
}

// BatchLearn is the optimizer step of a batch epoch on one worker
// (tune.BatchLearn.Run): it waits for every part of the pool (the
// PCollection<tune.PartResult> of WritePool), writes their summary and,
// unless fn.Learn.Step is nil, runs the optimizer and writes its weights
// and result. It returns the new weights, a singleton
// PCollection<weights.ByName> (empty when fn.Learn.Step is nil), so that
// the same launch can score them.
func BatchLearn(s beam.Scope, infos beam.PCollection, fn *BatchLearnFn) beam.PCollection {
	s = s.Scope("transforms.BatchLearn")
	return beam.ParDo(s, fn, beam.GroupByKey(s, beam.AddFixedKey(s, infos)))
}

// BatchLearnFn is BatchLearn's DoFn.
type BatchLearnFn struct {
	Learn tune.BatchLearn
}

func (f *BatchLearnFn) ProcessElement(ctx context.Context, _ int, iter func(*tune.PartResult) bool, emit func(weights.ByName)) error {
	results := func(yield func(tune.PartResult) bool) {
		var r tune.PartResult
		for iter(&r) && yield(r) {
			r = tune.PartResult{}
		}
	}
	ww, err := f.Learn.Run(ctx, results, log.Infof)
	if err == nil && f.Learn.Step != nil {
		emit(ww)
	}
	return err
}

// PoolStats sums the statistics of the pool's 1-bests under the weights w
// (a singleton PCollection<weights.ByName>, such as BatchLearn's), part by
// part on the workers (tune.PartOneBest): parts is a PCollection<int> of
// part numbers of the pool in dir. It returns the sum, a singleton
// PCollection<metric.Stats> whose corpus score is batch mode's tune score.
func PoolStats(s beam.Scope, parts beam.PCollection, dir rundir.EpochLayout, w beam.PCollection) beam.PCollection {
	s = s.Scope("transforms.PoolStats")
	stats := beam.ParDo(s, &partOneBestFn{Dir: dir}, beam.Reshuffle(s, parts), beam.SideInput{Input: w})
	return SumStats(s, stats)
}

// partOneBestFn is PoolStats's DoFn.
type partOneBestFn struct {
	Dir rundir.EpochLayout
}

func (f *partOneBestFn) ProcessElement(ctx context.Context, part int, w weights.ByName) (metric.Stats, error) {
	return tune.PartOneBest(ctx, f.Dir.PoolPart(part), w)
}
