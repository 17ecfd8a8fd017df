package online

import (
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/learner/loss"
	"github.com/mtune/mtune/learner/sample"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/floattest"
	"github.com/mtune/mtune/testsupport/learntest"
)

// terLists returns nl lists of nh hypotheses with TER statistics (edits
// 0..15 against a reference length each list draws in 5..24) and dense
// features that track the edits, plus noise.
func terLists(r *rand.Rand, nl, nh int) []pool.List {
	var refLen float64
	return learntest.Lists(nl, func() int { refLen = float64(5 + r.IntN(20)); return nh }, func(b *feature.Builder) metric.Stats {
		edits := float64(r.IntN(16))
		for j := range 4 {
			b.Add(feature.ID(j), -0.3*edits*float64(j%2*2-1)+r.NormFloat64())
		}
		return metric.StatsOf(edits, refLen)
	})
}

// TestMIRAMetricStep: online MIRA under TER chooses hope and fear by the
// pseudo-corpus gain of metric.BackgroundGain on an empty pseudo-corpus,
// steps as loss.StructuredHinge says, and adds the hope to the
// pseudo-corpus, counting its sentences.
func TestMIRAMetricStep(t *testing.T) {
	ter := metric.TER{}
	lists := terLists(rand.New(rand.NewPCG(3, 4)), 6, 12)
	w := feature.Weights{0.5, -0.2, 0.1, 0.3}
	m, err := NewMIRA(w, MIRAOptions{C: 0.05, Metric: ter})
	if err != nil {
		t.Fatal(err)
	}
	bg := metric.NewMetricBackground(ter)
	want := w.Clone()
	for i, l := range lists {
		gains := sample.Gains(l, bg.Gain, nil)
		lossv, hope, fear := loss.StructuredHinge(want, l, gains, nil)
		if err := m.Update(context.Background(), []pool.List{l}); err != nil {
			t.Fatal(err)
		}
		if lossv > 0 {
			diff := feature.Diff(l.Hyps[hope].Features, l.Hyps[fear].Features)
			want.AddScaled(min(0.05, lossv/diff.SquaredNorm()), diff)
		}
		if got := m.Current(); !slices.Equal(got, want) {
			t.Fatalf("list %d: weights %v, want %v", i, got, want)
		}
		bg.Update(l.Hyps[hope].Stats())
		if m.bg.Stats != bg.Stats || m.bg.Sentences != bg.Sentences || m.bg.Sentences == 0 {
			t.Fatalf("list %d: background %v (%v sentences), want %v (%v)", i, m.bg.Stats, m.bg.Sentences, bg.Stats, bg.Sentences)
		}
	}
	if slices.Equal(want, w) {
		t.Errorf("no update")
	}
}

// TestMetricStatsMismatch: an online learner set to a metric, given lists
// of another metric's statistics (BLEU's here), returns an error wrapping
// metric.ErrStats and changes nothing, rather than scoring them as chrF
// (which would panic).
func TestMetricStatsMismatch(t *testing.T) {
	chrF := metric.NewChrF(false)
	lists := randLists(rand.New(rand.NewPCG(5, 6)), 4, 6, 5)
	w := initWeights(4)
	ls := map[string]learner.Online{}
	var err error
	if ls["AdaGrad"], err = NewAdaGrad(w, AdaGradOptions{Objective: Pairwise{Metric: chrF}}); err != nil {
		t.Fatal(err)
	}
	if ls["SGD"], err = NewSGD(w, SGDOptions{Objective: Pairwise{Metric: chrF}}); err != nil {
		t.Fatal(err)
	}
	if ls["MIRA"], err = NewMIRA(w, MIRAOptions{Metric: chrF}); err != nil {
		t.Fatal(err)
	}
	if ls["Watanabe"], err = NewWatanabe(w, WatanabeOptions{Metric: chrF}); err != nil {
		t.Fatal(err)
	}
	for name, l := range ls {
		if err := l.Update(context.Background(), lists); !errors.Is(err, metric.ErrStats) {
			t.Errorf("%s: Update on BLEU statistics: %v, want metric.ErrStats", name, err)
		}
		if err := l.Learn(context.Background(), lists); !errors.Is(err, metric.ErrStats) {
			t.Errorf("%s: Learn on BLEU statistics: %v, want metric.ErrStats", name, err)
		}
		if !floattest.SameBits(l.Current(), w) {
			t.Errorf("%s: weights changed", name)
		}
	}
}

// TestPairwiseMetric: the pairwise objective under a metric samples as
// Green et al.'s sampler ranking by the metric's sentence score as a
// fraction.
func TestPairwiseMetric(t *testing.T) {
	ter := metric.TER{}
	lists := terLists(rand.New(rand.NewPCG(7, 8)), 5, 30)
	w := feature.Weights{0.1, 0.2, -0.1, 0.05}
	s := sample.Green()
	s.Gain = sample.MetricGain(ter)
	g1, v1, n1, err1 := Pairwise{Metric: ter}.gradientPairs(w, lists, 9)
	g2, v2, n2, err2 := Pairwise{Sampler: &s}.gradientPairs(w, lists, 9)
	if err1 != nil || err2 != nil || !g1.Equal(g2) || v1 != v2 || n1 != n2 || n1 == 0 {
		t.Fatalf("Metric: %v %v %d %v; sampler: %v %v %d %v", g1, v1, n1, err1, g2, v2, n2, err2)
	}
	g3, _, _, _ := Pairwise{}.gradientPairs(w, lists, 9) // BLEU+1 of TER's statistics: other pairs
	if g3.Equal(g1) {
		t.Errorf("the metric changed no pair")
	}
}

// TestMIRAMetricState: under a metric other than BLEU online MIRA saves
// version 2 (the metric's statistics and the sentences), restored into a
// MIRA of the same metric bit-identically; a BLEU MIRA refuses it, a TER
// MIRA refuses version 1 and a background of the wrong length.
func TestMIRAMetricState(t *testing.T) {
	ter := metric.TER{}
	lists := terLists(rand.New(rand.NewPCG(9, 10)), 8, 10)
	w := feature.Weights{0.5, -0.2, 0.1, 0.3}
	m, _ := NewMIRA(w, MIRAOptions{Metric: ter, Seed1: 3})
	if err := m.Learn(context.Background(), lists); err != nil {
		t.Fatal(err)
	}
	state, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(state[len(miraMagic):]); v != miraMetricVersion {
		t.Fatalf("state version %d, want %d", v, miraMetricVersion)
	}
	r, _ := NewMIRA(nil, MIRAOptions{Metric: ter})
	if err := r.UnmarshalBinary(state); err != nil {
		t.Fatal(err)
	}
	if r.bg != m.bg || !slices.Equal(r.Weights(), m.Weights()) {
		t.Fatalf("restored background %+v, want %+v", r.bg, m.bg)
	}
	_ = m.Learn(context.Background(), lists)
	_ = r.Learn(context.Background(), lists)
	if !floattest.SameBits(r.Weights(), m.Weights()) {
		t.Errorf("restored MIRA continues differently")
	}
	b, _ := NewMIRA(nil, MIRAOptions{})
	if err := b.UnmarshalBinary(state); !errors.Is(err, ErrState) {
		t.Errorf("BLEU MIRA restored a TER state: %v", err)
	}
	bs, _ := b.MarshalBinary()
	if err := r.UnmarshalBinary(bs); !errors.Is(err, ErrState) {
		t.Errorf("TER MIRA restored a BLEU state: %v", err)
	}
	c, _ := NewMIRA(nil, MIRAOptions{Metric: metric.NewChrF(false)})
	if err := c.UnmarshalBinary(state); !errors.Is(err, ErrState) {
		t.Errorf("chrF MIRA restored TER's 2 statistics: %v", err)
	}
}

// TestMIRABLEUOrder: online MIRA under BLEU of an order other than 4
// starts from kbmira's pseudo-corpus of that order (the metric's
// metric.Backgrounder), updates against it and resumes from its state;
// it took the pseudo-corpus of MIRAOptions.Order (4) and panicked adding
// it to BLEU-2's statistics.
func TestMIRABLEUOrder(t *testing.T) {
	bleu2, err := metric.NewBLEU(2, "none", false)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	lists := learntest.Lists(6, func() int { return 8 }, func(b *feature.Builder) metric.Stats {
		n := float64(3 + r.IntN(10))
		m1 := float64(r.IntN(int(n) + 1))
		m2 := min(m1, float64(r.IntN(int(n))))
		for j := range 4 {
			b.Add(feature.ID(j), (m1+m2)*float64(j%2*2-1)+r.NormFloat64())
		}
		return metric.NewBLEUStats(2, []float64{m1, m2}, []float64{n, n - 1}, n+1)
	})
	m, err := NewMIRA(feature.Weights{0.5, -0.2, 0.1, 0.3}, MIRAOptions{Metric: bleu2, Seed1: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := metric.NewBackground(2).Stats; m.bg.Stats != want {
		t.Fatalf("pseudo-corpus %v, want %v", m.bg.Stats, want)
	}
	if err := m.Update(context.Background(), lists); err != nil {
		t.Fatal(err)
	}
	state, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := NewMIRA(nil, MIRAOptions{Metric: bleu2})
	if err := r2.UnmarshalBinary(state); err != nil {
		t.Fatal(err)
	}
	if r2.bg.Stats != m.bg.Stats || !slices.Equal(r2.Current(), m.Current()) {
		t.Errorf("resumed pseudo-corpus %v, want %v", r2.bg.Stats, m.bg.Stats)
	}
}
