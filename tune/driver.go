package tune

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/rundir"
)

// Weights are an epoch's weights as one value: the weights by name, and
// File, the trio's weights.json that holds them (written once, where the
// epoch that made them ended), which a Beam launch reads (weights never
// sit in a job graph, DESIGN.md §1). The run's starting weights are
// init/weights.json.
type Weights struct {
	weights.ByName
	File string
}

// ReadWeights reads the weights file at path (weights.ReadByName) as
// Weights.
func ReadWeights(ctx context.Context, path string) (Weights, error) {
	ww, err := weights.ReadByName(ctx, path)
	if err != nil {
		return Weights{}, err
	}
	return Weights{ByName: ww, File: path}, nil
}

// Epocher runs one epoch of a tuning run: in one mode of `mtune tune`
// (ipm, stale or batch in package pipelines: one Beam launch each), or
// over a fixed pool of n-best lists (PoolEpocher, `mtune tune-nbest`). The
// Driver calls it for epochs first, first+1, …: epoch n learns from prev,
// epoch n−1's weights (the run's starting weights for the first), and
// returns its metrics and new weights, which it has written once, as the
// trio in rundir.Layout.Epoch(n), with its learner state.
type Epocher interface {
	Epoch(ctx context.Context, n int, prev Weights) (rundir.Metrics, Weights, error)
}

// ReplicasEpocher is an Epocher that runs every replica of a run
// (--replicas, Driver.Replicas) in the same launch an epoch.
type ReplicasEpocher interface {
	Epocher
	// EpochReplicas runs epoch n of every replica r from prev[r] and
	// returns their metrics (Metrics.Replica set) and new weights,
	// replica 0's first; replica r's files go to
	// rundir.Layout.Replica(r, replicas).Epoch(n).
	EpochReplicas(ctx context.Context, n int, prev []Weights) ([]rundir.Metrics, []Weights, error)
}

// Driver runs the epoch loop of a run (DESIGN.md §1, §6) over an Epocher:
// after each epoch it rewrites metrics.jsonl, copies the weights to best/
// when the epoch is the best so far (rundir.BestEpoch: dev BLEU, else tune
// BLEU) and marks the epoch complete, in that order, so that a run killed
// at any point loses nothing of an epoch already complete; then it calls
// its Recorders (the report, the progress lines). It holds the loop's
// domain; what an epoch does is the Epocher's.
//
// With Replicas > 1 the Epocher must be a ReplicasEpocher: metrics.jsonl
// holds every replica's line of each epoch, each replica's best epoch goes
// to its own best/ (rundir.Layout.Replica), the best of them all to the run's
// best/ (rundir.BestReplica), and an epoch is complete once every replica's
// marker is written.
type Driver struct {
	// Dir is the run folder.
	Dir rundir.Layout
	// Epochs is the last epoch to run.
	Epochs int
	// Replicas is the number of replicas; 0 means 1.
	Replicas int
	// Start are the run's starting weights, every replica's first
	// epoch's prev.
	Start Weights
	// Baseline, when set, are the metrics of the starting weights (epoch
	// 0), ranked with the epochs' (a run of one replica): best/ holds the
	// starting weights, the trio in Dir.InitTrio(), until an epoch beats
	// them. tune-nbest's online learners keep their starting weights so
	// when no pass over the pool improves on them; tune takes its best
	// epoch among those it ran.
	Baseline *rundir.Metrics
	// Recorders are called, in their order, before the first epoch and
	// after each epoch is complete (Recorder): the report
	// (rundir.Report, NewReport) before the progress line (Printer), so
	// that the line is printed once everything of the epoch is written.
	// nil records nothing.
	Recorders []Recorder
}

// Run runs epochs len(done)/Replicas+1 … d.Epochs after the complete
// epochs done (a resumed run's, every replica's, as rundir.CompleteReplicas
// returns them; none for a new one) and returns every epoch's metrics.
// Each epoch starts from the weights the one before returned: d.Start for
// the first, the last complete epoch's trio (read once) for a resumed
// run. On error it returns the epochs that completed.
func (d Driver) Run(ctx context.Context, e Epocher, done []rundir.Metrics) ([]rundir.Metrics, error) {
	nr := max(1, d.Replicas)
	epoch := func(ctx context.Context, n int, prev []Weights) ([]rundir.Metrics, []Weights, error) {
		m, next, err := e.Epoch(ctx, n, prev[0])
		return []rundir.Metrics{m}, []Weights{next}, err
	}
	if nr > 1 {
		re, ok := e.(ReplicasEpocher)
		if !ok {
			return done, fmt.Errorf("tune: %T runs one replica, not %d", e, nr)
		}
		epoch = re.EpochReplicas
	}
	if d.Baseline != nil && nr > 1 {
		return done, fmt.Errorf("tune: a baseline (epoch 0) ranks the epochs of one replica, not of %d", nr)
	}
	if len(done)%nr != 0 {
		return done, fmt.Errorf("tune: %d complete epoch lines for %d replicas", len(done), nr)
	}
	ms := done
	first := len(done)/nr + 1
	var base []rundir.Metrics // epoch 0, ranked before the epochs
	if d.Baseline != nil {
		base = []rundir.Metrics{*d.Baseline}
		if first == 1 {
			if err := d.keepBest(ctx, d.Dir.InitTrio(), *d.Baseline, d.Dir.Best()); err != nil {
				return done, err
			}
		}
	}
	for _, rec := range d.Recorders {
		if err := rec.Init(ctx, d.Epochs, done); err != nil {
			return done, err
		}
	}
	prev := make([]Weights, nr)
	for r := range prev {
		prev[r] = d.Start
		if first > 1 {
			var err error
			if prev[r], err = ReadWeights(ctx, d.Dir.Replica(r, nr).Epoch(first-1).JSON()); err != nil {
				return done, err
			}
		}
	}
	for n := first; n <= d.Epochs; n++ {
		got, next, err := epoch(ctx, n, prev)
		if err != nil {
			return ms, err
		}
		if len(got) != nr || len(next) != nr {
			return ms, fmt.Errorf("tune: epoch %d: %d replicas' metrics and %d weights, want %d", n, len(got), len(next), nr)
		}
		prev = next
		for r, m := range got {
			if m.Replica != r {
				return ms, fmt.Errorf("tune: epoch %d: replica %d's metrics record replica %d", n, r, m.Replica)
			}
		}
		ms = append(ms, got...)
		if err := rundir.WriteMetrics(ctx, d.Dir.Metrics(), ms); err != nil {
			return ms, err
		}
		if nr > 1 {
			for r, m := range got {
				if rundir.BestEpoch(rundir.OfReplica(ms, r)) == n {
					if err := d.keepBest(ctx, d.trio(m), m, d.Dir.Replica(r, nr).Best()); err != nil {
						return ms, err
					}
				}
			}
		}
		if r, best := rundir.BestReplica(append(base, ms...)); best == n {
			if err := d.keepBest(ctx, d.trio(got[r]), got[r], d.Dir.Best()); err != nil {
				return ms, err
			}
		}
		for r, m := range got {
			if err := rundir.WriteComplete(ctx, d.Dir.Replica(r, nr).Epoch(n), m); err != nil {
				return ms, err
			}
		}
		for _, rec := range d.Recorders {
			if err := rec.Record(ctx, ms, got); err != nil {
				return ms, err
			}
		}
	}
	return ms, nil
}

// trio is the weights trio of epoch m (of replica m.Replica).
func (d Driver) trio(m rundir.Metrics) rundir.Trio {
	return d.Dir.Replica(m.Replica, max(1, d.Replicas)).Epoch(m.Epoch).Trio
}

// keepBest copies the weights trio ep, epoch m's, to the best folder bd,
// with m as its epoch.json. A trio without weights.sparse (every weight
// dense) gives a best/ without one.
func (d Driver) keepBest(ctx context.Context, ep rundir.Trio, m rundir.Metrics, bd rundir.BestLayout) error {
	for _, f := range [][2]string{{ep.Moses(), bd.Moses()}, {ep.Sparse(), bd.Sparse()}, {ep.JSON(), bd.JSON()}} {
		data, err := storage.ReadFile(ctx, f[0])
		if errors.Is(err, fs.ErrNotExist) && f[0] == ep.Sparse() {
			continue // a trio of no dense group has no weights.sparse
		}
		if err != nil {
			return fmt.Errorf("tune: %w", err)
		}
		if err := storage.WriteFile(ctx, f[1], data); err != nil {
			return fmt.Errorf("tune: %w", err)
		}
	}
	return rundir.WriteJSON(ctx, bd.Epoch(), m)
}
