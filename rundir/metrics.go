package rundir

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/metric"
)

// Metrics is one line of metrics.jsonl: the outcome of one epoch.
type Metrics struct {
	// Epoch is 1-based.
	Epoch int `json:"epoch"`
	// Replica is the 0-based replica of a run of several (--replicas;
	// tune's ReplicaSeed): absent for replica 0, and so on every line of a
	// run of one.
	Replica int `json:"replica,omitempty"`
	// TuneScore is the score of the tuning set under the run's metric
	// (Metric: BLEU, chrF, TER 0–100, or a weighted sum). In ipm and stale
	// mode it is ProgressiveScore, the 1-bests as the epoch's learning
	// decoded them (TuneDecoded is then true), unless --eval-tune decoded
	// the tuning set once more with the epoch's merged weights (1-best)
	// for it; in batch mode it is the score of the pool's 1-bests under
	// the new weights. DevScore is the score of the dev set decoded with
	// the epoch's weights (absent without one).
	TuneScore float64  `json:"tune_score"`
	DevScore  *float64 `json:"dev_score,omitempty"`
	// Metric names the metric TuneScore, DevScore and ProgressiveScore
	// are of, as sacreBLEU names it ("BLEU", "chrF2", "TER"). Lines an
	// mtune before 0.x wrote name the figures tune_bleu, dev_bleu and
	// progressive_bleu, and have no metric for BLEU: UnmarshalJSON reads
	// them as these fields, and MetricName takes a missing metric for
	// BLEU.
	Metric string `json:"metric"`
	// LowerIsBetter marks a metric where lower is better (TER): Score
	// ranks epochs by its negation.
	LowerIsBetter bool `json:"lower_is_better,omitempty"`
	// TuneDecoded reports that TuneScore is ProgressiveScore, not a
	// decoding of its own (ipm and stale mode without --eval-tune).
	TuneDecoded bool `json:"tune_decoded,omitempty"`
	// ProgressiveScore is the score of the 1-best hypotheses as decoded
	// during the epoch, with the weights current then (batch mode: the
	// previous epoch's weights).
	ProgressiveScore float64 `json:"progressive_score"`
	// Alpha is the line search's α (mix linesearch only).
	Alpha *float64 `json:"alpha,omitempty"`
	// NonZero counts the non-zero merged weights.
	NonZero int `json:"nonzero"`
	// Updates sums the shards' learner updates of the epoch.
	Updates int `json:"updates"`
	// Pool is batch mode's pool size: distinct hypotheses of every epoch
	// so far.
	Pool int `json:"pool,omitempty"`
	// MERTRounds is the number of launches batch MERT's passes took (one
	// a round, besides the epoch's decoding launch).
	MERTRounds int     `json:"mert_rounds,omitempty"`
	Sentences  int     `json:"sentences"`
	Seconds    float64 `json:"seconds"`
	// Staleness is stale mode's staleness distribution over every
	// shard's updates (absent in other modes).
	Staleness *Staleness `json:"staleness,omitempty"`
	// Counters and Distributions are the Beam metrics the epoch's
	// pipeline reported (namespace "mtune", summed over steps and
	// workers; package transforms names them), absent when the runner
	// reported none. With several replicas, which share the launch, they
	// are on replica 0's line only, summed over every replica.
	Counters      map[string]int64        `json:"counters,omitempty"`
	Distributions map[string]Distribution `json:"distributions,omitempty"`
}

// Distribution is a Beam distribution metric: the count, sum, least and
// greatest of the values reported.
type Distribution struct {
	Count int64 `json:"count"`
	Sum   int64 `json:"sum"`
	Min   int64 `json:"min"`
	Max   int64 `json:"max"`
}

// Merge returns d and e as one distribution.
func (d Distribution) Merge(e Distribution) Distribution {
	switch {
	case e.Count == 0:
		return d
	case d.Count == 0:
		return e
	}
	return Distribution{Count: d.Count + e.Count, Sum: d.Sum + e.Sum, Min: min(d.Min, e.Min), Max: max(d.Max, e.Max)}
}

// Staleness is the staleness distribution of an epoch's updates in stale
// mode: the staleness of an update is the number of updates applied
// between reading the weights its gradient was computed at and applying it.
type Staleness struct {
	// Histogram maps a staleness ("0", "1", …) to its count of updates.
	Histogram  map[string]int `json:"histogram"`
	Max        int            `json:"max"`
	Mean       float64        `json:"mean"`
	Recomputes int            `json:"recomputes"`
}

// Score is the figure by which epoch m is ranked, higher being better:
// its dev BLEU, or its tune BLEU without a dev set (in ipm and stale mode
// the progressive BLEU unless --eval-tune decoded the tuning set again);
// of the metric, negated when LowerIsBetter.
func (m Metrics) Score() float64 {
	if m.LowerIsBetter {
		return -m.Value()
	}
	return m.Value()
}

// Value is the figure Score ranks by as the metric gives it (TER not
// negated): the dev score, or the tune score without a dev set.
func (m Metrics) Value() float64 {
	if m.DevScore != nil {
		return *m.DevScore
	}
	return m.TuneScore
}

// MetricName is the name of the metric the epoch's figures are of:
// Metric, or "BLEU".
func (m Metrics) MetricName() string {
	if m.Metric == "" {
		return "BLEU"
	}
	return m.Metric
}

// BestEpoch returns the 1-based epoch of ms with the best Score, the
// earlier on ties; 0 for none. best/ holds its weights.
func BestEpoch(ms []Metrics) int {
	var b Best
	for _, m := range ms {
		b.Add(m.Epoch, m.Score())
	}
	return b.Epoch
}

// Best keeps the best of a run of epochs by score: the rule both
// `mtune tune` (BestEpoch) and `mtune tune-nbest` choose their weights by.
// A later epoch replaces the best only with a strictly higher score, so
// the earlier wins ties; a NaN score never wins. The zero Best holds none.
type Best struct {
	// Epoch and Score are those of the best epoch so far (Epoch 0 and
	// Score 0 while there is none, unless epoch 0 was added).
	Epoch int
	Score float64
	ok    bool
}

// Add offers epoch with score and reports whether it is the new best.
func (b *Best) Add(epoch int, score float64) bool {
	cur := math.Inf(-1)
	if b.ok {
		cur = b.Score
	}
	if !(score > cur) {
		return false
	}
	b.Epoch, b.Score, b.ok = epoch, score, true
	return true
}

// WriteMetrics writes ms as metrics.jsonl at path: one line an epoch.
func WriteMetrics(ctx context.Context, path string, ms []Metrics) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, m := range ms {
		if err := enc.Encode(m); err != nil {
			return fmt.Errorf("rundir: %w", err)
		}
	}
	if err := storage.WriteFile(ctx, path, b.Bytes()); err != nil {
		return fmt.Errorf("rundir: %w", err)
	}
	return nil
}

// ReadMetrics reads metrics.jsonl at path: one Metrics a line, epochs 1,
// 2, … in order; blank lines are skipped.
func ReadMetrics(ctx context.Context, path string) ([]Metrics, error) {
	return ReadReplicaMetrics(ctx, path, 1)
}

// ReadReplicaMetrics reads metrics.jsonl at path of a run of replicas
// replicas (--replicas; 1 is ReadMetrics): epoch 1's lines of replicas 0,
// 1, …, then epoch 2's, and so on.
func ReadReplicaMetrics(ctx context.Context, path string, replicas int) ([]Metrics, error) {
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("rundir: report: %w", err)
	}
	if replicas <= 1 {
		return parseMetrics(path, data)
	}
	return parseReplicaMetrics(path, data, replicas)
}

// parseReplicaMetrics parses metrics.jsonl of a run of replicas replicas
// (at least 2); path names it in errors. An epoch that lacks some
// replicas' lines is an error: the driver writes every replica's line of
// an epoch at once.
func parseReplicaMetrics(path string, data []byte, replicas int) ([]Metrics, error) {
	ms, err := parseLines(path, data, func(k int, m Metrics) error {
		if m.Epoch != k/replicas+1 || m.Replica != k%replicas {
			return fmt.Errorf("epoch %d replica %d, want epoch %d replica %d", m.Epoch, m.Replica, k/replicas+1, k%replicas)
		}
		return nil
	})
	if err == nil && len(ms)%replicas != 0 {
		return nil, fmt.Errorf("rundir: report: %s: epoch %d has %d of %d replicas' lines", path, len(ms)/replicas+1, len(ms)%replicas, replicas)
	}
	return ms, err
}

// parseMetrics parses the content of metrics.jsonl; path names it in errors.
func parseMetrics(path string, data []byte) ([]Metrics, error) {
	return parseLines(path, data, func(k int, m Metrics) error {
		if m.Epoch != k+1 {
			return fmt.Errorf("epoch %d, want %d", m.Epoch, k+1)
		}
		return nil
	})
}

// parseLines parses the lines of metrics.jsonl (path names it in errors),
// blank ones skipped, and checks the k-th Metrics (0-based) with check: an
// error names the line. No line at all is an error too.
func parseLines(path string, data []byte, check func(k int, m Metrics) error) ([]Metrics, error) {
	var ms []Metrics
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m Metrics
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("rundir: report: %s:%d: %w", path, i+1, err)
		}
		if err := check(len(ms), m); err != nil {
			return nil, fmt.Errorf("rundir: report: %s:%d: %w", path, i+1, err)
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("rundir: report: %s: no epochs", path)
	}
	return ms, nil
}

// ReadScore reads the summed statistics a pipeline wrote to path (a
// metric.Stats in JSON, as work/dev-stats.json) and returns their corpus
// score under m (nil: BLEU), in points.
func ReadScore(ctx context.Context, path string, m metric.Metric) (float64, error) {
	var st metric.Stats
	if err := ReadJSON(ctx, path, &st); err != nil {
		return 0, err
	}
	if st == (metric.Stats{}) {
		return 0, nil // no sentence
	}
	if err := metric.CheckStats(m, st); err != nil {
		return 0, fmt.Errorf("rundir: %s: %w", path, err)
	}
	return metric.CorpusScore(m, st), nil
}

// SetMetric records in m that its figures are of mt (nil: BLEU): its name
// and direction.
func (m *Metrics) SetMetric(mt metric.Metric) {
	mt = metric.OrDefault(mt)
	m.Metric, m.LowerIsBetter = mt.Name(), !mt.HigherIsBetter()
}

// UnmarshalJSON reads a line of metrics.jsonl (or an epoch.json): this
// version's, and those of earlier versions, whose figures are called
// tune_bleu, dev_bleu and progressive_bleu whatever their metric. A line
// with both spellings of a figure is refused rather than one guessed.
func (m *Metrics) UnmarshalJSON(data []byte) error {
	type plain Metrics // Metrics' fields without this method
	var p plain
	// One pass: the outer fields shadow plain's three figures, so that
	// both spellings of each are seen as given, or not.
	aux := struct {
		*plain
		TuneScore        json.RawMessage `json:"tune_score"`
		DevScore         json.RawMessage `json:"dev_score"`
		ProgressiveScore json.RawMessage `json:"progressive_score"`
		TuneBLEU         json.RawMessage `json:"tune_bleu"`
		DevBLEU          json.RawMessage `json:"dev_bleu"`
		ProgressiveBLEU  json.RawMessage `json:"progressive_bleu"`
	}{plain: &p}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	for _, f := range []struct {
		name     string
		now, old json.RawMessage
		into     any
	}{
		{"tune", aux.TuneScore, aux.TuneBLEU, &p.TuneScore},
		{"dev", aux.DevScore, aux.DevBLEU, &p.DevScore},
		{"progressive", aux.ProgressiveScore, aux.ProgressiveBLEU, &p.ProgressiveScore},
	} {
		raw, key := f.now, f.name+"_score"
		if f.old != nil {
			if f.now != nil {
				return fmt.Errorf("both %s_bleu and %s_score", f.name, f.name)
			}
			raw, key = f.old, f.name+"_bleu"
		}
		if raw == nil {
			continue
		}
		if err := json.Unmarshal(raw, f.into); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	if p.Metric == "" {
		p.Metric = "BLEU" // an earlier version's line of a BLEU run
	}
	*m = Metrics(p)
	return nil
}
