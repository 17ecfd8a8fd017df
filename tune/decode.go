package tune

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/par"
	"github.com/mtune/mtune/metric"
)

// Decoder translates tuning sentences into n-best lists of the decoder's
// own hypotheses (decoder.Hypothesis: the one hypothesis type from the
// decoder to the learner's pool lists). An epoch reaches a decoder only
// through this interface: the pipeline binds a real one by name
// (RegisterDecoder) and tests bind a fake (see
// testsupport/decodertest).
//
// A Decoder is loaded once per worker process and shared by every DoFn
// instance in it, so its methods must be safe for concurrent use.
type Decoder interface {
	// Features returns the index that names the decoder's features: the
	// ids of the weights NBest takes and of the vectors it returns. The
	// caller may add names to it (feature.Index is safe for concurrent
	// use), so that a weight the decoder has not met yet can be given.
	Features() *feature.Index
	// NBest returns up to n distinct translations of the source sentence
	// src (sentence sentID of the tuning set) under the weights w, by
	// decreasing model score: the first is the 1-best.
	NBest(ctx context.Context, sentID int, src string, w feature.Weights, n int) ([]decoder.Hypothesis, error)
}

// A BatchDecoder decodes many sentences under one weights vector in one
// call: a decoder run as a subprocess (decoder/external), which loads its
// model each time it starts, decodes a mini-batch or a decoding batch with
// one run. Every decoding of tune (a Session's mini-batch,
// DecodeSentences' batch) goes through NBestBatch when the decoder has it;
// the pipeline deals a decoding of the tuning or dev set into one batch a
// worker for it (DecoderSetup.BatchSize).
type BatchDecoder interface {
	Decoder
	// NBestBatch returns the n-best lists of the source sentences srcs
	// (sentences ids of the tuning set), in their order, each of up to n
	// distinct translations by decreasing model score, decoding threads
	// sentences at once.
	NBestBatch(ctx context.Context, ids []int, srcs []string, w feature.Weights, n, threads int) ([][]decoder.Hypothesis, error)
}

// A FilteringDecoder loads, for a few sentences, a decoder that holds only
// what they need (a model filtered to their source phrases, as Moses'
// filter-model-given-input.pl): a worker then never holds the whole
// model. Each shard or decoding batch decodes its sentences with the
// decoder For returns, and nothing else; the decoding is that of the whole
// model.
type FilteringDecoder interface {
	Decoder
	// For returns a decoder for the source sentences sources.
	For(ctx context.Context, sources []string) (Decoder, error)
}

// DecoderFor returns the decoder for sents: dec.For their sources if dec
// is a FilteringDecoder, dec itself otherwise.
func DecoderFor(ctx context.Context, dec Decoder, sents []Sentence) (Decoder, error) {
	fd, ok := dec.(FilteringDecoder)
	if !ok {
		return dec, nil
	}
	sources := make([]string, len(sents))
	for i, s := range sents {
		sources[i] = s.Src
	}
	d, err := fd.For(ctx, sources)
	if err != nil {
		return nil, fmt.Errorf("tune: loading the model for %d sentences: %w", len(sents), err)
	}
	return d, nil
}

// DecodeOptions control decoding and scoring. The zero value decodes
// 100-best lists, one sentence at a time, and scores them with BLEU-4 on
// untokenised (already tokenised) text.
type DecodeOptions struct {
	// NBest is the size of the n-best lists; 0 means 100.
	NBest int
	// Metric is the metric the hypotheses are scored with, a --metric
	// spec with the metric's options (metric.Parse: "bleu", "chrf",
	// "ter:case=true", "bleu:tokenize=13a", "bleu:0.5,ter:0.5", …); ""
	// means BLEU. It is a spec, not a metric.Metric, so that it
	// travels to a pipeline's workers; external scores are refused (a
	// decoder's new hypotheses have none).
	Metric string
	// Progress is the launch's progress folder (local or gs://), where
	// the worker processes write how many sentences each decoded, for the
	// driver to show while the launch runs (WatchDecoding); "" for none.
	// Results do not depend on it.
	Progress string
	// Threads is the number of sentences of a mini-batch decoded at once;
	// 0 means 1. Results do not depend on it.
	Threads int
	// Added are the features a run adds to the decoder's lists by
	// commands (batch mode's --feature-command): the decoder never takes
	// their weights (FeatureCommands.DecoderWeights). With ScoreAdded,
	// DecodeSentences runs the commands once on the lists it decoded (a
	// dev set's decoding, re-ranked with every weight; batch mode adds
	// them to the tuning set's lists by pool part: BatchStep.WritePart).
	Added      FeatureCommands
	ScoreAdded bool
}

func (o DecodeOptions) nbest() int { return cmp.Or(o.NBest, 100) }

// Validate checks the options.
func (o DecodeOptions) Validate() error {
	if o.NBest < 0 || o.Threads < 0 {
		return fmt.Errorf("tune: invalid decode options (n-best %d, threads %d)", o.NBest, o.Threads)
	}
	_, err := o.ParseMetric()
	return err
}

// ParseMetric returns the metric hypotheses are scored with (Metric).
func (o DecodeOptions) ParseMetric() (metric.Metric, error) {
	m, _, err := o.ParseMetricSpec()
	return m, err
}

// ParseMetricSpec is ParseMetric with Metric in its canonical form
// (metric.Canonical: the options at their defaults left out, "bleu" for
// ""), the spec a run's workers and manifest carry, from one parse.
func (o DecodeOptions) ParseMetricSpec() (metric.Metric, string, error) {
	m, spec, err := metric.ParseSpec(cmp.Or(o.Metric, "bleu"), metric.Options{})
	if err != nil {
		return nil, "", fmt.Errorf("tune: %w", err)
	}
	if _, ok := m.(metric.FileScored); ok {
		return nil, "", fmt.Errorf("tune: metric %q: scores computed elsewhere score given n-best lists (tune-nbest, rerank), not a decoder's new translations", o.Metric)
	}
	return m, spec, nil
}

// Metric is what a run's hypotheses are scored with (metric.Metric), as
// its options hold it once parsed (DecodeOptions.ParseMetric).
type Metric = metric.Metric

// scorer scores hypotheses against the references of sentences.
type scorer struct{ m metric.Metric }

func newScorer(o DecodeOptions) (*scorer, error) {
	m, err := o.ParseMetric()
	if err != nil {
		return nil, err
	}
	return &scorer{m: m}, nil
}

// reference prepares the references of x.
func (s *scorer) reference(x Sentence) (metric.Segment, error) {
	if len(x.Refs) == 0 {
		return nil, fmt.Errorf("tune: sentence %d has no reference", x.ID)
	}
	r, err := s.m.Segment(x.Refs)
	if err != nil {
		return nil, fmt.Errorf("tune: references of sentence %d: %w", x.ID, err)
	}
	return r, nil
}

// stats scores the hypotheses of one sentence.
func (s *scorer) stats(ref metric.Segment, hyps []decoder.Hypothesis) []metric.Stats {
	out := make([]metric.Stats, len(hyps))
	for k, h := range hyps {
		out[k] = ref.Stats(h.Target)
	}
	return out
}

// decodeAll decodes sents with dec under w (over the decoder's index),
// threads at a time, and returns the n-best lists in the order of sents.
func decodeAll(ctx context.Context, dec Decoder, sents []Sentence, w []float64, o DecodeOptions) ([][]decoder.Hypothesis, error) {
	if bd, ok := dec.(BatchDecoder); ok {
		return decodeBatch(ctx, bd, sents, w, o)
	}
	out := make([][]decoder.Hypothesis, len(sents))
	decode := func(i int) error {
		x := sents[i]
		hyps, err := dec.NBest(ctx, x.ID, x.Src, w, o.nbest())
		if err != nil {
			return fmt.Errorf("tune: decoding sentence %d: %w", x.ID, err)
		}
		if len(hyps) == 0 {
			return fmt.Errorf("tune: decoding sentence %d: no translation", x.ID)
		}
		out[i] = hyps
		countDecoded(ctx, o, 1)
		return nil
	}
	if err := par.DoErr(ctx, len(sents), max(1, o.Threads), decode); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeBatch decodes sents with one call of dec.NBestBatch.
func decodeBatch(ctx context.Context, dec BatchDecoder, sents []Sentence, w []float64, o DecodeOptions) ([][]decoder.Hypothesis, error) {
	ids := make([]int, len(sents))
	srcs := make([]string, len(sents))
	for i, x := range sents {
		ids[i], srcs[i] = x.ID, x.Src
	}
	out, err := dec.NBestBatch(ctx, ids, srcs, w, o.nbest(), max(1, o.Threads))
	if err != nil {
		return nil, fmt.Errorf("tune: decoding %d sentences: %w", len(sents), err)
	}
	if len(out) != len(sents) {
		return nil, fmt.Errorf("tune: decoding %d sentences: %d n-best lists", len(sents), len(out))
	}
	for i, hyps := range out {
		if len(hyps) == 0 {
			return nil, fmt.Errorf("tune: decoding sentence %d: no translation", sents[i].ID)
		}
	}
	countDecoded(ctx, o, len(out))
	return out, nil
}

// DecodeSentence decodes x with dec under w (over dec.Features()) and
// scores the n-best list against x's references: what the pipeline's
// decoding step does to each sentence.
func DecodeSentence(ctx context.Context, dec Decoder, x Sentence, w feature.Weights, o DecodeOptions) (NBest, error) {
	if err := o.Validate(); err != nil {
		return NBest{}, err
	}
	sc, err := newScorer(o)
	if err != nil {
		return NBest{}, err
	}
	return decodeSentenceWith(ctx, dec, x, w, sc, o)
}

func decodeSentenceWith(ctx context.Context, dec Decoder, x Sentence, w feature.Weights, sc *scorer, o DecodeOptions) (NBest, error) {
	ref, err := sc.reference(x)
	if err != nil {
		return NBest{}, err
	}
	hyps, err := decodeAll(ctx, dec, []Sentence{x}, w, DecodeOptions{NBest: o.NBest})
	if err != nil {
		return NBest{}, err
	}
	return scoredNBest(dec, x, ref, hyps[0], sc)
}

// scoredNBest returns the n-best list hyps of x (over dec's index) scored
// against ref as an NBest.
func scoredNBest(dec Decoder, x Sentence, ref metric.Segment, hyps []decoder.Hypothesis, sc *scorer) (NBest, error) {
	stats := sc.stats(ref, hyps)
	idx := dec.Features()
	// Collect the decoder ids in use. The list's names are theirs sorted:
	// the decoder's ids follow the order in which concurrent decodings met
	// the features, and the list (batch mode's pool files, the indexes
	// built from it) must not.
	var ids []feature.ID
	for k, h := range hyps {
		if err := h.Features.Validate(); err != nil {
			return NBest{}, fmt.Errorf("tune: sentence %d hypothesis %d: %w", x.ID, k, err)
		}
		ids = append(ids, h.Features.IDs...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) > 0 && int(ids[len(ids)-1]) >= idx.Len() {
		return NBest{}, fmt.Errorf("tune: sentence %d: feature id %d is not in the decoder's index", x.ID, ids[len(ids)-1])
	}
	names := make([]string, len(ids))
	order := make([]int, len(ids)) // order[r]: the k of ids[k] whose name is r-th
	for k, id := range ids {
		names[k], order[k] = idx.Name(id), k
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	out := NBest{Sent: x.ID, Names: make([]string, len(ids)), Hyps: make([]WireHyp, len(hyps))}
	rank := make([]feature.ID, len(ids)) // rank[k]: the list's id of ids[k]
	for r, k := range order {
		out.Names[r], rank[k] = names[k], feature.ID(r)
	}
	var b feature.Builder
	for i, h := range hyps {
		for k, id := range h.Features.IDs {
			p, _ := slices.BinarySearch(ids, id)
			b.Add(rank[p], h.Features.Vals[k])
		}
		out.Hyps[i] = WireHyp{Target: h.Target, Features: b.Vector(), Stats: stats[i], Score: h.Score, HasScore: true}
	}
	return out, nil
}

// translator maps feature ids between a decoder's index and a learner's
// (local) index by name. Decoders and learners keep separate indexes: the
// decoder is shared by every shard a worker runs, and a shard's index is
// fixed by its saved learner state.
type translator struct {
	dec, loc *feature.Index
	d2l, l2d []feature.ID // -1: not resolved yet
	b        feature.Builder
}

func newTranslator(dec, loc *feature.Index) *translator {
	return &translator{dec: dec, loc: loc}
}

// decID returns the decoder id of local id j, adding the name to the
// decoder's index if it is new there.
func (t *translator) decID(j feature.ID) feature.ID {
	return translateID(&t.l2d, j, t.loc, t.dec)
}

// locID returns the local id of decoder id d, adding the name to the local
// index if it is new there.
func (t *translator) locID(d feature.ID) feature.ID {
	return translateID(&t.d2l, d, t.dec, t.loc)
}

// translateID returns the id in index to of the feature with id in index
// from, caching it in *cache (-1: not resolved yet) and adding the name to
// to if it is new there.
func translateID(cache *[]feature.ID, id feature.ID, from, to *feature.Index) feature.ID {
	for int(id) >= len(*cache) {
		*cache = append(*cache, -1)
	}
	if x := (*cache)[id]; x >= 0 {
		return x
	}
	x := to.ID(from.Name(id))
	(*cache)[id] = x
	return x
}

// intern adds to the local index the features of lists (n-best lists over
// the decoder's index) that it lacks, in the order of their names. The
// decoder's ids are those of the order in which concurrent decodings (of
// the shards that share the decoder, of a shard's threads) met the
// features; interned by name, a shard's ids depend only on what it
// decoded, and so do the learner's sums over them, whose order is theirs.
func (t *translator) intern(lists [][]decoder.Hypothesis) {
	var names []string
	seen := map[feature.ID]bool{}
	n := feature.ID(t.dec.Len())
	for _, hyps := range lists {
		for _, h := range hyps {
			for _, d := range h.Features.IDs {
				if d < 0 || d >= n || (int(d) < len(t.d2l) && t.d2l[d] >= 0) || seen[d] {
					continue // vector reports a bad id; a resolved one is interned
				}
				seen[d] = true
				name := t.dec.Name(d)
				if _, ok := t.loc.Lookup(name); !ok {
					names = append(names, name)
				}
			}
		}
	}
	slices.Sort(names)
	for _, name := range names {
		t.loc.ID(name)
	}
}

// weights returns the local weights w over the decoder's index, reusing
// dst's storage.
func (t *translator) weights(w feature.Weights, dst feature.Weights) feature.Weights {
	dst = dst[:0]
	for j, x := range w {
		if x != 0 {
			dst.Set(t.decID(feature.ID(j)), x)
		}
	}
	return dst
}

// vector returns the decoder's vector v over the local index.
func (t *translator) vector(v feature.Vector) (feature.Vector, error) {
	if err := v.Validate(); err != nil {
		return feature.Vector{}, err
	}
	for k, d := range v.IDs {
		if int(d) >= t.dec.Len() {
			return feature.Vector{}, fmt.Errorf("feature id %d is not in the decoder's index", d)
		}
		t.b.Add(t.locID(d), v.Vals[k])
	}
	return t.b.Vector(), nil
}

// DecodeSentences decodes and scores sents as DecodeSentence does, o.Threads
// at a time (0: one), and returns their lists in id order with the Work
// done: what the pipeline's decoding step does to a batch of sentences;
// with o.ScoreAdded, the lists have o.Added's features too. Results do not
// depend on o.Threads.
func DecodeSentences(ctx context.Context, dec Decoder, sents []Sentence, w feature.Weights, o DecodeOptions) ([]NBest, Work, error) {
	out, work, err := decodeSentences(ctx, dec, sents, w, o)
	if err != nil || !o.ScoreAdded || len(out) == 0 {
		return out, work, err
	}
	out, err = o.Added.Add(ctx, out, fmt.Sprintf("%s set, a decoding batch of %d sentences from sentence %d", o.Added.Set, len(out), out[0].Sent))
	return out, work, err
}

func decodeSentences(ctx context.Context, dec Decoder, sents []Sentence, w feature.Weights, o DecodeOptions) ([]NBest, Work, error) {
	if err := o.Validate(); err != nil {
		return nil, Work{}, err
	}
	sc, err := newScorer(o)
	if err != nil {
		return nil, Work{}, err
	}
	sents = slices.Clone(sents)
	slices.SortFunc(sents, func(a, b Sentence) int { return cmp.Compare(a.ID, b.ID) })
	if bd, ok := dec.(BatchDecoder); ok {
		return decodeSentencesBatch(ctx, bd, sents, w, sc, o)
	}
	out := make([]NBest, len(sents))
	times := make([]time.Duration, len(sents))
	err = par.DoErr(ctx, len(sents), max(1, o.Threads), func(i int) error {
		start := time.Now()
		var err error
		out[i], err = decodeSentenceWith(ctx, dec, sents[i], w, sc, o)
		times[i] = time.Since(start)
		return err
	})
	if err != nil {
		return nil, Work{}, err
	}
	work := Work{Sentences: len(sents)}
	for i, nb := range out {
		work.Hypotheses += len(nb.Hyps)
		work.Decode += times[i]
	}
	return out, work, nil
}

// decodeSentencesBatch is DecodeSentences with a BatchDecoder: the
// sentences (in id order) are decoded with one call, then scored; the
// Work's decoding time is the call's.
func decodeSentencesBatch(ctx context.Context, dec BatchDecoder, sents []Sentence, w feature.Weights, sc *scorer, o DecodeOptions) ([]NBest, Work, error) {
	refs := make([]metric.Segment, len(sents))
	for i, x := range sents {
		var err error
		if refs[i], err = sc.reference(x); err != nil {
			return nil, Work{}, err
		}
	}
	start := time.Now()
	hyps, err := decodeBatch(ctx, dec, sents, w, o)
	if err != nil {
		return nil, Work{}, err
	}
	work := Work{Sentences: len(sents), Decode: time.Since(start)}
	out := make([]NBest, len(sents))
	for i, x := range sents {
		if out[i], err = scoredNBest(dec, x, refs[i], hyps[i], sc); err != nil {
			return nil, Work{}, err
		}
		work.Hypotheses += len(out[i].Hyps)
	}
	return out, work, nil
}
