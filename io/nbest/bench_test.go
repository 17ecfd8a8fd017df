package nbest

import (
	"bytes"
	"fmt"
	"io"
	mrand "math/rand"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/testsupport/shared"
)

func benchRead(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	n := 0
	cpu0 := shared.CPUTime()
	for b.Loop() {
		r := NewReader(bytes.NewReader(data), "bench", feature.NewIndex())
		n = 0
		for {
			_, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	reportCPU(b, cpu0, float64(len(data)), float64(n))
}

// reportCPU reports throughput per second of process CPU time (all
// threads, GC included), the figure that matters on a shared machine.
func reportCPU(b *testing.B, cpu0 time.Duration, bytes, items float64) {
	cpu := (shared.CPUTime() - cpu0).Seconds()
	if cpu <= 0 {
		return
	}
	if bytes > 0 {
		b.ReportMetric(bytes*float64(b.N)/cpu/1e6, "MB/cpu-s")
	}
	b.ReportMetric(items*float64(b.N)/cpu, "hyps/cpu-s")
}

// BenchmarkReadEuroparl100 reads the europarl100 list (old labels, 15
// dense features, 224 bytes a line) repeated in memory.
func BenchmarkReadEuroparl100(b *testing.B) {
	one := readGz(b, "nbest", "europarl100", "nbest.gz")
	for _, copies := range []int{1, 10} {
		b.Run(fmt.Sprintf("x%d", copies), func(b *testing.B) {
			benchRead(b, bytes.Repeat(one, copies))
		})
	}
}

// BenchmarkReadMoses reads Moses' current-label 100-best lists.
func BenchmarkReadMoses(b *testing.B) {
	data := readGz(b, "moses-models", "europarl-fr-en-8k", "expected-moses-test20.nbest.gz")
	benchRead(b, bytes.Repeat(data, 4))
}

// sparseList makes an n-best list of 100 hypotheses a sentence with 15
// dense and 100 sparse features a line (fixed seed). As in real lists, the
// hypotheses of a sentence share most of their sparse features: each
// sentence draws 400 names from a Zipf distribution over a million, and
// each hypothesis 100 of its sentence's names.
func sparseList(lines int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := mrand.NewZipf(mrand.New(mrand.NewSource(3)), 1.1, 1, 1<<20)
	var buf bytes.Buffer
	var names []uint64
	for i := range lines {
		if i%100 == 0 {
			names = names[:0]
			for range 400 {
				names = append(names, zipf.Uint64())
			}
		}
		fmt.Fprintf(&buf, "%d ||| a target sentence of some length . ||| LexicalReordering0= -6.69546 0 0 -6.1141 0 0 Distortion0= 0 LM0= -109.586 WordPenalty0= -23 PhrasePenalty0= 14 TranslationModel0= -22.9958 -55.8456 -10.3444 -33.2563", i/100)
		for range 100 {
			fmt.Fprintf(&buf, " dpt_%d= %d", names[rng.IntN(len(names))], 1+rng.IntN(3))
		}
		buf.WriteString(" ||| -157.324\n")
	}
	return buf.Bytes()
}

func BenchmarkReadSparse(b *testing.B) {
	benchRead(b, sparseList(2000))
}

func BenchmarkWrite(b *testing.B) {
	data := readGz(b, "moses-models", "europarl-fr-en-8k", "expected-moses-test20.nbest.gz")
	idx := feature.NewIndex()
	hyps, r := readAll(b, data, "bench", idx)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		w := NewWriter(io.Discard, idx)
		w.Groups = r.Groups()
		for _, h := range hyps {
			if err := w.Write(h); err != nil {
				b.Fatal(err)
			}
		}
		w.Flush()
	}
}

func BenchmarkPoolAdd(b *testing.B) {
	data := readGz(b, "nbest", "europarl100", "nbest.gz")
	hyps, _ := readAll(b, data, "bench", feature.NewIndex())
	b.ReportAllocs()
	for b.Loop() {
		p := NewPool()
		for range 2 {
			for _, h := range hyps {
				p.Add(h.Sentence, h)
			}
		}
	}
	b.ReportMetric(float64(2*len(hyps))*float64(b.N)/b.Elapsed().Seconds(), "adds/s")
}
