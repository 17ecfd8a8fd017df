package build

import (
	"context"
	"fmt"
	"io"

	"github.com/mtune/mtune/decoder/lm"
)

// LMEstimator estimates the n-gram language model of a built system.
type LMEstimator interface {
	// EstimateARPA estimates a model of the given order from sentences
	// (tokens without <s> and </s>) and writes it in ARPA format to w. It
	// returns the number of n-grams of each order, index 0 the unigrams.
	EstimateARPA(ctx context.Context, sentences [][]string, order int, w io.Writer) ([]int, error)
}

// LMFunc adapts a function to an LMEstimator.
type LMFunc func(ctx context.Context, sentences [][]string, order int, w io.Writer) ([]int, error)

// EstimateARPA calls f.
func (f LMFunc) EstimateARPA(ctx context.Context, sentences [][]string, order int, w io.Writer) ([]int, error) {
	return f(ctx, sentences, order, w)
}

// DefaultLM is the estimator Run uses when Options.LM is nil: interpolated
// modified Kneser–Ney as KenLM's lmplz estimates it (package decoder/lm),
// with lmplz's --discount_fallback discounts for an order whose
// counts-of-counts give none (tiny corpora; lmplz would stop).
var DefaultLM LMEstimator = LMFunc(estimateKN)

func estimateKN(ctx context.Context, sentences [][]string, order int, w io.Writer) ([]int, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fallback := lm.FallbackDiscount
	a, err := lm.EstimateSentences(sentences, &lm.EstimateOptions{Order: order, Fallback: &fallback})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := lm.WriteARPA(w, a); err != nil {
		return nil, fmt.Errorf("writing ARPA: %w", err)
	}
	return a.Counts(), nil
}

// targetSentences returns the target side of the bitext as token strings
// (shared with the vocabulary, not copied).
func (b *bitext) targetSentences() [][]string {
	out := make([][]string, b.len())
	words := make([]string, len(b.tgt))
	for k, id := range b.tgt {
		words[k] = b.tv.words[id]
	}
	for s := range out {
		out[s] = words[b.tgtOff[s]:b.tgtOff[s+1]:b.tgtOff[s+1]]
	}
	return out
}
