package learner

import (
	"context"
	"encoding"
	"errors"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/pool"
)

// Learner is what every optimizer satisfies, online or batch, so that a
// pipeline shard or `mtune tune-nbest` can run any of them the same way.
//
// A Learner's state (weights, accumulators, averaging sums, random state)
// marshals to bytes and unmarshals exactly: a learner restored from
// MarshalBinary and given the same inputs produces bit-identical weights.
type Learner interface {
	// Learn trains on lists. An online learner makes one epoch: mini-batch
	// updates over the lists in an order drawn from its random state. A
	// batch optimizer optimizes on the lists as a pool, starting from its
	// current weights.
	Learn(ctx context.Context, lists []pool.List) error
	// Weights returns a copy of the weights the learner offers as its
	// result: for an averaging learner, the averaged weights; for a lazily
	// regularised one, with every pending regularisation step applied.
	Weights() feature.Weights
	// SetWeights replaces the learner's current weights, keeping the rest
	// of its state (AdaGrad's sums, the update count, the random state).
	// Parameter mixing writes the mixed weights back this way.
	SetWeights(w feature.Weights)

	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
}

// Online is a Learner that also learns one mini-batch at a time, for tuning
// with the decoder in the loop, and whose update splits into a gradient
// computed against some weights and its application, for Green et al.'s
// stale-gradient parallelism (their Algorithm 2).
type Online interface {
	Learner
	// Update makes one update from a mini-batch of n-best lists:
	// Apply(Gradient(Current(), batch, seed)).
	Update(ctx context.Context, batch []pool.List) error
	// Current returns a copy of the weights to decode the next mini-batch
	// with (not averaged).
	Current() feature.Weights
	// Gradient returns the update direction of the learner's loss on batch
	// at weights w: the (sub)gradient for gradient learners, minus the
	// passive-aggressive step for MIRA-style ones. It does not change the
	// learner and is safe to call from several goroutines at once; any
	// sampling draws from a generator seeded by seed.
	Gradient(w feature.Weights, batch []pool.List, seed uint64) (feature.Vector, error)
	// Apply applies one update direction returned by Gradient.
	Apply(g feature.Vector)
	// Updates returns the number of updates applied so far.
	Updates() int
}

// PairSampler is an Online learner whose updates sample pairs of
// hypotheses (Green et al.'s pairwise objective: AdaGrad, SGD).
type PairSampler interface {
	// PairsSampled returns the number of pairs its gradients sampled since
	// the learner was made (in this process: not part of its state).
	PairsSampled() int64
}

// ErrNoFeatures is the error of Learn on lists in which no hypothesis has
// a non-zero feature: every weight vector scores them alike, so there is
// nothing to tune.
var ErrNoFeatures = errors.New("no hypothesis of the n-best lists has a non-zero feature: nothing to tune")

// CheckLists returns ErrNoFeatures if no hypothesis of lists has a
// non-zero feature (which includes lists with no hypotheses at all).
// Every Learn calls it first.
func CheckLists(lists []pool.List) error {
	for _, l := range lists {
		for _, h := range l.Hyps {
			for _, x := range h.Features.Vals {
				if x != 0 {
					return nil
				}
			}
		}
	}
	return ErrNoFeatures
}
