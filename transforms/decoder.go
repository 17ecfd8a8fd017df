package transforms

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mtune/mtune/feature"
)

// Hypothesis is one translation a Decoder returns.
type Hypothesis struct {
	// Target is the translation.
	Target string
	// Features are its feature values, with ids from the decoder's
	// Features index.
	Features feature.Vector
	// Score is the model score w·Features the decoder ranked it by.
	Score float64
}

// Decoder translates tuning sentences into n-best lists. The transforms
// reach a decoder only through this interface: the pipeline binds a real
// one by name (RegisterDecoder) and tests bind a fake (see
// transforms/decodertest).
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
	NBest(ctx context.Context, sentID int, src string, w feature.Weights, n int) ([]Hypothesis, error)
}

// DecoderFactory loads a decoder from a configuration string whose meaning
// is the factory's (a moses.ini path for the real decoder, an n-best file
// for decodertest's pool).
type DecoderFactory func(ctx context.Context, config string) (Decoder, error)

var (
	decMu      sync.Mutex
	factories  = map[string]DecoderFactory{}
	decoders   = map[decoderKey]Decoder{}
	errUnknown = errors.New("transforms: unknown decoder")
)

type decoderKey struct{ name, config string }

// RegisterDecoder makes a decoder factory available under name to the
// DoFns' Decoder field. Call it from an init function of a package that
// both the launching program and the workers link in. It panics if name is
// empty or already registered, or if f is nil.
func RegisterDecoder(name string, f DecoderFactory) {
	decMu.Lock()
	defer decMu.Unlock()
	if name == "" || f == nil {
		panic("transforms: RegisterDecoder with an empty name or a nil factory")
	}
	if _, dup := factories[name]; dup {
		panic("transforms: decoder " + name + " registered twice")
	}
	factories[name] = f
}

// Decoders returns the registered decoder names, sorted.
func Decoders() []string {
	decMu.Lock()
	defer decMu.Unlock()
	var out []string
	for name := range factories {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// checkDecoder reports whether name is registered.
func checkDecoder(name string) error {
	decMu.Lock()
	_, ok := factories[name]
	decMu.Unlock()
	if !ok {
		return fmt.Errorf("%w %q (registered: %s)", errUnknown, name, strings.Join(Decoders(), ", "))
	}
	return nil
}

// OpenDecoder returns the decoder the factory registered as name loads
// from config. A decoder loads once per process: later calls with the same
// name and config return the same Decoder (a failed load is retried).
func OpenDecoder(ctx context.Context, name, config string) (Decoder, error) {
	decMu.Lock()
	defer decMu.Unlock()
	k := decoderKey{name, config}
	if d, ok := decoders[k]; ok {
		return d, nil
	}
	f, ok := factories[name]
	if !ok {
		return nil, fmt.Errorf("%w %q", errUnknown, name)
	}
	d, err := f(ctx, config)
	if err != nil {
		return nil, fmt.Errorf("transforms: loading decoder %s(%q): %w", name, config, err)
	}
	if d == nil || d.Features() == nil {
		return nil, fmt.Errorf("transforms: decoder %s(%q) has no feature index", name, config)
	}
	decoders[k] = d
	return d, nil
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
	for int(j) >= len(t.l2d) {
		t.l2d = append(t.l2d, -1)
	}
	if d := t.l2d[j]; d >= 0 {
		return d
	}
	d := t.dec.ID(t.loc.Name(j))
	t.l2d[j] = d
	return d
}

// locID returns the local id of decoder id d, adding the name to the local
// index if it is new there.
func (t *translator) locID(d feature.ID) feature.ID {
	for int(d) >= len(t.d2l) {
		t.d2l = append(t.d2l, -1)
	}
	if j := t.d2l[d]; j >= 0 {
		return j
	}
	j := t.loc.ID(t.dec.Name(d))
	t.d2l[d] = j
	return j
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
