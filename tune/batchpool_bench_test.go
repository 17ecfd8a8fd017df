package tune_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/testsupport/randpool"
	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/tune"
)

// BenchmarkRunPartsMemory measures how much memory the optimizers that
// read the whole pool on one worker (tune.BatchStep.RunParts: kb-MIRA,
// MR, SVM) take per pooled hypothesis: a pool of 2,000 sentences × 100
// hypotheses with Moses' 14 dense features, and with 30 sparse features
// a hypothesis besides (drawn from 50,000, as --sparse all gives), written
// as the pipeline writes its parts. It reports the peak heap during
// RunParts over the heap before it (sampled every 10 ms) in bytes a
// hypothesis (ns/op is one optimizer step).
func BenchmarkRunPartsMemory(b *testing.B) {
	ctx := context.Background()
	const sentences, hyps = 2000, 100
	for _, sparse := range []int{0, 30} {
		dir := rundir.EpochLayout{Trio: rundir.Trio{Dir: b.TempDir()}, N: 1}
		dense := make([]string, 14)
		for j := range dense {
			dense[j] = fmt.Sprintf("F%d_%d", j/4, j%4)
		}
		r := rand.New(rand.NewPCG(1, uint64(sparse)))
		lists := randpool.Lists(r, sentences, hyps, hyps, len(dense))
		parts := map[int][]tune.NBest{}
		for _, l := range lists {
			var fb feature.Builder
			idx := feature.NewIndexOf(dense...)
			for k, h := range l.Hyps {
				for q, id := range h.Features.IDs {
					fb.Add(id, h.Features.Vals[q])
				}
				for range sparse {
					fb.Add(idx.ID(fmt.Sprintf("pp_%d", r.IntN(50000))), 1)
				}
				l.Hyps[k].Features = fb.Vector()
			}
			targets := make([]string, len(l.Hyps))
			for k := range targets {
				targets[k] = fmt.Sprintf("t%d", k)
			}
			p := tune.PoolPartOf(l.Sent)
			parts[p] = append(parts[p], tune.NBestOf(l, targets, idx))
		}
		var paths []rundir.PoolPart
		for p := range tune.PoolParts(sentences) {
			if _, err := tune.MergePoolPart(ctx, p, rundir.PoolPart{}, parts[p], dense, dir.PoolPart(p), nil); err != nil {
				b.Fatal(err)
			}
			paths = append(paths, dir.PoolPart(p))
		}
		parts = nil
		lists = nil
		prev := weights.ByName{Names: dense, Vals: make([]float64, len(dense))}
		for j := range prev.Vals {
			prev.Vals[j] = 0.1
		}
		for _, algo := range []string{"kbmira", "mr"} {
			b.Run(fmt.Sprintf("%s/sparse=%d", algo, sparse), func(b *testing.B) {
				step := tune.BatchStep{Algo: algo, Seed: 1}
				var peak float64
				for b.Loop() {
					base := shared.LiveHeapMiB()
					stop, top := samplePeak()
					if _, _, err := step.RunParts(ctx, 1, paths, prev, dir.LearnerState()); err != nil {
						b.Fatal(err)
					}
					stop()
					peak = *top - base
				}
				b.ReportMetric(peak*(1<<20)/(sentences*hyps), "B/hyp")
				b.ReportMetric(peak, "peak-MiB")
			})
		}
	}
}

// samplePeak samples the heap every 10 ms until stop is called; *top is
// the largest HeapAlloc seen, in MiB.
func samplePeak() (stop func(), top *float64) {
	top = new(float64)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			*top = max(*top, float64(ms.HeapAlloc)/(1<<20))
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); wg.Wait() }, top
}
