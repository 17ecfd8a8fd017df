package transforms

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/mtune/mtune/tune"
)

// DecoderFactory loads a decoder from a configuration string whose meaning
// is the factory's (a moses.ini path for the real decoder, an n-best file
// for decodertest's pool).
type DecoderFactory func(ctx context.Context, config string) (tune.Decoder, error)

var (
	decMu      sync.Mutex
	factories  = map[string]DecoderFactory{}
	decoders   = map[decoderKey]tune.Decoder{}
	errUnknown = errors.New("transforms: unknown decoder")
)

type decoderKey struct{ name, config string }

// The real decoders, in every program that links this package, workers
// included: the in-process one, which logs what a filtered model kept to
// the worker's log, and the external one.
func init() {
	RegisterDecoder(tune.MosesDecoderName, func(ctx context.Context, config string) (tune.Decoder, error) {
		return tune.OpenMoses(ctx, config, log.Infof)
	})
	RegisterDecoder(tune.ExternalDecoderName, tune.OpenExternal)
}

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
// name and config return the same tune.Decoder (a failed load is retried).
func OpenDecoder(ctx context.Context, name, config string) (tune.Decoder, error) {
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
