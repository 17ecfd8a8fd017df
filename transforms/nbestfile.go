package transforms

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/tune"
)

// WriteNBests writes the lists of a PCollection<tune.NBest> to path as one Moses
// n-best list (see WriteNBestFile) and returns a singleton
// PCollection<string> holding path once it is written. The lists meet on
// one worker, as the file is written by one writer in sentence order.
func WriteNBests(s beam.Scope, lists beam.PCollection, path string, dense []string) beam.PCollection {
	s = s.Scope("transforms.WriteNBests")
	if path == "" {
		panic("transforms.WriteNBests: empty path")
	}
	return beam.ParDo(s, &writeNBestsFn{Path: path, Dense: dense}, beam.GroupByKey(s, beam.AddFixedKey(s, lists)))
}

// writeNBestsFn writes every tune.NBest of its one group to Path.
type writeNBestsFn struct {
	Path  string
	Dense []string
}

func (f *writeNBestsFn) ProcessElement(ctx context.Context, _ int, iter func(*tune.NBest) bool) (string, error) {
	var all []tune.NBest
	var n tune.NBest
	for iter(&n) {
		all = append(all, n)
		n = tune.NBest{}
	}
	return f.Path, WriteNBestFile(ctx, f.Path, all, f.Dense)
}

// WriteNBestFile writes lists to path (local or gs://; .gz and .zst
// compress) as a Moses n-best list, the format io/nbest reads and
// `mtune decode --nbest-out` writes:
//
//	3 ||| the house ||| LM0= -12.5 TranslationModel0= -1 -2 pp_maison~house= 1 ||| -4.25
//
// Sentences come in increasing id order, each list's hypotheses in their
// order. The features named by dense (feature.DenseName names, such as the
// starting weights' Names; see weights.GroupsOf) are written as Moses dense
// groups with every component, zeros included; every other feature is
// written by name (io/nbest's Moses style). Every feature reads back under
// its name. The total is the decoder's score (tune.WireHyp.Score),
// left out for hypotheses without one. The file appears atomically once
// complete; on error it is not created.
func WriteNBestFile(ctx context.Context, path string, lists []tune.NBest, dense []string) error {
	lists = slices.Clone(lists)
	slices.SortStableFunc(lists, func(a, b tune.NBest) int { return cmp.Compare(a.Sent, b.Sent) })
	w, err := storage.Create(ctx, path)
	if err != nil {
		return fmt.Errorf("transforms: %w", err)
	}
	defer w.Abort()
	idx := feature.NewIndexOf(dense...)
	nw := nbest.NewWriter(w, idx)
	for _, g := range weights.GroupsOf(dense) {
		// A label holding "_" would read back as a sparse name: its
		// features are written as sparse ones, under the same names.
		if !strings.Contains(g.Label, "_") {
			nw.Groups = append(nw.Groups, g)
		}
	}
	for i, n := range lists {
		if i > 0 && n.Sent == lists[i-1].Sent {
			return fmt.Errorf("transforms: writing %s: two n-best lists for sentence %d", path, n.Sent)
		}
		l, err := n.List(idx)
		if err != nil {
			return fmt.Errorf("transforms: writing %s: %w", path, err)
		}
		for k, h := range l.Hyps {
			wh := n.Hyps[k]
			err := nw.Write(nbest.Hypothesis{Sentence: n.Sent, Target: wh.Target, Features: h.Features, Score: wh.Score, HasScore: wh.HasScore})
			if err != nil {
				return fmt.Errorf("transforms: writing %s: sentence %d hypothesis %d: %w", path, n.Sent, k, err)
			}
		}
	}
	nw.Flush()
	if err := nw.Error(); err != nil {
		return fmt.Errorf("transforms: writing %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("transforms: %w", err)
	}
	return nil
}

// DecodedStats sums the statistics of each list's first hypothesis, the
// 1-best as decoded: it takes a PCollection<tune.NBest> and returns a singleton
// PCollection<metric.Stats> whose BLEU() is progressive BLEU.
func DecodedStats(s beam.Scope, lists beam.PCollection) beam.PCollection {
	s = s.Scope("transforms.DecodedStats")
	return SumStats(s, beam.ParDo(s, firstStats, lists))
}

// firstStats returns the statistics of n's first hypothesis, the zero Stats
// for an empty list.
func firstStats(n tune.NBest) metric.Stats {
	if len(n.Hyps) == 0 {
		return metric.Stats{}
	}
	return n.Hyps[0].Stats
}
