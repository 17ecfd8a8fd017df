package tune

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/rundir"
)

// PoolPartSentences is how many consecutive sentences one part of batch
// mode's pool holds: part p is sentences [p·256, (p+1)·256). Parts are what
// the pipeline's workers pool, read and search independently, so that no
// machine holds the whole pool unless an optimizer needs it (see
// BatchStep).
const PoolPartSentences = 256

// PoolPartOf returns the part of sentence sent.
func PoolPartOf(sent int) int { return sent / PoolPartSentences }

// PoolParts returns the number of parts of a tuning set of n sentences.
func PoolParts(n int) int { return (n + PoolPartSentences - 1) / PoolPartSentences }

// PoolPartInfo is what writing a part reports.
type PoolPartInfo struct {
	Part int
	// Sentences and Hyps count the part's pooled lists and hypotheses.
	Sentences, Hyps int
	// Names are the features the part's hypotheses use (sorted).
	Names []string
}

// MergePoolPart writes the part out: prev's hypotheses (the part after the
// previous epoch; a zero rundir.PoolPart for the first epoch) followed by those of
// lists (this epoch's decoding of the part's sentences, scored) that are
// not already there. dense names the weights' dense features (written as
// Moses dense groups, as WriteNBestFile does). The scores file holds the
// statistics of metric m (nil: BLEU), under its name: BLEU's as Moses'
// extractor writes them, another metric's exactly (every float as the
// shortest form that reads back the same). The files appear atomically.
func MergePoolPart(ctx context.Context, part int, prev rundir.PoolPart, lists []NBest, dense []string, out rundir.PoolPart, m metric.Metric) (PoolPartInfo, error) {
	idx := feature.NewIndexOf(dense...)
	pooled := nbest.NewPool()
	stats := map[int][]metric.Stats{}
	add := func(sent int, hyps []nbest.Hypothesis, st []metric.Stats) {
		for k, h := range hyps {
			if _, added := pooled.Add(sent, h); added {
				stats[sent] = append(stats[sent], st[k])
			}
		}
	}
	if prev.NBest != "" {
		err := readPoolPart(ctx, prev, idx, func(sent int, hyps []nbest.Hypothesis, st []metric.Stats) error {
			add(sent, hyps, st)
			return nil
		})
		if err != nil {
			return PoolPartInfo{}, err
		}
	}
	lists = slices.Clone(lists)
	slices.SortStableFunc(lists, func(a, b NBest) int { return a.Sent - b.Sent })
	for i, n := range lists {
		if PoolPartOf(n.Sent) != part {
			return PoolPartInfo{}, fmt.Errorf("tune: sentence %d is not in pool part %d", n.Sent, part)
		}
		if i > 0 && n.Sent == lists[i-1].Sent {
			return PoolPartInfo{}, fmt.Errorf("tune: two n-best lists for sentence %d", n.Sent)
		}
		// Through the n-best text and back, so that the new hypotheses
		// compare with the pooled ones exactly as read from a file.
		hyps, err := roundTrip(n, idx, dense)
		if err != nil {
			return PoolPartInfo{}, err
		}
		st := make([]metric.Stats, len(n.Hyps))
		for k, h := range n.Hyps {
			st[k] = h.Stats
		}
		add(n.Sent, hyps, st)
	}
	info := PoolPartInfo{Part: part, Sentences: len(pooled.Sentences()), Hyps: pooled.Len()}
	nw, err := newNBestFile(ctx, out.NBest, idx, dense)
	if err != nil {
		return PoolPartInfo{}, err
	}
	defer nw.abort()
	sw, err := storage.Create(ctx, out.Scores)
	if err != nil {
		return PoolPartInfo{}, fmt.Errorf("tune: %w", err)
	}
	defer sw.Abort()
	ss := nbest.NewScoreStatWriter(sw)
	// Under the metric records leave unnamed (BLEU) the statistics are
	// integer counts, written as before other metrics; any other's are
	// written exactly.
	asBefore := metric.RecordName(m) == ""
	if !asBefore {
		ss.Precision = -1
	}
	used := map[feature.ID]bool{}
	for _, sent := range pooled.Sentences() {
		hyps := pooled.Hyps(sent)
		blk := nbest.ScoreBlock{Sentence: sent, Metric: metric.OrDefault(m).Name(), Stats: make([][]float64, len(hyps))}
		for k, h := range hyps {
			if err := nw.w.Write(h); err != nil {
				return PoolPartInfo{}, fmt.Errorf("tune: writing %s: sentence %d: %w", out.NBest, sent, err)
			}
			for _, id := range h.Features.IDs {
				used[id] = true
			}
			if !asBefore {
				blk.Stats[k] = stats[sent][k].Values()
				continue
			}
			row, err := stats[sent][k].ToMoses()
			if err != nil {
				return PoolPartInfo{}, fmt.Errorf("tune: writing %s: sentence %d: %w", out.Scores, sent, err)
			}
			blk.Stats[k] = make([]float64, len(row))
			for j, x := range row {
				blk.Stats[k][j] = float64(x)
			}
		}
		if err := ss.Write(blk); err != nil {
			return PoolPartInfo{}, fmt.Errorf("tune: writing %s: %w", out.Scores, err)
		}
	}
	for id := range used {
		info.Names = append(info.Names, idx.Name(id))
	}
	slices.Sort(info.Names)
	if err := nw.close(); err != nil {
		return PoolPartInfo{}, err
	}
	ss.Flush()
	if err := ss.Error(); err != nil {
		return PoolPartInfo{}, fmt.Errorf("tune: writing %s: %w", out.Scores, err)
	}
	if err := sw.Close(); err != nil {
		return PoolPartInfo{}, fmt.Errorf("tune: %w", err)
	}
	return info, nil
}

// ReadPoolPart reads a part written by MergePoolPart into lists (by
// increasing sentence id), interning feature names in idx.
func ReadPoolPart(ctx context.Context, part rundir.PoolPart, idx *feature.Index) ([]pool.List, error) {
	var lists []pool.List
	err := readPoolPart(ctx, part, idx, func(sent int, hyps []nbest.Hypothesis, st []metric.Stats) error {
		l := pool.List{Sent: sent, Hyps: make([]pool.Hyp, len(hyps))}
		for k, h := range hyps {
			l.Hyps[k] = pool.NewHyp(h.Features, st[k])
		}
		lists = append(lists, l)
		return nil
	})
	return lists, err
}

// readPoolPart calls fn with each sentence of the part: its hypotheses and
// their statistics.
func readPoolPart(ctx context.Context, part rundir.PoolPart, idx *feature.Index, fn func(sent int, hyps []nbest.Hypothesis, st []metric.Stats) error) error {
	nf, err := storage.Open(ctx, part.NBest)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	defer nf.Close()
	sf, err := storage.Open(ctx, part.Scores)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	defer sf.Close()
	nr := nbest.NewReader(nf, part.NBest, idx)
	sr := nbest.NewScoreStatReader(sf, part.Scores)
	prev := -1
	for {
		sent, hyps, err := nr.ReadSentence()
		blk, serr := sr.Read()
		switch {
		case errors.Is(err, io.EOF) && errors.Is(serr, io.EOF):
			return nil
		case err != nil && !errors.Is(err, io.EOF):
			return fmt.Errorf("tune: %w", err)
		case serr != nil && !errors.Is(serr, io.EOF):
			return fmt.Errorf("tune: %w", serr)
		case err != nil || serr != nil:
			return fmt.Errorf("tune: pool part %s and %s end at different sentences", part.NBest, part.Scores)
		case blk.Sentence != sent || len(blk.Stats) != len(hyps):
			return fmt.Errorf("tune: %s line %d: sentence %d with %d hypotheses, but %s has sentence %d with %d", part.NBest, nr.SentenceLine(), sent, len(hyps), part.Scores, blk.Sentence, len(blk.Stats))
		case sent <= prev:
			return fmt.Errorf("tune: %s line %d: sentence %d after %d", part.NBest, nr.SentenceLine(), sent, prev)
		}
		prev = sent
		st := make([]metric.Stats, len(hyps))
		for k, row := range blk.Stats {
			if blk.Metric != "BLEU" {
				// Another metric's statistics, written exactly.
				if len(row) > metric.MaxStats {
					return fmt.Errorf("tune: %s: sentence %d hypothesis %d: %d statistics, at most %d", part.Scores, sent, k, len(row), metric.MaxStats)
				}
				if st[k] = metric.StatsOf(row...); st[k].Validate() != nil || k > 0 && st[k].N != st[0].N {
					return fmt.Errorf("tune: %s: sentence %d hypothesis %d: bad %s statistics %v", part.Scores, sent, k, blk.Metric, row)
				}
				continue
			}
			ints := make([]int, len(row))
			for j, x := range row {
				ints[j] = int(x)
				if float64(ints[j]) != x {
					return fmt.Errorf("tune: %s: sentence %d hypothesis %d: statistic %g is not a count", part.Scores, sent, k, x)
				}
			}
			if st[k], err = metric.FromMoses(ints); err != nil {
				return fmt.Errorf("tune: %s: sentence %d hypothesis %d: %w", part.Scores, sent, k, err)
			}
		}
		if err := fn(sent, hyps, st); err != nil {
			return err
		}
	}
}

// roundTrip returns n's hypotheses as a Moses n-best file over idx would
// give them back.
func roundTrip(n NBest, idx *feature.Index, dense []string) ([]nbest.Hypothesis, error) {
	var buf bytes.Buffer
	w := mosesWriter(&buf, idx, dense)
	if err := writeList(w, n, idx); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	_, hyps, err := nbest.NewReader(&buf, "n-best list", idx).ReadSentence()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tune: sentence %d: %w", n.Sent, err)
	}
	return hyps, nil
}

// mosesWriter returns an n-best writer over idx that writes the features
// named by dense as Moses dense groups.
func mosesWriter(w io.Writer, idx *feature.Index, dense []string) *nbest.Writer {
	nw := nbest.NewWriter(w, idx)
	for _, g := range weights.GroupsOf(dense) {
		// A label holding "_" would read back as a sparse name: its
		// features are written as sparse ones, under the same names.
		if !strings.Contains(g.Label, "_") {
			nw.Groups = append(nw.Groups, g)
		}
	}
	return nw
}

// nbestFile is a Moses n-best file being written.
type nbestFile struct {
	path string
	f    *storage.Writer
	w    *nbest.Writer
}

func newNBestFile(ctx context.Context, path string, idx *feature.Index, dense []string) (*nbestFile, error) {
	f, err := storage.Create(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	return &nbestFile{path: path, f: f, w: mosesWriter(f, idx, dense)}, nil
}

func (n *nbestFile) abort() { n.f.Abort() }

func (n *nbestFile) close() error {
	n.w.Flush()
	if err := n.w.Error(); err != nil {
		return fmt.Errorf("tune: writing %s: %w", n.path, err)
	}
	if err := n.f.Close(); err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	return nil
}

// writeList writes n's hypotheses with w, whose index is idx.
func writeList(w *nbest.Writer, n NBest, idx *feature.Index) error {
	l, err := n.List(idx)
	if err != nil {
		return err
	}
	for k, h := range l.Hyps {
		wh := n.Hyps[k]
		err := w.Write(nbest.Hypothesis{Sentence: n.Sent, Target: wh.Target, Features: h.Features, Score: wh.Score, HasScore: wh.HasScore})
		if err != nil {
			return fmt.Errorf("sentence %d hypothesis %d: %w", n.Sent, k, err)
		}
	}
	return nil
}
