package transforms_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/testsupport/decodertest"
	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/transforms"
	"github.com/mtune/mtune/tune"
)

// The tests run their pipelines on prism (ptest's default runner).
func TestMain(m *testing.M) {
	ptest.Main(m)
}

func init() {
	register.Function1x1(formatWeights)
	register.Function1x1(formatResult)
	register.Function2x1(formatKV)
	register.Function1x1(formatLineSearch)
	register.Function1x1(formatStats)
	register.Function1x1(formatNBest)
	register.Function1x1(formatBLEU)
}

// formatWeights prints weights sorted by name, with exact floats.
func formatWeights(w weights.ByName) string {
	var parts []string
	for i, n := range w.Names {
		if w.Vals[i] != 0 {
			parts = append(parts, n+"="+strconv.FormatFloat(w.Vals[i], 'g', -1, 64))
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// formatResult prints everything a shard result holds.
func formatResult(r tune.ShardResult) string {
	return fmt.Sprintf("shard=%d epoch=%d updates=%d/%d sentences=%d stats=%s state=%x weights=%s",
		r.Shard, r.Epoch, r.Updates, r.TotalUpdates, r.Sentences, r.Stats, r.State, formatWeights(r.Weights))
}

func formatKV(k int, x tune.Sentence) string {
	return fmt.Sprintf("%d:%d", k, x.ID)
}

func formatLineSearch(r transforms.LineSearchResult) string {
	return fmt.Sprintf("alpha=%s stats=%s lists=%d", strconv.FormatFloat(r.Alpha, 'g', -1, 64), r.Stats, r.Lists)
}

func formatStats(s metric.Stats) string { return s.String() }

// formatNBest prints a list with its features by name.
func formatNBest(n tune.NBest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d:", n.Sent)
	for _, h := range n.Hyps {
		fmt.Fprintf(&b, " [%s |", h.Target)
		for k, id := range h.Features.IDs {
			fmt.Fprintf(&b, " %s=%g", n.Names[id], h.Features.Vals[k])
		}
		fmt.Fprintf(&b, " | %s]", h.Stats)
	}
	return b.String()
}

// europarl100 is the shared europarl100 data as a tuning set for the
// decodertest pool.
type europarl100 struct {
	dir     string
	nbest   string // the pool decoder's configuration
	weights string // init.weights
	sents   []tune.Sentence
}

func loadEuroparl100(t testing.TB) europarl100 {
	t.Helper()
	dir := shared.Path(t, "nbest", "europarl100")
	refs, err := corpus.ReadFile(context.Background(), filepath.Join(dir, "reference"))
	if err != nil {
		t.Fatal(err)
	}
	e := europarl100{dir: dir, nbest: filepath.Join(dir, "nbest.gz"), weights: filepath.Join(dir, "init.weights")}
	for i, r := range refs {
		e.sents = append(e.sents, tune.Sentence{ID: i, Src: fmt.Sprintf("source %d", i), Refs: []string{r}})
	}
	return e
}

func (e europarl100) decoder(t testing.TB) tune.Decoder {
	t.Helper()
	d, err := transforms.OpenDecoder(context.Background(), decodertest.Name, e.nbest)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (e europarl100) initWeights(t testing.TB) weights.ByName {
	t.Helper()
	w, err := weights.ReadByName(context.Background(), e.weights)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// openNBest opens a Moses n-best file.
func openNBest(t testing.TB, path string) (*nbest.Reader, func()) {
	t.Helper()
	f, err := storage.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return nbest.NewReader(f, path, feature.NewIndex()), func() { f.Close() }
}
