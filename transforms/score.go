package transforms

import (
	"context"
	"fmt"

	"github.com/mtune/mtune/internal/par"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// DecodeOptions control decoding and scoring. The zero value decodes
// 100-best lists, one sentence at a time, and scores them with BLEU-4 on
// untokenised (already tokenised) text.
type DecodeOptions struct {
	// NBest is the size of the n-best lists; 0 means 100.
	NBest int
	// Order is the BLEU order; 0 means 4.
	Order int
	// Tokenize names the tokenizer applied to hypotheses and references
	// (metric.NewTokenizer): "" or "none" (the default, for pre-tokenised
	// data), "13a", "char".
	Tokenize string
	// Lowercase lower-cases hypotheses and references before scoring.
	Lowercase bool
	// Threads is the number of sentences of a mini-batch decoded at once;
	// 0 means 1. Results do not depend on it.
	Threads int
}

func (o DecodeOptions) nbest() int {
	if o.NBest == 0 {
		return 100
	}
	return o.NBest
}

func (o DecodeOptions) validate() error {
	if o.NBest < 0 || o.Order < 0 || o.Order > metric.MaxOrder || o.Threads < 0 {
		return fmt.Errorf("transforms: invalid decode options (n-best %d, order %d, threads %d)", o.NBest, o.Order, o.Threads)
	}
	_, err := metric.NewTokenizer(o.Tokenize, o.Lowercase)
	return err
}

// Scorer returns a pool.Scorer that scores hypotheses against refs
// (refs[i] holds the references of sentence i) as DecodeFn does under o:
// the same BLEU order, tokenizer and case. It is how a driver scores the
// n-best files a pipeline wrote (pool/poolfile.Load).
func (o DecodeOptions) Scorer(refs [][]string) (*pool.Scorer, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	tok, err := metric.NewTokenizer(o.Tokenize, o.Lowercase)
	if err != nil {
		return nil, fmt.Errorf("transforms: %w", err)
	}
	sc, err := pool.NewScorer(refs, o.Order, tok)
	if err != nil {
		return nil, fmt.Errorf("transforms: %w", err)
	}
	return sc, nil
}

// scorer scores hypotheses against the references of sentences.
type scorer struct {
	tok   metric.Tokenizer
	order int
}

func newScorer(o DecodeOptions) (*scorer, error) {
	tok, err := metric.NewTokenizer(o.Tokenize, o.Lowercase)
	if err != nil {
		return nil, fmt.Errorf("transforms: %w", err)
	}
	return &scorer{tok: tok, order: o.Order}, nil
}

// reference prepares the references of x.
func (s *scorer) reference(x Sentence) (*metric.Reference, error) {
	if len(x.Refs) == 0 {
		return nil, fmt.Errorf("transforms: sentence %d has no reference", x.ID)
	}
	refs := make([]string, len(x.Refs))
	for i, r := range x.Refs {
		refs[i] = s.tok(r)
	}
	r, err := metric.NewReferenceText(s.order, refs...)
	if err != nil {
		return nil, fmt.Errorf("transforms: references of sentence %d: %w", x.ID, err)
	}
	return r, nil
}

// stats scores the hypotheses of one sentence.
func (s *scorer) stats(ref *metric.Reference, hyps []Hypothesis) []metric.Stats {
	out := make([]metric.Stats, len(hyps))
	for k, h := range hyps {
		out[k] = ref.StatsString(s.tok(h.Target))
	}
	return out
}

// decodeAll decodes sents with dec under w (over the decoder's index),
// threads at a time, and returns the n-best lists in the order of sents.
func decodeAll(ctx context.Context, dec Decoder, sents []Sentence, w []float64, o DecodeOptions) ([][]Hypothesis, error) {
	out := make([][]Hypothesis, len(sents))
	decode := func(i int) error {
		x := sents[i]
		hyps, err := dec.NBest(ctx, x.ID, x.Src, w, o.nbest())
		if err != nil {
			return fmt.Errorf("transforms: decoding sentence %d: %w", x.ID, err)
		}
		if len(hyps) == 0 {
			return fmt.Errorf("transforms: decoding sentence %d: no translation", x.ID)
		}
		out[i] = hyps
		return nil
	}
	if err := par.DoErr(ctx, len(sents), max(1, o.Threads), decode); err != nil {
		return nil, err
	}
	return out, nil
}
