package pipelines

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/transforms"
)

func init() {
	register.DoFn2x2[context.Context, metric.Stats, string, error](&writeStatsFn{})
	register.DoFn2x2[context.Context, transforms.LineSearchResult, string, error](&writeLineSearchFn{})
}

// writeJSON writes v to path as one line of JSON, atomically.
func writeJSON(ctx context.Context, path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("pipelines: encoding %s: %w", path, err)
	}
	if err := storage.WriteFile(ctx, path, append(data, '\n')); err != nil {
		return fmt.Errorf("pipelines: %w", err)
	}
	return nil
}

// readJSON reads a file writeJSON wrote into v.
func readJSON(ctx context.Context, path string, v any) error {
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		return fmt.Errorf("pipelines: %w", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("pipelines: %s: %w", path, err)
	}
	return nil
}

// writeStatsFn writes a singleton PCollection<metric.Stats> to Path as JSON.
type writeStatsFn struct {
	Path string
}

func (f *writeStatsFn) ProcessElement(ctx context.Context, st metric.Stats) (string, error) {
	return f.Path, writeJSON(ctx, f.Path, st)
}

// writeLineSearchFn writes a singleton PCollection<LineSearchResult> to
// Path as JSON.
type writeLineSearchFn struct {
	Path string
}

func (f *writeLineSearchFn) ProcessElement(ctx context.Context, r transforms.LineSearchResult) (string, error) {
	return f.Path, writeJSON(ctx, f.Path, r)
}

// writeStats writes the singleton stats to path.
func writeStats(s beam.Scope, stats beam.PCollection, path string) beam.PCollection {
	return beam.ParDo(s.Scope("pipelines.WriteStats"), &writeStatsFn{Path: path}, stats)
}
