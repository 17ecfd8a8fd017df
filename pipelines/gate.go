package pipelines

import (
	"context"
	"errors"

	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// DevScorer returns the retraining gate's input (tune.DevScorer): the dev
// set of o (DevSrc, DevRefs) decoded on this machine, as the pipeline's dev
// decoding decodes it, and scored with o.Metric, with the weights file it
// is given ("" for the moses.ini's own weights). The decoder is loaded
// once.
func DevScorer(ctx context.Context, o Options) (tune.DevScore, error) {
	// Only the decoder's options and the metric matter here.
	if err := o.decoding(); err != nil {
		return nil, err
	}
	if o.DevSrc == "" {
		return nil, errors.New("pipelines: no dev set to score")
	}
	dev, err := tune.LoadSentences(ctx, o.DevSrc, o.DevRefs)
	if err != nil {
		return nil, err
	}
	dec, err := transforms.OpenDecoder(ctx, o.Decoder, o.dec.Config())
	if err != nil {
		return nil, err
	}
	return tune.DevScorer(dec, dev, o.Config, o.decodeOptions(1)), nil
}
