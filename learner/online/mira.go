package online

import (
	"context"
	"fmt"
	"math"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/internal/statecodec"
	"github.com/mtune/mtune/learner/sample"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// DefaultC is MIRA's step cap C of Cherry & Foster (2012) and Moses'
// kbmira.
const DefaultC = 0.01

// DefaultMIRABatch is online MIRA's mini-batch size: one sentence an update.
const DefaultMIRABatch = 1

// MIRAOptions configure online MIRA. The zero value is Cherry & Foster's
// setting: C = 0.01, background BLEU with decay 0.999, one sentence per
// update.
type MIRAOptions struct {
	// C caps the step size; zero means DefaultC.
	C float64
	// Decay is the pseudo-corpus decay γ; zero means metric.DefaultDecay.
	Decay float64
	// Order is the BLEU order of the pseudo-corpus under a nil Metric;
	// zero means metric.DefaultOrder.
	Order int
	// Metric is the metric of the pseudo-corpus; nil means BLEU. A metric
	// with a pseudo-corpus of its own (metric.Backgrounder: BLEU, of its
	// order) starts from it; under another metric the pseudo-corpus
	// starts empty and the gain is metric.BackgroundGain, on the scale of
	// kbmira's BLEU gain.
	Metric metric.Metric
	// Gain is the per-hypothesis gain hope and fear are chosen with; nil
	// means the pseudo-corpus gain (metric.Background: under BLEU the
	// background BLEU scaled by the reference length, as kbmira), whose
	// pseudo-corpus is updated with each hope's statistics.
	Gain sample.Gain
	// BatchSize is the number of lists per update in Learn; zero means 1,
	// the online MIRA of Chiang et al. (2008) and Cherry & Foster.
	BatchSize int
	// Seed1 and Seed2 seed the learner's PCG generator, which orders the
	// lists of each epoch.
	Seed1, Seed2 uint64
}

// MIRA is online MIRA with hope and fear (Chiang et al. 2008; Cherry &
// Foster 2012, Alg. 1 with Ẽ = E). For each sentence, hope maximises
// w·φ + gain and fear w·φ − gain, and
//
//	η = min(C, (Δgain + w·(φ(fear) − φ(hope))) / ‖φ(hope) − φ(fear)‖²)
//	w ← w + η·(φ(hope) − φ(fear))       (when the numerator is positive)
//
// after which the pseudo-corpus absorbs the hope's statistics (decayed by
// γ). The sentences of a mini-batch are processed one after the other, each
// against the weights the previous ones left.
//
// Weights returns the average of the weights after each update (Apply),
// kept lazily as in kbmira, so an update costs O(active coordinates);
// Current returns the raw weights.
type MIRA struct {
	opts MIRAOptions

	core
	w     []float64
	sum   []float64 // Σ of w_j over the ticks up to last[j]
	last  []int64
	ticks int64 // updates averaged over, since the start or SetWeights
	bg    metric.Background
}

// NewMIRA returns an online MIRA learner starting from weights w (copied).
func NewMIRA(w feature.Weights, opts MIRAOptions) (*MIRA, error) {
	setDefault(&opts.C, DefaultC)
	setDefault(&opts.Decay, metric.DefaultDecay)
	setDefault(&opts.BatchSize, DefaultMIRABatch)
	if !(opts.C > 0) || math.IsInf(opts.C, 0) || !(opts.Decay > 0 && opts.Decay <= 1) ||
		opts.Order < 0 || opts.Order > metric.MaxOrder || opts.BatchSize < 0 {
		return nil, fmt.Errorf("online: invalid MIRA options (C %v, decay %v, order %d, batch %d)", opts.C, opts.Decay, opts.Order, opts.BatchSize)
	}
	m := &MIRA{opts: opts}
	if err := m.start(w, opts.Seed1, opts.Seed2); err != nil {
		return nil, err
	}
	m.w = append([]float64(nil), w...)
	m.sum = make([]float64, len(w))
	m.last = make([]int64, len(w))
	switch b, ok := opts.Metric.(metric.Backgrounder); {
	case opts.Metric == nil:
		m.bg = *metric.NewBackground(opts.Order)
	case ok:
		m.bg = *b.Background()
	default:
		m.bg = *metric.NewMetricBackground(opts.Metric)
	}
	m.bg.Decay = opts.Decay
	return m, nil
}

// Step returns minus MIRA's step on batch at w, computed against the
// learner's current pseudo-corpus, and the statistics of each sentence's
// hope in order. It does not change the learner; ApplyStep applies the
// result.
func (m *MIRA) Step(w feature.Weights, batch []pool.List) (feature.Vector, []metric.Stats, error) {
	m.mu.Lock()
	bg := m.bg
	m.mu.Unlock()
	return m.step(w, batch, bg)
}

func (m *MIRA) step(w feature.Weights, batch []pool.List, bg metric.Background) (feature.Vector, []metric.Stats, error) {
	if err := checkStats(m.opts.Metric, batch); err != nil {
		return feature.Vector{}, nil, err
	}
	var delta map[feature.ID]float64 // steps of the batch's earlier sentences
	dot := func(v feature.Vector) float64 {
		s := v.Dot(w)
		if len(delta) > 0 {
			for k, id := range v.IDs {
				s += v.Vals[k] * delta[id]
			}
		}
		return s
	}
	var gains []float64
	var hopes []metric.Stats
	for _, l := range batch {
		if len(l.Hyps) == 0 {
			continue
		}
		if m.opts.Gain != nil {
			gains = sample.Gains(l, m.opts.Gain, gains)
		} else {
			gains = sample.Gains(l, bg.Gain, gains)
		}
		hope, fear := -1, -1
		var hs, fs float64
		for k, h := range l.Hyps {
			s := dot(h.Features)
			if hope < 0 || s+gains[k] > hs {
				hope, hs = k, s+gains[k]
			}
			if fear < 0 || s-gains[k] > fs {
				fear, fs = k, s-gains[k]
			}
		}
		hopes = append(hopes, l.Hyps[hope].Stats())
		if m.opts.Gain == nil {
			bg.Update(l.Hyps[hope].Stats())
		}
		diff := feature.Diff(l.Hyps[hope].Features, l.Hyps[fear].Features)
		loss := gains[hope] - gains[fear] - dot(diff)
		if n2 := diff.SquaredNorm(); loss > 0 && n2 > 0 {
			eta := min(m.opts.C, loss/n2)
			if delta == nil {
				delta = make(map[feature.ID]float64)
			}
			for k, id := range diff.IDs {
				delta[id] += eta * diff.Vals[k]
			}
		}
	}
	var g feature.Builder
	for id, x := range delta {
		g.Add(id, -x)
	}
	v := g.Vector()
	if err := finite(v); err != nil {
		return feature.Vector{}, nil, fmt.Errorf("%w: MIRA step on a batch of %d lists", err, len(batch))
	}
	return v, hopes, nil
}

// Gradient returns minus MIRA's step on batch at w (see Step). It does not
// change the learner; seed is unused.
func (m *MIRA) Gradient(w feature.Weights, batch []pool.List, seed uint64) (feature.Vector, error) {
	g, _, err := m.Step(w, batch)
	return g, err
}

// Apply adds the step −g to the weights and counts one tick of averaging.
// The pseudo-corpus is left as it is: ApplyStep also updates it with the
// hopes Step returned.
func (m *MIRA) Apply(g feature.Vector) { m.ApplyStep(g, nil) }

// ApplyStep applies what Step returned: w −= g, one tick of averaging, and
// the hopes' statistics added to the pseudo-corpus (unless Gain is set).
func (m *MIRA) ApplyStep(g feature.Vector, hopes []metric.Stats) {
	m.locked(func() { m.apply(g, hopes) })
}

func (m *MIRA) apply(g feature.Vector, hopes []metric.Stats) {
	if n := len(g.IDs); n > 0 && int(g.IDs[n-1]) >= len(m.w) {
		n := int(g.IDs[n-1]) + 1
		m.w, m.sum, m.last = grow(m.w, n), grow(m.sum, n), grow(m.last, n)
	}
	for k, id := range g.IDs {
		j := int(id)
		m.sum[j] += float64(m.ticks-m.last[j]) * m.w[j]
		m.last[j] = m.ticks
		m.w[j] -= g.Vals[k]
	}
	m.ticks++
	m.t++
	if m.opts.Gain == nil {
		for _, h := range hopes {
			m.bg.Update(h)
		}
	}
}

// Update makes one update from batch: ApplyStep(Step(Current(), batch)).
func (m *MIRA) Update(ctx context.Context, batch []pool.List) error {
	return withLock(&m.core, func() error { return m.update(batch) })
}

func (m *MIRA) update(batch []pool.List) error {
	g, hopes, err := m.step(m.w, batch, m.bg)
	if err != nil {
		return err
	}
	m.apply(g, hopes)
	return nil
}

// Learn runs one epoch over lists in a random order, in mini-batches.
func (m *MIRA) Learn(ctx context.Context, lists []pool.List) error {
	return withLock(&m.core, func() error { return m.epoch(ctx, lists, m.opts.BatchSize, m.update) })
}

// Weights returns the averaged weights: the mean of the weights after each
// update since the start or the last SetWeights (the current weights before
// any update).
func (m *MIRA) Weights() feature.Weights {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := make(feature.Weights, len(m.w))
	if m.ticks == 0 {
		copy(w, m.w)
		return w
	}
	for j := range w {
		w[j] = (m.sum[j] + float64(m.ticks-m.last[j])*m.w[j]) / float64(m.ticks)
	}
	return w
}

// Current returns a copy of the raw (not averaged) weights.
func (m *MIRA) Current() feature.Weights {
	return withLock(&m.core, func() feature.Weights { return append(feature.Weights(nil), m.w...) })
}

// SetWeights replaces the current weights and restarts the average from
// them, keeping the pseudo-corpus and the generator.
func (m *MIRA) SetWeights(w feature.Weights) {
	m.locked(func() {
		m.w = assign(m.w, w)
		m.sum, m.last = grow(m.sum, len(m.w)), grow(m.last, len(m.w))
		clear(m.sum)
		clear(m.last)
		m.ticks = 0
	})
}

// The versions of MIRA's state: 1 holds the pseudo-corpus in BLEU's layout
// (written under a metric with a pseudo-corpus of its own,
// metric.Backgrounder: BLEU, byte for byte as before other metrics), 2 any
// metric's statistics and the decayed sentence count.
const (
	miraMagic                             = "mtune/online.MIRA"
	miraVersion, miraMetricVersion uint32 = 1, 2
)

// stateVersion is the version of the state MarshalBinary writes under the
// learner's metric: miraVersion for a pseudo-corpus in BLEU's layout (a nil
// Metric or a metric.Backgrounder), else miraMetricVersion.
func (m *MIRA) stateVersion() uint32 {
	if _, ok := metric.OrDefault(m.opts.Metric).(metric.Backgrounder); ok {
		return miraVersion
	}
	return miraMetricVersion
}

// MarshalBinary returns the learner's state: the update count, weights,
// averaging sums and counters, the pseudo-corpus and the generator. Restore it into a learner
// made with the same options.
func (m *MIRA) MarshalBinary() ([]byte, error) {
	version := m.stateVersion()
	return m.marshal(miraMagic, version, func(e *statecodec.Encoder) {
		e.I64(m.t)
		e.I64(m.ticks)
		e.F64s(m.w)
		e.F64s(m.sum)
		e.I64s(m.last)
		bg := m.bg.Stats
		if version == miraMetricVersion {
			e.F64s(bg.Values())
			e.F64(m.bg.Sentences)
			return
		}
		// The background in BLEU's layout of version 1: the order, the
		// matches and totals of MaxOrder orders, the reference length.
		var matches, totals [metric.MaxOrder]float64
		for n := range metric.BLEUStats(bg).Order() {
			matches[n], totals[n] = metric.BLEUStats(bg).Match(n), metric.BLEUStats(bg).Total(n)
		}
		e.I64(int64(metric.BLEUStats(bg).Order()))
		e.F64s(matches[:])
		e.F64s(totals[:])
		e.F64(metric.BLEUStats(bg).RefLen())
	})
}

// UnmarshalBinary restores a state MarshalBinary returned. On error the
// learner is unchanged.
func (m *MIRA) UnmarshalBinary(data []byte) error {
	version := m.stateVersion()
	d := statecodec.NewDecoder(data, miraMagic, version)
	total, ticks := d.I64(), d.I64()
	w, sum, last := d.FiniteF64s(), d.FiniteF64s(), d.I64s()
	var bg metric.Stats
	var sentences float64
	if version == miraMetricVersion {
		v := d.FiniteF64s()
		sentences = d.FiniteF64()
		if d.Check(len(v) == m.opts.Metric.Len(), "background of %d statistics, %s has %d", len(v), m.opts.Metric.Name(), m.opts.Metric.Len()) {
			bg = metric.StatsOf(v...)
			err := m.opts.Metric.Check(bg)
			d.Check(err == nil && sentences >= 0, "background: %v, %v sentences", err, sentences)
		}
	} else {
		bg = m.decodeBLEUBackground(d)
	}
	d.Check(ticks >= 0 && total >= ticks && len(sum) == len(w) && len(last) == len(w), "inconsistent lengths or counts")
	for j := range last {
		if !d.Check(last[j] >= 0 && last[j] <= ticks, "bad entry %d", j) {
			break
		}
	}
	return m.restore(d, func() {
		m.t, m.ticks, m.w, m.sum, m.last = total, ticks, w, sum, last
		m.bg.Stats, m.bg.Sentences = bg, sentences
	})
}

// decodeBLEUBackground reads the pseudo-corpus of a version 1 state.
func (m *MIRA) decodeBLEUBackground(d *statecodec.Decoder) metric.Stats {
	var bg metric.Stats
	order := int(d.I64())
	matches, totals := d.FiniteF64s(), d.FiniteF64s()
	refLen := d.FiniteF64()
	if d.Check(len(matches) == metric.MaxOrder && len(totals) == metric.MaxOrder && order >= 1 && order <= metric.MaxOrder, "background statistics") {
		bg = metric.NewBLEUStats(order, matches, totals, refLen)
		err := metric.BLEUStats(bg).Validate()
		for n := order; n < metric.MaxOrder && err == nil; n++ {
			if matches[n] != 0 || totals[n] != 0 {
				err = fmt.Errorf("non-zero counts for order %d > %d", n+1, order)
			}
		}
		d.Check(err == nil, "background: %v", err)
	}
	return bg
}
