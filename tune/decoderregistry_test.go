package tune

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/feature"
)

// countedDecoder is a decoder that translates nothing, for the registry.
type countedDecoder struct{ idx *feature.Index }

func (d countedDecoder) Features() *feature.Index { return d.idx }

func (countedDecoder) NBest(context.Context, int, string, feature.Weights, int) ([]decoder.Hypothesis, error) {
	return nil, nil
}

// TestOpenDecoder: a registered decoder loads once per name and
// configuration, a failed load is tried again, a decoder without a feature
// index is refused, and an unknown name is named with the registered ones.
func TestOpenDecoder(t *testing.T) {
	loads := map[string]int{}
	RegisterDecoder("counted-test", "a decoder that counts its loads", func(ctx context.Context, config string, _ Logf) (Decoder, error) {
		loads[config]++
		switch {
		case config == "flaky" && loads[config] == 1:
			return nil, errors.New("not yet")
		case config == "no-index":
			return countedDecoder{}, nil
		}
		return countedDecoder{feature.NewIndex()}, nil
	})
	ctx := context.Background()
	a, err := OpenDecoder(ctx, "counted-test", "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := OpenDecoder(ctx, "counted-test", "a", nil); err != nil || b != a || loads["a"] != 1 {
		t.Errorf("second open: %v, the same decoder %v, %d loads", err, b == a, loads["a"])
	}
	if _, err := OpenDecoder(ctx, "counted-test", "flaky", nil); err == nil || !strings.Contains(err.Error(), "not yet") {
		t.Errorf("a failed load: %v", err)
	}
	if _, err := OpenDecoder(ctx, "counted-test", "flaky", nil); err != nil || loads["flaky"] != 2 {
		t.Errorf("the load again: %v, %d loads", err, loads["flaky"])
	}
	if _, err := OpenDecoder(ctx, "counted-test", "no-index", nil); err == nil || !strings.Contains(err.Error(), "no feature index") {
		t.Errorf("no index: %v", err)
	}
	_, err = OpenDecoder(ctx, "no-such-decoder", "a", nil)
	if !errors.Is(err, ErrUnknownDecoder) || !strings.Contains(err.Error(), MosesDecoderName) {
		t.Errorf("unknown decoder: %v", err)
	}
	for _, name := range []string{MosesDecoderName, ExternalDecoderName, "counted-test"} {
		if !slices.Contains(Decoders.Names(), name) {
			t.Errorf("%s not registered", name)
		}
	}
}
