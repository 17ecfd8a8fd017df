package tune

import (
	"context"
	"encoding"
	"fmt"
	"iter"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/rundir"
)

// BatchStep is the optimizer's half of a batch-mode epoch (the MERT
// architecture of Cherry & Foster 2012; Moses' mert-moses.pl): run a batch
// optimizer from the previous weights on the pool, every distinct
// hypothesis (target and features, as Moses' extractor and tune-nbest
// de-duplicate) decoded so far, scored as the pipeline scored it. The pool
// is kept by parts (MergePoolPart); MERT's passes run over the parts in
// the pipeline (MERTRun, MERTShare), PRO samples its pairs by part and
// fits them on one worker (SamplePart, FitPRO), the other optimizers read
// the whole pool on one worker (RunParts).
type BatchStep struct {
	// Algo names a learner of learner/algo; Config its settings
	// (Config.Seed is set from Seed and the epoch).
	Algo   string
	Config algo.Config
	Seed   uint64
	// Metric is the run's metric, a spec (DecodeOptions.Metric: it
	// reaches the workers where Config's metric would not); "" is BLEU.
	Metric string
	// KeepScale keeps the optimizer's weights as they are; by default
	// they are scaled to an L1 norm of 1, Moses' mert convention: the
	// re-ranking of a fixed pool does not depend on the scale, but the
	// decoder's beam pruning (a threshold relative to the best score)
	// does — kb-MIRA's weights come out 10-30 times larger than MERT's,
	// and decoding with them pruned far harder (5 s instead of 25 s for
	// the europarl tune split, 0.4 BLEU lower on test).
	KeepScale bool
	// Added are the features added to each epoch's new lists by commands
	// (--feature-command), once a pool part (WritePart); the optimizer
	// tunes their weights as the decoder's.
	Added FeatureCommands
}

// RunParts is the optimizer step of epoch n on one machine: it reads the
// pool's parts (every epoch's hypotheses so far, written by MergePoolPart),
// runs the optimizer on them from prev and saves the learner's state at
// statePath. It returns the new weights and the epoch's metrics: pool size
// and tune BLEU (the pool's 1-best under the new weights: no second
// decoding). The whole pool is in memory: see the README for how large a
// pool one worker holds.
func (b BatchStep) RunParts(ctx context.Context, n int, parts []rundir.PoolPart, prev weights.ByName, statePath string) (weights.ByName, rundir.Metrics, error) {
	idx := feature.NewIndexOf(prev.Names...)
	var pooled []pool.List
	for _, p := range parts {
		lists, err := ReadPoolPart(ctx, p, idx)
		if err != nil {
			return weights.ByName{}, rundir.Metrics{}, fmt.Errorf("tune: epoch %d: %w", n, err)
		}
		pooled = append(pooled, lists...)
	}
	for i := 1; i < len(pooled); i++ {
		if pooled[i].Sent <= pooled[i-1].Sent {
			return weights.ByName{}, rundir.Metrics{}, fmt.Errorf("tune: epoch %d: the pool's parts are out of order (sentence %d after %d)", n, pooled[i].Sent, pooled[i-1].Sent)
		}
	}
	w0, err := prev.Over(idx)
	if err != nil {
		return weights.ByName{}, rundir.Metrics{}, fmt.Errorf("tune: %w", err)
	}
	cfg, err := b.config(n)
	if err != nil {
		return weights.ByName{}, rundir.Metrics{}, err
	}
	l, err := algo.New(b.Algo, w0, cfg)
	if err != nil {
		return weights.ByName{}, rundir.Metrics{}, fmt.Errorf("tune: %w", err)
	}
	if err := l.Learn(ctx, pooled); err != nil {
		return weights.ByName{}, rundir.Metrics{}, fmt.Errorf("tune: epoch %d: %s: %w", n, b.Algo, err)
	}
	nw, err := b.finish(n, l.Weights())
	if err != nil {
		return weights.ByName{}, rundir.Metrics{}, err
	}
	if err := saveState(ctx, statePath, l); err != nil {
		return weights.ByName{}, rundir.Metrics{}, err
	}
	m := rundir.Metrics{Epoch: n, Sentences: len(pooled), Pool: pool.Size(pooled), TuneScore: metric.CorpusScore(cfg.Metric(), pool.OneBest(pooled, nw))}
	return weights.NewByName(idx, nw), m, nil
}

// config returns the optimizer's settings in epoch n: Config with the
// epoch's seed and the metric.
func (b BatchStep) config(n int) (algo.Config, error) {
	m, err := b.metric()
	if err != nil {
		return algo.Config{}, err
	}
	cfg := b.Config
	cfg.Seed = EpochSeed(b.Seed, n-1)
	cfg.SetMetric(m)
	return cfg, nil
}

// metric returns the run's metric (Metric parsed).
func (b BatchStep) metric() (metric.Metric, error) {
	return DecodeOptions{Metric: b.Metric}.ParseMetric()
}

// finish checks the optimizer's weights and scales them to an L1 norm of 1
// unless KeepScale.
func (b BatchStep) finish(n int, nw feature.Weights) (feature.Weights, error) {
	if !nw.Finite() {
		return nil, fmt.Errorf("tune: epoch %d: %s returned weights that are not finite", n, b.Algo)
	}
	if !b.KeepScale {
		nw = nw.Clone()
		nw.NormalizeL1()
	}
	return nw, nil
}

// BatchLearn is the optimizer step of batch epoch Epoch on one worker,
// once every part of the pool is written (MergePoolPart, SamplePart;
// transforms.BatchLearn runs it).
type BatchLearn struct {
	// Step is the optimizer; nil only writes the pool's summary (MERT
	// runs its passes in later launches: MERTRun).
	Step *BatchStep
	// Epoch is the 1-based epoch, Dir its folder.
	Epoch int
	Dir   rundir.EpochLayout
	// Prev is the previous weights' JSON file.
	Prev string
	// Parts is the number of parts the tuning set has.
	Parts int
	// Dense names the run's dense features: the groups of the epoch's
	// weights trio.
	Dense []string
}

// Run takes the result of every part, each once (held only while they
// are summed, but for PRO's pairs), and writes their summary
// (EpochLayout.PoolSummary), which it reports to logf (nil: nowhere). With
// a Step it then runs the optimizer from the weights in Prev — PRO on the
// parts' pairs (FitPRO), the others over the parts read back (RunParts) —
// and writes its weights, the epoch's trio (weights.WriteTrioOf: written
// once, where the epoch ends), and result (EpochLayout.BatchResult). It returns the new weights (none without a
// Step).
func (b BatchLearn) Run(ctx context.Context, results iter.Seq[PartResult], logf func(ctx context.Context, format string, args ...any)) (weights.ByName, error) {
	var sum PoolSummary
	seen := make([]bool, b.Parts)
	var pairs []PartResult
	for r := range results {
		info := r.Info
		if info.Part < 0 || info.Part >= b.Parts || seen[info.Part] {
			return weights.ByName{}, fmt.Errorf("tune: pool part %d of %d twice or out of range", info.Part, b.Parts)
		}
		seen[info.Part] = true
		sum.Add(info)
		if len(r.Pairs) > 0 {
			pairs = append(pairs, r)
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		return weights.ByName{}, fmt.Errorf("tune: pool part %d of %d was not written", i, b.Parts)
	}
	if err := rundir.WriteJSON(ctx, b.Dir.PoolSummary(), sum); err != nil {
		return weights.ByName{}, err
	}
	if logf != nil {
		logf(ctx, "mtune: epoch %d: pool of %d sentences, %d hypotheses, %d features", b.Epoch, sum.Sentences, sum.Hyps, len(sum.Names))
	}
	if b.Step == nil {
		return weights.ByName{}, nil
	}
	prev, err := weights.ReadByName(ctx, b.Prev)
	if err != nil {
		return weights.ByName{}, err
	}
	var ww weights.ByName
	var res BatchResult
	if b.Step.SamplesPairs() {
		slices.SortFunc(pairs, func(a, b PartResult) int { return a.Info.Part - b.Info.Part })
		ww, res, err = b.Step.FitPRO(ctx, b.Epoch, pairs, sum, prev, b.Dir.LearnerState())
	} else {
		parts := make([]rundir.PoolPart, b.Parts)
		for p := range parts {
			parts[p] = b.Dir.PoolPart(p)
		}
		var m rundir.Metrics
		ww, m, err = b.Step.RunParts(ctx, b.Epoch, parts, prev, b.Dir.LearnerState())
		res = BatchResult{Sentences: m.Sentences, Pool: m.Pool, TuneScore: m.TuneScore}
	}
	if err != nil {
		return weights.ByName{}, err
	}
	if err := weights.WriteTrioOf(ctx, b.Dir.Dir, ww, b.Dense); err != nil {
		return weights.ByName{}, err
	}
	if err := rundir.WriteJSON(ctx, b.Dir.BatchResult(), res); err != nil {
		return weights.ByName{}, err
	}
	return ww, nil
}

// PoolSummary sums the PoolPartInfo of an epoch's parts.
type PoolSummary struct {
	Parts, Sentences, Hyps int
	// Names are the features the pool's hypotheses use, sorted.
	Names []string
}

// Add adds one part's information.
func (s *PoolSummary) Add(p PoolPartInfo) {
	s.Parts++
	s.Sentences += p.Sentences
	s.Hyps += p.Hyps
	s.Names = append(s.Names, p.Names...)
	slices.Sort(s.Names)
	s.Names = slices.Compact(s.Names)
}

// BatchResult is what batch mode's optimizer step writes for the driver
// (rundir.EpochLayout.BatchResult) next to the weights: the epoch's pool size,
// sentences and tune BLEU.
type BatchResult struct {
	Sentences, Pool int
	TuneScore       float64
	// Rounds counts the pipeline launches of MERT's passes (MERTRun); 0
	// for the optimizers that run on one worker.
	Rounds int `json:",omitempty"`
	// Pairs counts the pairs PRO sampled by part (FitPRO).
	Pairs int `json:",omitempty"`
}

// saveState writes a learner's MarshalBinary to path (state/learner.bin).
func saveState(ctx context.Context, path string, l encoding.BinaryMarshaler) error {
	state, err := l.MarshalBinary()
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	if err := storage.WriteFile(ctx, path, state); err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	return nil
}
