package lm

import (
	"bytes"
	"context"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/mtune/mtune/testsupport/shared"
)

// BenchmarkLoad loads Moses' 5-gram model of europarl-fr-en-8k (6.7 MB
// gzip, 607k n-grams) and reports the model's size.
func BenchmarkLoad(b *testing.B) {
	p := shared.Path(b, "moses-models", "europarl-fr-en-8k", "lm.en.5.arpa.gz")
	var m *Model
	for b.Loop() {
		var err error
		if m, err = Load(context.Background(), p, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m.Bytes())/(1<<20), "MiB")
}

// TestLoadEuroparl reports the load time and the heap the model holds.
func TestLoadEuroparl(t *testing.T) {
	p := shared.Path(t, "moses-models", "europarl-fr-en-8k", "lm.en.5.arpa.gz")
	before := shared.LiveHeapMiB()
	start := time.Now()
	m, err := Load(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	heap := shared.LiveHeapMiB() - before
	t.Logf("loaded %v n-grams in %v: heap %.1f MiB (model arrays %.1f MiB)", m.Counts(), took.Round(time.Millisecond), heap, float64(m.Bytes())/(1<<20))
	if heap > 64 {
		t.Errorf("the model holds %.1f MiB", heap)
	}
	runtime.KeepAlive(m)
}

// BenchmarkScore scores random word sequences with the 8k model: ns per
// word, with Score (value) and ScoreTo (two States in turn, as the
// decoder's search scores).
func BenchmarkScore(b *testing.B) {
	m := europarlLM(b)
	rng := rand.New(rand.NewPCG(1, 1))
	a := m.ARPA()
	top := &a.Orders[4]
	// Sequences made of the model's own 5-grams, as translations are.
	var seq []WordID
	for len(seq) < 1<<16 {
		i := rng.IntN(top.Len())
		for _, w := range top.Words[i*5 : i*5+5] {
			seq = append(seq, m.Index(a.Words[w]))
		}
	}
	b.Run("Score", func(b *testing.B) {
		st := m.BeginSentence()
		var sum float32
		i := 0
		for b.Loop() {
			var p float32
			p, st = m.Score(st, seq[i])
			sum += p
			if i++; i == len(seq) {
				i, st = 0, m.BeginSentence()
			}
		}
		_ = sum
	})
	b.Run("ScoreTo", func(b *testing.B) {
		var buf [2]State
		buf[0] = m.BeginSentence()
		c := 0
		var sum float32
		i := 0
		for b.Loop() {
			sum += m.ScoreTo(&buf[1-c], &buf[c], seq[i])
			c = 1 - c
			if i++; i == len(seq) {
				i, buf[c] = 0, m.BeginSentence()
			}
		}
		_ = sum
	})
}

// BenchmarkEstimate estimates the 5-gram model of the 8,000 training
// sentences.
func BenchmarkEstimate(b *testing.B) {
	text := trainLines(b, 8000)
	for b.Loop() {
		if _, err := Estimate(context.Background(), bytes.NewReader(text), nil); err != nil {
			b.Fatal(err)
		}
	}
}
