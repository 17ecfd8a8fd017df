package pipelines

import (
	"context"
	"errors"
	"runtime"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// DevScorer returns a function that decodes the dev set of o (DevSrc,
// DevRefs) on this machine with the weights file at path ("" for the
// moses.ini's own weights) and returns each sentence's BLEU statistics, as
// the pipeline's dev decoding computes them: the retraining gate's input.
// The decoder is loaded once.
func DevScorer(ctx context.Context, o Options) (func(ctx context.Context, path string) ([]metric.Stats, error), error) {
	// Only the decoder's options matter here: a batch run, which takes
	// no dev set itself, is gated on one too.
	o.Mode = tune.IPM
	o.Algo = ""
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if o.DevSrc == "" {
		return nil, errors.New("pipelines: no dev set to score")
	}
	dev, _, err := sentences(ctx, o.DevSrc, o.DevRefs)
	if err != nil {
		return nil, err
	}
	dec, err := transforms.OpenDecoder(ctx, o.Decoder, o.decoderConfig())
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, path string) ([]metric.Stats, error) {
		if path == "" {
			path = o.Config
		}
		ww, err := weights.ReadByName(ctx, path)
		if err != nil {
			return nil, err
		}
		return tune.ScoreSet(ctx, dec, dev, ww, tune.DecodeOptions{Threads: runtime.NumCPU()})
	}, nil
}
