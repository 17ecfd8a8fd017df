package transforms

import (
	"context"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/weights"
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

// WriteWeights writes the weights of a singleton PCollection<weights.ByName>
// to path (weights.WriteByName: JSON, atomically) and returns a singleton
// PCollection<string> holding path once it is written.
func WriteWeights(s beam.Scope, ws beam.PCollection, path string) beam.PCollection {
	s = s.Scope("transforms.WriteWeights")
	if path == "" {
		panic("transforms.WriteWeights: empty path")
	}
	return beam.ParDo(s, &writeWeightsFn{Path: path}, ws)
}

type writeWeightsFn struct {
	Path string
}

func (f *writeWeightsFn) ProcessElement(ctx context.Context, ww weights.ByName) (string, error) {
	return f.Path, weights.WriteByName(ctx, f.Path, ww)
}

// WriteShardResults writes each result of a PCollection<tune.ShardResult>
// into the folder dir (tune.WriteShardResult: dir/shard-NNN.json) and
// returns a PCollection<string> of the paths written.
func WriteShardResults(s beam.Scope, results beam.PCollection, dir string) beam.PCollection {
	s = s.Scope("transforms.WriteShardResults")
	if dir == "" {
		panic("transforms.WriteShardResults: empty folder")
	}
	return beam.ParDo(s, &writeShardResultFn{Dir: dir}, results)
}

type writeShardResultFn struct {
	Dir string
}

func (f *writeShardResultFn) ProcessElement(ctx context.Context, r tune.ShardResult) (string, error) {
	return tune.WriteShardResult(ctx, f.Dir, r)
}

// ReadShardStates reads the shard results at paths (written by
// WriteShardResults) when the pipeline runs and returns their states, a
// PCollection<tune.ShardState> for Learn.
func ReadShardStates(s beam.Scope, paths []string) beam.PCollection {
	s = s.Scope("transforms.ReadShardStates")
	return beam.ParDo(s, &readShardStatesFn{Paths: paths}, beam.Impulse(s))
}

type readShardStatesFn struct {
	Paths []string
}

func (f *readShardStatesFn) ProcessElement(ctx context.Context, _ []byte, emit func(tune.ShardState)) error {
	for _, p := range f.Paths {
		r, err := tune.ReadShardResult(ctx, p)
		if err != nil {
			return err
		}
		emit(r.ShardState())
	}
	return nil
}

// ReadSentences reads a tuning (or dev) set when the pipeline runs: the
// source file src and its references refs (local or gs://, plain or
// compressed, one sentence a line; refs as io/corpus.Load takes them). It
// returns a PCollection<tune.Sentence> whose IDs are the 0-based line numbers.
// Reading the files on a worker keeps the sentences out of the job graph,
// which Dataflow limits in size. If want is positive, a set of another size
// is an error (the files changed since the run was checked).
func ReadSentences(s beam.Scope, src string, refs []string, want int) beam.PCollection {
	s = s.Scope("transforms.ReadSentences")
	return beam.ParDo(s, &readSentencesFn{Src: src, Refs: refs, Want: want}, beam.Impulse(s))
}

type readSentencesFn struct {
	Src  string
	Refs []string
	Want int
}

func (f *readSentencesFn) ProcessElement(ctx context.Context, _ []byte, emit func(tune.Sentence)) error {
	c, err := corpus.Load(ctx, f.Src, f.Refs)
	if err != nil {
		return fmt.Errorf("transforms: %w", err)
	}
	if f.Want > 0 && c.Len() != f.Want {
		return fmt.Errorf("transforms: %s holds %d sentences, not the %d it held when the run started", f.Src, c.Len(), f.Want)
	}
	for i := range c.Len() {
		emit(tune.Sentence{ID: i, Src: c.Source[i], Refs: c.Refs[i]})
	}
	return nil
}
