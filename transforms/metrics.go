package transforms

import (
	"context"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/tune"
)

// MetricsNamespace is the namespace of the Beam metrics the DoFns report:
// they reach the pipeline's result (and Dataflow's job page), and the
// driver copies them into metrics.jsonl (rundir.Metrics.Counters and
// Distributions). A learning step (Learn, stale or not) reports, with the
// prefix "learn_":
//
//	learn_sentences, learn_hypotheses   counters: sentences decoded and the hypotheses of their n-best lists
//	learn_updates                       counter: the learners' updates
//	learn_pairs                         counter: the pairs of hypotheses they sampled (adagrad, sgd)
//	learn_decode_ms, learn_update_ms    counters: milliseconds decoding and in the learners' updates, summed over goroutines
//	learn_shard_ms                      distribution: each shard's wall time
//	learn_staleness, learn_recomputes   stale mode: each update's staleness (distribution), the recomputed gradients (counter)
//
// and a decoding step (Decode) the same under its DecodeFn.Name:
// NAME_sentences, NAME_hypotheses, NAME_decode_ms and the distribution
// NAME_batch_ms of each batch's wall time.
const MetricsNamespace = "mtune"

// counter adds v to the counter name of ctx.
func counter(ctx context.Context, name string, v int64) {
	beam.NewCounter(MetricsNamespace, name).Inc(ctx, v)
}

// reportDecoding adds the sentences, hypotheses and decoding time of w to
// the counters PREFIX_sentences, PREFIX_hypotheses and PREFIX_decode_ms.
func reportDecoding(ctx context.Context, prefix string, w tune.Work) {
	counter(ctx, prefix+"_sentences", int64(w.Sentences))
	counter(ctx, prefix+"_hypotheses", int64(w.Hypotheses))
	counter(ctx, prefix+"_decode_ms", w.Decode.Milliseconds())
}

// reportBatch reports a decoding batch's work w, done in wall time.
func reportBatch(ctx context.Context, name string, w tune.Work, wall time.Duration) {
	reportDecoding(ctx, name, w)
	beam.NewDistribution(MetricsNamespace, name+"_batch_ms").Update(ctx, wall.Milliseconds())
}

// reportShard reports a shard's epoch of learning w, done in wall time.
func reportShard(ctx context.Context, w tune.Work, wall time.Duration) {
	reportDecoding(ctx, "learn", w)
	counter(ctx, "learn_updates", int64(w.Updates))
	counter(ctx, "learn_pairs", int64(w.Pairs))
	counter(ctx, "learn_update_ms", w.Learn.Milliseconds())
	beam.NewDistribution(MetricsNamespace, "learn_shard_ms").Update(ctx, wall.Milliseconds())
	if h := w.Staleness.Histogram; len(h) > 0 {
		st := beam.NewDistribution(MetricsNamespace, "learn_staleness")
		for s, n := range h {
			for range n {
				st.Update(ctx, int64(s))
			}
		}
		counter(ctx, "learn_recomputes", int64(w.Staleness.Recomputes))
	}
}

// ReadMetrics returns the metrics of MetricsNamespace in a pipeline's
// result (nil: none), each name's values summed over the steps and workers
// that reported it: counters by their sum, distributions merged.
func ReadMetrics(res beam.PipelineResult) (map[string]int64, map[string]rundir.Distribution) {
	if res == nil {
		return nil, nil
	}
	q := res.Metrics().Query(func(r beam.MetricResult) bool { return r.Namespace() == MetricsNamespace })
	var counters map[string]int64
	for _, c := range q.Counters() {
		if counters == nil {
			counters = map[string]int64{}
		}
		counters[c.Name()] += c.Result()
	}
	var dists map[string]rundir.Distribution
	for _, d := range q.Distributions() {
		if dists == nil {
			dists = map[string]rundir.Distribution{}
		}
		v := d.Result()
		dists[d.Name()] = dists[d.Name()].Merge(rundir.Distribution{Count: v.Count, Sum: v.Sum, Min: v.Min, Max: v.Max})
	}
	return counters, dists
}
