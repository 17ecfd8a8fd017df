package transforms

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/tune"
)

// Decode decodes and scores every sentence of sents, a
// PCollection<tune.Sentence> of fn.Sentences sentences, under weights, a
// singleton PCollection<weights.ByName> (see ReadWeights). It returns a
// PCollection<tune.NBest>, one scored n-best list a sentence: batch mode's
// decoding step and every epoch's 1-best decoding.
//
// The sentences are dealt into batches of about fn.BatchSize by id
// (fn.Batches of them) and joined with the weights (a CoGroupByKey; see
// replicate for why not a side input), and a worker decodes a batch's
// sentences on Options.Threads goroutines: a runner processes the elements
// of a bundle one after another, and one sentence an element would leave
// all but one core idle (prism puts a small collection in a single
// bundle). The number of batches follows the data — a runner that spreads
// them over workers (Dataflow) gets more of them the larger the set — and
// the lists do not depend on it. A decoder that loads its model at every
// call (an external one, tune.BatchDecoder) is given one batch a worker
// instead (fn.BatchSize from tune.DecoderSetup.BatchSize): it runs once a
// batch, with all the batch's sentences and the worker's cores.
func Decode(s beam.Scope, fn *DecodeFn, sents, weights beam.PCollection) beam.PCollection {
	s = s.Scope("transforms.Decode")
	if err := tune.CheckDecoder(fn.Decoder); err != nil {
		panic(err)
	}
	if err := fn.Options.Validate(); err != nil {
		panic(err)
	}
	if fn.Sentences < 1 || fn.BatchSize < 0 {
		panic(fmt.Sprintf("transforms: decoding %d sentences in batches of %d", fn.Sentences, fn.BatchSize))
	}
	n := fn.Batches()
	keyed := beam.ParDo(s, &batchKeyFn{Batches: n}, sents)
	return beam.ParDo(s, fn, beam.CoGroupByKey(s, keyed, replicate(s, weights, n)))
}

// NonZero drops the zero weights of a singleton PCollection<weights.ByName>
// (weights.ByName.NonZero): what a decoding, whose batches copy it, takes.
func NonZero(s beam.Scope, weights beam.PCollection) beam.PCollection {
	return beam.ParDo(s.Scope("transforms.NonZero"), nonZeroFn, weights)
}

func nonZeroFn(w weights.ByName) weights.ByName { return w.NonZero() }

// DefaultDecodeBatchSize is DecodeFn's batch size when BatchSize is 0:
// 1,000 sentences make 16 batches, 15,000 make 235. Each batch is a
// worker's unit of work and gets its own copy of the weights.
const DefaultDecodeBatchSize = 64

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
	// Decoder is the registered name of the decoder (tune.RegisterDecoder);
	// building the transform panics if it is empty or unknown.
	Decoder string
	// DecoderConfig is passed to the decoder's factory.
	DecoderConfig string
	// Options control decoding and scoring; Options.Threads is the
	// number of a batch's sentences decoded at once, 0 meaning the
	// worker's cores. Results do not depend on it.
	Options tune.DecodeOptions
	// Sentences is the number of sentences to decode (at least 1; the
	// driver counts them) and BatchSize the sentences a batch (0 means
	// DefaultDecodeBatchSize): they set the number of batches (Batches).
	// Results do not depend on them.
	Sentences, BatchSize int
	// Name names the step's Beam metrics (MetricsNamespace): NAME_sentences,
	// NAME_hypotheses, NAME_decode_ms, NAME_batch_ms; "" means "decode".
	Name string

	dec tune.Decoder
}

// Batches returns the number of batches the sentences are dealt into (by
// id modulo the number): ⌈Sentences / BatchSize⌉, at least 1.
func (f *DecodeFn) Batches() int {
	size := f.BatchSize
	if size <= 0 {
		size = DefaultDecodeBatchSize
	}
	return max(1, (f.Sentences+size-1)/size)
}

func (f *DecodeFn) name() string {
	if f.Name == "" {
		return "decode"
	}
	return f.Name
}

// Setup loads the decoder.
func (f *DecodeFn) Setup(ctx context.Context) (err error) {
	f.dec, err = OpenDecoder(ctx, f.Decoder, f.DecoderConfig)
	return err
}

// ProcessElement decodes one batch of sentences under the epoch's weights,
// on Options.Threads goroutines (tune.DecodeSentences), emits their n-best
// lists in id order and reports the batch's work as Beam metrics.
func (f *DecodeFn) ProcessElement(ctx context.Context, batch int, iter func(*tune.Sentence) bool, weightsOf func(*weights.ByName) bool, emit func(tune.NBest)) error {
	start := time.Now()
	var w weights.ByName
	if !weightsOf(&w) {
		return fmt.Errorf("transforms: decoding batch %d: no weights", batch)
	}
	var xs []tune.Sentence
	var x tune.Sentence
	for iter(&x) {
		xs = append(xs, x)
	}
	dec, err := tune.DecoderFor(ctx, f.dec, xs)
	if err != nil {
		return err
	}
	dw, err := f.Options.Added.DecoderWeights(w).Over(dec.Features())
	if err != nil {
		return err
	}
	o := f.Options
	if o.Threads <= 0 {
		o.Threads = runtime.NumCPU()
	}
	out, work, err := tune.DecodeSentences(ctx, dec, xs, dw, o)
	if err != nil {
		return err
	}
	for _, nb := range out {
		emit(nb)
	}
	wall := time.Since(start)
	reportBatch(ctx, f.name(), work, wall)
	log.Infof(ctx, "%s: batch %d: %d sentences, %d hypotheses in %.1f s", f.name(), batch, work.Sentences, work.Hypotheses, wall.Seconds())
	return nil
}
