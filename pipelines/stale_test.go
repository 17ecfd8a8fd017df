package pipelines_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/tune"
)

// TestStaleMode runs stale mode on prism: one launch per epoch, every
// update's staleness in metrics.jsonl, none above --max-staleness.
func TestStaleMode(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	tests := []struct {
		name          string
		threads, maxS int
	}{
		{name: "3 threads unbounded", threads: 3},
		{name: "3 threads bound 1", threads: 3, maxS: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			o := options(d, out)
			o.Mode, o.Epochs, o.Stale = tune.Stale, 2, tune.StaleOptions{Threads: tc.threads, MaxStaleness: tc.maxS}
			o.AlgoConfig = algo.Config{MiniBatch: 4}
			launches := countLaunches(&o)
			res := mustRun(t, ctx, o)
			if *launches != 1+2 {
				t.Errorf("%d launches for a model check and 2 epochs", *launches)
			}
			f, err := os.Open(filepath.Join(out, "metrics.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			lines := 0
			for sc.Scan() {
				lines++
				var m rundir.Metrics
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatal(err)
				}
				if m.Staleness == nil {
					t.Fatalf("epoch %d: no staleness in %s", m.Epoch, sc.Bytes())
				}
				n, maxK := 0, 0
				for k, c := range m.Staleness.Histogram {
					s, err := strconv.Atoi(k)
					if err != nil {
						t.Fatal(err)
					}
					n += c
					maxK = max(maxK, s)
				}
				// 40 sentences in 2 shards, mini-batches of 4: ≥ 10 updates.
				if n != m.Updates || n < 10 {
					t.Errorf("epoch %d: %d staleness records, %d updates", m.Epoch, n, m.Updates)
				}
				if maxK != m.Staleness.Max || (tc.maxS > 0 && maxK > tc.maxS) {
					t.Errorf("epoch %d: max staleness %d (reported %d), bound %d", m.Epoch, maxK, m.Staleness.Max, tc.maxS)
				}
				// The same updates in the pipeline's Beam metrics.
				if st := m.Distributions["learn_staleness"]; st.Count != int64(n) || st.Max != int64(maxK) ||
					m.Counters["learn_updates"] != int64(n) || m.Counters["learn_recomputes"] != int64(m.Staleness.Recomputes) {
					t.Errorf("epoch %d: Beam metrics %v %v, want %d updates, max staleness %d, %d recomputes",
						m.Epoch, m.Counters, m.Distributions, n, maxK, m.Staleness.Recomputes)
				}
				t.Logf("epoch %d: tune BLEU %.2f, staleness %s", m.Epoch, m.TuneScore, sc.Bytes()[bytes.Index(sc.Bytes(), []byte(`"staleness"`)):])
			}
			if lines != 2 || len(res.Epochs) != 2 {
				t.Errorf("%d metrics lines, %d epochs", lines, len(res.Epochs))
			}
		})
	}
}

// TestStaleOneThreadIsIPM: with --threads 1 and a learner whose gradient
// does not depend on the seed, stale mode's weights are ipm's, byte for
// byte.
func TestStaleOneThreadIsIPM(t *testing.T) {
	d := smallDemo(t)
	ctx := context.Background()
	dir := t.TempDir()
	weightsOf := func(mode tune.Mode) []byte {
		o := options(d, filepath.Join(dir, mode.String()))
		o.Mode, o.Epochs, o.Algo = mode, 2, "oro"
		if mode == tune.Stale {
			o.Stale.Threads = 1 // ipm refuses stale mode's options
		}
		o.AlgoConfig = algo.Config{MiniBatch: 4}
		mustRun(t, ctx, o)
		b, err := os.ReadFile(rundir.Layout{Root: o.Out}.Epoch(2).JSON())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if a, b := weightsOf(tune.IPM), weightsOf(tune.Stale); !bytes.Equal(a, b) {
		t.Errorf("ipm and one-thread stale differ:\n%s\n%s", a, b)
	}
}
