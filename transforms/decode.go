package transforms

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/internal/par"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/tune"
)

// Decode decodes and scores every sentence of sents, a
// PCollection<tune.Sentence>, under weights, a singleton
// PCollection<weights.ByName> (see ReadWeights). It returns a
// PCollection<tune.NBest>, one scored n-best list a sentence: batch mode's
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
	if err := fn.Options.Validate(); err != nil {
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

func (f *batchKeyFn) ProcessElement(x tune.Sentence) (int, tune.Sentence) {
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
	Options tune.DecodeOptions
	// Batches is the number of batches the sentences are dealt into (by
	// id modulo Batches), each decoded by one worker on Options.Threads
	// goroutines; 0 means DefaultDecodeBatches.
	Batches int

	dec tune.Decoder
}

func (f *DecodeFn) batches() int {
	if f.Batches > 0 {
		return f.Batches
	}
	return DefaultDecodeBatches
}

// Setup loads the decoder.
func (f *DecodeFn) Setup(ctx context.Context) (err error) {
	f.dec, err = OpenDecoder(ctx, f.Decoder, f.DecoderConfig)
	return err
}

// ProcessElement decodes one batch of sentences under the epoch's weights,
// on Options.Threads goroutines, and emits their n-best lists in id order.
func (f *DecodeFn) ProcessElement(ctx context.Context, batch int, iter func(*tune.Sentence) bool, weightsOf func(*weights.ByName) bool, emit func(tune.NBest)) error {
	var w weights.ByName
	if !weightsOf(&w) {
		return fmt.Errorf("transforms: decoding batch %d: no weights", batch)
	}
	dw, err := w.Over(f.dec.Features())
	if err != nil {
		return err
	}
	var xs []tune.Sentence
	var x tune.Sentence
	for iter(&x) {
		xs = append(xs, x)
	}
	slices.SortFunc(xs, func(a, b tune.Sentence) int { return cmp.Compare(a.ID, b.ID) })
	out := make([]tune.NBest, len(xs))
	threads := f.Options.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	err = par.DoErr(ctx, len(xs), threads, func(i int) error {
		var err error
		out[i], err = tune.DecodeSentence(ctx, f.dec, xs[i], dw, f.Options)
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
