package tune

import (
	"context"
	"fmt"
	"io"

	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/rundir"
)

// Recorder records the progress of a run, called by the Driver before its
// first epoch and after each epoch is complete: the side work of the
// epoch loop, kept out of it (after gonum's optimize.Recorder). A Recorder
// that fails stops the run. rundir.Report (redrawing report.html) and
// Printer (the progress lines) are the Driver's recorders.
type Recorder interface {
	// Init is called once, before the first epoch the Driver runs, with
	// the run's last epoch and the epochs complete before (a resumed run's,
	// every replica's; none for a new run).
	Init(ctx context.Context, epochs int, done []rundir.Metrics) error
	// Record is called once an epoch is complete (its metrics.jsonl line,
	// best/ and complete markers written), with every epoch's metrics so
	// far, ms (done first), and the epoch's, got (one a replica, replica
	// 0's first).
	Record(ctx context.Context, ms, got []rundir.Metrics) error
}

var _ Recorder = rundir.Report{}

// NewReport returns the Recorder that redraws the run folder dir's
// report.html after each epoch, spelling out a learner's default
// mini-batch size (algo.Config.MiniBatchOf), its figures those of metric
// m (nil: BLEU).
func NewReport(dir rundir.Layout, m metric.Metric) rundir.Report {
	return rundir.Report{Dir: dir, MiniBatchOf: algo.Config{}.MiniBatchOf, Metric: m}
}

// LearnerManifest returns the manifest's record (rundir.ManifestFlags) of
// the learner name with the settings c, the rest left zero for the command
// to fill in.
func LearnerManifest(name string, c algo.Config) rundir.ManifestFlags {
	f := rundir.ManifestFlags{Algo: name, MiniBatch: c.MiniBatch,
		Loss: c.Loss, L1: c.L1, L2: c.L2, Noise: c.Noise, Rate: c.Rate, NoiseUnlabeled: c.NoiseUnlabeled,
		Restarts: c.Restarts, RandomDirections: c.RandomDirections, RestartRange: c.RestartRange, MIRAC: c.MIRAC, MIRADecay: c.MIRADecay}
	if c.NoiseType != "dropout" {
		f.NoiseType = c.NoiseType
	}
	f.Metric = metric.RecordName(c.Metric())
	return f
}

// Printer is the Recorder that prints a progress line an epoch (and
// replica) to W.
type Printer struct {
	// W receives the lines; nil prints none.
	W io.Writer

	epochs, done int // Init's
}

// NewPrinter returns a Printer of lines to w.
func NewPrinter(w io.Writer) *Printer { return &Printer{W: w} }

// Init records the run's last epoch and how many epochs' metrics were
// complete before, for the time left.
func (p *Printer) Init(ctx context.Context, epochs int, done []rundir.Metrics) error {
	p.epochs, p.done = epochs, len(done)
	return nil
}

// Record prints the lines of the epoch whose replicas' metrics are got,
// with the time left estimated from the epochs this session ran (ms after
// those complete at Init, every replica's): one line for a single replica;
// with several, a line a replica and one with the mean ± sd over them.
func (p *Printer) Record(ctx context.Context, ms, got []rundir.Metrics) error {
	if p.W == nil {
		return nil
	}
	ran := ms[p.done:]
	var secs float64
	for _, e := range ran {
		if e.Replica == 0 {
			secs += e.Seconds
		}
	}
	m := got[0]
	eta := secs / float64(len(ran)/len(got)) * float64(p.epochs-m.Epoch)
	if len(got) == 1 {
		fmt.Fprintf(p.W, "epoch %d/%d: %s, %.1f s, ETA %.0f s\n", m.Epoch, p.epochs, progressLine(m), m.Seconds, eta)
		return nil
	}
	for _, m := range got {
		fmt.Fprintf(p.W, "epoch %d/%d replica %d: %s\n", m.Epoch, p.epochs, m.Replica, progressLine(m))
	}
	sum := rundir.SummarizeReplicas(got)[0]
	name := "dev " + m.MetricName()
	if m.DevScore == nil {
		name = "tune " + m.MetricName() + " (no dev set)"
	}
	fmt.Fprintf(p.W, "epoch %d/%d: %s %.2f ± %.2f over %d replicas, %.1f s, ETA %.0f s\n",
		m.Epoch, p.epochs, name, sum.Score, sum.ScoreSD, len(got), m.Seconds, eta)
	return nil
}

// progressLine describes epoch m's BLEU and work.
func progressLine(m rundir.Metrics) string {
	name := m.MetricName()
	dev := ""
	if m.DevScore != nil {
		dev = fmt.Sprintf(" dev %s %6.2f", name, *m.DevScore)
	}
	work := fmt.Sprintf("%d updates", m.Updates)
	if m.Pool > 0 {
		work = fmt.Sprintf("pool %d", m.Pool)
	}
	if st := m.Staleness; st != nil {
		work += fmt.Sprintf(" (staleness max %d mean %.2f, %d recomputed)", st.Max, st.Mean, st.Recomputes)
	}
	// "decoded" always marks the progressive BLEU: as the tune BLEU when
	// it is that, else after the tune and dev figures.
	bleu := fmt.Sprintf("tune %s %6.2f%s (decoded %6.2f)", name, m.TuneScore, dev, m.ProgressiveScore)
	if m.TuneDecoded {
		bleu = fmt.Sprintf("tune %s (decoded) %6.2f%s", name, m.TuneScore, dev)
	}
	return fmt.Sprintf("%s, %s, %d non-zeros", bleu, work, m.NonZero)
}
