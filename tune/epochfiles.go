package tune

import (
	"context"
	"fmt"
	"strconv"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/rundir"
)

// The files an epoch's pipeline writes into its EpochLayout and the driver
// reads back (ReadEpoch): each shard's state (state/shard-NNN.json: the
// learner's state and the names of its ids, which the next epoch's shard
// resumes from) and summary (state/shard-NNN.summary.json, what the driver
// reads of it), stale mode's staleness reports (work/stale-NNNNN.json), the
// BLEU statistics of work/ and the epoch's weights trio, written once where
// the epoch ends (weights.WriteTrioOf).

// WriteShardState writes what shard result r leaves in the folder dir (an
// EpochLayout's State()): its state, r.ShardState(), as JSON in
// ShardStateName(r.Shard), and its summary in ShardSummaryName(r.Shard),
// each atomically. It returns the state file's path. The shard's weights
// are not written: the epoch's mixed weights are the weights that go on.
func WriteShardState(ctx context.Context, dir string, r ShardResult) (string, error) {
	if err := r.Validate(); err != nil {
		return "", err
	}
	path := storage.Join(dir, rundir.ShardStateName(r.Shard))
	if err := rundir.WriteJSON(ctx, path, r.ShardState()); err != nil {
		return "", err
	}
	sum := ShardSummary{Shard: r.Shard, Epoch: r.Epoch, Updates: r.Updates, TotalUpdates: r.TotalUpdates, Sentences: r.Sentences, Stats: r.Stats}
	if err := rundir.WriteJSON(ctx, storage.Join(dir, ShardSummaryName(r.Shard)), sum); err != nil {
		return "", err
	}
	return path, nil
}

// KeepShardState returns what a shard emits of its result r, so that the
// runner, which holds what a stage emits and copies it to the next, does
// not carry what grows with every feature the shard met: with dir not ""
// it writes r's state and summary into dir (WriteShardState) and drops
// the State, which is then in the file; with nonZero it keeps only the
// non-zero weights (weights.ByName.NonZero), for a mixer that takes them
// by name in no particular order (averaging: AverageSums, whose mean of a
// feature adds the shards' non-zero weights in the shards' order; not line
// search, whose index follows the average's names in order, tune.NewMixLine).
func KeepShardState(ctx context.Context, dir string, r ShardResult, nonZero bool) (ShardResult, error) {
	if dir != "" {
		if _, err := WriteShardState(ctx, dir, r); err != nil {
			return ShardResult{}, err
		}
		r.State = nil
	}
	if nonZero {
		r.Weights = r.Weights.NonZero()
	}
	return r, nil
}

// ShardSummary is what the driver reads of a shard's result
// (state/shard-NNN.summary.json, written by WriteShardState beside the
// state): the counts and BLEU statistics, without the learner state,
// whose size grows with the features the shard met.
type ShardSummary struct {
	Shard, Epoch                     int
	Updates, TotalUpdates, Sentences int
	Stats                            metric.Stats
}

// ShardSummaryName is the name of shard k's summary in a state folder.
func ShardSummaryName(k int) string { return fmt.Sprintf("shard-%03d.summary.json", k) }

// shardResultFile is the shard file mtune wrote before an epoch's weights
// became one value (issue 21): the shard's whole result, its weights
// naming the state's ids.
type shardResultFile struct {
	Shard, Epoch                     int
	Weights                          weights.ByName
	State                            []byte
	Updates, TotalUpdates, Sentences int
	Stats                            metric.Stats
}

// ReadShardState reads the shard state file at path (WriteShardState).
func ReadShardState(ctx context.Context, path string) (ShardState, error) {
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		return ShardState{}, fmt.Errorf("tune: %w", err)
	}
	st, err := DecodeShardState(data)
	if err != nil {
		return ShardState{}, fmt.Errorf("%w (%s)", err, path)
	}
	return st, nil
}

// DecodeShardState decodes the JSON of a shard state file and checks it
// (ShardState.Validate): unknown fields, trailing data or truncated input
// are errors too, each wrapping ErrShardState. The shard file of earlier
// versions, the shard's whole result (shardResultFile), is read too, so
// that a run they started resumes.
func DecodeShardState(data []byte) (ShardState, error) {
	var st ShardState
	if err := rundir.UnmarshalStrict(data, &st); err != nil {
		var old shardResultFile
		if rundir.UnmarshalStrict(data, &old) != nil || old.Weights.Validate() != nil {
			return ShardState{}, fmt.Errorf("%w: %w", ErrShardState, err)
		}
		st = ShardState{Shard: old.Shard, Names: old.Weights.Names, State: old.State}
	}
	if err := st.Validate(); err != nil {
		return ShardState{}, err
	}
	return st, nil
}

// WriteStaleReport writes r as JSON, atomically, to its file in the folder
// dir, rundir.StaleReportName(r.Shard) (dir is an rundir.EpochLayout's Work(), so the
// file is its StaleReport(r.Shard)), and returns the file's path.
func WriteStaleReport(ctx context.Context, dir string, r StaleReport) (string, error) {
	path := storage.Join(dir, rundir.StaleReportName(r.Shard))
	return path, rundir.WriteJSON(ctx, path, r)
}

// ReadStaleReport reads the staleness report at path (WriteStaleReport).
func ReadStaleReport(ctx context.Context, path string) (StaleReport, error) {
	var r StaleReport
	if err := rundir.ReadJSON(ctx, path, &r); err != nil {
		return StaleReport{}, err
	}
	return r, nil
}

// EpochOutputs says which files of an EpochLayout an ipm or stale epoch's
// pipeline wrote, besides the weights trio and the shards' files.
type EpochOutputs struct {
	// Shards is the number of shards: state/shard-000.json … of each.
	Shards int
	// EvalTune: work/tune-stats.json (the tuning set decoded again);
	// Dev: work/dev-stats.json (a dev set); Stale: each shard's
	// work/stale-NNNNN.json (stale mode).
	EvalTune, Dev, Stale bool
	// Metric scores the statistics (nil: BLEU).
	Metric metric.Metric
}

// ReadEpoch reads back the files epoch e's pipeline wrote (o) and returns
// the epoch's Metrics — tune (and dev) scores under o.Metric (in the
// fields named BLEU), the line search's α (the
// mixer's report, work/mix.json), the
// shards' updates, sentences and progressive BLEU, stale mode's staleness,
// the non-zero weights — and its weights, read from the trio's
// weights.json that the pipeline's last step wrote. Without o.EvalTune the
// tune BLEU is the progressive BLEU (TuneDecoded). Seconds is the
// caller's. A missing or malformed file is an error naming it.
func ReadEpoch(ctx context.Context, e rundir.EpochLayout, o EpochOutputs) (rundir.Metrics, weights.ByName, error) {
	m := rundir.Metrics{Epoch: e.N}
	m.SetMetric(o.Metric)
	if o.EvalTune {
		b, err := rundir.ReadScore(ctx, e.TuneStats(), o.Metric)
		if err != nil {
			return rundir.Metrics{}, weights.ByName{}, err
		}
		m.TuneScore = b
	}
	if o.Dev {
		b, err := rundir.ReadScore(ctx, e.DevStats(), o.Metric)
		if err != nil {
			return rundir.Metrics{}, weights.ByName{}, err
		}
		m.DevScore = &b
	}
	var mr MixReport
	if err := rundir.ReadJSON(ctx, e.MixReport(), &mr); err != nil {
		return rundir.Metrics{}, weights.ByName{}, err
	}
	m.Alpha = mr.Alpha()
	var prog metric.Stats
	for k := range o.Shards {
		// The state itself is the next epoch's input: it must be there,
		// but only the summary is read.
		if ok, err := storage.Exists(ctx, e.ShardState(k)); err != nil || !ok {
			return rundir.Metrics{}, weights.ByName{}, fmt.Errorf("tune: shard %d's state %s is missing (%v)", k, e.ShardState(k), err)
		}
		var r ShardSummary
		if err := rundir.ReadJSON(ctx, storage.Join(e.State(), ShardSummaryName(k)), &r); err != nil {
			return rundir.Metrics{}, weights.ByName{}, err
		}
		if r.Shard != k || r.Epoch != e.N-1 {
			return rundir.Metrics{}, weights.ByName{}, fmt.Errorf("tune: %s: the summary of shard %d of epoch %d, want shard %d of epoch %d",
				storage.Join(e.State(), ShardSummaryName(k)), r.Shard, r.Epoch+1, k, e.N)
		}
		if err := prog.AddChecked(r.Stats); err != nil {
			return rundir.Metrics{}, weights.ByName{}, fmt.Errorf("tune: %s: %w", storage.Join(e.State(), ShardSummaryName(k)), err)
		}
		m.Updates += r.Updates
		m.Sentences += r.Sentences
	}
	m.ProgressiveScore = metric.CorpusScore(o.Metric, prog)
	if !o.EvalTune {
		m.TuneScore, m.TuneDecoded = m.ProgressiveScore, true
	}
	if o.Stale {
		var st StaleStats
		for k := range o.Shards {
			r, err := ReadStaleReport(ctx, e.StaleReport(k))
			if err != nil {
				return rundir.Metrics{}, weights.ByName{}, err
			}
			st.Add(r.Stats)
		}
		m.Staleness = newStaleness(st)
	}
	ww, err := weights.ReadByName(ctx, e.JSON())
	if err != nil {
		return rundir.Metrics{}, weights.ByName{}, err
	}
	m.NonZero = NonZero(ww)
	return m, ww, nil
}

// newStaleness is the Metrics' form of st.
func newStaleness(st StaleStats) *rundir.Staleness {
	h := map[string]int{}
	for k, c := range st.Histogram {
		if c > 0 {
			h[strconv.Itoa(k)] = c
		}
	}
	return &rundir.Staleness{Histogram: h, Max: st.Max(), Mean: st.Mean(), Recomputes: st.Recomputes}
}

// NonZero counts the non-zero weights of ww (Metrics.NonZero).
func NonZero(ww weights.ByName) int {
	n := 0
	for _, v := range ww.Vals {
		if v != 0 {
			n++
		}
	}
	return n
}
