package poolfile

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/shared"
)

var (
	bigOnce          sync.Once
	bigNbest, bigRef string
	bigErr           error
	bigCopies        = 100
	bigDir           string
)

// makeBig writes europarl100 duplicated bigCopies times, with the sentence
// ids renumbered (10,000 sentences × 100 hypotheses, about 227 MB) and the
// references repeated to match.
func makeBig(b *testing.B) (nbestPath, refPath string) {
	b.Helper()
	src := shared.Path(b, "nbest", "europarl100")
	bigOnce.Do(func() {
		bigDir, bigErr = os.MkdirTemp("", "mtune-bench-extract")
		if bigErr != nil {
			return
		}
		f, err := os.Open(filepath.Join(src, "nbest.gz"))
		if err != nil {
			bigErr = err
			return
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			bigErr = err
			return
		}
		var lines []string
		sc := bufio.NewScanner(zr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		ref, err := os.ReadFile(filepath.Join(src, "reference"))
		if err != nil {
			bigErr = err
			return
		}
		bigNbest, bigRef = filepath.Join(bigDir, "nbest"), filepath.Join(bigDir, "ref")
		out, err := os.Create(bigNbest)
		if err != nil {
			bigErr = err
			return
		}
		w := bufio.NewWriterSize(out, 1<<20)
		var refs strings.Builder
		for c := range bigCopies {
			for _, l := range lines {
				k := strings.Index(l, "|||")
				var id int
				fmt.Sscan(l[:k], &id)
				fmt.Fprintf(w, "%d%s\n", c*100+id, l[k:])
			}
			refs.Write(ref)
		}
		if err := w.Flush(); err != nil {
			bigErr = err
			return
		}
		if bigErr = out.Close(); bigErr != nil {
			return
		}
		bigErr = os.WriteFile(bigRef, []byte(refs.String()), 0o666)
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigNbest, bigRef
}

// BenchmarkExtract100x extracts europarl100 duplicated 100 times: 1M
// hypotheses, 227 MB. Moses' extractor takes 23 s and 457 MB here. It
// reports CPU seconds per extraction alongside the wall time; peak memory is
// measured by scripts/bench-extract.sh on the command.
func BenchmarkExtract100x(b *testing.B) {
	nbestPath, refPath := makeBig(b)
	sc := loadScorer(b, refPath)
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			out := b.TempDir()
			st, err := os.Stat(nbestPath)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			cpu0 := shared.CPUTime()
			for b.Loop() {
				res, err := Extract(context.Background(), []string{nbestPath}, sc,
					filepath.Join(out, "f"), filepath.Join(out, "s"), Options{Threads: threads})
				if err != nil {
					b.Fatal(err)
				}
				if res.Hypotheses != 100*bigCopies*100 {
					b.Fatalf("kept %d hypotheses", res.Hypotheses)
				}
			}
			b.ReportMetric((shared.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkLoad100x loads europarl100 duplicated 100 times (1M hypotheses)
// into a pool on one thread, as `tune-nbest --threads 1` does, and reports
// the bytes the pool holds a hypothesis (live heap after a GC, the
// references' excluded) beside the allocations.
func BenchmarkLoad100x(b *testing.B) {
	nbestPath, refPath := makeBig(b)
	sc := loadScorer(b, refPath)
	var live float64
	for b.Loop() {
		var ms0, ms1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		lists, _, err := Load(context.Background(), []string{nbestPath}, feature.NewIndex(), sc, Options{Threads: 1})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms1)
		if n := pool.Size(lists); n != 100*bigCopies*100 {
			b.Fatalf("kept %d hypotheses", n)
		}
		live = float64(ms1.HeapAlloc-ms0.HeapAlloc) / float64(pool.Size(lists))
		runtime.KeepAlive(lists)
	}
	b.ReportMetric(live, "live-B/hyp")
}
