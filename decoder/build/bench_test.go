package build

import (
	"context"
	"io"
	"runtime"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
)

// benchRun builds the 8,000-pair train split of europarl-fr-en and reports
// CPU seconds, the stages' wall seconds and memory: the peak of the live
// heap sampled by the runtime (HeapSys, what the heap took from the OS)
// and the process' peak RSS (run one benchmark a process for a clean
// figure: go test -run XXX -bench 'RunEuroparl8k$' -benchtime 1x).
func benchRun(b *testing.B, skipLM bool) {
	o := europarlOptions(b, b.TempDir())
	o.SkipLM = skipLM
	cpu0 := shared.CPUTime()
	var res Result
	for b.Loop() {
		var err error
		if res, err = Run(context.Background(), o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((shared.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	st := res.Stages
	b.ReportMetric(st.Read, "read-s")
	b.ReportMetric(st.Extract, "extract-s")
	b.ReportMetric(st.Group, "group-s")
	b.ReportMetric(st.Write, "write-s")
	if !skipLM {
		b.ReportMetric(st.LM, "lm-s")
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heapsys-MiB")
	b.ReportMetric(peakRSS(), "peakrss-MiB")
}

// BenchmarkRunEuroparl8k builds the phrase and reordering tables (no LM).
func BenchmarkRunEuroparl8k(b *testing.B) { benchRun(b, true) }

// BenchmarkRunEuroparl8kLM builds the whole system, language model included.
func BenchmarkRunEuroparl8kLM(b *testing.B) { benchRun(b, false) }

// BenchmarkLMEuroparl8k estimates the 5-gram language model of the train
// split's target side with DefaultLM (no file written).
func BenchmarkLMEuroparl8k(b *testing.B) {
	o := europarlOptions(b, "")
	bt, err := readBitext(context.Background(), o.Src, o.Tgt, o.Align, o.Lines)
	if err != nil {
		b.Fatal(err)
	}
	sents := bt.targetSentences()
	cpu0 := shared.CPUTime()
	for b.Loop() {
		if _, err := DefaultLM.EstimateARPA(context.Background(), sents, 5, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((shared.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkDemo generates the default demo corpus and builds its model.
func BenchmarkDemo(b *testing.B) {
	for b.Loop() {
		c := Demo(DemoOptions{Seed: 1})
		f, err := c.Write(context.Background(), b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Run(context.Background(), f.BuildOptions(b.TempDir())); err != nil {
			b.Fatal(err)
		}
	}
}
