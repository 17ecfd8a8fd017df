package decoder

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// BenchmarkEuroparl8kLoadFiltered compares, for europarl-fr-en-8k, the
// full Load with LoadFiltered for the first 32 and 512 sentences of the
// tune split (lines 8001–): filtering on every call (no cache) and from
// the cache. It reports the heap in use after the load with the model
// alive (heap-MiB, after a GC; the language model, which is not filtered,
// is in every figure), and the phrase-table options loaded (pt-options)
// and kept after the table limit (pt-kept).
func BenchmarkEuroparl8kLoadFiltered(b *testing.B) {
	d := shared.Path(b, "moses-models", "europarl-fr-en-8k")
	ini := filepath.Join(d, "moses.ini")
	opts := LoadOptions{Getenv: modelEnv("MODEL_PATH", d)}
	tune := europarlLines(b, "fr.gz", 8001, 8512)
	cacheDir := b.TempDir()
	type load func(ctx context.Context) (*Model, error)
	full := func(ctx context.Context) (*Model, error) { return Load(ctx, ini, opts) }
	filtered := func(n int, cache FilterCache) load {
		return func(ctx context.Context) (*Model, error) {
			m, _, err := LoadFiltered(ctx, ini, tune[:n], opts, cache)
			return m, err
		}
	}
	cases := []struct {
		name string
		load load
		warm bool // fill the cache before timing
	}{
		{"full", full, false},
		{"filtered-32/no-cache", filtered(32, FilterCache{Off: true}), false},
		{"filtered-32/cached", filtered(32, FilterCache{Dir: cacheDir}), true},
		{"filtered-512/no-cache", filtered(512, FilterCache{Off: true}), false},
		{"filtered-512/cached", filtered(512, FilterCache{Dir: cacheDir}), true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			if c.warm {
				if _, err := c.load(ctx); err != nil {
					b.Fatal(err)
				}
			}
			var m *Model
			before := shared.LiveHeapMiB()
			b.ReportAllocs()
			for b.Loop() {
				m = nil
				var err error
				if m, err = c.load(ctx); err != nil {
					b.Fatal(err)
				}
			}
			heap := shared.LiveHeapMiB()
			b.ReportMetric(heap, "heap-MiB")
			b.ReportMetric(heap-before, "model-heap-MiB")
			b.ReportMetric(float64(m.Stats().Options), "pt-options")
			b.ReportMetric(float64(m.Stats().Kept), "pt-kept")
			runtime.KeepAlive(m)
		})
	}
}
