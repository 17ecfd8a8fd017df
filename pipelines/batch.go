package pipelines

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/pool/poolfile"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// batchEpoch is the tune.Epocher of --mode batch (runBatchEpoch).
type batchEpoch struct {
	o     *Options
	tune  []transforms.Sentence
	start string // the run's starting weights (init/weights.json)
	dense []string
}

func (e *batchEpoch) Epoch(ctx context.Context, n int) (Metrics, error) {
	return runBatchEpoch(ctx, e.o, n, e.tune, e.start, e.dense)
}

// runBatchEpoch is epoch n of --mode batch: one pipeline launch decodes the
// tuning set with the previous epoch's weights into a Moses n-best file
// (epochs/NNN/nbest.gz) and the 1-bests' statistics (work/decoded-stats.json);
// the driver then pools the files of epochs 1…n as tune-nbest does
// (poolfile.Load: distinct target and features per sentence) and runs the
// batch optimizer o.Algo on the pool, starting from the previous weights. Tune BLEU is the 1-best
// BLEU of the pool re-ranked by the new weights (no second decoding).
func runBatchEpoch(ctx context.Context, o *Options, n int, tuneSet []transforms.Sentence, startPath string, dense []string) (Metrics, error) {
	t0 := time.Now()
	dir := o.layout().Epoch(n)
	prevPath := startPath
	if n > 1 {
		prevPath = o.layout().Epoch(n - 1).JSON()
	}
	nbestPath := dir.NBests()
	decodedPath := dir.DecodedStats()
	decOpts := transforms.DecodeOptions{NBest: o.NBest}
	p, s := beam.NewPipelineWithRoot()
	sents := transforms.ReadSentences(s, o.Src, o.Refs, len(tuneSet))
	w := transforms.ReadWeights(s, prevPath)
	dec := &transforms.DecodeFn{Decoder: o.Decoder, DecoderConfig: o.decoderConfig(), Options: decOpts}
	lists := transforms.Decode(s, dec, sents, w)
	transforms.WriteNBests(s, lists, nbestPath, dense)
	writeStats(s, transforms.DecodedStats(s, lists), decodedPath)
	exec := o.Execute
	if exec == nil {
		exec = beamx.Run
	}
	if err := exec(ctx, p); err != nil {
		return Metrics{}, &PipelineError{Epoch: n, Err: err}
	}

	prev, err := transforms.ReadWeightsFile(ctx, prevPath)
	if err != nil {
		return Metrics{}, err
	}
	var decoded metric.Stats
	if err := tune.ReadJSON(ctx, decodedPath, &decoded); err != nil {
		return Metrics{}, err
	}
	// The pool: every epoch's n-best file, de-duplicated by target and
	// features as Moses' extractor and tune-nbest do, scored as the
	// pipeline scored them.
	refs := make([][]string, len(tuneSet))
	for i, x := range tuneSet {
		if x.ID != i {
			return Metrics{}, fmt.Errorf("pipelines: tuning sentence %d has id %d", i, x.ID)
		}
		refs[i] = x.Refs
	}
	sc, err := decOpts.Scorer(refs)
	if err != nil {
		return Metrics{}, fmt.Errorf("pipelines: %w", err)
	}
	paths := make([]string, n)
	for k := 1; k <= n; k++ {
		paths[k-1] = o.layout().Epoch(k).NBests()
	}
	idx := feature.NewIndexOf(prev.Names...)
	pooled, _, err := poolfile.Load(ctx, paths, idx, sc, poolfile.Options{})
	if err != nil {
		return Metrics{}, fmt.Errorf("pipelines: epoch %d: pooling n-best lists: %w", n, err)
	}
	w0, err := prev.Over(idx)
	if err != nil {
		return Metrics{}, fmt.Errorf("pipelines: %w", err)
	}
	cfg := o.AlgoConfig
	cfg.Seed = tune.EpochSeed(o.Seed, n-1)
	l, err := algo.New(o.Algo, w0, cfg)
	if err != nil {
		return Metrics{}, fmt.Errorf("pipelines: %w", err)
	}
	if err := l.Learn(ctx, pooled); err != nil {
		return Metrics{}, fmt.Errorf("pipelines: epoch %d: %s: %w", n, o.Algo, err)
	}
	nw := l.Weights()
	if !nw.Finite() {
		return Metrics{}, fmt.Errorf("pipelines: epoch %d: %s returned weights that are not finite", n, o.Algo)
	}
	if !o.KeepScale {
		// Moses' mert convention. The re-ranking of a fixed pool does not
		// depend on the scale, but the decoder's beam pruning (a threshold
		// relative to the best score) does: kb-MIRA's weights come out
		// 10-30 times larger than MERT's, and decoding with them pruned
		// far harder (5 s instead of 25 s for the europarl tuneSet split,
		// 0.4 BLEU lower on test).
		nw = nw.Clone()
		nw.NormalizeL1()
	}
	state, err := l.MarshalBinary()
	if err != nil {
		return Metrics{}, fmt.Errorf("pipelines: %w", err)
	}
	if err := storage.WriteFile(ctx, dir.LearnerState(), state); err != nil {
		return Metrics{}, fmt.Errorf("pipelines: %w", err)
	}
	ww := transforms.NewWireWeights(idx, nw)
	m := Metrics{Epoch: n, Sentences: len(tuneSet), Pool: pool.Size(pooled), ProgressiveBLEU: 100 * decoded.BLEU()}
	st := pool.OneBest(pooled, nw)
	m.TuneBLEU = 100 * st.BLEU()
	return finishMetrics(ctx, m, dir.Dir, ww, dense, t0)
}
