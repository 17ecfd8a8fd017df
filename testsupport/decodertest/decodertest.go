package decodertest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/tune"
)

// Name is the name the package registers its factory under.
const Name = "nbest-pool"

func init() {
	tune.RegisterDecoder(Name, "a fixed pool of hypotheses read from an n-best file (tests)", open)
}

func open(ctx context.Context, config string, _ tune.Logf) (tune.Decoder, error) {
	return Load(ctx, config)
}

// Pool is a decoder whose every translation comes from a fixed pool of
// hypotheses. It is safe for concurrent use.
type Pool struct {
	idx   *feature.Index
	lists map[int][]decoder.Hypothesis
}

var _ tune.Decoder = (*Pool)(nil)

// New returns a pool of the hypotheses lists[sent] of each sentence, with
// features over idx (Score is ignored).
func New(idx *feature.Index, lists map[int][]decoder.Hypothesis) *Pool {
	return &Pool{idx: idx, lists: lists}
}

// Load reads the pool from a Moses n-best file.
func Load(ctx context.Context, path string) (*Pool, error) {
	f, err := storage.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	idx := feature.NewIndex()
	r := nbest.NewReader(f, path, idx)
	lists := make(map[int][]decoder.Hypothesis)
	for {
		h, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("decodertest: %w", err)
		}
		lists[h.Sentence] = append(lists[h.Sentence], decoder.Hypothesis{Target: h.Target, Features: h.Features})
	}
	if len(lists) == 0 {
		return nil, fmt.Errorf("decodertest: %s holds no hypothesis", path)
	}
	return New(idx, lists), nil
}

// Features returns the pool's feature index.
func (p *Pool) Features() *feature.Index { return p.idx }

// Sentences returns the ids of the pool's sentences, sorted.
func (p *Pool) Sentences() []int {
	var ids []int
	for id := range p.lists {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// NBest returns the first n of sentence sentID's pooled hypotheses by
// decreasing w·φ, the earlier one in the pool on ties (so the first is
// the one pool.Best picks). src is ignored.
func (p *Pool) NBest(ctx context.Context, sentID int, src string, w feature.Weights, n int) ([]decoder.Hypothesis, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hyps, ok := p.lists[sentID]
	if !ok {
		return nil, fmt.Errorf("decodertest: no hypotheses for sentence %d", sentID)
	}
	if n <= 0 {
		return nil, fmt.Errorf("decodertest: n-best size %d", n)
	}
	out := make([]decoder.Hypothesis, len(hyps))
	for k, h := range hyps {
		out[k] = decoder.Hypothesis{Target: h.Target, Features: h.Features, Score: h.Features.Dot(w)}
	}
	slices.SortStableFunc(out, func(a, b decoder.Hypothesis) int { return cmp.Compare(b.Score, a.Score) })
	return out[:min(n, len(out))], nil
}
