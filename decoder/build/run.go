package build

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/mtune/mtune/io/storage"
)

// Result reports what Run built.
type Result struct {
	// Sentences is the number of sentence pairs read (those in
	// Options.Lines); Skipped of them have an empty side and are left out
	// of phrase extraction, as Moses' extract leaves them out.
	Sentences, Skipped int
	// Occurrences is the number of phrase-pair occurrences extracted (the
	// lines of Moses' extract file); PhrasePairs the number of distinct
	// pairs (the lines of the phrase and reordering tables), made of
	// SourcePhrases distinct source and TargetPhrases distinct target
	// phrases.
	Occurrences, PhrasePairs, SourcePhrases, TargetPhrases int
	// NGrams is the number of n-grams of the language model by order,
	// index 0 the unigrams; nil without a language model.
	NGrams []int
	// Sparse repeats Options.Sparse: accepted, not yet written to moses.ini.
	Sparse []string
	// The files written: moses.ini, the phrase table, the reordering table
	// and the language model ("" if skipped).
	Config, PhraseTable, ReorderingTable, LM string
	// Seconds is the wall time of Run; Stages breaks it down.
	Seconds float64
	Stages  Stages
}

// Stages are the wall times of Run's stages in seconds. The language model
// is estimated concurrently with Lex, Extract, Group and Write.
type Stages struct {
	Read    float64 // reading and tokenising the bitext
	Extract float64 // phrase extraction (and, concurrently, the lexical tables)
	Group   float64 // interning, ranking and sorting the phrase pairs
	Write   float64 // scoring, formatting and compressing both tables
	LM      float64 // estimating and writing the language model
}

// Run builds a phrase-based model as Moses' train-model.perl steps 4–9 do
// from a word-aligned bitext, and writes it to o.Out: the phrase table, the
// lexicalized reordering table, the language model and moses.ini. See the
// package documentation for the formats.
func Run(ctx context.Context, o Options) (Result, error) {
	start := time.Now()
	o, err := o.withDefaults()
	if err != nil {
		return Result{}, err
	}
	lmEst := o.LM
	if lmEst == nil {
		lmEst = DefaultLM
	}
	if lmEst == nil && !o.SkipLM {
		return Result{}, fmt.Errorf("build: %w: no language model estimator (set Options.LM or Options.SkipLM)", ErrOptions)
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	res := Result{Sparse: o.Sparse}
	t := time.Now()
	b, err := readBitext(ctx, o.Src, o.Tgt, o.Align, o.Lines)
	if err != nil {
		return res, err
	}
	res.Sentences = b.len()
	for s := range b.len() {
		if b.srcOff[s] == b.srcOff[s+1] || b.tgtOff[s] == b.tgtOff[s+1] {
			res.Skipped++
		}
	}
	res.Stages.Read = time.Since(t).Seconds()

	path := func(name string) string { return storage.Join(o.Out, name) }
	res.PhraseTable, res.ReorderingTable, res.Config = path(PhraseTableFile), path(ReorderingFile), path(ConfigFile)

	// The language model, concurrently with everything else.
	var lmWG sync.WaitGroup
	var lmErr error
	if !o.SkipLM {
		res.LM = path(LMFile(o.LMOrder))
		lmWG.Go(func() {
			t := time.Now()
			res.NGrams, lmErr = writeLM(ctx, lmEst, b, o.LMOrder, res.LM)
			if lmErr != nil {
				cancel()
			}
			res.Stages.LM = time.Since(t).Seconds()
		})
	}
	fail := func(err error) (Result, error) {
		cancel()
		lmWG.Wait()
		if lmErr != nil && ctx.Err() != nil {
			err = lmErr
		}
		return res, err
	}

	t = time.Now()
	var lex *lexTable
	lexDone := make(chan struct{})
	go func() { lex = buildLex(b); close(lexDone) }()
	occs, err := extractAll(ctx, b, o.MaxPhrase, workers)
	<-lexDone
	if err != nil {
		return fail(fmt.Errorf("build: extracting phrases: %w", err))
	}
	res.Occurrences = len(occs)
	res.Stages.Extract = time.Since(t).Seconds()

	t = time.Now()
	m := group(b, lex, occs, o.Smoothing)
	res.SourcePhrases, res.TargetPhrases = m.srcs.len(), m.tgts.len()
	res.Stages.Group = time.Since(t).Seconds()

	t = time.Now()
	if res.PhrasePairs, err = writeTables(ctx, m, res.PhraseTable, res.ReorderingTable, workers); err != nil {
		return fail(err)
	}
	res.Stages.Write = time.Since(t).Seconds()

	lmWG.Wait()
	if lmErr != nil {
		return res, lmErr
	}
	if err := writeINI(ctx, o, res); err != nil {
		return res, err
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// writeTables scores the phrase pairs of m and writes the phrase table and
// the reordering table.
func writeTables(ctx context.Context, m *model, ptPath, reoPath string, workers int) (int, error) {
	pt, err := storage.Create(ctx, ptPath)
	if err != nil {
		return 0, fmt.Errorf("build: %w", err)
	}
	defer pt.Abort()
	reo, err := storage.Create(ctx, reoPath)
	if err != nil {
		return 0, fmt.Errorf("build: %w", err)
	}
	defer reo.Abort()
	pairs, err := m.write(ctx, pt, reo, workers)
	if err != nil {
		return 0, fmt.Errorf("build: writing %s and %s: %w", ptPath, reoPath, err)
	}
	if err := pt.Close(); err != nil {
		return 0, fmt.Errorf("build: %w", err)
	}
	if err := reo.Close(); err != nil {
		return 0, fmt.Errorf("build: %w", err)
	}
	return pairs, nil
}

// writeLM estimates the language model on the target side and writes it.
func writeLM(ctx context.Context, est LMEstimator, b *bitext, order int, path string) ([]int, error) {
	w, err := storage.Create(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	defer w.Abort()
	counts, err := est.EstimateARPA(ctx, b.targetSentences(), order, w)
	if err != nil {
		return nil, fmt.Errorf("build: language model: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	return counts, nil
}

// writeINI writes moses.ini naming the files of res.
func writeINI(ctx context.Context, o Options, res Result) error {
	name := func(p string) (string, error) {
		if p == "" {
			return "", nil
		}
		if !o.AbsolutePaths {
			return filepath.Base(p), nil
		}
		if storage.IsGCS(p) {
			return p, nil
		}
		return filepath.Abs(p)
	}
	var p INIPaths
	var err error
	if p.PhraseTable, err = name(res.PhraseTable); err == nil {
		if p.Reordering, err = name(res.ReorderingTable); err == nil {
			p.LM, err = name(res.LM)
		}
	}
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	if err := storage.WriteFile(ctx, res.Config, []byte(MosesINI(p, o.LMOrder, o.DistortionLimit))); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	return nil
}
