package transforms

import (
	"context"
	"fmt"
	"slices"

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
	// Step is the epoch's optimizer, Epoch the 1-based epoch: a step that
	// samples pairs has them sampled here.
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
	info, err := tune.MergePoolPart(ctx, part, prev, lists, f.Dense, f.Out.PoolPart(part))
	if err != nil {
		return tune.PartResult{}, err
	}
	res := tune.PartResult{Info: info}
	if f.Step != nil && f.Step.SamplesPairs() {
		if res, err = f.Step.SamplePart(ctx, f.Epoch, part, f.Out.PoolPart(part)); err != nil {
			return tune.PartResult{}, err
		}
		res.Info = info
	}
	return res, nil
}

// BatchLearn is the optimizer step of a batch epoch on one worker: it
// waits for every part of the pool (the PCollection<tune.PartResult> of
// WritePool), writes their summary (tune.PoolSummary) and, unless fn.Step
// is nil, runs the optimizer — PRO on the parts' pairs
// (tune.BatchStep.FitPRO), the others over the parts read back
// (tune.BatchStep.RunParts) — and writes its weights and result. It
// returns the new weights, a singleton PCollection<weights.ByName> (empty
// when fn.Step is nil), so that the same launch can score them.
func BatchLearn(s beam.Scope, infos beam.PCollection, fn *BatchLearnFn) beam.PCollection {
	s = s.Scope("transforms.BatchLearn")
	return beam.ParDo(s, fn, beam.GroupByKey(s, beam.AddFixedKey(s, infos)))
}

// BatchLearnFn is BatchLearn's DoFn.
type BatchLearnFn struct {
	// Step is the optimizer; nil only writes the summary (MERT runs its
	// passes in later launches).
	Step *tune.BatchStep
	// Epoch is the 1-based epoch, Dir its folder.
	Epoch int
	Dir   rundir.EpochLayout
	// Prev is the previous weights' JSON file.
	Prev string
	// Parts is the number of parts the tuning set has.
	Parts int
}

func (f *BatchLearnFn) ProcessElement(ctx context.Context, _ int, iter func(*tune.PartResult) bool, emit func(weights.ByName)) error {
	var sum tune.PoolSummary
	seen := make([]bool, f.Parts)
	var results []tune.PartResult
	var r tune.PartResult
	for iter(&r) {
		info := r.Info
		if info.Part < 0 || info.Part >= f.Parts || seen[info.Part] {
			return fmt.Errorf("transforms: pool part %d of %d twice or out of range", info.Part, f.Parts)
		}
		seen[info.Part] = true
		sum.Add(info)
		if len(r.Pairs) > 0 {
			results = append(results, r)
		}
		r = tune.PartResult{}
	}
	if i := slices.Index(seen, false); i >= 0 {
		return fmt.Errorf("transforms: pool part %d of %d was not written", i, f.Parts)
	}
	if err := rundir.WriteJSON(ctx, f.Dir.PoolSummary(), sum); err != nil {
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
	var ww weights.ByName
	var res tune.BatchResult
	if f.Step.SamplesPairs() {
		slices.SortFunc(results, func(a, b tune.PartResult) int { return a.Info.Part - b.Info.Part })
		ww, res, err = f.Step.FitPRO(ctx, f.Epoch, results, sum, prev, f.Dir.LearnerState())
	} else {
		parts := make([]rundir.PoolPart, f.Parts)
		for p := range parts {
			parts[p] = f.Dir.PoolPart(p)
		}
		var m rundir.Metrics
		ww, m, err = f.Step.RunParts(ctx, f.Epoch, parts, prev, f.Dir.LearnerState())
		res = tune.BatchResult{Sentences: m.Sentences, Pool: m.Pool, TuneBLEU: m.TuneBLEU}
	}
	if err != nil {
		return err
	}
	if err := weights.WriteByName(ctx, f.Dir.Mixed(), ww); err != nil {
		return err
	}
	if err := rundir.WriteJSON(ctx, f.Dir.BatchResult(), res); err != nil {
		return err
	}
	emit(ww)
	return nil
}

// PoolBLEU sums the statistics of the pool's 1-bests under the weights w
// (a singleton PCollection<weights.ByName>, such as BatchLearn's), part by
// part on the workers (tune.PartOneBest): parts is a PCollection<int> of
// part numbers of the pool in dir. It returns the sum, a singleton
// PCollection<metric.Stats> whose BLEU() is batch mode's tune BLEU.
func PoolBLEU(s beam.Scope, parts beam.PCollection, dir rundir.EpochLayout, w beam.PCollection) beam.PCollection {
	s = s.Scope("transforms.PoolBLEU")
	stats := beam.ParDo(s, &partOneBestFn{Dir: dir}, beam.Reshuffle(s, parts), beam.SideInput{Input: w})
	return SumStats(s, stats)
}

// partOneBestFn is PoolBLEU's DoFn.
type partOneBestFn struct {
	Dir rundir.EpochLayout
}

func (f *partOneBestFn) ProcessElement(ctx context.Context, part int, w weights.ByName) (metric.Stats, error) {
	return tune.PartOneBest(ctx, f.Dir.PoolPart(part), w)
}
