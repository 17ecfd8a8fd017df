package pipelines

import (
	"context"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// batchEpoch is the tune.Epocher of --mode batch (runBatchEpoch).
type batchEpoch struct {
	o      *Options
	ranges *corpus.Index
	dev    *corpus.Index   // nil without a dev set
	tune   []tune.Sentence // loaded by the first epoch
	start  string          // the run's starting weights (init/weights.json)
	dense  []string
}

// Epoch runs epoch n. The optimizer step (tune.BatchStep) needs every
// sentence's references on the driver: batch mode, unlike ipm and stale,
// still holds the tuning set there.
func (e *batchEpoch) Epoch(ctx context.Context, n int) (Metrics, error) {
	if e.tune == nil {
		var err error
		if e.tune, _, err = sentences(ctx, e.o.Src, e.o.Refs); err != nil {
			return Metrics{}, err
		}
	}
	t0 := time.Now()
	m, ww, err := runBatchEpoch(ctx, e.o, n, e.ranges, e.tune, e.start, e.dense)
	if err != nil {
		return Metrics{}, err
	}
	if e.dev != nil {
		if m.DevBLEU, err = scoreDev(ctx, e.o, n, e.dev, ww); err != nil {
			return Metrics{}, err
		}
	}
	return tune.FinishEpoch(ctx, e.o.layout().Epoch(n), m, ww, e.dense, t0)
}

// scoreDev is the second launch of batch epoch n with a dev set (Moses'
// --return-best-dev): it decodes the dev set with the epoch's new weights
// ww, which the driver's optimizer step made after the first launch, and
// returns their dev BLEU, by which the best epoch is then chosen.
func scoreDev(ctx context.Context, o *Options, n int, dev *corpus.Index, ww weights.ByName) (*float64, error) {
	dir := o.layout().Epoch(n)
	if err := weights.WriteByName(ctx, dir.Mixed(), ww); err != nil {
		return nil, err
	}
	p, s := beam.NewPipelineWithRoot()
	w := transforms.ReadWeights(s, dir.Mixed())
	o.oneBest(s, "dev", transforms.ReadSentences(s.Scope("dev"), dev.Ranges()), dev.Lines, w, dir.DevStats())
	if _, _, err := execute(ctx, o, p); err != nil {
		return nil, &PipelineError{Epoch: n, Err: err}
	}
	b, err := tune.ReadBLEU(ctx, dir.DevStats())
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// runBatchEpoch is epoch n of --mode batch: one pipeline launch decodes the
// tuning set with the previous epoch's weights into a Moses n-best file
// (epochs/NNN/nbest.gz) and the 1-bests' statistics (work/decoded-stats.json);
// the driver then pools the files of epochs 1…n as tune-nbest does
// (poolfile.Load: distinct target and features per sentence) and runs the
// batch optimizer o.Algo on the pool, starting from the previous weights. Tune BLEU is the 1-best
// BLEU of the pool re-ranked by the new weights (no second decoding). It
// returns the epoch's metrics and new weights, for scoreDev and
// tune.FinishEpoch.
func runBatchEpoch(ctx context.Context, o *Options, n int, ranges *corpus.Index, tuneSet []tune.Sentence, startPath string, dense []string) (Metrics, weights.ByName, error) {
	dir := o.layout().Epoch(n)
	prevPath := startPath
	if n > 1 {
		prevPath = o.layout().Epoch(n - 1).JSON()
	}
	nbestPath := dir.NBests()
	decodedPath := dir.DecodedStats()
	decOpts := tune.DecodeOptions{NBest: o.NBest}
	p, s := beam.NewPipelineWithRoot()
	sents := transforms.ReadSentences(s, ranges.Ranges())
	w := transforms.ReadWeights(s, prevPath)
	dec := &transforms.DecodeFn{Decoder: o.Decoder, DecoderConfig: o.decoderConfig(), Options: decOpts, Sentences: len(tuneSet)}
	lists := transforms.Decode(s, dec, sents, w)
	transforms.WriteNBests(s, lists, nbestPath, dense)
	writeStats(s, transforms.DecodedStats(s, lists), decodedPath)
	counters, dists, err := execute(ctx, o, p)
	if err != nil {
		return Metrics{}, weights.ByName{}, &PipelineError{Epoch: n, Err: err}
	}

	prev, err := weights.ReadByName(ctx, prevPath)
	if err != nil {
		return Metrics{}, weights.ByName{}, err
	}
	var decoded metric.Stats
	if err := tune.ReadJSON(ctx, decodedPath, &decoded); err != nil {
		return Metrics{}, weights.ByName{}, err
	}
	paths := make([]string, n)
	for k := 1; k <= n; k++ {
		paths[k-1] = o.layout().Epoch(k).NBests()
	}
	step := tune.BatchStep{Algo: o.Algo, Config: o.AlgoConfig, Seed: o.Seed, Decode: decOpts, KeepScale: o.KeepScale}
	ww, m, err := step.Run(ctx, n, tuneSet, paths, prev, dir.LearnerState())
	if err != nil {
		return Metrics{}, weights.ByName{}, err
	}
	m.ProgressiveBLEU = 100 * decoded.BLEU()
	m.Counters, m.Distributions = counters, dists
	return m, ww, nil
}
