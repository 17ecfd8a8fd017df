package tune

import (
	"context"
	"fmt"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/pool/poolfile"
)

// BatchStep is the driver's half of a batch-mode epoch (the MERT
// architecture of Cherry & Foster 2012; Moses' mert-moses.pl): pool the
// n-best files of every epoch so far, de-duplicated by target and features
// as Moses' extractor and tune-nbest do and scored as the pipeline scored
// them, and run a batch optimizer on the pool from the previous weights.
type BatchStep struct {
	// Algo names a learner of learner/algo; Config its settings
	// (Config.Seed is set from Seed and the epoch).
	Algo   string
	Config algo.Config
	Seed   uint64
	// Decode is the pipeline's decoding and scoring (its Scorer scores the
	// pooled hypotheses).
	Decode DecodeOptions
	// KeepScale keeps the optimizer's weights as they are; by default
	// they are scaled to an L1 norm of 1, Moses' mert convention: the
	// re-ranking of a fixed pool does not depend on the scale, but the
	// decoder's beam pruning (a threshold relative to the best score)
	// does — kb-MIRA's weights come out 10-30 times larger than MERT's,
	// and decoding with them pruned far harder (5 s instead of 25 s for
	// the europarl tune split, 0.4 BLEU lower on test).
	KeepScale bool
}

// Run runs epoch n's optimizer over the n-best files nbests (every epoch's
// so far) of the tuning set sents, starting from prev, and saves the
// learner's state at statePath. It returns the new weights and the epoch's
// metrics: pool size and tune BLEU (the pool's 1-best under the new
// weights: no second decoding).
func (b BatchStep) Run(ctx context.Context, n int, sents []Sentence, nbests []string, prev weights.ByName, statePath string) (weights.ByName, Metrics, error) {
	refs := make([][]string, len(sents))
	for i, x := range sents {
		if x.ID != i {
			return weights.ByName{}, Metrics{}, fmt.Errorf("tune: tuning sentence %d has id %d", i, x.ID)
		}
		refs[i] = x.Refs
	}
	sc, err := b.Decode.Scorer(refs)
	if err != nil {
		return weights.ByName{}, Metrics{}, err
	}
	idx := feature.NewIndexOf(prev.Names...)
	pooled, _, err := poolfile.Load(ctx, nbests, idx, sc, poolfile.Options{})
	if err != nil {
		return weights.ByName{}, Metrics{}, fmt.Errorf("tune: epoch %d: pooling n-best lists: %w", n, err)
	}
	w0, err := prev.Over(idx)
	if err != nil {
		return weights.ByName{}, Metrics{}, fmt.Errorf("tune: %w", err)
	}
	cfg := b.Config
	cfg.Seed = EpochSeed(b.Seed, n-1)
	l, err := algo.New(b.Algo, w0, cfg)
	if err != nil {
		return weights.ByName{}, Metrics{}, fmt.Errorf("tune: %w", err)
	}
	if err := l.Learn(ctx, pooled); err != nil {
		return weights.ByName{}, Metrics{}, fmt.Errorf("tune: epoch %d: %s: %w", n, b.Algo, err)
	}
	nw := l.Weights()
	if !nw.Finite() {
		return weights.ByName{}, Metrics{}, fmt.Errorf("tune: epoch %d: %s returned weights that are not finite", n, b.Algo)
	}
	if !b.KeepScale {
		nw = nw.Clone()
		nw.NormalizeL1()
	}
	state, err := l.MarshalBinary()
	if err != nil {
		return weights.ByName{}, Metrics{}, fmt.Errorf("tune: %w", err)
	}
	if err := storage.WriteFile(ctx, statePath, state); err != nil {
		return weights.ByName{}, Metrics{}, fmt.Errorf("tune: %w", err)
	}
	var st metric.Stats = pool.OneBest(pooled, nw)
	m := Metrics{Epoch: n, Sentences: len(sents), Pool: pool.Size(pooled), TuneBLEU: 100 * st.BLEU()}
	return weights.NewByName(idx, nw), m, nil
}
