package tune

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/pool"
)

// Work counts what a shard's epoch (LearnShard, StaleLearnShard) or a
// batch of decoding (DecodeSentences) did: the figures a pipeline reports
// as its metrics (package transforms adds them to Beam's counters and
// distributions). The learners do not say how many pairs they sample, so
// Work has no count of them.
type Work struct {
	// Sentences and Hypotheses count the sentences decoded and the
	// hypotheses of their n-best lists.
	Sentences, Hypotheses int
	// Updates counts the learner's updates (0 for decoding alone).
	Updates int
	// Pairs counts the pairs of hypotheses the learner's updates sampled
	// (learner.PairSampler: AdaGrad, SGD; 0 for other learners).
	Pairs int
	// Decode is the time spent decoding and scoring, Learn the time
	// spent in the learner's updates (computing and applying them), each
	// summed over the goroutines that did it: with several at once they
	// may exceed the wall time.
	Decode, Learn time.Duration
	// Staleness is stale mode's record of its updates (empty otherwise).
	Staleness StaleStats
}

// Add adds v's counts to w.
func (w *Work) Add(v Work) {
	w.Sentences += v.Sentences
	w.Hypotheses += v.Hypotheses
	w.Updates += v.Updates
	w.Pairs += v.Pairs
	w.Decode += v.Decode
	w.Learn += v.Learn
	w.Staleness.Add(v.Staleness)
}

// timedOnline is an online learner whose Update, Gradient and Apply add
// the time they take to learn: how a session times its learner's work
// without changing it (RunStale calls Gradient from several goroutines).
type timedOnline struct {
	learner.Online
	learn *atomic.Int64 // nanoseconds
}

func (t timedOnline) since(start time.Time) { t.learn.Add(int64(time.Since(start))) }

func (t timedOnline) Update(ctx context.Context, batch []pool.List) error {
	defer t.since(time.Now())
	return t.Online.Update(ctx, batch)
}

func (t timedOnline) Gradient(w feature.Weights, batch []pool.List, seed uint64) (feature.Vector, error) {
	defer t.since(time.Now())
	return t.Online.Gradient(w, batch, seed)
}

func (t timedOnline) Apply(g feature.Vector) {
	defer t.since(time.Now())
	t.Online.Apply(g)
}
