package poolfile

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// Rerank walks the n-best lists at paths, read with opts, as Walk does
// (sentences is as there) and calls fn, in sentence order, with each
// listed sentence's best hypothesis under the weights w read from
// weightsPath (the first of equal scores). It returns the features the
// lists hold, for CheckWeights. A score that is not a finite number is an
// error (NonFiniteScore).
func Rerank(ctx context.Context, paths []string, opts Options, idx *feature.Index, sentences int, w feature.Weights, weightsPath string,
	fn func(sent int, best nbest.Hypothesis) error) (*Features, error) {
	m, err := openMerger(ctx, paths, opts, idx, sentences)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	return m.rerank(ctx, w, weightsPath, func(sent int, hyps []nbest.Hypothesis, _ []float64, best int) error {
		return fn(sent, hyps[best])
	})
}

// rerank calls fn with each sentence's hypotheses, their scores under w
// and the index of the best (Rerank).
func (m *merger) rerank(ctx context.Context, w feature.Weights, weightsPath string,
	fn func(sent int, hyps []nbest.Hypothesis, scores []float64, best int) error) (*Features, error) {
	var f Features
	var buf []float64
	var err error
	f.Groups, err = m.walk(ctx, func(sent int, hyps []nbest.Hypothesis) error {
		scores, best := buf[:0], 0
		for k, h := range hyps {
			f.Add(h.Features)
			s := h.Features.Dot(w)
			if math.IsNaN(s) || math.IsInf(s, 0) {
				return NonFiniteScore(h.Pos(), s, weightsPath)
			}
			if scores = append(scores, s); s > scores[best] {
				best = k
			}
		}
		buf = scores
		return fn(sent, hyps, scores, best)
	})
	return &f, err
}

// RerankOptions are what RerankTo re-ranks n-best files with.
type RerankOptions struct {
	// Options are the files' format and the features added to them.
	Options
	// Weights are the weights the hypotheses are ranked by, read from
	// WeightsPath (CheckWeights checks them against the lists).
	Weights     *weights.Set
	WeightsPath string
	// Scorer, if not nil, scores the 1-bests (RerankResult.Stats), and
	// its number of sentences bounds the ids: a sentence the lists lack is
	// an empty line. Without it the ids must run 0, 1, 2, … (Walk).
	Scorer *pool.Scorer
	// Detok writes each 1-best's detokenized text (fairseq's D- line,
	// nbest.Hypothesis.Detok) instead of its target; lists of a format
	// without one are an error.
	Detok bool
	// Nbest, if not "", is the path (local or gs://, compressed by
	// extension) the re-scored lists are written to: every sentence's
	// pooled hypotheses, best first, each with its features (the added
	// ones too) and its new total w·φ. A Marian list is written as Marian
	// writes one (nbest.Marian, the total replaced), other lists as Moses
	// lists (nbest.Moses; fairseq's and Sockeye's formats have no place
	// for further features).
	Nbest string
}

// RerankResult is what RerankTo wrote.
type RerankResult struct {
	// Stats is the sum of the 1-bests' statistics under the Scorer's
	// metric (zero without a Scorer).
	Stats metric.Stats
	// Sentences is the number of lines written; Missing of them are
	// empty lines for sentences the lists lack.
	Sentences, Missing int
}

// RerankTo writes to out the best hypothesis of each sentence of the
// n-best files at paths under o.Weights (`mtune rerank`), one line a
// sentence, and with o.Nbest the re-scored lists. Feature names are
// interned in idx, which must be the weights'. Sentences the lists lack
// are empty lines (a warning says how many).
func RerankTo(ctx context.Context, paths []string, idx *feature.Index, o RerankOptions, out io.Writer) (RerankResult, error) {
	var res RerankResult
	sentences := 0
	if o.Scorer != nil {
		sentences = o.Scorer.Len()
	}
	m, err := openMerger(ctx, paths, o.Options, idx, sentences)
	if err != nil {
		return res, err
	}
	defer m.Close()
	for i, r := range m.readers {
		if o.Detok && !r.Format().HasDetok() {
			return res, fmt.Errorf("poolfile: %s: a %v list has no detokenized text for --detok (fairseq's D- lines are one): leave --detok out for the targets", m.paths[i], r.Format())
		}
	}
	var nw *rescoredWriter
	if o.Nbest != "" {
		if nw, err = newRescoredWriter(ctx, o.Nbest, m.format(), m.groups(), idx); err != nil {
			return res, err
		}
		defer nw.abort()
	}
	bw := bufio.NewWriter(out)
	emit := func(h nbest.Hypothesis) error {
		if o.Scorer != nil && (h.File != "" || !o.Scorer.External()) { // a missing sentence has no external score
			st, err := o.Scorer.Hyp(res.Sentences, h.Target, h.File, h.Line)
			if err != nil {
				return err
			}
			res.Stats.Add(st)
		}
		text := h.Target
		if o.Detok && h.File != "" {
			if text = h.Detok; text == "" && h.Target != "" {
				return fmt.Errorf("poolfile: %s: no detokenized text (D- line) for this hypothesis (--detok)", h.Pos())
			}
		}
		res.Sentences++
		_, err := fmt.Fprintln(bw, text)
		return err
	}
	emitMissing := func(upTo int) error {
		for res.Sentences < upTo { // a sentence the lists lack: an empty line keeps the lines aligned
			res.Missing++
			if err := emit(nbest.Hypothesis{}); err != nil {
				return err
			}
		}
		return nil
	}
	f, err := m.rerank(ctx, o.Weights.Weights, o.WeightsPath, func(sent int, hyps []nbest.Hypothesis, scores []float64, best int) error {
		if err := emitMissing(sent); err != nil {
			return err
		}
		if nw != nil {
			if err := nw.write(sent, hyps, scores); err != nil {
				return err
			}
		}
		return emit(hyps[best])
	})
	if errors.Is(err, ErrSentenceID) && o.Scorer == nil {
		return res, fmt.Errorf("%w; give the references with -r to allow sentences missing from the lists", err)
	}
	if err != nil {
		return res, err
	}
	if err := CheckWeights(o.WeightsPath, o.Weights, f, paths); err != nil {
		return res, err
	}
	if err := emitMissing(sentences); err != nil {
		return res, err
	}
	if res.Missing > 0 {
		slog.Warn("sentences missing from the n-best lists were output as empty lines", "count", res.Missing)
	}
	if err := bw.Flush(); err != nil {
		return res, err
	}
	if nw != nil {
		return res, nw.close()
	}
	return res, nil
}

// rescoredWriter writes re-scored n-best lists (RerankOptions.Nbest).
type rescoredWriter struct {
	path  string
	file  *storage.Writer
	w     *nbest.Writer
	order []int
}

// newRescoredWriter creates the file at path for lists of format (Marian's
// are written as Marian's, the others as Moses') with the dense groups.
func newRescoredWriter(ctx context.Context, path string, format nbest.Format, groups []feature.Group, idx *feature.Index) (*rescoredWriter, error) {
	file, err := storage.Create(ctx, path)
	if err != nil {
		return nil, err
	}
	w := nbest.NewWriter(file, idx)
	w.Groups = groups
	if format == nbest.FormatMarian {
		w.Style = nbest.Marian
	}
	return &rescoredWriter{path: path, file: file, w: w}, nil
}

// write writes the hypotheses of sentence sent, best first (ties in their
// order), each with its score as the total.
func (r *rescoredWriter) write(sent int, hyps []nbest.Hypothesis, scores []float64) error {
	r.order = r.order[:0]
	for k := range hyps {
		r.order = append(r.order, k)
	}
	slices.SortStableFunc(r.order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	for _, k := range r.order {
		h := hyps[k]
		h.Sentence, h.Score, h.HasScore = sent, scores[k], true
		if err := r.w.Write(h); err != nil {
			return fmt.Errorf("poolfile: %s: the hypothesis of %s: %w", r.path, h.Pos(), err)
		}
	}
	return nil
}

// close flushes the lists and makes the file appear.
func (r *rescoredWriter) close() error {
	r.w.Flush()
	if err := r.w.Error(); err != nil {
		return fmt.Errorf("poolfile: %s: %w", r.path, err)
	}
	return r.file.Close()
}

// abort drops the file unless close made it appear.
func (r *rescoredWriter) abort() { r.file.Abort() }
