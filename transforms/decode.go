package transforms

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/feature"
)

// Decode decodes and scores every sentence of sents, a
// PCollection<Sentence>, under weights, a singleton
// PCollection<WireWeights> (see ReadWeights). It returns a
// PCollection<NBest>, one scored n-best list a sentence: batch mode's
// decoding step.
func Decode(s beam.Scope, fn *DecodeFn, sents, weights beam.PCollection) beam.PCollection {
	s = s.Scope("transforms.Decode")
	if err := checkDecoder(fn.Decoder); err != nil {
		panic(err)
	}
	if err := fn.Options.validate(); err != nil {
		panic(err)
	}
	return beam.ParDo(s, fn, sents, beam.SideInput{Input: weights})
}

// DecodeFn is the DoFn of Decode. The decoder is loaded once per worker
// process in Setup.
type DecodeFn struct {
	// Decoder is the registered name of the decoder (RegisterDecoder);
	// building the transform panics if it is empty or unknown.
	Decoder string
	// DecoderConfig is passed to the decoder's factory.
	DecoderConfig string
	// Options control decoding and scoring (Threads is ignored: the
	// runner decodes sentences in parallel).
	Options DecodeOptions

	dec Decoder
	sc  *scorer
	dw  feature.Weights // per bundle: the weights over the decoder's index
}

// Setup loads the decoder.
func (f *DecodeFn) Setup(ctx context.Context) error {
	d, err := OpenDecoder(ctx, f.Decoder, f.DecoderConfig)
	if err != nil {
		return err
	}
	if f.sc, err = newScorer(f.Options); err != nil {
		return err
	}
	f.dec = d
	return nil
}

// StartBundle maps the bundle's weights to the decoder's index.
func (f *DecodeFn) StartBundle(w WireWeights) error {
	dw, err := w.Weights(f.dec.Features())
	if err != nil {
		return err
	}
	f.dw = dw
	return nil
}

// ProcessElement decodes one sentence.
func (f *DecodeFn) ProcessElement(ctx context.Context, x Sentence, _ WireWeights) (NBest, error) {
	return decodeSentence(ctx, f.dec, x, f.dw, f.sc, f.Options)
}

// DecodeSentence decodes x with dec under w (over dec.Features()) and
// scores the n-best list against x's references: what DecodeFn does to
// each sentence.
func DecodeSentence(ctx context.Context, dec Decoder, x Sentence, w feature.Weights, o DecodeOptions) (NBest, error) {
	if err := o.validate(); err != nil {
		return NBest{}, err
	}
	sc, err := newScorer(o)
	if err != nil {
		return NBest{}, err
	}
	return decodeSentence(ctx, dec, x, w, sc, o)
}

func decodeSentence(ctx context.Context, dec Decoder, x Sentence, w feature.Weights, sc *scorer, o DecodeOptions) (NBest, error) {
	ref, err := sc.reference(x)
	if err != nil {
		return NBest{}, err
	}
	hyps, err := decodeAll(ctx, dec, []Sentence{x}, w, DecodeOptions{NBest: o.NBest})
	if err != nil {
		return NBest{}, err
	}
	stats := sc.stats(ref, hyps[0])
	idx := dec.Features()
	// Collect the decoder ids in use; the list's names are theirs in id
	// order, so the vectors stay sorted.
	var ids []feature.ID
	for k, h := range hyps[0] {
		if err := h.Features.Validate(); err != nil {
			return NBest{}, fmt.Errorf("transforms: sentence %d hypothesis %d: %w", x.ID, k, err)
		}
		ids = append(ids, h.Features.IDs...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) > 0 && int(ids[len(ids)-1]) >= idx.Len() {
		return NBest{}, fmt.Errorf("transforms: sentence %d: feature id %d is not in the decoder's index", x.ID, ids[len(ids)-1])
	}
	out := NBest{Sent: x.ID, Names: make([]string, len(ids)), Hyps: make([]WireHyp, len(hyps[0]))}
	for k, id := range ids {
		out.Names[k] = idx.Name(id)
	}
	for i, h := range hyps[0] {
		v := feature.Vector{IDs: make([]feature.ID, len(h.Features.IDs)), Vals: slices.Clone(h.Features.Vals)}
		for k, id := range h.Features.IDs {
			p, _ := slices.BinarySearch(ids, id)
			v.IDs[k] = feature.ID(p)
		}
		out.Hyps[i] = WireHyp{Target: h.Target, Features: v, Stats: stats[i]}
	}
	return out, nil
}
