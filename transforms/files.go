package transforms

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/tune"
)

// ReadWeights reads the weights file at path (local or gs://, any format
// io/weights detects) when the pipeline runs, not when it is built, so
// that weights never sit in the job graph. It returns a singleton
// PCollection<weights.ByName>, for use as a side input.
func ReadWeights(s beam.Scope, path string) beam.PCollection {
	s = s.Scope("transforms.ReadWeights")
	if path == "" {
		panic("transforms.ReadWeights: empty path")
	}
	return beam.ParDo(s, &readWeightsFn{Path: path}, beam.Impulse(s))
}

type readWeightsFn struct {
	Path string
}

func (f *readWeightsFn) ProcessElement(ctx context.Context, _ []byte) (weights.ByName, error) {
	return weights.ReadByName(ctx, f.Path)
}

// WriteTrio writes the weights of a singleton PCollection<weights.ByName>
// as the weights trio in the folder dir (weights.WriteTrioOf, the dense
// groups those of the names dense) and returns a singleton
// PCollection<string> holding dir once it is written: the epoch's weights,
// written once where the epoch ends.
func WriteTrio(s beam.Scope, ws beam.PCollection, dir string, dense []string) beam.PCollection {
	s = s.Scope("transforms.WriteTrio")
	if dir == "" {
		panic("transforms.WriteTrio: empty folder")
	}
	return beam.ParDo(s, &writeTrioFn{Dir: dir, Dense: dense}, ws)
}

type writeTrioFn struct {
	Dir   string
	Dense []string
}

func (f *writeTrioFn) ProcessElement(ctx context.Context, ww weights.ByName) (string, error) {
	return f.Dir, weights.WriteTrioOf(ctx, f.Dir, ww, f.Dense)
}

// WriteStats writes the statistics of a singleton PCollection<metric.Stats>
// to path as JSON and returns a singleton PCollection<string> holding path
// once it is written.
func WriteStats(s beam.Scope, stats beam.PCollection, path string) beam.PCollection {
	return writeJSON(s.Scope("transforms.WriteStats"), stats, path, reflect.TypeOf(metric.Stats{}))
}

// WriteMixReport writes the singleton PCollection<tune.MixReport> of a
// Mixer to path as JSON and returns a singleton PCollection<string>
// holding path once it is written.
func WriteMixReport(s beam.Scope, r beam.PCollection, path string) beam.PCollection {
	return writeJSON(s.Scope("transforms.WriteMixReport"), r, path, reflect.TypeOf(tune.MixReport{}))
}

// writeJSON writes each element of col, a PCollection of element type
// want (checked when the pipeline is built), to path as JSON.
func writeJSON(s beam.Scope, col beam.PCollection, path string, want reflect.Type) beam.PCollection {
	if got := col.Type().Type(); got != want {
		panic(fmt.Sprintf("transforms: writing %s: a PCollection<%v>, want %v", path, got, want))
	}
	return beam.ParDo(s, &writeJSONFn{Path: path}, col)
}

// writeJSONFn writes each element, of any type, to Path as JSON
// (rundir.WriteJSON) and emits Path.
type writeJSONFn struct {
	Path string
}

func (f *writeJSONFn) ProcessElement(ctx context.Context, v beam.T) (string, error) {
	return f.Path, rundir.WriteJSON(ctx, f.Path, v)
}

// WriteShardStates writes the state and summary of each result of a
// PCollection<tune.ShardResult> into the folder dir (tune.WriteShardState:
// dir/shard-NNN.json and its summary) and returns a PCollection<string> of
// the state files written.
func WriteShardStates(s beam.Scope, results beam.PCollection, dir string) beam.PCollection {
	s = s.Scope("transforms.WriteShardStates")
	if dir == "" {
		panic("transforms.WriteShardStates: empty folder")
	}
	return beam.ParDo(s, &writeShardStateFn{Dir: dir}, results)
}

type writeShardStateFn struct {
	Dir string
}

func (f *writeShardStateFn) ProcessElement(ctx context.Context, r tune.ShardResult) (string, error) {
	return tune.WriteShardState(ctx, f.Dir, r)
}

// ReadShardStates reads the shard states at paths (written by
// WriteShardStates) when the pipeline runs, a PCollection<tune.ShardState>
// for Learn.
func ReadShardStates(s beam.Scope, paths []string) beam.PCollection {
	s = s.Scope("transforms.ReadShardStates")
	return beam.ParDo(s, &readShardStatesFn{Paths: paths}, beam.Impulse(s))
}

type readShardStatesFn struct {
	Paths []string
}

func (f *readShardStatesFn) ProcessElement(ctx context.Context, _ []byte, emit func(tune.ShardState)) error {
	for _, p := range f.Paths {
		st, err := tune.ReadShardState(ctx, p)
		if err != nil {
			return err
		}
		emit(st)
	}
	return nil
}

// ReadSentences reads a tuning (or dev) set when the pipeline runs, one
// range of lines at a time: ranges are those of the set's corpus.Index
// (corpus.Scan, which the driver runs without holding the set), in order
// and covering it. It returns a PCollection<tune.Sentence> whose IDs are
// the 0-based line numbers. The ranges are reshuffled so that a runner
// can read them on several workers at once (each seeks to its offsets, or
// reads a compressed file from its start); the sentences never enter the
// job graph, which Dataflow limits in size. A range whose files no longer
// hold the lines the scan saw fails the pipeline, naming the file and line.
func ReadSentences(s beam.Scope, ranges []corpus.Range) beam.PCollection {
	s = s.Scope("transforms.ReadSentences")
	if len(ranges) == 0 {
		panic("transforms.ReadSentences: no ranges")
	}
	return beam.ParDo(s, readRange, beam.Reshuffle(s, beam.CreateList(s, ranges)))
}

// readRange reads the sentences of one range (corpus.ReadRange).
func readRange(ctx context.Context, r corpus.Range, emit func(tune.Sentence)) error {
	c, err := corpus.ReadRange(ctx, r)
	if err != nil {
		return fmt.Errorf("transforms: %w", err)
	}
	for _, x := range tune.SentencesOf(c, r.First) {
		emit(x)
	}
	return nil
}

// CheckModel loads the decoder fn names on a worker when the pipeline runs
// and writes what it found (tune.ModelCheck) to fn.Path: the driver, which
// never loads the model, reads it back before the first epoch. A model
// that does not load fails the pipeline with the loader's error.
func CheckModel(s beam.Scope, fn *CheckModelFn) {
	s = s.Scope("transforms.CheckModel")
	if err := tune.CheckDecoder(fn.Decoder); err != nil {
		panic(err)
	}
	beam.ParDo0(s, fn, beam.Impulse(s))
}

// CheckModelFn is the DoFn of CheckModel.
type CheckModelFn struct {
	// Decoder and DecoderConfig name the decoder as LearnFn's do.
	Decoder, DecoderConfig string
	// Path is where the tune.ModelCheck goes (rundir.Layout.ModelCheck).
	Path string
}

// ProcessElement loads the decoder (OpenDecoder) and writes its
// tune.ModelCheck.
func (f *CheckModelFn) ProcessElement(ctx context.Context, _ []byte) error {
	start := time.Now()
	dec, err := OpenDecoder(ctx, f.Decoder, f.DecoderConfig)
	if err != nil {
		return err
	}
	// A decoder that filters its model for each shard checks the model
	// by filtering it for no sentence: that reads every table line.
	if dec, err = tune.DecoderFor(ctx, dec, nil); err != nil {
		return err
	}
	mc := tune.CheckModel(f.Decoder, dec, time.Since(start))
	log.Infof(ctx, "mtune: model %s loaded on host %s in %.1f s: %d features", f.Decoder, mc.Host, mc.LoadSeconds, mc.Features)
	return rundir.WriteJSON(ctx, f.Path, mc)
}
