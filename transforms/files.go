package transforms

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/storage"
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

// ShardResultPath returns the file of shard k's result in dir:
// dir/shard-NNN.json.
func ShardResultPath(dir string, shard int) string {
	return storage.Join(dir, tune.ShardStateName(shard))
}

// WriteShardResultFile writes r to path as JSON, atomically.
func WriteShardResultFile(ctx context.Context, path string, r tune.ShardResult) error {
	if err := r.Validate(); err != nil {
		return err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("transforms: encoding shard %d's result: %w", r.Shard, err)
	}
	if err := storage.WriteFile(ctx, path, append(data, '\n')); err != nil {
		return fmt.Errorf("transforms: %w", err)
	}
	return nil
}

// ReadShardResultFile reads a shard result WriteShardResultFile wrote.
func ReadShardResultFile(ctx context.Context, path string) (tune.ShardResult, error) {
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		return tune.ShardResult{}, fmt.Errorf("transforms: %w", err)
	}
	r, err := DecodeShardResult(data)
	if err != nil {
		return tune.ShardResult{}, fmt.Errorf("%w (%s)", err, path)
	}
	return r, nil
}

// ErrShardResult is wrapped by the errors of DecodeShardResult.
var ErrShardResult = errors.New("transforms: malformed shard result")

// DecodeShardResult decodes the JSON of a shard result and checks it: a
// negative shard, epoch or count, invalid weights or statistics, unknown
// fields, trailing data or truncated input are errors (wrapping
// ErrShardResult).
func DecodeShardResult(data []byte) (tune.ShardResult, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r tune.ShardResult
	if err := dec.Decode(&r); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return tune.ShardResult{}, fmt.Errorf("%w: %w", ErrShardResult, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return tune.ShardResult{}, fmt.Errorf("%w: data after the result", ErrShardResult)
	}
	if err := r.Validate(); err != nil {
		return tune.ShardResult{}, fmt.Errorf("%w: %w", ErrShardResult, err)
	}
	return r, nil
}

// WriteShardResults writes each result of a PCollection<tune.ShardResult> to
// ShardResultPath(dir, shard) and returns a PCollection<string> of the
// paths written.
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
	path := ShardResultPath(f.Dir, r.Shard)
	return path, WriteShardResultFile(ctx, path, r)
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
		r, err := ReadShardResultFile(ctx, p)
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
