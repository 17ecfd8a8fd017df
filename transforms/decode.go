package transforms

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/par"
)

// Decode decodes and scores every sentence of sents, a
// PCollection<Sentence>, under weights, a singleton
// PCollection<WireWeights> (see ReadWeights). It returns a
// PCollection<NBest>, one scored n-best list a sentence: batch mode's
// decoding step and every epoch's 1-best decoding.
//
// The sentences are dealt into fn.Batches batches by id and joined with
// the weights (a CoGroupByKey; see replicate for why not a side input), and
// a worker decodes a batch's sentences on Options.Threads goroutines: a
// runner processes the elements of a bundle one after another, and one
// sentence an element would leave all but one core idle (prism puts a
// small collection in a single bundle).
func Decode(s beam.Scope, fn *DecodeFn, sents, weights beam.PCollection) beam.PCollection {
	s = s.Scope("transforms.Decode")
	if err := checkDecoder(fn.Decoder); err != nil {
		panic(err)
	}
	if err := fn.Options.validate(); err != nil {
		panic(err)
	}
	if fn.Batches < 0 {
		panic(fmt.Sprintf("transforms: %d decoding batches", fn.Batches))
	}
	n := fn.batches()
	keyed := beam.ParDo(s, &batchKeyFn{Batches: n}, sents)
	return beam.ParDo(s, fn, beam.CoGroupByKey(s, keyed, replicate(s, weights, n)))
}

// DefaultDecodeBatches is DecodeFn's number of batches when Batches is 0.
const DefaultDecodeBatches = 20

// batchKeyFn keys a sentence by its batch: id modulo Batches.
type batchKeyFn struct {
	Batches int
}

func (f *batchKeyFn) ProcessElement(x Sentence) (int, Sentence) {
	return ((x.ID % f.Batches) + f.Batches) % f.Batches, x
}

// DecodeFn is the DoFn of Decode. The decoder is loaded once per worker
// process in Setup.
type DecodeFn struct {
	// Decoder is the registered name of the decoder (RegisterDecoder);
	// building the transform panics if it is empty or unknown.
	Decoder string
	// DecoderConfig is passed to the decoder's factory.
	DecoderConfig string
	// Options control decoding and scoring; Options.Threads is the
	// number of a batch's sentences decoded at once, 0 meaning the
	// worker's cores. Results do not depend on it.
	Options DecodeOptions
	// Batches is the number of batches the sentences are dealt into (by
	// id modulo Batches), each decoded by one worker on Options.Threads
	// goroutines; 0 means DefaultDecodeBatches.
	Batches int

	dec Decoder
	sc  *scorer
}

func (f *DecodeFn) batches() int {
	if f.Batches > 0 {
		return f.Batches
	}
	return DefaultDecodeBatches
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

// ProcessElement decodes one batch of sentences under the epoch's weights,
// on Options.Threads goroutines, and emits their n-best lists in id order.
func (f *DecodeFn) ProcessElement(ctx context.Context, batch int, iter func(*Sentence) bool, weights func(*WireWeights) bool, emit func(NBest)) error {
	var w WireWeights
	if !weights(&w) {
		return fmt.Errorf("transforms: decoding batch %d: no weights", batch)
	}
	dw, err := w.Weights(f.dec.Features())
	if err != nil {
		return err
	}
	var xs []Sentence
	var x Sentence
	for iter(&x) {
		xs = append(xs, x)
	}
	slices.SortFunc(xs, func(a, b Sentence) int { return cmp.Compare(a.ID, b.ID) })
	out := make([]NBest, len(xs))
	threads := f.Options.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	err = par.DoErr(ctx, len(xs), threads, func(i int) error {
		var err error
		out[i], err = decodeSentence(ctx, f.dec, xs[i], dw, f.sc, f.Options)
		return err
	})
	if err != nil {
		return err
	}
	for _, nb := range out {
		emit(nb)
	}
	return nil
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
		out.Hyps[i] = WireHyp{Target: h.Target, Features: v, Stats: stats[i], Score: h.Score, HasScore: true}
	}
	return out, nil
}
