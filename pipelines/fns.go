package pipelines

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/tune"
)

func init() {
	register.DoFn2x2[context.Context, metric.Stats, string, error](&writeStatsFn{})
	register.DoFn2x2[context.Context, tune.MixReport, string, error](&writeMixReportFn{})
}

// writeStatsFn writes a singleton PCollection<metric.Stats> to Path as JSON.
type writeStatsFn struct {
	Path string
}

func (f *writeStatsFn) ProcessElement(ctx context.Context, st metric.Stats) (string, error) {
	return f.Path, tune.WriteJSON(ctx, f.Path, st)
}

// writeMixReportFn writes a singleton PCollection<tune.MixReport> to Path
// as JSON.
type writeMixReportFn struct {
	Path string
}

func (f *writeMixReportFn) ProcessElement(ctx context.Context, r tune.MixReport) (string, error) {
	return f.Path, tune.WriteJSON(ctx, f.Path, r)
}

// writeStats writes the singleton stats to path.
func writeStats(s beam.Scope, stats beam.PCollection, path string) beam.PCollection {
	return beam.ParDo(s.Scope("pipelines.WriteStats"), &writeStatsFn{Path: path}, stats)
}
