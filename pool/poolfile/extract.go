package poolfile

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/pool"
)

// ExtractResult summarises an extraction.
type ExtractResult struct {
	Sentences  int // sentences written
	Read       int // hypotheses read from all files
	Hypotheses int // hypotheses kept after removing duplicates
	Features   int // features in the index at the end
}

// Extract does what Moses' extractor does for a tuning iteration: it reads
// the n-best files at paths (several files are several iterations), pools
// each sentence's hypotheses across them without duplicates, scores them
// with sc, and writes the features to featPath and the metric's statistics to
// scorePath in Moses' FEATSTAT and SCORESTAT formats (mert, pro and kbmira
// read them). It streams: memory holds a few sentences' lists, whatever the
// size of the files. Both outputs appear atomically when all is written; on
// error neither is changed.
func Extract(ctx context.Context, paths []string, sc *pool.Scorer, featPath, scorePath string, opts Options) (ExtractResult, error) {
	var res ExtractResult
	idx := feature.NewIndex()
	m, err := openMerger(ctx, paths, opts, idx, sc.Len())
	if err != nil {
		return res, err
	}
	defer m.Close()

	fw, err := storage.Create(ctx, featPath)
	if err != nil {
		return res, err
	}
	defer fw.Abort()
	sw, err := storage.Create(ctx, scorePath)
	if err != nil {
		return res, err
	}
	defer sw.Abort()

	type job struct {
		sent  int
		hyps  []nbest.Hypothesis
		dense []string
	}
	type block struct {
		feats, scores []byte
		kept          int
	}
	var dense []string
	var groupsSeen []feature.Group
	err = orderedMap(ctx, opts.threads(),
		func() (job, bool, error) {
			sent, hyps, ok, err := m.next()
			if !ok || err != nil {
				return job{}, ok, err
			}
			res.Read += len(hyps)
			// The dense layout changes only when a file shows a new group.
			if g := m.groups(); !sameGroups(g, groupsSeen) {
				groupsSeen, dense = g, feature.GroupNames(g)
			}
			return job{sent, hyps, dense}, true, nil
		},
		func(j job) (block, error) {
			hyps := dedup(j.sent, j.hyps)
			fb := nbest.FeatBlock{Sentence: j.sent, Dense: j.dense, Vectors: make([]feature.Vector, len(hyps))}
			sb := nbest.ScoreBlock{Sentence: j.sent, Metric: sc.Metric().Name(), Stats: make([][]float64, len(hyps))}
			for k, h := range hyps {
				st, err := sc.Hyp(j.sent, h.Target, h.File, h.Line)
				if err != nil {
					return block{}, err
				}
				fb.Vectors[k] = h.Features
				sb.Stats[k] = append([]float64(nil), st.Values()...)
			}
			var fbuf, sbuf bytes.Buffer
			fwr := nbest.NewFeatStatWriter(&fbuf, idx)
			if err := fwr.Write(fb); err != nil {
				return block{}, fmt.Errorf("poolfile: sentence %d: %w", j.sent, err)
			}
			fwr.Flush()
			swr := nbest.NewScoreStatWriter(&sbuf)
			if err := swr.Write(sb); err != nil {
				return block{}, fmt.Errorf("poolfile: sentence %d: %w", j.sent, err)
			}
			swr.Flush()
			if err := fwr.Error(); err != nil {
				return block{}, err
			}
			if err := swr.Error(); err != nil {
				return block{}, err
			}
			return block{fbuf.Bytes(), sbuf.Bytes(), len(hyps)}, nil
		},
		func(b block) error {
			res.Sentences++
			res.Hypotheses += b.kept
			if _, err := fw.Write(b.feats); err != nil {
				return err
			}
			_, err := sw.Write(b.scores)
			return err
		})
	if err != nil {
		return res, err
	}
	if res.Sentences == 0 {
		return res, fmt.Errorf("poolfile: the n-best files %v hold no hypotheses", paths)
	}
	if err := fw.Close(); err != nil {
		return res, err
	}
	if err := sw.Close(); err != nil {
		return res, err
	}
	res.Features = idx.Len()
	return res, nil
}

func sameGroups(a, b []feature.Group) bool { return slices.Equal(a, b) }
