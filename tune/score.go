package tune

import (
	"context"
	"fmt"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
)

// ScoreSet decodes every sentence of sents with dec under the weights ww
// and returns the BLEU statistics of each 1-best translation against the
// sentence's references, in the order of sents (o.NBest is ignored;
// o.Threads sentences are decoded at once). It is what a retraining gate
// compares two weight vectors on, sentence by sentence.
func ScoreSet(ctx context.Context, dec Decoder, sents []Sentence, ww weights.ByName, o DecodeOptions) ([]metric.Stats, error) {
	o.NBest = 1
	if err := o.Validate(); err != nil {
		return nil, err
	}
	sc, err := newScorer(o)
	if err != nil {
		return nil, err
	}
	w, err := ww.Over(dec.Features())
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	refs := make([]*metric.Reference, len(sents))
	for i, x := range sents {
		if refs[i], err = sc.reference(x); err != nil {
			return nil, err
		}
	}
	hyps, err := decodeAll(ctx, dec, sents, w, o)
	if err != nil {
		return nil, err
	}
	out := make([]metric.Stats, len(sents))
	for i := range sents {
		out[i] = sc.stats(refs[i], hyps[i][:1])[0]
	}
	return out, nil
}
