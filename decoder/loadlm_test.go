package decoder

import (
	"context"
	"reflect"
	"testing"

	"github.com/mtune/mtune/decoder/lm"
)

// TestLoadLMShared: two models loaded with one LoadLM hook share its
// language model, read it once, and decode as a model that loaded its own.
func TestLoadLMShared(t *testing.T) {
	ini := writeSmall(t, nil)
	ctx := context.Background()
	own, err := Load(ctx, ini, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var loads int
	var shared *lm.Model
	opts := LoadOptions{LoadLM: func(ctx context.Context, path string) (*lm.Model, error) {
		if shared == nil {
			loads++
			var err error
			shared, err = lm.Load(ctx, path, nil)
			return shared, err
		}
		return shared, nil
	}}
	a, err := Load(ctx, ini, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(ctx, ini, opts)
	if err != nil {
		t.Fatal(err)
	}
	if loads != 1 || a.lm != shared || b.lm != shared {
		t.Fatalf("%d loads; the models' LMs are %p and %p, the shared one %p", loads, a.lm, b.lm, shared)
	}
	for _, m := range []*Model{a, b} {
		got, err := Decode(ctx, m, "le chat noir dort", DecodeOptions{NBest: 5})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Decode(ctx, own, "le chat noir dort", DecodeOptions{NBest: 5})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.NBest, want.NBest) {
			t.Errorf("decoded %+v, want %+v", got.NBest, want.NBest)
		}
	}
}
