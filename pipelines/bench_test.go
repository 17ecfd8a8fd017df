package pipelines_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx" // registers the runners

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/learner/mix"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pipelines"
	"github.com/mtune/mtune/run"
	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// europarlTune writes the first n sentences of the tune split (lines
// 8001–9000) of ../shared/data/europarl-fr-en to dir and points MODEL_PATH
// at Moses' model of the train split; it returns the moses.ini and the two
// files.
func europarlTune(b testing.TB, dir string, n int) (ini, src, ref string) {
	b.Helper()
	model := shared.Path(b, "moses-models", "europarl-fr-en-8k")
	b.Setenv("MODEL_PATH", model)
	src, ref = filepath.Join(dir, "tune.fr"), filepath.Join(dir, "tune.en")
	for _, f := range [][2]string{{"fr.gz", src}, {"en.gz", ref}} {
		lines, err := corpus.ReadFile(context.Background(), shared.Path(b, "europarl-fr-en", f[0]))
		if err != nil {
			b.Fatal(err)
		}
		if len(lines) < 9000 {
			b.Fatalf("%s: %d lines, want 10,000", f[0], len(lines))
		}
		if err := os.WriteFile(f[1], []byte(strings.Join(lines[8000:8000+n], "\n")+"\n"), 0o666); err != nil {
			b.Fatal(err)
		}
	}
	return filepath.Join(model, "moses.ini"), src, ref
}

// BenchmarkEpochEuroparl8k measures one ipm epoch (AdaGrad, 100-best,
// averaging) on the 1,000-sentence tune split with Moses' europarl-fr-en-8k
// model: "plain" calls the decoder and the learner directly (LearnShard
// on each shard, the shards concurrently, mix.Average, then the 1-best
// decoding of the tuning set that gives an epoch's tune BLEU), the others
// run the same epoch as pipelines.Run does on prism and on the direct
// runner. The pipeline's overhead is a runner's s/epoch over plain's.
// Run it with -benchtime 1x (scripts/bench-pipeline.sh does).
func BenchmarkEpochEuroparl8k(b *testing.B) {
	ctx := context.Background()
	ini, src, ref := europarlTune(b, b.TempDir(), 1000)
	dec, err := transforms.OpenDecoder(ctx, tune.MosesDecoderName, ini)
	if err != nil {
		b.Fatal(err)
	}
	for _, shards := range []int{1, 2} {
		b.Run(fmt.Sprintf("plain/shards=%d", shards), func(b *testing.B) {
			for b.Loop() {
				start := time.Now()
				bleu := plainEpoch(b, dec, ini, src, ref, shards)
				b.ReportMetric(time.Since(start).Seconds(), "s/epoch")
				b.ReportMetric(bleu, "BLEU")
			}
		})
		for _, runner := range []string{"prism", "direct"} {
			b.Run(fmt.Sprintf("%s/shards=%d", runner, shards), func(b *testing.B) {
				for b.Loop() {
					o := pipelines.Options{Problem: run.Problem{Config: ini, Src: src, Refs: []string{ref}},
						Settings:     run.Settings{Out: b.TempDir(), Epochs: 1, Seed: 1},
						ShardOptions: pipelines.ShardOptions{Shards: shards, EvalTune: true}, // plain's figure: the tuning set decoded again
						Execute: func(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error) {
							return beam.Run(ctx, runner, p)
						}}
					start := time.Now()
					res, err := pipelines.Run(ctx, o)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(time.Since(start).Seconds(), "s/epoch")
					b.ReportMetric(res.Epochs[0].TuneScore, "BLEU")
				}
			})
		}
	}
}

// plainEpoch runs one epoch without Beam and returns the tune BLEU.
func plainEpoch(b *testing.B, dec tune.Decoder, ini, src, ref string, shards int) float64 {
	ctx := context.Background()
	tuneSet, err := readTune(src, ref)
	if err != nil {
		b.Fatal(err)
	}
	init, err := weights.ReadByName(ctx, ini)
	if err != nil {
		b.Fatal(err)
	}
	seed := tune.EpochSeed(1, 0)
	idx := feature.NewIndexOf(init.Names...)
	results := make([]tune.ShardResult, shards)
	errs := make([]error, shards)
	var wg sync.WaitGroup
	for k := range shards {
		var mine []tune.Sentence
		for _, x := range tuneSet {
			if tune.ShardOf(x.ID, seed, shards) == k {
				mine = append(mine, x)
			}
		}
		wg.Go(func() {
			results[k], _, errs[k] = tune.LearnShard(ctx, dec, k, mine, init, nil, tune.LearnOptions{
				Algo: "adagrad", Seed: 1,
				Decode: tune.DecodeOptions{NBest: 100, Threads: max(1, runtime.NumCPU()/shards)}}, nil)
		})
	}
	wg.Wait()
	var ms []mix.Shard
	for k, r := range results {
		if errs[k] != nil {
			b.Fatal(errs[k])
		}
		w, err := r.Weights.Over(idx)
		if err != nil {
			b.Fatal(err)
		}
		ms = append(ms, mix.Shard{Weights: w, Updates: r.Updates})
	}
	avg := mix.Average(ms, true)
	// The 1-best decoding of the tuning set with the mixed weights, over
	// the decoder's own index, on every core.
	dw := make(feature.Weights, dec.Features().Len())
	for i, v := range avg {
		if id, ok := dec.Features().Lookup(idx.Name(feature.ID(i))); ok {
			dw[id] = v
		}
	}
	stats := make([]metric.Stats, len(tuneSet))
	next := make(chan int)
	for range runtime.NumCPU() {
		wg.Go(func() {
			for i := range next {
				nb, err := tune.DecodeSentence(ctx, dec, tuneSet[i], dw, tune.DecodeOptions{NBest: 1})
				if err != nil {
					b.Error(err)
					continue
				}
				stats[i] = nb.Hyps[0].Stats
			}
		})
	}
	for i := range tuneSet {
		next <- i
	}
	close(next)
	wg.Wait()
	return 100 * metric.BLEUStats(metric.Sum(stats)).BLEU()
}

func readTune(src, ref string) ([]tune.Sentence, error) {
	c, err := corpus.Load(context.Background(), src, []string{ref})
	if err != nil {
		return nil, err
	}
	return tune.SentencesOf(c, 0), nil
}
