package tune

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/rundir"
)

// The files an epoch's pipeline writes into its rundir.EpochLayout and the driver
// reads back (ReadEpoch): each shard's result (state/shard-NNN.json, of
// which the driver reads only the summary state/shard-NNN.summary.json), stale
// mode's staleness reports (work/stale-NNNNN.json), the mixed weights and
// BLEU statistics of work/; then FinishEpoch writes the epoch's weights
// trio.

// WriteShardResult writes r as JSON, atomically, to its file in the folder
// dir, rundir.ShardStateName(r.Shard) (dir is an rundir.EpochLayout's State(), so the
// file is its ShardState(r.Shard)), and returns the file's path.
func WriteShardResult(ctx context.Context, dir string, r ShardResult) (string, error) {
	if err := r.Validate(); err != nil {
		return "", err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("tune: encoding shard %d's result: %w", r.Shard, err)
	}
	path := storage.Join(dir, rundir.ShardStateName(r.Shard))
	if err := storage.WriteFile(ctx, path, append(data, '\n')); err != nil {
		return "", fmt.Errorf("tune: %w", err)
	}
	sum := ShardSummary{Shard: r.Shard, Epoch: r.Epoch, Updates: r.Updates, TotalUpdates: r.TotalUpdates, Sentences: r.Sentences, Stats: r.Stats}
	if err := rundir.WriteJSON(ctx, storage.Join(dir, ShardSummaryName(r.Shard)), sum); err != nil {
		return "", err
	}
	return path, nil
}

// ShardSummary is what the driver reads of a shard's result
// (state/shard-NNN.summary.json, written by WriteShardResult beside the
// result): the counts and BLEU statistics, without the weights and learner
// state, whose size grows with the features the shard met.
type ShardSummary struct {
	Shard, Epoch                     int
	Updates, TotalUpdates, Sentences int
	Stats                            metric.Stats
}

// ShardSummaryName is the name of shard k's summary in a state folder.
func ShardSummaryName(k int) string { return fmt.Sprintf("shard-%03d.summary.json", k) }

// ReadShardResult reads the shard result file at path (WriteShardResult).
func ReadShardResult(ctx context.Context, path string) (ShardResult, error) {
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		return ShardResult{}, fmt.Errorf("tune: %w", err)
	}
	r, err := DecodeShardResult(data)
	if err != nil {
		return ShardResult{}, fmt.Errorf("%w (%s)", err, path)
	}
	return r, nil
}

// ErrShardResult is wrapped by the errors of DecodeShardResult.
var ErrShardResult = errors.New("tune: malformed shard result")

// DecodeShardResult decodes the JSON of a shard result and checks it: a
// negative shard, epoch or count, invalid weights or statistics, unknown
// fields, trailing data or truncated input are errors (wrapping
// ErrShardResult).
func DecodeShardResult(data []byte) (ShardResult, error) {
	var r ShardResult
	if err := rundir.UnmarshalStrict(data, &r); err != nil {
		return ShardResult{}, fmt.Errorf("%w: %w", ErrShardResult, err)
	}
	if err := r.Validate(); err != nil {
		return ShardResult{}, fmt.Errorf("%w: %w", ErrShardResult, err)
	}
	return r, nil
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

// EpochOutputs says which files of an rundir.EpochLayout an ipm or stale epoch's
// pipeline wrote, besides work/mixed.json.
type EpochOutputs struct {
	// Shards is the number of shards: state/shard-000.json … of each.
	Shards int
	// EvalTune: work/tune-stats.json (the tuning set decoded again);
	// Dev: work/dev-stats.json (a dev set); LineSearch:
	// work/linesearch.json (mix linesearch); Stale: each shard's
	// work/stale-NNNNN.json (stale mode).
	EvalTune, Dev, LineSearch, Stale bool
}

// ReadEpoch reads back the files epoch e's pipeline wrote (o) and returns
// the epoch's Metrics — tune (and dev) BLEU, the line search's α, the
// shards' updates, sentences and progressive BLEU, stale mode's staleness —
// and its mixed weights. Without o.EvalTune the tune BLEU is the
// progressive BLEU (TuneDecoded). NonZero and Seconds are FinishEpoch's. A
// missing or malformed file is an error naming it.
func ReadEpoch(ctx context.Context, e rundir.EpochLayout, o EpochOutputs) (rundir.Metrics, weights.ByName, error) {
	m := rundir.Metrics{Epoch: e.N}
	if o.EvalTune {
		b, err := rundir.ReadBLEU(ctx, e.TuneStats())
		if err != nil {
			return rundir.Metrics{}, weights.ByName{}, err
		}
		m.TuneBLEU = b
	}
	if o.Dev {
		b, err := rundir.ReadBLEU(ctx, e.DevStats())
		if err != nil {
			return rundir.Metrics{}, weights.ByName{}, err
		}
		m.DevBLEU = &b
	}
	if o.LineSearch {
		var ls LineSearchResult
		if err := rundir.ReadJSON(ctx, e.LineSearch(), &ls); err != nil {
			return rundir.Metrics{}, weights.ByName{}, err
		}
		m.Alpha = &ls.Alpha
	}
	var prog metric.Stats
	for k := range o.Shards {
		// The result itself is the next epoch's input: it must be there,
		// but only its summary is read.
		if ok, err := storage.Exists(ctx, e.ShardState(k)); err != nil || !ok {
			return rundir.Metrics{}, weights.ByName{}, fmt.Errorf("tune: shard %d's result %s is missing (%v)", k, e.ShardState(k), err)
		}
		var r ShardSummary
		if err := rundir.ReadJSON(ctx, storage.Join(e.State(), ShardSummaryName(k)), &r); err != nil {
			return rundir.Metrics{}, weights.ByName{}, err
		}
		if r.Shard != k || r.Epoch != e.N-1 {
			return rundir.Metrics{}, weights.ByName{}, fmt.Errorf("tune: %s: the summary of shard %d of epoch %d, want shard %d of epoch %d",
				storage.Join(e.State(), ShardSummaryName(k)), r.Shard, r.Epoch+1, k, e.N)
		}
		prog.Add(r.Stats)
		m.Updates += r.Updates
		m.Sentences += r.Sentences
	}
	m.ProgressiveBLEU = 100 * prog.BLEU()
	if !o.EvalTune {
		m.TuneBLEU, m.TuneDecoded = m.ProgressiveBLEU, true
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
	ww, err := weights.ReadByName(ctx, e.Mixed())
	if err != nil {
		return rundir.Metrics{}, weights.ByName{}, err
	}
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

// FinishEpoch completes epoch e's metrics m: it counts the non-zero weights
// of ww, the epoch's new weights, writes them as e's weights trio
// (io/weights.WriteTrio: the dense groups are those of the features dense,
// the starting weights', every other feature is sparse) and stamps m with
// the seconds since t0.
func FinishEpoch(ctx context.Context, e rundir.EpochLayout, m rundir.Metrics, ww weights.ByName, dense []string, t0 time.Time) (rundir.Metrics, error) {
	for _, v := range ww.Vals {
		if v != 0 {
			m.NonZero++
		}
	}
	idx := feature.NewIndexOf(dense...)
	set := weights.NewSet(idx)
	set.Groups = weights.GroupsOf(dense)
	for i, name := range ww.Names {
		set.Weights.Set(idx.ID(name), ww.Vals[i])
	}
	if err := weights.WriteTrio(ctx, e.Dir, set); err != nil {
		return rundir.Metrics{}, fmt.Errorf("tune: %w", err)
	}
	m.Seconds = time.Since(t0).Seconds()
	return m, nil
}
