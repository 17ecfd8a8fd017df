package poolfile

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// Options control Load and Extract. The zero value is ready to use.
type Options struct {
	// Threads is the number of goroutines that de-duplicate and score
	// sentences while one reads the files; 0 means GOMAXPROCS.
	Threads int
	// Format is the format of the n-best files; the zero value,
	// nbest.FormatAuto, detects each file's (nbest.NewSentenceReader).
	Format nbest.Format
	// Features are features added to every hypothesis from score files
	// (FeatureFile; ParseFeatureFlags), appended to the lists' dense
	// groups. A feature the lists hold already is an error.
	Features []FeatureFile
	// Cache, for LoadTuning, is a local file that holds the scored pool
	// of an earlier run on the same inputs (see cacheMagic): read instead
	// of the n-best files when its key matches, else (missing, stale,
	// corrupt) written after them. "" means no cache.
	Cache string
	// CacheInputs are the other files the pool depends on (references,
	// score files), part of the cache's key with the n-best files, the
	// feature files, the initial weights and the metric's settings.
	CacheInputs []string
}

func (o Options) threads() int {
	if o.Threads > 0 {
		return o.Threads
	}
	return runtime.GOMAXPROCS(0)
}

// Load reads the n-best files at paths (local or gs://, .gz/.zst allowed;
// several files are several decoding iterations of the same tuning set),
// pools each sentence's hypotheses across the files, removes duplicates
// (same target and same features, first kept), and scores every hypothesis
// with sc. It returns one List per sentence in increasing id order and the
// dense feature groups the files hold. Feature names are interned in idx.
func Load(ctx context.Context, paths []string, idx *feature.Index, sc *pool.Scorer, opts Options) ([]pool.List, []feature.Group, error) {
	m, err := openMerger(ctx, paths, opts, idx, sc.Len())
	if err != nil {
		return nil, nil, err
	}
	defer m.Close()
	type job struct {
		sent int
		hyps []nbest.Hypothesis
	}
	var lists []pool.List
	err = orderedMap(ctx, opts.threads(),
		func() (job, bool, error) {
			sent, hyps, ok, err := m.next()
			return job{sent, hyps}, ok, err
		},
		func(j job) (pool.List, error) {
			hyps := dedup(j.sent, j.hyps)
			fs, sts := make([]feature.Vector, len(hyps)), make([]metric.Stats, len(hyps))
			for k, h := range hyps {
				st, err := sc.Hyp(j.sent, h.Target, h.File, h.Line)
				if err != nil {
					return pool.List{}, fmt.Errorf("%w (n-best files %v)", err, paths)
				}
				fs[k], sts[k] = h.Features, st
			}
			return pool.List{Sent: j.sent, Hyps: pool.NewHyps(fs, sts)}, nil
		},
		func(l pool.List) error {
			lists = append(lists, l)
			return nil
		})
	if err != nil {
		return nil, nil, err
	}
	return lists, m.groups(), nil
}

// Walk streams the n-best files at paths, in opts.Format (nbest.FormatAuto
// detects each file's) and with opts.Features added, sentence by
// sentence, in increasing id order, calling fn with each sentence's hypotheses pooled
// across the files without duplicates (see Load). It holds one sentence's
// lists in memory. At the end it returns the dense feature groups the
// files hold.
//
// sentences, when positive, is the number of sentences of the tuning set
// (the references'): a larger id is an error wrapping ErrSentenceID. When
// it is 0 the ids must be 0, 1, 2, … without gaps, as nothing else bounds
// them.
func Walk(ctx context.Context, paths []string, opts Options, idx *feature.Index, sentences int, fn func(sent int, hyps []nbest.Hypothesis) error) ([]feature.Group, error) {
	m, err := openMerger(ctx, paths, opts, idx, sentences)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	return m.walk(ctx, fn)
}

// walk calls fn with each sentence's hypotheses, pooled without
// duplicates, and returns the dense groups at the end (Walk).
func (m *merger) walk(ctx context.Context, fn func(sent int, hyps []nbest.Hypothesis) error) ([]feature.Group, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sent, hyps, ok, err := m.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return m.groups(), nil
		}
		if err := fn(sent, dedup(sent, hyps)); err != nil {
			return nil, err
		}
	}
}

// Locate returns "file:line" of the first line of the n-best files at
// paths (read with opts) that holds a hypothesis of sentence sent with the features f, or
// "" if none does: where an error found in a loaded pool comes from. It
// reads the files again, so it is for error paths.
// sentences is as for Walk.
func Locate(ctx context.Context, paths []string, opts Options, idx *feature.Index, sentences, sent int, f feature.Vector) string {
	pos := ""
	errFound := errors.New("found")
	_, err := Walk(ctx, paths, opts, idx, sentences, func(s int, hyps []nbest.Hypothesis) error {
		if s < sent {
			return nil
		}
		for _, h := range hyps {
			if s == sent && slices.Equal(h.Features.IDs, f.IDs) && slices.Equal(h.Features.Vals, f.Vals) {
				pos = h.Pos()
			}
		}
		return errFound
	})
	if err != nil && !errors.Is(err, errFound) {
		return ""
	}
	return pos
}
