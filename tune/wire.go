package tune

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// The values that cross process boundaries: a sentence of the tuning set, a
// scored n-best list with its feature names, a shard's saved state and its
// epoch's result. Feature ids are private to a process, so each carries
// the names its ids mean.

// Sentence is one sentence of the tuning set: the element the
// pipelines start from.
type Sentence struct {
	// ID is the sentence's 0-based line in the tuning set.
	ID int
	// Src is the source sentence.
	Src string
	// Refs are its reference translations (at least one).
	Refs []string
}

// SentencesOf returns the sentences of c, whose first is line first of
// its files (0 for a whole set, a corpus.Range's First for a range).
func SentencesOf(c *corpus.Corpus, first int) []Sentence {
	out := make([]Sentence, c.Len())
	for i := range out {
		out[i] = Sentence{ID: first + i, Src: c.Source[i], Refs: c.Refs[i]}
	}
	return out
}

// WireHyp is one hypothesis of an NBest.
type WireHyp struct {
	// Target is the translation (may be empty when unknown).
	Target string
	// Features has ids that index the NBest's Names.
	Features feature.Vector
	// Stats are the hypothesis' statistics (the run's metric) against the references.
	Stats metric.Stats
	// Score is the model score the decoder ranked the hypothesis by, when
	// HasScore (lists from Decode); lists rebuilt from a pool.List have
	// none.
	Score    float64
	HasScore bool
}

// NBest is the scored n-best list of one sentence in a form that crosses
// process boundaries: each list carries the names of the features its
// hypotheses use, so that lists from different workers need no shared
// index.
type NBest struct {
	// Sent is the sentence's id.
	Sent int
	// Names names the features: id k of every hypothesis is Names[k].
	Names []string
	Hyps  []WireHyp
}

// NBestOf returns l as an NBest. targets, if not nil, holds the
// translation of each hypothesis.
func NBestOf(l pool.List, targets []string, idx *feature.Index) NBest {
	var ids []feature.ID
	for _, h := range l.Hyps {
		ids = append(ids, h.Features.IDs...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := NBest{Sent: l.Sent, Names: make([]string, len(ids)), Hyps: make([]WireHyp, len(l.Hyps))}
	for k, id := range ids {
		out.Names[k] = idx.Name(id)
	}
	for i, h := range l.Hyps {
		v := feature.Vector{IDs: make([]feature.ID, len(h.Features.IDs)), Vals: slices.Clone(h.Features.Vals)}
		for k, id := range h.Features.IDs {
			p, _ := slices.BinarySearch(ids, id)
			v.IDs[k] = feature.ID(p)
		}
		out.Hyps[i] = WireHyp{Features: v, Stats: h.Stats()}
		if targets != nil {
			out.Hyps[i].Target = targets[i]
		}
	}
	return out
}

// Validate checks that every hypothesis' vector is valid and within Names,
// that the names are distinct and that the statistics are valid.
func (n NBest) Validate() error {
	seen := make(map[string]struct{}, len(n.Names))
	for _, name := range n.Names {
		if _, dup := seen[name]; dup || name == "" {
			return fmt.Errorf("tune: n-best list of sentence %d: bad or repeated feature name %q", n.Sent, name)
		}
		seen[name] = struct{}{}
	}
	for k, h := range n.Hyps {
		if err := h.Features.Validate(); err != nil {
			return fmt.Errorf("tune: n-best list of sentence %d, hypothesis %d: %w", n.Sent, k, err)
		}
		if m := len(h.Features.IDs); m > 0 && int(h.Features.IDs[m-1]) >= len(n.Names) {
			return fmt.Errorf("tune: n-best list of sentence %d, hypothesis %d: feature id %d beyond %d names", n.Sent, k, h.Features.IDs[m-1], len(n.Names))
		}
		if err := h.Stats.Validate(); err != nil {
			return fmt.Errorf("tune: n-best list of sentence %d, hypothesis %d: %w", n.Sent, k, err)
		}
		if h.Stats.N != n.Hyps[0].Stats.N {
			return fmt.Errorf("tune: n-best list of sentence %d, hypothesis %d: %d statistics, hypothesis 0 has %d", n.Sent, k, h.Stats.N, n.Hyps[0].Stats.N)
		}
	}
	return nil
}

// List returns the list over idx, adding the names idx lacks.
func (n NBest) List(idx *feature.Index) (pool.List, error) {
	if err := n.Validate(); err != nil {
		return pool.List{}, err
	}
	ids := make([]feature.ID, len(n.Names))
	for k, name := range n.Names {
		ids[k] = idx.ID(name)
	}
	l := pool.List{Sent: n.Sent, Hyps: make([]pool.Hyp, len(n.Hyps))}
	var b feature.Builder
	for i, h := range n.Hyps {
		for k, id := range h.Features.IDs {
			b.Add(ids[id], h.Features.Vals[k])
		}
		l.Hyps[i] = pool.NewHyp(b.Vector(), h.Stats)
	}
	return l, nil
}

// ShardState is a shard's saved learner state: the learner's
// MarshalBinary, whose feature ids are positions in Names.
type ShardState struct {
	Shard int
	Names []string
	State []byte
}

// ShardResult is what a shard's online learning emits for an epoch.
type ShardResult struct {
	Shard int
	Epoch int
	// Weights are the learner's weights (Learner.Weights) at the end of the
	// epoch; Names lists every feature of the shard's index in id order,
	// so it also names State's ids.
	Weights weights.ByName
	// State is the learner's MarshalBinary.
	State []byte
	// Updates is the number of updates made this epoch, TotalUpdates the
	// learner's count since it was created.
	Updates, TotalUpdates int
	// Sentences is the number of sentences decoded.
	Sentences int
	// Stats sums the statistics (the run's metric) of each sentence's
	// 1-best as decoded during the epoch (with the weights current at that
	// point): their corpus score is the progressive tune score.
	Stats metric.Stats
}

// ShardState returns the state to resume the shard from.
func (r ShardResult) ShardState() ShardState {
	return ShardState{Shard: r.Shard, Names: slices.Clone(r.Weights.Names), State: slices.Clone(r.State)}
}

// Validate checks that the shard is not negative and that the names are
// non-empty, valid UTF-8 and distinct; a failure wraps ErrShardState.
func (s ShardState) Validate() error {
	if s.Shard < 0 {
		return fmt.Errorf("%w: negative shard %d", ErrShardState, s.Shard)
	}
	seen := make(map[string]struct{}, len(s.Names))
	for i, name := range s.Names {
		if name == "" || !utf8.ValidString(name) {
			return fmt.Errorf("%w: name %d is empty or not UTF-8", ErrShardState, i)
		}
		if _, dup := seen[name]; dup {
			return fmt.Errorf("%w: name %q repeated", ErrShardState, name)
		}
		seen[name] = struct{}{}
	}
	return nil
}

const shardStateMagic, shardStateVersion = "mtune/tune.ShardState", 1

// ErrShardState is wrapped by the errors of UnmarshalBinary.
var ErrShardState = errors.New("tune: malformed shard state")

// MarshalBinary encodes s: a magic string, a version, the shard, the names
// and the state, with uvarint lengths.
func (s ShardState) MarshalBinary() ([]byte, error) {
	if s.Shard < 0 {
		return nil, fmt.Errorf("tune: negative shard %d", s.Shard)
	}
	b := append([]byte(nil), shardStateMagic...)
	b = binary.AppendUvarint(b, shardStateVersion)
	b = binary.AppendUvarint(b, uint64(s.Shard))
	b = binary.AppendUvarint(b, uint64(len(s.Names)))
	for _, n := range s.Names {
		b = binary.AppendUvarint(b, uint64(len(n)))
		b = append(b, n...)
	}
	b = binary.AppendUvarint(b, uint64(len(s.State)))
	b = append(b, s.State...)
	return b, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote. Truncated input wraps
// io.ErrUnexpectedEOF; any other defect (bad magic or version, invalid
// UTF-8, empty or repeated names, a length not in its shortest form,
// trailing bytes) wraps ErrShardState. On
// error s is unchanged.
func (s *ShardState) UnmarshalBinary(data []byte) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrShardState, fmt.Sprintf(format, args...))
	}
	if len(data) < len(shardStateMagic) {
		if string(data) == shardStateMagic[:len(data)] {
			return fmt.Errorf("%w: %w", ErrShardState, io.ErrUnexpectedEOF)
		}
		return fail("bad magic")
	}
	if string(data[:len(shardStateMagic)]) != shardStateMagic {
		return fail("bad magic")
	}
	p := data[len(shardStateMagic):]
	var err error
	uv := func(limit uint64, what string) uint64 {
		if err != nil {
			return 0
		}
		x, n := binary.Uvarint(p)
		switch {
		case n == 0:
			err = fmt.Errorf("%w: %s: %w", ErrShardState, what, io.ErrUnexpectedEOF)
		case n < 0:
			err = fail("%s overflows", what)
		case n != len(binary.AppendUvarint(nil, x)):
			err = fail("%s is not minimally encoded", what)
		case x > limit:
			err = fail("%s %d exceeds %d", what, x, limit)
		default:
			p = p[n:]
		}
		return x
	}
	bytes := func(what string) []byte {
		n := uv(math.MaxInt32, what+" length")
		if err != nil {
			return nil
		}
		if uint64(len(p)) < n {
			err = fmt.Errorf("%w: %s: %w", ErrShardState, what, io.ErrUnexpectedEOF)
			return nil
		}
		b := p[:n]
		p = p[n:]
		return b
	}
	if v := uv(math.MaxUint32, "version"); err == nil && v != shardStateVersion {
		return fail("version %d, want %d", v, shardStateVersion)
	}
	shard := uv(math.MaxInt32, "shard")
	count := uv(math.MaxInt32, "name count")
	// Each name takes at least two bytes (a length and a byte): a larger
	// count can only be a cut-off record.
	if err == nil && count > uint64(len(p)/2) {
		err = fmt.Errorf("%w: %d names in %d bytes: %w", ErrShardState, count, len(p), io.ErrUnexpectedEOF)
	}
	if err != nil {
		return err
	}
	out := ShardState{Shard: int(shard), Names: make([]string, 0, count)}
	for i := uint64(0); i < count && err == nil; i++ {
		if b := bytes("name"); err == nil {
			out.Names = append(out.Names, string(b))
		}
	}
	state := bytes("state")
	if err != nil {
		return err
	}
	if err := out.Validate(); err != nil {
		return err
	}
	if len(p) != 0 {
		return fail("%d trailing bytes", len(p))
	}
	out.State = slices.Clone(state)
	*s = out
	return nil
}

// Validate checks the result's counts, weights and statistics.
func (r ShardResult) Validate() error {
	if r.Shard < 0 || r.Epoch < 0 || r.Updates < 0 || r.TotalUpdates < r.Updates || r.Sentences < 0 {
		return fmt.Errorf("tune: shard result with shard %d, epoch %d, %d updates of %d, %d sentences",
			r.Shard, r.Epoch, r.Updates, r.TotalUpdates, r.Sentences)
	}
	if err := r.Weights.Validate(); err != nil {
		return err
	}
	if r.Stats != (metric.Stats{}) {
		if err := r.Stats.Validate(); err != nil {
			return fmt.Errorf("tune: shard %d: %w", r.Shard, err)
		}
	}
	return nil
}
