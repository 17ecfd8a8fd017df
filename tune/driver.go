package tune

import (
	"context"
	"fmt"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/rundir"
)

// Epocher runs one epoch of a tuning run in one mode (ipm, stale or batch
// in package pipelines: one Beam launch each). The Driver calls it for
// epochs first, first+1, …; epoch n starts from epoch n−1's weights
// (rundir.Layout.Epoch(n−1).JSON(), or rundir.Layout.Init() for the first) and must
// leave its weights trio and its learner state in rundir.Layout.Epoch(n).
type Epocher interface {
	Epoch(ctx context.Context, n int) (rundir.Metrics, error)
}

// ReplicasEpocher is an Epocher that runs every replica of a run
// (--replicas, Driver.Replicas) in the same launch an epoch.
type ReplicasEpocher interface {
	Epocher
	// EpochReplicas runs epoch n of every replica and returns their
	// metrics, replica 0's first (Metrics.Replica set); replica r's files
	// go to rundir.Layout.Replica(r, replicas).Epoch(n).
	EpochReplicas(ctx context.Context, n int) ([]rundir.Metrics, error)
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
// On error it returns the epochs that completed.
func (d Driver) Run(ctx context.Context, e Epocher, done []rundir.Metrics) ([]rundir.Metrics, error) {
	nr := max(1, d.Replicas)
	epoch := func(ctx context.Context, n int) ([]rundir.Metrics, error) {
		m, err := e.Epoch(ctx, n)
		return []rundir.Metrics{m}, err
	}
	if nr > 1 {
		re, ok := e.(ReplicasEpocher)
		if !ok {
			return done, fmt.Errorf("tune: %T runs one replica, not %d", e, nr)
		}
		epoch = re.EpochReplicas
	}
	if len(done)%nr != 0 {
		return done, fmt.Errorf("tune: %d complete epoch lines for %d replicas", len(done), nr)
	}
	for _, rec := range d.Recorders {
		if err := rec.Init(ctx, d.Epochs, done); err != nil {
			return done, err
		}
	}
	ms := done
	first := len(done)/nr + 1
	for n := first; n <= d.Epochs; n++ {
		got, err := epoch(ctx, n)
		if err != nil {
			return ms, err
		}
		if len(got) != nr {
			return ms, fmt.Errorf("tune: epoch %d: %d replicas' metrics, want %d", n, len(got), nr)
		}
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
					if err := d.keepBest(ctx, m, d.Dir.Replica(r, nr).Best()); err != nil {
						return ms, err
					}
				}
			}
		}
		if r, best := rundir.BestReplica(ms); best == n {
			if err := d.keepBest(ctx, got[r], d.Dir.Best()); err != nil {
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

// keepBest copies the weights trio of epoch m (of replica m.Replica) to
// the best folder bd, with m as its epoch.json.
func (d Driver) keepBest(ctx context.Context, m rundir.Metrics, bd rundir.BestLayout) error {
	ep := d.Dir.Replica(m.Replica, max(1, d.Replicas)).Epoch(m.Epoch)
	for _, f := range [][2]string{{ep.Moses(), bd.Moses()}, {ep.Sparse(), bd.Sparse()}, {ep.JSON(), bd.JSON()}} {
		data, err := storage.ReadFile(ctx, f[0])
		if err != nil {
			return fmt.Errorf("tune: %w", err)
		}
		if err := storage.WriteFile(ctx, f[1], data); err != nil {
			return fmt.Errorf("tune: %w", err)
		}
	}
	return rundir.WriteJSON(ctx, bd.Epoch(), m)
}
