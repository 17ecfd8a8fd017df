package pipelines_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/mtune/mtune/pipelines"
	"github.com/mtune/mtune/tune"
)

// configCopies numbers the copies freshConfig makes.
var configCopies atomic.Int64

// freshConfig returns a copy of the moses.ini ini, beside it under a name
// of its own, so that a run given it loads its decoder anew: a worker
// loads a decoder once per configuration (transforms.OpenDecoder), and a
// decoder's feature ids are those of the order its decodings met the
// features. Each run of a test then starts as a new mtune process does.
func freshConfig(t *testing.T, ini string) string {
	t.Helper()
	data, err := os.ReadFile(ini)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(filepath.Dir(ini), fmt.Sprintf("moses-%d-%d.ini", os.Getpid(), configCopies.Add(1)))
	if err := os.WriteFile(p, data, 0o666); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(p) })
	return p
}

// sameFiles fails t unless every file named of each run's folder holds
// the bytes of the first run's.
func sameFiles(t *testing.T, runs []string, files func(root string) []string) {
	t.Helper()
	want := files(runs[0])
	for _, run := range runs[1:] {
		for k, path := range files(run) {
			if a, b := readFile(t, want[k]), readFile(t, path); !bytes.Equal(a, b) {
				t.Errorf("%s differs from %s", path, want[k])
			}
		}
	}
}

// epochWeights names the weights.json of epochs 1..n of a run folder.
func epochWeights(n int) func(root string) []string {
	return func(root string) []string {
		var out []string
		for e := 1; e <= n; e++ {
			out = append(out, tune.Layout{Root: root}.Epoch(e).JSON())
		}
		return out
	}
}

// TestSparseReproducible is issue 20's reproducibility check on real
// data: Moses' europarl-fr-en-8k model with every sparse template on, the
// first 200 sentences of the tune split, one ipm epoch of 2 shards, run
// with the default --decode-threads (the cores over the shards), with 1
// and with 4; each run loads its decoder anew, as a new process would. The epoch's
// weights.json must be the same bytes in every run: the feature ids a
// shard gives the features its decoding meets, and so the order of the
// learner's sums, must not depend on the order in which concurrent
// decodings (the shards', a shard's threads') met them.
func TestSparseReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: three runs of an epoch on 200 sentences of europarl")
	}
	ini, src, ref := europarlTune(t, t.TempDir(), 200)
	ctx := context.Background()
	dir := t.TempDir()
	var runs []string
	for i, threads := range []int{0, 1, 4} {
		o := pipelines.Options{Config: freshConfig(t, ini), Src: src, Refs: []string{ref},
			Out: filepath.Join(dir, fmt.Sprintf("run%d-threads%d", i, threads)), Sparse: []string{"all"},
			Epochs: 1, Seed: 1, DecodeThreads: threads, Execute: execute}
		res := mustRun(t, ctx, o)
		t.Logf("--decode-threads %d: %d non-zero weights, progressive BLEU %.4f", threads, res.Epochs[0].NonZero, res.Epochs[0].TuneBLEU)
		runs = append(runs, o.Out)
	}
	sameFiles(t, runs, epochWeights(1))
}
