package rundir

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
)

// Replicas (--replicas N, Clark et al. 2011): N independent runs of the
// same tuning, replica r seeded with package tune's ReplicaSeed(seed, r),
// whose epochs run in the same pipeline launches (one an epoch for all of
// them). A run's
// BLEU is one sample of a randomised optimizer; the replicas give its mean
// and standard deviation, as MultEval reports them. Replica r's files are
// in Layout.Replica(r, N); metrics.jsonl holds every replica's lines, epoch
// by epoch (Metrics.Replica); best/ holds the best replica's best epoch
// (BestReplica).

// MeanSD returns the mean of xs and their sample standard deviation (with
// n−1, as MultEval's optimizer-instability figure): 0 for fewer than two
// values, NaN mean for none.
func MeanSD(xs []float64) (mean, sd float64) {
	if len(xs) == 0 {
		return math.NaN(), 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// BestReplica returns the replica and epoch of ms (every replica's
// epochs, in any order) with the best Score, the rule of BestEpoch over
// every replica: the earlier epoch wins ties, then the lower replica; a NaN
// score never wins. It returns epoch 0 for none. For the epochs of one
// replica it is (that replica, BestEpoch(ms)).
func BestReplica(ms []Metrics) (replica, epoch int) {
	sorted := slices.SortedStableFunc(slices.Values(ms), func(a, b Metrics) int {
		return cmp.Or(cmp.Compare(a.Epoch, b.Epoch), cmp.Compare(a.Replica, b.Replica))
	})
	var b Best
	for i, m := range sorted {
		if b.Add(i, m.Score()) {
			replica, epoch = m.Replica, m.Epoch
		}
	}
	return replica, epoch
}

// OfReplica returns the metrics of replica r among ms, in their order.
func OfReplica(ms []Metrics, r int) []Metrics {
	var out []Metrics
	for _, m := range ms {
		if m.Replica == r {
			out = append(out, m)
		}
	}
	return out
}

// CompleteReplicas returns the metrics of the epochs of a run of replicas
// replicas that every replica completed (CompleteEpochs of each
// Layout.Replica), epoch by epoch, replica 0 first: what --resume keeps. An
// epoch that only some replicas completed is redone for all of them. For
// one replica it is CompleteEpochs(dir).
func CompleteReplicas(ctx context.Context, dir Layout, replicas int) ([]Metrics, error) {
	if replicas <= 1 {
		return CompleteEpochs(ctx, dir)
	}
	per := make([][]Metrics, replicas)
	n := math.MaxInt
	for r := range per {
		ms, err := CompleteEpochs(ctx, dir.Replica(r, replicas))
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if m.Replica != r {
				return nil, fmt.Errorf("rundir: %s records replica %d, want %d", dir.Replica(r, replicas).Epoch(m.Epoch).Complete(), m.Replica, r)
			}
		}
		per[r], n = ms, min(n, len(ms))
	}
	var out []Metrics
	for k := range n {
		for r := range per {
			out = append(out, per[r][k])
		}
	}
	return out, nil
}

// ReplicaEpoch sums up one epoch of a run of replicas: the mean and sample
// standard deviation over the replicas of their dev BLEU (tune BLEU
// without a dev set: Metrics.Score) and tune BLEU.
type ReplicaEpoch struct {
	Epoch, Replicas    int
	Score, ScoreSD     float64
	TuneScore, TuneSD  float64
	Scores, TuneScores []float64 // by replica
}

// SummarizeReplicas returns the ReplicaEpoch of each epoch of ms (a run's
// metrics, epoch by epoch, as metrics.jsonl holds them), in epoch order.
func SummarizeReplicas(ms []Metrics) []ReplicaEpoch {
	var out []ReplicaEpoch
	for _, m := range ms {
		if len(out) == 0 || out[len(out)-1].Epoch != m.Epoch {
			out = append(out, ReplicaEpoch{Epoch: m.Epoch})
		}
		e := &out[len(out)-1]
		e.Replicas++
		e.Scores, e.TuneScores = append(e.Scores, m.Value()), append(e.TuneScores, m.TuneScore)
	}
	for i := range out {
		e := &out[i]
		e.Score, e.ScoreSD = MeanSD(e.Scores)
		e.TuneScore, e.TuneSD = MeanSD(e.TuneScores)
	}
	return out
}
