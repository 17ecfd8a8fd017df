package metric

import (
	"math"
	"testing"
)

func mustMoses(t *testing.T, f ...int) Stats {
	t.Helper()
	s, err := FromMoses(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBLEUPlusOne(t *testing.T) {
	// The first hypothesis of Moses' mert-extractor test: 14 tokens, 18 in the
	// reference.
	s := mustMoses(t, 6, 14, 1, 13, 0, 12, 0, 11, 18)
	short := mustMoses(t, 3, 3, 2, 2, 1, 1, 0, 0, 5)
	long := mustMoses(t, 4, 6, 2, 5, 1, 4, 0, 3, 5)
	tests := []struct {
		name string
		s    Stats
		v    PlusOneVariant
		want float64
	}{
		// Lin & Och: unigrams unsmoothed, +1 for n ≥ 2, standard BP.
		{"linoch", s, LinOch, math.Exp(1-18.0/14) * math.Pow(6.0/14*2.0/14*1.0/13*1.0/12, 0.25)},
		{"linoch short", short, LinOch, math.Exp(1-5.0/3) * math.Pow(1*1*1*1.0/1, 0.25)},
		{"linoch long", long, LinOch, math.Pow(4.0/6*3.0/6*2.0/5*1.0/4, 0.25)},
		{"linoch no unigram match", mustMoses(t, 0, 3, 0, 2, 0, 1, 0, 0, 3), LinOch, 0},
		{"linoch empty", mustMoses(t, 0, 0, 0, 0, 0, 0, 0, 0, 3), LinOch, 0},
		// Moses: +1 for every n, BP 1 - r/c with the raw lengths.
		{"moses", s, MosesPlusOne, math.Exp(1-18.0/14) * math.Pow(7.0/15*2.0/14*1.0/13*1.0/12, 0.25)},
		{"moses long", long, MosesPlusOne, math.Pow(5.0/7*3.0/6*2.0/5*1.0/4, 0.25)},
		{"moses no unigram match", mustMoses(t, 0, 3, 0, 2, 0, 1, 0, 0, 3), MosesPlusOne, math.Pow(1.0/4*1.0/3*1.0/2*1.0/1, 0.25)},
		{"moses empty hypothesis", mustMoses(t, 0, 0, 0, 0, 0, 0, 0, 0, 3), MosesPlusOne, 0},
		{"moses empty both", mustMoses(t, 0, 0, 0, 0, 0, 0, 0, 0, 0), MosesPlusOne, 1},
		// pro --smooth-brevity-penalty: the reference length gets +1 too.
		{"moses smooth bp", s, MosesPlusOneSmoothBP, math.Exp(1-19.0/14) * math.Pow(7.0/15*2.0/14*1.0/13*1.0/12, 0.25)},
		{"moses smooth bp long", long, MosesPlusOneSmoothBP, math.Pow(5.0/7*3.0/6*2.0/5*1.0/4, 0.25)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := BLEUPlusOne(tc.s, tc.v); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("BLEUPlusOne(%v) = %.15f, want %.15f", tc.s, got, tc.want)
			}
		})
	}
}

func TestBackground(t *testing.T) {
	b := NewBackground(0)
	if want := mustMoses(t, 4, 4, 3, 3, 2, 2, 1, 1, 4); b.Stats != want {
		t.Fatalf("initial background %v, want kbmira's %v", b.Stats, want)
	}
	// An empty sentence on the initial background: every precision is 1,
	// c = r = 4, so BLEU is 1 and the gain 1·4.
	if got := b.BLEU(Stats{}); got != 4 {
		t.Errorf("gain of nothing on the initial background = %v, want 4", got)
	}
	s := mustMoses(t, 6, 14, 1, 13, 0, 12, 0, 11, 18)
	// sent+bg = 10 18 4 16 2 14 1 12 22: BP 1 - 22/18.
	want := math.Exp((math.Log(10.0/18)+math.Log(4.0/16)+math.Log(2.0/14)+math.Log(1.0/12))/4+1-22.0/18) * 22
	if got := b.BLEU(s); math.Abs(got-want) > 1e-12 {
		t.Errorf("background BLEU %v, want %v", got, want)
	}
	b.Update(s)
	if got, want := BLEUStats(b.Stats).Match(0), 4*0.999+6; math.Abs(got-want) > 1e-12 {
		t.Errorf("after Update: matches[0] %v, want %v", got, want)
	}
	if got, want := BLEUStats(b.Stats).RefLen(), 4*0.999+18; math.Abs(got-want) > 1e-12 {
		t.Errorf("after Update: ref len %v, want %v", got, want)
	}
	b2 := &Background{Stats: b.Stats, Decay: 0.5}
	b2.Update(Stats{})
	if got, want := BLEUStats(b2.Stats).RefLen(), BLEUStats(b.Stats).RefLen()/2; got != want {
		t.Errorf("decay 0.5: ref len %v, want %v", got, want)
	}
	// A sum with a zero match count scores 0, not NaN.
	if got := BackgroundBLEU(NewBLEUStats(4, nil, nil, 0), NewBLEUStats(4, nil, []float64{1, 1, 1, 1}, 0)); got != 0 {
		t.Errorf("no matches: %v", got)
	}
}

// TestMetricBackground: the pseudo-corpus of a metric other than BLEU
// starts empty, counts its decayed sentences, and scores a hypothesis by
// the metric's gain of the sum as a fraction times (sentences + 1) ×
// SentenceWords: external scores their sum times SentenceWords, TER minus
// the edits times SentenceWords over the mean reference length.
func TestMetricBackground(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*max(1, math.Abs(b)) }
	ext := NewMetricBackground(External{})
	if ext.Stats != (Stats{N: 2}) || ext.Sentences != 0 {
		t.Fatalf("new background %+v, want 2 zeros and no sentence", ext)
	}
	// Alone, a hypothesis' gain is its score times SentenceWords.
	if got := ext.Gain(ExternalStats(0.25)); !near(got, 0.25*SentenceWords) {
		t.Errorf("external gain on an empty background = %v, want %v", got, 0.25*SentenceWords)
	}
	ext.Decay = 0.5
	for _, x := range []float64{0.5, 0.75, 0.125} {
		ext.Update(ExternalStats(x))
	}
	// Σ score = 0.125 + 0.5·(0.75 + 0.5·0.5), sentences = 1 + 0.5·(1 + 0.5).
	if sum, n := 0.125+0.5*(0.75+0.5*0.5), 1+0.5*1.5; !near(ext.Stats.V[0], sum) || !near(ext.Sentences, n) {
		t.Fatalf("after 3 updates: %v, %v sentences; want Σ %v over %v", ext.Stats, ext.Sentences, sum, n)
	}
	// The counts and the sentences decay alike, so the gain is the sum of
	// scores (times SentenceWords).
	if got, want := ext.Gain(ExternalStats(0.5)), (ext.Stats.V[0]+0.5)*SentenceWords; !near(got, want) {
		t.Errorf("external gain %v, want %v", got, want)
	}
	ter := NewMetricBackground(TER{})
	ter.Update(StatsOf(6, 20))
	ter.Update(StatsOf(9, 10))
	// bg = [0.999·6 + 9, 0.999·20 + 10], 1.999 sentences; a hypothesis of 4
	// edits against 12 words.
	e, l := 0.999*6+9+4, 0.999*20+10+12
	if got, want := ter.Gain(StatsOf(4, 12)), -e/l*2.999*SentenceWords; !near(got, want) {
		t.Errorf("TER gain %v, want %v", got, want)
	}
	// BLEU (a nil Metric) keeps kbmira's gain.
	b, s := NewBackground(0), mustMoses(t, 6, 14, 1, 13, 0, 12, 0, 11, 18)
	if b.Gain(s) != b.BLEU(s) {
		t.Errorf("BLEU background: Gain %v, BLEU %v", b.Gain(s), b.BLEU(s))
	}
}

func TestBatchBLEU(t *testing.T) {
	a := mustMoses(t, 6, 14, 1, 13, 0, 12, 0, 11, 18)
	b := mustMoses(t, 4, 6, 2, 5, 1, 4, 0, 3, 5)
	c := mustMoses(t, 10, 12, 7, 11, 5, 10, 3, 9, 12)
	batch := Sum([]Stats{a, b})
	if got, want := BatchBLEU(batch, b, c), BLEUStats(Sum([]Stats{a, c})).BLEU(); math.Abs(got-want) > 1e-15 || want == 0 {
		t.Errorf("BatchBLEU = %v, want %v", got, want)
	}
}

func TestInterpolatedBLEU(t *testing.T) {
	tests := []struct {
		name string
		s    Stats
		want float64
	}{
		{"perfect", mustMoses(t, 4, 4, 3, 3, 2, 2, 1, 1, 4), 1.0/16 + 1.0/8 + 1.0/4 + 1.0/2},
		{"short perfect", mustMoses(t, 2, 2, 1, 1, 0, 0, 0, 0, 2), 15.0 / 16},
		{"no bigram match", mustMoses(t, 3, 4, 0, 3, 0, 2, 0, 1, 4), 0.75 / 16},
		{"brevity", mustMoses(t, 2, 2, 1, 1, 0, 0, 0, 0, 4), math.Exp(1-4.0/2) * 15 / 16},
		{"mixed", mustMoses(t, 3, 4, 1, 3, 1, 2, 0, 1, 4),
			0.75/16 + math.Sqrt(0.75/3)/8 + math.Cbrt(0.75/3*0.5)/4},
		{"empty", mustMoses(t, 0, 0, 0, 0, 0, 0, 0, 0, 4), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := InterpolatedBLEU(tc.s); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("InterpolatedBLEU(%v) = %v, want %v", tc.s, got, tc.want)
			}
		})
	}
}

func TestSmoothMethodNames(t *testing.T) {
	for _, m := range []SmoothMethod{SmoothNone, SmoothFloor, SmoothAddK, SmoothExp} {
		got, err := ParseSmoothMethod(m.String())
		if err != nil || got != m {
			t.Errorf("ParseSmoothMethod(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseSmoothMethod("laplace"); err == nil {
		t.Error("unknown method: no error")
	}
}
