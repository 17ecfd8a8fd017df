package decoder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
)

// DecodeOptions configures Decode.
type DecodeOptions struct {
	// NBest is the size of the n-best list; zero means none (Result.NBest
	// is empty). DefaultNBestSize is mtune's usual size.
	NBest int
	// AllDerivations lists every derivation, so a target can appear more
	// than once (Moses' default); false lists distinct targets only
	// (Moses' "distinct" n-best lists), each with its best derivation.
	AllDerivations bool
	// Weights are the feature weights over the model's Index; nil means
	// the model's. The phrase table was pruned to the table limit with the
	// model's weights at load time, as Moses prunes it; other weights do
	// not prune it again.
	Weights feature.Weights
	// Search overrides the model's search settings; its zero value
	// changes nothing.
	Search SearchOptions
}

// Result is the outcome of decoding one sentence.
type Result struct {
	// Best is the translation with the highest model score.
	Best Hypothesis
	// NBest is the n-best list, best first (Best is its first element);
	// empty unless DecodeOptions.NBest > 0.
	NBest []Hypothesis
	// Stats describes the search.
	Stats SearchStats
}

// SearchStats counts what a search did.
type SearchStats struct {
	// Options is the number of translation options of the sentence.
	Options int
	// Hypotheses is the number of hypotheses stored (kept in stacks or as
	// recombination arcs) over the search, reused slots included.
	Hypotheses int
}

// Decode translates one sentence (words separated by white space) with
// model m. It is safe to call from many goroutines at once.
func Decode(ctx context.Context, m *Model, sentence string, opts DecodeOptions) (Result, error) {
	if !utf8.ValidString(sentence) {
		return Result{}, fmt.Errorf("decoder: %w: invalid UTF-8", ErrInput)
	}
	words := strings.Fields(sentence)
	if len(words) > MaxSentenceLength {
		return Result{}, fmt.Errorf("decoder: %w: %d words (at most %d)", ErrInput, len(words), MaxSentenceLength)
	}
	if opts.NBest < 0 {
		return Result{}, fmt.Errorf("decoder: negative n-best size %d", opts.NBest)
	}
	so, err := m.searchOptions(opts.Search)
	if err != nil {
		return Result{}, err
	}
	w := m.dw
	if opts.Weights != nil {
		w = m.denseWeights(opts.Weights)
	}
	x, _ := m.pool.Get().(*searcher)
	if x == nil {
		x = m.newSearcher()
	}
	defer m.pool.Put(x)
	distinct := !opts.AllDerivations
	x.setup(words, w, so, opts.NBest, distinct)
	final, err := x.run(ctx)
	if err != nil {
		return Result{}, err
	}
	var res Result
	res.Stats = SearchStats{Options: len(x.st.opts), Hypotheses: len(x.hyps)}
	best := final[0]
	nodes := x.chain(x.kb.buf, best)
	x.kb.buf = nodes
	res.Best = x.hypothesis(nodes, x.hyps[best].total, string(x.appendTarget(nil, nodes)))
	if opts.NBest > 0 {
		paths := x.kbest(final, opts.NBest, distinct)
		res.NBest = make([]Hypothesis, len(paths))
		for i, p := range paths {
			res.NBest[i] = x.hypothesis(x.kb.nodes[p.start:p.end], p.score, p.target)
		}
	}
	return res, nil
}

func (m *Model) searchOptions(o SearchOptions) (SearchOptions, error) {
	s := m.search
	if o.StackSize < 0 {
		return s, fmt.Errorf("decoder: negative stack size %d", o.StackSize)
	}
	if o.StackSize > 0 {
		s.StackSize = o.StackSize
	}
	if o.BeamThreshold != 0 {
		s.BeamThreshold = o.BeamThreshold
	}
	if o.DistortionLimit != nil {
		s.DistortionLimit = o.DistortionLimit
	}
	if o.EarlyDistortionCost != nil {
		s.EarlyDistortionCost = o.EarlyDistortionCost
	}
	switch o.Algorithm {
	case ModelAlgorithm:
	case StackSearch, CubePruning:
		s.Algorithm = o.Algorithm
	default:
		return s, fmt.Errorf("decoder: unknown search algorithm %d", int(o.Algorithm))
	}
	if o.CubePruningPopLimit < 0 {
		return s, fmt.Errorf("decoder: negative cube pruning pop limit %d", o.CubePruningPopLimit)
	}
	if o.CubePruningPopLimit > 0 {
		s.CubePruningPopLimit = o.CubePruningPopLimit
	}
	if o.CubePruningDiversity < 0 {
		s.CubePruningDiversity = 0
	} else if o.CubePruningDiversity > 0 {
		s.CubePruningDiversity = o.CubePruningDiversity
	}
	return s, nil
}

// DecodeAll decodes sentences with threads goroutines (zero or less means
// one) and returns the results in input order. The first error stops the
// work and is returned.
func DecodeAll(ctx context.Context, m *Model, sentences []string, opts DecodeOptions, threads int) ([]Result, error) {
	threads = max(1, min(threads, len(sentences)))
	out := make([]Result, len(sentences))
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		next     int
		firstErr error
		errAt    = len(sentences)
		wg       sync.WaitGroup
	)
	for range threads {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(sentences) || ctx.Err() != nil {
					return
				}
				r, err := Decode(ctx, m, sentences[i], opts)
				if err != nil && errors.Is(err, context.Canceled) && parent.Err() == nil {
					return // stopped by another sentence's error
				}
				if err != nil {
					mu.Lock()
					if i < errAt {
						errAt, firstErr = i, fmt.Errorf("decoder: sentence %d: %w", i, err)
					}
					mu.Unlock()
					cancel()
					return
				}
				out[i] = r
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("decoder: %w", err)
	}
	return out, nil
}

// NBestEntry returns h as a line of Moses' n-best list for sentence id
// sentence: the features Moses prints (every feature but the dense ones
// that are not tuneable, see Groups) and, as the moses.ini asks, the
// segmentation ([include-segmentation-in-n-best]) or the word alignment
// ([print-alignment-info-in-n-best]).
func (m *Model) NBestEntry(sentence int, h *Hypothesis) nbest.Hypothesis {
	var b feature.Builder
	for k, id := range h.Features.IDs {
		if !m.hidden[id] {
			b.Add(id, h.Features.Vals[k])
		}
	}
	e := nbest.Hypothesis{Sentence: sentence, Target: h.Target, Features: b.Vector(), Score: h.Score, HasScore: true}
	var al []string
	if m.cfg.IncludeSegmentation {
		al = append(al, h.SegmentationString())
	}
	if m.cfg.IncludeAlignment {
		al = append(al, h.AlignmentString())
	}
	e.Alignment = strings.Join(al, " ||| ")
	return e
}

// NewNBestWriter returns an n-best writer to w laid out as Moses writes
// this model's lists (Groups).
func (m *Model) NewNBestWriter(w io.Writer) *nbest.Writer {
	nw := nbest.NewWriter(w, m.index)
	nw.Groups = m.Groups()
	return nw
}
