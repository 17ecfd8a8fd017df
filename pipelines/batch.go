package pipelines

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

func init() {
	register.DoFn3x2[context.Context, int, func(*transforms.NBest) bool, string, error](&writeNBestsFn{})
	register.Iter1[transforms.NBest]()
}

// writeNBestsFn writes every NBest of its one group to Path as JSON lines,
// by sentence.
type writeNBestsFn struct {
	Path string
}

func (f *writeNBestsFn) ProcessElement(ctx context.Context, _ int, iter func(*transforms.NBest) bool) (string, error) {
	var all []transforms.NBest
	var n transforms.NBest
	for iter(&n) {
		all = append(all, n)
		n = transforms.NBest{}
	}
	slices.SortFunc(all, func(a, b transforms.NBest) int { return a.Sent - b.Sent })
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, x := range all {
		if err := enc.Encode(x); err != nil {
			return "", fmt.Errorf("pipelines: %w", err)
		}
	}
	if err := storage.WriteFile(ctx, f.Path, b.Bytes()); err != nil {
		return "", fmt.Errorf("pipelines: %w", err)
	}
	return f.Path, nil
}

// readNBests reads a file writeNBestsFn wrote.
func readNBests(ctx context.Context, path string) ([]transforms.NBest, error) {
	data, err := storage.ReadFile(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("pipelines: %w", err)
	}
	var out []transforms.NBest
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<30)
	for line := 1; sc.Scan(); line++ {
		var n transforms.NBest
		if err := json.Unmarshal(sc.Bytes(), &n); err != nil {
			return nil, fmt.Errorf("pipelines: %s:%d: %w", path, line, err)
		}
		if err := n.Validate(); err != nil {
			return nil, fmt.Errorf("pipelines: %s:%d: %w", path, line, err)
		}
		out = append(out, n)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("pipelines: %s: %w", path, err)
	}
	return out, nil
}

// runBatchEpoch is epoch n of --mode batch: one pipeline launch decodes the
// tuning set with the previous epoch's weights into n-best lists
// (epochs/NNN/nbest.jsonl); the driver then pools the lists of epochs 1…n
// (distinct targets per sentence) and runs the batch optimizer o.Algo on
// the pool, starting from the previous weights. Tune BLEU is the 1-best
// BLEU of the pool re-ranked by the new weights (no second decoding).
func runBatchEpoch(ctx context.Context, o *Options, n int, tuneSet []transforms.Sentence, startPath string, dense []string) (Metrics, error) {
	t0 := time.Now()
	dir := o.layout().Epoch(n)
	prevPath := startPath
	if n > 1 {
		prevPath = o.layout().Epoch(n - 1).JSON()
	}
	p, s := beam.NewPipelineWithRoot()
	sents := transforms.ReadSentences(s, o.Src, o.Refs, len(tuneSet))
	w := transforms.ReadWeights(s, prevPath)
	dec := &transforms.DecodeFn{Decoder: o.Decoder, DecoderConfig: o.decoderConfig(), Options: transforms.DecodeOptions{NBest: o.NBest}}
	lists := transforms.Decode(s, dec, sents, w)
	beam.ParDo(s, &writeNBestsFn{Path: dir.NBests()}, beam.GroupByKey(s, beam.AddFixedKey(s, lists)))
	exec := o.Execute
	if exec == nil {
		exec = beamx.Run
	}
	if err := exec(ctx, p); err != nil {
		return Metrics{}, &PipelineError{Epoch: n, Err: err}
	}

	prev, err := transforms.ReadWeightsFile(ctx, prevPath)
	if err != nil {
		return Metrics{}, err
	}
	idx := feature.NewIndexOf(prev.Names...)
	bySent := map[int]*pool.List{}
	seen := map[int]map[string]bool{}
	var order []int
	var decoded metric.Stats
	for k := 1; k <= n; k++ {
		nbs, err := readNBests(ctx, o.layout().Epoch(k).NBests())
		if err != nil {
			return Metrics{}, err
		}
		for _, nb := range nbs {
			if k == n && len(nb.Hyps) > 0 {
				decoded.Add(nb.Hyps[0].Stats)
			}
			l, err := nb.List(idx)
			if err != nil {
				return Metrics{}, fmt.Errorf("pipelines: epoch %d sentence %d: %w", k, nb.Sent, err)
			}
			if bySent[nb.Sent] == nil {
				bySent[nb.Sent] = &pool.List{Sent: nb.Sent}
				seen[nb.Sent] = map[string]bool{}
				order = append(order, nb.Sent)
			}
			for i, h := range l.Hyps {
				if t := nb.Hyps[i].Target; !seen[nb.Sent][t] {
					seen[nb.Sent][t] = true
					bySent[nb.Sent].Hyps = append(bySent[nb.Sent].Hyps, h)
				}
			}
		}
	}
	slices.Sort(order)
	pooled := make([]pool.List, len(order))
	for i, id := range order {
		pooled[i] = *bySent[id]
	}
	w0, err := prev.Over(idx)
	if err != nil {
		return Metrics{}, fmt.Errorf("pipelines: %w", err)
	}
	cfg := o.AlgoConfig
	cfg.Seed = tune.EpochSeed(o.Seed, n-1)
	l, err := algo.New(o.Algo, w0, cfg)
	if err != nil {
		return Metrics{}, fmt.Errorf("pipelines: %w", err)
	}
	if err := l.Learn(ctx, pooled); err != nil {
		return Metrics{}, fmt.Errorf("pipelines: epoch %d: %s: %w", n, o.Algo, err)
	}
	nw := l.Weights()
	if !nw.Finite() {
		return Metrics{}, fmt.Errorf("pipelines: epoch %d: %s returned weights that are not finite", n, o.Algo)
	}
	if !o.KeepScale {
		// Moses' mert convention. The re-ranking of a fixed pool does not
		// depend on the scale, but the decoder's beam pruning (a threshold
		// relative to the best score) does: kb-MIRA's weights come out
		// 10-30 times larger than MERT's, and decoding with them pruned
		// far harder (5 s instead of 25 s for the europarl tuneSet split,
		// 0.4 BLEU lower on test).
		nw = nw.Clone()
		nw.NormalizeL1()
	}
	state, err := l.MarshalBinary()
	if err != nil {
		return Metrics{}, fmt.Errorf("pipelines: %w", err)
	}
	if err := storage.WriteFile(ctx, dir.LearnerState(), state); err != nil {
		return Metrics{}, fmt.Errorf("pipelines: %w", err)
	}
	ww := transforms.NewWireWeights(idx, nw)
	m := Metrics{Epoch: n, Sentences: len(tuneSet), Pool: pool.Size(pooled), ProgressiveBLEU: 100 * decoded.BLEU()}
	st := pool.OneBest(pooled, nw)
	m.TuneBLEU = 100 * st.BLEU()
	for _, v := range ww.Vals {
		if v != 0 {
			m.NonZero++
		}
	}
	if err := writeTrio(ctx, dir.Dir, ww, dense); err != nil {
		return Metrics{}, err
	}
	m.Seconds = time.Since(t0).Seconds()
	return m, nil
}
