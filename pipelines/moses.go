package pipelines

import (
	"context"
	"fmt"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/transforms"
)

// DecoderName is the name the real decoder is registered under
// (transforms.RegisterDecoder); its configuration string is the path of a
// moses.ini (local or gs://).
const DecoderName = "moses"

func init() {
	transforms.RegisterDecoder(DecoderName, openMoses)
}

// openMoses loads the model of the moses.ini at config. transforms.OpenDecoder
// calls it once per worker process and configuration.
func openMoses(ctx context.Context, config string) (transforms.Decoder, error) {
	m, err := decoder.Load(ctx, config, decoder.LoadOptions{})
	if err != nil {
		return nil, fmt.Errorf("pipelines: %w", err)
	}
	return &Moses{m: m}, nil
}

// Moses is a transforms.Decoder backed by package decoder. It is safe for
// concurrent use.
type Moses struct {
	m *decoder.Model
}

var _ transforms.Decoder = (*Moses)(nil)

// NewMoses wraps a loaded model.
func NewMoses(m *decoder.Model) *Moses { return &Moses{m: m} }

// Features returns the model's feature index.
func (d *Moses) Features() *feature.Index { return d.m.Index() }

// NBest decodes src with the weights w (over Features) into up to n
// distinct translations, best first.
func (d *Moses) NBest(ctx context.Context, sentID int, src string, w feature.Weights, n int) ([]transforms.Hypothesis, error) {
	if n < 1 {
		n = 1
	}
	res, err := decoder.Decode(ctx, d.m, src, decoder.DecodeOptions{NBest: n, Weights: w})
	if err != nil {
		return nil, fmt.Errorf("pipelines: sentence %d: %w", sentID, err)
	}
	out := make([]transforms.Hypothesis, len(res.NBest))
	for i := range res.NBest {
		h := &res.NBest[i]
		out[i] = transforms.Hypothesis{Target: h.Target, Features: h.Features, Score: h.Score}
	}
	return out, nil
}
