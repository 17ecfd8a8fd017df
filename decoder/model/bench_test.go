package model

import (
	"context"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/testsupport/shared"
)

// BenchmarkLoad8k loads the phrase table and the reordering table of
// europarl-fr-en-8k and reports the live heap after a GC.
func BenchmarkLoad8k(b *testing.B) {
	pt := shared.Path(b, "moses-models", "europarl-fr-en-8k", "phrase-table.gz")
	ro := shared.Path(b, "moses-models", "europarl-fr-en-8k", "reordering-table.wbe-msd-bidirectional-fe.gz")
	ctx := context.Background()
	var t *PhraseTable
	var ptSec, roSec float64
	cpu0 := shared.CPUTime()
	for b.Loop() {
		t = nil
		runtime.GC()
		start := time.Now()
		var err error
		t, err = LoadPhraseTable(ctx, pt, PhraseTableOptions{NumScores: 4})
		if err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := t.LoadReordering(ctx, ro, ReorderingOptions{NumScores: 6}); err != nil {
			b.Fatal(err)
		}
		ptSec += mid.Sub(start).Seconds()
		roSec += time.Since(mid).Seconds()
	}
	b.StopTimer()
	cpu := shared.CPUTime() - cpu0
	heap := shared.LiveHeapMiB()
	b.ReportMetric(ptSec/float64(b.N), "pt-s/op")
	b.ReportMetric(roSec/float64(b.N), "reord-s/op")
	b.ReportMetric(heap, "heap-MiB")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	runtime.KeepAlive(t)
}

func BenchmarkRead8kRaw(b *testing.B) {
	pt := shared.Path(b, "moses-models", "europarl-fr-en-8k", "phrase-table.gz")
	ctx := context.Background()
	for b.Loop() {
		rc, err := storage.Open(ctx, pt)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, rc)
		if err != nil {
			b.Fatal(err)
		}
		rc.Close()
		b.SetBytes(n)
	}
}
