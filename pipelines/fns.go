package pipelines

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/transforms"
)

func init() {
	register.DoFn2x2[context.Context, metric.Stats, string, error](&writeStatsFn{})
	register.DoFn2x2[context.Context, transforms.LineSearchResult, string, error](&writeLineSearchFn{})
}

// writeStatsFn writes a singleton PCollection<metric.Stats> to Path as JSON.
type writeStatsFn struct {
	Path string
}

func (f *writeStatsFn) ProcessElement(ctx context.Context, st metric.Stats) (string, error) {
	return f.Path, rundir.WriteJSON(ctx, f.Path, st)
}

// writeLineSearchFn writes a singleton PCollection<LineSearchResult> to
// Path as JSON.
type writeLineSearchFn struct {
	Path string
}

func (f *writeLineSearchFn) ProcessElement(ctx context.Context, r transforms.LineSearchResult) (string, error) {
	return f.Path, rundir.WriteJSON(ctx, f.Path, r)
}

// writeStats writes the singleton stats to path.
func writeStats(s beam.Scope, stats beam.PCollection, path string) beam.PCollection {
	return beam.ParDo(s.Scope("pipelines.WriteStats"), &writeStatsFn{Path: path}, stats)
}
