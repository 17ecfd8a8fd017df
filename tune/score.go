package tune

import (
	"context"
	"fmt"
	"runtime"

	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
)

// ScoreSet decodes every sentence of sents with dec under the weights ww
// (DecodeSentences, 1-best) and returns the statistics (o's metric) of
// each 1-best translation against the sentence's references, in id order
// (o.NBest is ignored; o.Threads sentences are decoded at once). It is what a
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

// LoadSentences loads a source and its references as Sentences, on this
// machine (the retraining gate's dev set): no source line may be empty.
func LoadSentences(ctx context.Context, src string, refs []string) ([]Sentence, error) {
	c, err := corpus.Load(ctx, src, refs)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	if empty := c.EmptySource(); len(empty) > 0 {
		return nil, fmt.Errorf("tune: %s: line %d is empty", src, empty[0]+1)
	}
	return SentencesOf(c, 0), nil
}

// DevScore returns each sentence's statistics (under the gate's metric) of
// a dev set decoded with the weights file at path: the retraining gate's
// input.
type DevScore func(ctx context.Context, path string) ([]metric.Stats, error)

// DevScorer returns the DevScore of the sentences dev decoded by dec on
// this machine, with every core (ScoreSet), scored as o says (its metric);
// the weights file "" means ini, the moses.ini's own weights.
func DevScorer(dec Decoder, dev []Sentence, ini string, o DecodeOptions) DevScore {
	o.Threads = runtime.NumCPU()
	return func(ctx context.Context, path string) ([]metric.Stats, error) {
		if path == "" {
			path = ini
		}
		ww, err := weights.ReadByName(ctx, path)
		if err != nil {
			return nil, err
		}
		return ScoreSet(ctx, dec, dev, ww, o)
	}
}
