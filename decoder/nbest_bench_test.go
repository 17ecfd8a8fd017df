package decoder

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// load8kSparse loads europarl-fr-en-8k with every sparse template on, as
// `mtune decode --sparse all` and `mtune tune --sparse all` decode, the
// phrase table filtered to sentences (decode's default load).
func load8kSparse(tb testing.TB, sentences []string) *Model {
	tb.Helper()
	d := shared.Path(tb, "moses-models", "europarl-fr-en-8k")
	t, err := ParseTemplates("all")
	if err != nil {
		tb.Fatal(err)
	}
	m, err := Load(context.Background(), filepath.Join(d, "moses.ini"), LoadOptions{
		Sparse:  t,
		Sources: sentences,
		Getenv: func(name string) (string, bool) {
			if name == "MODEL_PATH" {
				return d, true
			}
			return os.LookupEnv(name)
		}})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// BenchmarkEuroparl8kNBest decodes the 200 test sentences of europarl-fr-en
// (lines 9001–9200) with --sparse all on one goroutine: the 1-best alone
// (what mtune decode and the dev set's decoding cost) and 100-best lists,
// distinct and of every derivation (what learning costs), with the stack
// search and cube pruning. cpu-ms/sent is the process' CPU time a sentence
// (the machine may be shared; wall time is not reported).
func BenchmarkEuroparl8kNBest(b *testing.B) {
	src := europarlLines(b, "fr.gz", 9001, 9200)
	m := load8kSparse(b, src)
	for _, search := range []struct {
		name string
		so   SearchOptions
	}{{"stack", SearchOptions{Algorithm: StackSearch}}, {"cube", SearchOptions{Algorithm: CubePruning}}} {
		for _, list := range []struct {
			name string
			o    DecodeOptions
		}{{"1best", DecodeOptions{}}, {"nbest=100", DecodeOptions{NBest: 100}}, {"nbest=100/all", DecodeOptions{NBest: 100, AllDerivations: true}}} {
			b.Run(fmt.Sprintf("%s/%s", search.name, list.name), func(b *testing.B) {
				o := list.o
				o.Search = search.so
				var cpu float64
				b.ReportAllocs()
				for b.Loop() {
					start := shared.CPUTime()
					if _, err := DecodeAll(context.Background(), m, src, o, 1); err != nil {
						b.Fatal(err)
					}
					cpu += (shared.CPUTime() - start).Seconds()
				}
				b.ReportMetric(1000*cpu/float64(len(src)*b.N), "cpu-ms/sent")
			})
		}
	}
}
