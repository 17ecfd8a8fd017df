package run

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/pool/poolfile"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/tune"
)

// Pool is the Method of `mtune tune-nbest`: n-best lists decoded once,
// before the run (no decoder in the loop), and a learner that each epoch
// runs over them (tune.PoolEpocher): an online learner one pass an epoch,
// its best epoch kept with the starting weights counted as epoch 0; a
// batch optimizer its whole optimisation, a run of one epoch.
type Pool struct {
	// Load reads the pool: the n-best lists, scored under Metric, and the
	// starting weights (poolfile.LoadTuning).
	Load func(ctx context.Context) (poolfile.Tuning, error)
	// Inputs are the manifest's inputs (the lists, the references or
	// scores, the feature files, the starting weights).
	Inputs []rundir.InputFile
	// Learner is the learner, Config its settings (Seed and Metric set).
	Learner algo.Info
	Config  algo.Config
	// Scoring is the metric the lists are scored under (nil: BLEU),
	// MetricSpec its canonical spec (the manifest's).
	Scoring    metric.Metric
	MetricSpec string
	// Log receives what Prepare read; nil means none.
	Log io.Writer

	t      poolfile.Tuning // read by Prepare
	epochs int             // the run's (Validate)
}

// Validate runs a batch optimizer's run in one epoch (its optimisation
// is the epoch's); an online learner's takes s.Epochs passes.
func (m *Pool) Validate(p *Problem, s *Settings) error {
	if m.Load == nil {
		return errors.New("run: a pool needs its Load")
	}
	if !m.Learner.Online {
		s.Epochs = 1
	}
	m.epochs = s.Epochs
	if s.Replicas > 1 {
		return fmt.Errorf("run: a pool's run has one replica, not %d", s.Replicas)
	}
	return nil
}

// Metric is the metric of the lists' statistics (Scoring; BLEU if nil).
func (m *Pool) Metric() metric.Metric {
	if m.Scoring == nil {
		return metric.DefaultBLEU()
	}
	return m.Scoring
}

func (m *Pool) Manifest() rundir.ManifestFlags {
	f := tune.LearnerManifest(m.Learner.Name, m.Config)
	f.SetMetricSpec(m.MetricSpec)
	f.Mode, f.Epochs = "pool (tune-nbest)", m.epochs
	return f
}

// Prepare reads and scores the pool.
func (m *Pool) Prepare(ctx context.Context, dir *rundir.RunDir) (Prepared, error) {
	t, err := m.Load(ctx)
	if err != nil {
		return Prepared{}, err
	}
	m.t = t
	if m.Log != nil {
		if t.Cache != "" {
			fmt.Fprintf(m.Log, "tune-nbest: pool cache: %s\n", t.Cache)
		}
		fmt.Fprintf(m.Log, "tune-nbest: %d sentences, %d hypotheses, %d features; start: %s\n", len(t.Lists),
			pool.Size(t.Lists), t.Index.Len(), metric.ScoreLine(m.Metric(), pool.OneBest(t.Lists, t.Weights)))
	}
	return Prepared{Inputs: m.Inputs}, nil
}

// Start is nil: the PoolEpocher writes the pool's starting weights.
func (m *Pool) Start(context.Context) (*weights.ByName, error) { return nil, nil }

// Epocher makes the learner, from the pool's starting weights, and the
// PoolEpocher, which writes those weights as the trio in dir's init/.
func (m *Pool) Epocher(ctx context.Context, dir *rundir.RunDir, _ tune.Weights) (Epocher, error) {
	l, err := algo.New(m.Learner.Name, m.t.Weights, m.Config)
	if err != nil {
		return Epocher{}, err
	}
	set := *m.t.Set
	set.Weights = m.t.Weights
	e, start, base, err := tune.NewPoolEpocher(ctx, dir.Layout, m.t.Lists, m.Scoring, &set, l)
	if err != nil {
		return Epocher{}, err
	}
	out := Epocher{Epocher: e, Start: start}
	if m.Learner.Online {
		out.Baseline = base
	}
	return out, nil
}

// Pooled returns the pool Prepare read.
func (m *Pool) Pooled() poolfile.Tuning { return m.t }
