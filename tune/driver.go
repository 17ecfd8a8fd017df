package tune

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mtune/mtune/io/storage"
)

// Epocher runs one epoch of a tuning run in one mode (ipm, stale or batch
// in package pipelines: one Beam launch each). The Driver calls it for
// epochs first, first+1, …; epoch n starts from epoch n−1's weights
// (Layout.Epoch(n−1).JSON(), or Layout.Init() for the first) and must
// leave its weights trio and its learner state in Layout.Epoch(n).
type Epocher interface {
	Epoch(ctx context.Context, n int) (Metrics, error)
}

// ReplicasEpocher is an Epocher that runs every replica of a run
// (--replicas, Driver.Replicas) in the same launch an epoch.
type ReplicasEpocher interface {
	Epocher
	// EpochReplicas runs epoch n of every replica and returns their
	// metrics, replica 0's first (Metrics.Replica set); replica r's files
	// go to Layout.Replica(r, replicas).Epoch(n).
	EpochReplicas(ctx context.Context, n int) ([]Metrics, error)
}

// Driver runs the epoch loop of a run (DESIGN.md §1, §6) over an Epocher:
// after each epoch it rewrites metrics.jsonl, copies the weights to best/
// when the epoch is the best so far (BestEpoch: dev BLEU, else tune BLEU),
// marks the epoch complete, redraws report.html and prints a progress
// line. It holds the loop's domain; what an epoch does is the Epocher's.
//
// With Replicas > 1 the Epocher must be a ReplicasEpocher: metrics.jsonl
// holds every replica's line of each epoch, each replica's best epoch goes
// to its own best/ (Layout.Replica), the best of them all to the run's
// best/ (BestReplica), and an epoch is complete once every replica's
// marker is written.
type Driver struct {
	// Dir is the run folder.
	Dir Layout
	// Epochs is the last epoch to run.
	Epochs int
	// Replicas is the number of replicas; 0 means 1.
	Replicas int
	// Progress receives a line per epoch (and replica); nil means none.
	Progress io.Writer
}

// Run runs epochs len(done)/Replicas+1 … d.Epochs after the complete
// epochs done (a resumed run's, every replica's, as CompleteReplicas
// returns them; none for a new one) and returns every epoch's metrics.
// On error it returns the epochs that completed.
func (d Driver) Run(ctx context.Context, e Epocher, done []Metrics) ([]Metrics, error) {
	nr := max(1, d.Replicas)
	epoch := func(ctx context.Context, n int) ([]Metrics, error) {
		m, err := e.Epoch(ctx, n)
		return []Metrics{m}, err
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
		if err := WriteMetrics(ctx, d.Dir.Metrics(), ms); err != nil {
			return ms, err
		}
		if nr > 1 {
			for r, m := range got {
				if BestEpoch(OfReplica(ms, r)) == n {
					if err := d.keepBest(ctx, m, d.Dir.Replica(r, nr).Best()); err != nil {
						return ms, err
					}
				}
			}
		}
		if r, best := BestReplica(ms); best == n {
			if err := d.keepBest(ctx, got[r], d.Dir.Best()); err != nil {
				return ms, err
			}
		}
		for r, m := range got {
			if err := WriteComplete(ctx, d.Dir.Replica(r, nr).Epoch(n), m); err != nil {
				return ms, err
			}
		}
		// The report is redrawn after every epoch, so a run stopped early
		// still has one for the epochs it finished.
		if err := WriteReport(ctx, d.Dir.Root); err != nil {
			return ms, err
		}
		d.progress(ms[len(done):], got)
	}
	return ms, nil
}

// keepBest copies the weights trio of epoch m (of replica m.Replica) to
// the best folder bd, with m as its epoch.json.
func (d Driver) keepBest(ctx context.Context, m Metrics, bd BestLayout) error {
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
	return WriteJSON(ctx, bd.Epoch(), m)
}

// progress prints the lines of the epoch whose replicas' metrics are got,
// with the time left estimated from the epochs this session ran (ran,
// every replica's): one line for a single replica; with several, a line a
// replica and one with the mean ± sd over them.
func (d Driver) progress(ran []Metrics, got []Metrics) {
	if d.Progress == nil {
		return
	}
	var secs float64
	for _, e := range ran {
		if e.Replica == 0 {
			secs += e.Seconds
		}
	}
	m := got[0]
	eta := secs / float64(len(ran)/len(got)) * float64(d.Epochs-m.Epoch)
	if len(got) == 1 {
		fmt.Fprintf(d.Progress, "epoch %d/%d: %s, %.1f s, ETA %.0f s\n", m.Epoch, d.Epochs, progressLine(m), m.Seconds, eta)
		return
	}
	for _, m := range got {
		fmt.Fprintf(d.Progress, "epoch %d/%d replica %d: %s\n", m.Epoch, d.Epochs, m.Replica, progressLine(m))
	}
	sum := SummarizeReplicas(got)[0]
	name := "dev BLEU"
	if m.DevBLEU == nil {
		name = "tune BLEU (no dev set)"
	}
	fmt.Fprintf(d.Progress, "epoch %d/%d: %s %.2f ± %.2f over %d replicas, %.1f s, ETA %.0f s\n",
		m.Epoch, d.Epochs, name, sum.Score, sum.ScoreSD, len(got), m.Seconds, eta)
}

// progressLine describes epoch m's BLEU and work.
func progressLine(m Metrics) string {
	dev := ""
	if m.DevBLEU != nil {
		dev = fmt.Sprintf(" dev BLEU %6.2f", *m.DevBLEU)
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
	bleu := fmt.Sprintf("tune BLEU %6.2f%s (decoded %6.2f)", m.TuneBLEU, dev, m.ProgressiveBLEU)
	if m.TuneDecoded {
		bleu = fmt.Sprintf("tune BLEU (decoded) %6.2f%s", m.TuneBLEU, dev)
	}
	return fmt.Sprintf("%s, %s, %d non-zeros", bleu, work, m.NonZero)
}

// CompleteEpochs returns the metrics of epochs 1, 2, … of the run folder
// whose complete marker exists, up to the first that is missing: what
// --resume keeps. The files of the last of them, which the next epoch
// reads, are checked against the digests its marker recorded
// (ReadComplete): a file changed since is an error naming it.
func CompleteEpochs(ctx context.Context, dir Layout) ([]Metrics, error) {
	last := 0
	for ; ; last++ {
		ok, err := storage.Exists(ctx, dir.Epoch(last+1).Complete())
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
	}
	var ms []Metrics
	for n := 1; n <= last; n++ {
		m, err := ReadComplete(ctx, dir.Epoch(n), n == last)
		if err != nil {
			return nil, err
		}
		if m.Epoch != n {
			return nil, fmt.Errorf("%s records epoch %d", dir.Epoch(n).Complete(), m.Epoch)
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// WriteMetrics writes ms as metrics.jsonl at path: one line an epoch.
func WriteMetrics(ctx context.Context, path string, ms []Metrics) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, m := range ms {
		if err := enc.Encode(m); err != nil {
			return fmt.Errorf("tune: %w", err)
		}
	}
	if err := storage.WriteFile(ctx, path, b.Bytes()); err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	return nil
}

// Finish records how the run of manifest man ended (done, or failed with
// err) in the run folder's manifest.json and report.html, even if ctx is
// cancelled, and returns err (or the error of writing them). A run stopped
// by ctx (an interrupt, a lost lease) says so in its error.
func Finish(ctx context.Context, dir Layout, man Manifest, err error) error {
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%w (stopped: %v)", err, context.Cause(ctx))
	}
	end := time.Now().UTC()
	man.End = &end
	man.Status = "done"
	if err != nil {
		man.Status, man.Error = "failed", err.Error()
	}
	wctx := context.WithoutCancel(ctx)
	if werr := WriteJSON(wctx, dir.Manifest(), man); werr != nil && err == nil {
		err = werr
	}
	if werr := WriteReport(wctx, dir.Root); werr != nil && err == nil {
		err = werr
	}
	return err
}

// WriteJSON writes v to path as one line of JSON, atomically.
func WriteJSON(ctx context.Context, path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("tune: encoding %s: %w", path, err)
	}
	if err := storage.WriteFile(ctx, path, append(data, '\n')); err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	return nil
}

// ReadJSON reads a file WriteJSON wrote into v.
func ReadJSON(ctx context.Context, path string, v any) error {
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("tune: %s: %w", path, err)
	}
	return nil
}

// UnmarshalStrict decodes the one JSON value data holds into v, refusing
// what json.Unmarshal lets pass silently: fields v does not have, and
// text after the value. Truncated input is io.ErrUnexpectedEOF.
func UnmarshalStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("text after the JSON value")
	}
	return nil
}
