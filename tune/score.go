package tune

import (
	"context"
	"fmt"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
)

// ScoreSet decodes every sentence of sents with dec under the weights ww
// (DecodeSentences, 1-best) and returns the BLEU statistics of each 1-best
// translation against the sentence's references, in id order (o.NBest is
// ignored; o.Threads sentences are decoded at once). It is what a
// retraining gate compares two weight vectors on, sentence by sentence.
func ScoreSet(ctx context.Context, dec Decoder, sents []Sentence, ww weights.ByName, o DecodeOptions) ([]metric.Stats, error) {
	w, err := ww.Over(dec.Features())
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	o.NBest = 1
	lists, _, err := DecodeSentences(ctx, dec, sents, w, o)
	if err != nil {
		return nil, err
	}
	out := make([]metric.Stats, len(lists))
	for i, nb := range lists {
		out[i] = nb.Hyps[0].Stats
	}
	return out, nil
}
