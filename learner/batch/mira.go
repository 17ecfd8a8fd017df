package batch

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/internal/statecodec"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// Background selects the pseudo-corpus that batch MIRA starts each Learn
// with.
type Background int

const (
	// BackgroundOnes sets every statistic to 1 (matches and n-grams of each
	// order, and the reference length), as Moses' kbmira does since it
	// moved to HopeFearDecoder (2014).
	BackgroundOnes Background = iota
	// BackgroundDecreasing is the pseudo-corpus of the original kbmira
	// (2012) and metric.NewBackground: N-n+1 matches and n-grams of order n
	// and a reference length of N, for BLEU of order N.
	BackgroundDecreasing
)

// MIRAOptions configure batch k-best MIRA. The zero value is Moses'
// kbmira with its default flags.
type MIRAOptions struct {
	// C caps the step size (kbmira --cparam); zero means 0.01.
	C float64
	// Decay is the pseudo-corpus decay γ (kbmira --decay); zero means
	// metric.DefaultDecay, 0.999.
	Decay float64
	// Passes is the number of passes over the pool (kbmira --iters, J of
	// Cherry & Foster's Algorithm 1); zero means 60.
	Passes int
	// NoShuffle visits the sentences in pool order in every pass (kbmira
	// --no-shuffle); false shuffles them before each pass.
	NoShuffle bool
	// ModelBackground adds the model-best hypothesis' statistics to the
	// pseudo-corpus instead of the hope's (kbmira --model-bg).
	ModelBackground bool
	// SafeHope limits the model score's influence on the hope choice to
	// 1/5 of BLEU's when it is larger (kbmira --safe-hope); false lets the
	// model score count fully.
	SafeHope bool
	// Background is BLEU's initial pseudo-corpus; the zero value is
	// BackgroundOnes, as current Moses. Under another Metric the
	// pseudo-corpus starts empty (metric.NewMetricBackground).
	Background Background
	// Metric, when not nil nor BLEU, replaces BLEU: hope and fear are
	// chosen by the metric's pseudo-corpus gain (metric.BackgroundGain)
	// and the passes are compared by its objective (metric.Objective).
	Metric metric.Metric
	// LastPass returns the averaged weights after the last pass; false
	// returns those of the pass whose averaged weights give the highest
	// 1-best BLEU on the pool, as kbmira does.
	LastPass bool
	// Seed seeds the shuffle. Every seed, zero included, is valid.
	Seed uint64
	// Threads is the number of goroutines that evaluate the averaged
	// weights after each pass; zero means GOMAXPROCS. The result does not
	// depend on it.
	Threads int
}

// statsMetric is the metric the pool's statistics are of (nil: BLEU).
func (o MIRAOptions) statsMetric() metric.Metric { return o.Metric }

func (o MIRAOptions) withDefaults() (MIRAOptions, error) {
	o.C, o.Decay, o.Passes = cmp.Or(o.C, 0.01), cmp.Or(o.Decay, metric.DefaultDecay), cmp.Or(o.Passes, 60)
	switch {
	case !(o.C > 0) || math.IsInf(o.C, 0):
		return o, fmt.Errorf("batch: MIRA step cap C = %v, want a positive number", o.C)
	case !(o.Decay > 0 && o.Decay <= 1):
		return o, fmt.Errorf("batch: MIRA decay = %v, want 0 < decay ≤ 1", o.Decay)
	case o.Passes < 0:
		return o, fmt.Errorf("batch: MIRA passes = %d, want ≥ 0", o.Passes)
	case o.Background != BackgroundOnes && o.Background != BackgroundDecreasing:
		return o, fmt.Errorf("batch: unknown MIRA background %d", o.Background)
	case o.Threads < 0:
		return o, fmt.Errorf("batch: threads = %d, want ≥ 0", o.Threads)
	}
	return o, nil
}

// MIRAPass summarises one pass of batch MIRA.
type MIRAPass struct {
	// Updates is the number of sentences that changed the weights, out of
	// Examples visited.
	Updates, Examples int
	// Loss is the summed hinge loss of the updates.
	Loss float64
	// BLEU is the corpus BLEU (a fraction) of the 1-best hypotheses under
	// the averaged weights after the pass (under another metric, its
	// objective: metric.Objective).
	BLEU float64
}

// MIRARun summarises the last Learn of a MIRA.
type MIRARun struct {
	// Initial is the 1-best BLEU (the metric's objective) of the starting
	// weights.
	Initial float64
	// Passes has one entry a pass.
	Passes []MIRAPass
	// Best is the index in Passes of the pass whose averaged weights Learn
	// kept (the last pass with LastPass).
	Best int
}

// MIRA is batch k-best MIRA (Cherry & Foster 2012, Algorithm 1) as Moses'
// kbmira runs it. Each Learn is one kbmira run on the pool from the current
// weights: Passes passes over the sentences in a random order, each
// choosing the hope (argmax w·φ + BLEU) and fear (argmax w·φ − BLEU) of the
// sentence's list, where BLEU is the sentence's pseudo-corpus BLEU scaled by
// the reference length (metric.BackgroundBLEU), and, when they differ and
// the hope's BLEU is higher, taking the passive-aggressive step
//
//	η = min(C, (ΔBLEU − w·(φ(hope) − φ(fear))) / ‖φ(hope) − φ(fear)‖²),
//	w ← w + η (φ(hope) − φ(fear))
//
// when the loss is positive, then decaying the pseudo-corpus and adding the
// hope's statistics to it. The weights are averaged over every update of
// the run (the start weights and the weights after each update, kept
// lazily so an update costs O(its non-zero features)); after each pass the
// average is scored by the 1-best BLEU it gives on the pool, and Learn keeps
// the best. kbmira averages with the sum divided by the number of updates
// rather than that plus one; the two differ by a positive factor, which
// changes no ranking.
//
// The pool is assumed de-duplicated (poolfile.Load does it); Moses' released
// kbmira compares an item with itself when de-duplicating and keeps far
// fewer hypotheses.
type MIRA struct {
	state[MIRAOptions, MIRARun]
}

// NewMIRA returns batch MIRA starting from weights w (copied).
func NewMIRA(w feature.Weights, opts MIRAOptions) (*MIRA, error) {
	return newLearner[MIRA](w, opts)
}

// seedStream is the second PCG seed word of every learner of this package.
const seedStream = 0x6d74756e65626174 // "mtunebat"

// Weights returns a copy of the weights: the averaged weights Learn kept,
// or the weights given to NewMIRA or SetWeights.
func (m *MIRA) Weights() feature.Weights { return m.w.Clone() }

func (r MIRARun) clone() MIRARun {
	r.Passes = append([]MIRAPass(nil), r.Passes...)
	return r
}

// Learn runs batch MIRA on lists from the current weights and keeps the
// averaged weights it selects. On error (bad input, ctx cancelled) the
// learner is unchanged.
func (m *MIRA) Learn(ctx context.Context, lists []pool.List) error {
	return m.learnLocal(ctx, lists, func(c *compiled) ([]float64, MIRARun, error) {
		return m.learn(ctx, c)
	})
}

// miraState is the weight vector with its lazily kept running sum.
type miraState struct {
	w, sum []float64
	last   []int64 // update count when sum[j] was last brought up to date
	t      int64   // number of updates
}

func newMIRAState(w []float64) *miraState {
	return &miraState{w: w, sum: append([]float64(nil), w...), last: make([]int64, len(w))}
}

// update makes w += eta·d on the coordinates ids (with values d) as
// update number t+1.
func (s *miraState) update(ids []int32, d []float64, eta float64) {
	s.t++
	for k, j := range ids {
		s.sum[j] += float64(s.t-1-s.last[j]) * s.w[j]
		s.w[j] += eta * d[k]
		s.sum[j] += s.w[j]
		s.last[j] = s.t
	}
}

// average returns the mean of the start weights and the weights after
// each update.
func (s *miraState) average() []float64 {
	avg := make([]float64, len(s.w))
	n := float64(s.t + 1)
	for j := range avg {
		avg[j] = (s.sum[j] + float64(s.t-s.last[j])*s.w[j]) / n
	}
	return avg
}

// safeHopeRatio is kbmira's BLEU_RATIO.
const safeHopeRatio = 5

func (m *MIRA) learn(ctx context.Context, c *compiled) ([]float64, MIRARun, error) {
	o := m.opts
	obj := metric.Objective(o.Metric)
	st := newMIRAState(c.gather(m.w))
	g := newMIRAGain(c, o)
	run := MIRARun{Initial: obj(c.oneBest(st.w, o.Threads)), Best: -1}
	order := make([]int, c.lists())
	for i := range order {
		order[i] = i
	}
	rng := rand.New(m.rng)
	var best []float64
	bestBLEU := math.Inf(-1)
	var (
		gains []float64
		ids   []int32
		diff  []float64
		hi    []int32
		hv    []float64
	)
	for pass := 0; pass < o.Passes; pass++ {
		if err := checkCtx(ctx); err != nil {
			return nil, run, err
		}
		if !o.NoShuffle {
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		p := MIRAPass{Examples: len(order)}
		for n, l := range order {
			if n&1023 == 1023 {
				if err := checkCtx(ctx); err != nil {
					return nil, run, err
				}
			}
			gains = g.list(l, gains)
			hope, fear, model := c.hopeFear(l, st.w, gains, o.SafeHope)
			hopeBLEU, fearBLEU := gains[hope-c.start[l]], gains[fear-c.start[l]]
			if hope == fear || !(hopeBLEU > fearBLEU) {
				continue
			}
			ids, diff, hi, hv = c.diff(hope, fear, ids[:0], diff[:0], hi[:0], hv[:0])
			var score, norm float64
			for k, j := range ids {
				score += st.w[j] * diff[k]
				norm += diff[k] * diff[k]
			}
			if loss := hopeBLEU - fearBLEU - score; loss > 0 {
				st.update(ids, diff, min(o.C, loss/norm))
				p.Loss += loss
				p.Updates++
			}
			add := hope
			if o.ModelBackground {
				add = model
			}
			g.update(c.row(add))
		}
		avg := st.average()
		p.BLEU = obj(c.oneBest(avg, o.Threads))
		run.Passes = append(run.Passes, p)
		if p.BLEU > bestBLEU || o.LastPass {
			bestBLEU, best, run.Best = p.BLEU, avg, pass
		}
	}
	if best == nil { // no pass
		best = st.w
	}
	return best, run, nil
}

// miraGain is batch MIRA's pseudo-corpus and the gain of each hypothesis
// in its context: under BLEU kbmira's (bg, a row of the compiled layout,
// and backgroundBLEU with the brevity penalties cached), under another
// metric metric.Background's (BackgroundGain).
type miraGain struct {
	c     *compiled
	decay float64
	bg    []float64          // BLEU
	cache bpCache            // BLEU
	mbg   *metric.Background // another metric
}

func newMIRAGain(c *compiled, o MIRAOptions) *miraGain {
	g := &miraGain{c: c, decay: o.Decay}
	if c.order == 0 { // not BLEU
		g.mbg = metric.NewMetricBackground(o.Metric)
		g.mbg.Decay = o.Decay
		return g
	}
	switch o.Background {
	case BackgroundOnes:
		g.bg = make([]float64, c.stride)
		for k := range g.bg {
			g.bg[k] = 1
		}
	case BackgroundDecreasing:
		g.bg = c.fromStats(metric.NewBackground(c.order).Stats)
	}
	return g
}

// list returns in dst (grown as needed) the gain of each hypothesis of
// list l against the pseudo-corpus.
func (g *miraGain) list(l int, dst []float64) []float64 {
	c := g.c
	lo, hi := c.start[l], c.start[l+1]
	dst = slices.Grow(dst[:0], hi-lo)[:hi-lo]
	if g.mbg != nil {
		for h := lo; h < hi; h++ {
			dst[h-lo] = g.mbg.Gain(c.toStats(c.row(h)))
		}
		return dst
	}
	g.cache.reset()
	bg := g.bg
	hl, rl := 1, 2*c.order // hypothesis and reference length in a row
	for h := lo; h < hi; h++ {
		row := c.row(h)
		b := geoPrecision(row, bg, c.order)
		if b != 0 {
			r := row[rl] + bg[rl]
			b *= g.cache.get(row[hl]+bg[hl], r) * r
		}
		dst[h-lo] = b
	}
	return dst
}

// update decays the pseudo-corpus and adds the statistics row to it.
func (g *miraGain) update(row []float64) {
	if g.mbg != nil {
		g.mbg.Update(g.c.toStats(row))
		return
	}
	for k := range g.bg {
		g.bg[k] = g.decay*g.bg[k] + row[k]
	}
}

// hopeFear returns the hope, fear and model-best hypotheses of list l
// under local weights w, given the gain of each of its hypotheses (gains,
// miraGain.list), each the earliest on ties (as kbmira's
// NbestHopeFearDecoder::HopeFear).
func (c *compiled) hopeFear(l int, w, gains []float64, safe bool) (hope, fear, model int) {
	lo, hi := c.start[l], c.start[l+1]
	scale := 1.0
	for loop := 0; loop < 2; loop++ {
		var hopeScore, fearScore, modelScore, hopeModel, hopeBLEU float64
		for h := lo; h < hi; h++ {
			s := c.dot(h, w)
			b := gains[h-lo]
			if v := scale*s + b; h == lo || v > hopeScore {
				hope, hopeScore, hopeBLEU, hopeModel = h, v, b, s
			}
			if v := s - b; h == lo || v > fearScore {
				fear, fearScore = h, v
			}
			if h == lo || s > modelScore {
				model, modelScore = h, s
			}
		}
		if !safe || loop > 0 || math.Abs(hopeModel) <= 1e-8 {
			break
		}
		r := math.Abs(hopeBLEU*safeHopeRatio) / math.Abs(hopeModel)
		if r >= scale {
			break
		}
		scale = r
	}
	return hope, fear, model
}

// diff returns φ(a) − φ(b) as local ids and values, without zeros,
// appending to ids and d; ta and tb are scratch.
func (c *compiled) diff(a, b int, ids []int32, d []float64, ta []int32, tb []float64) ([]int32, []float64, []int32, []float64) {
	if c.dense {
		xa := c.x[a*c.dim : (a+1)*c.dim]
		xb := c.x[b*c.dim : (b+1)*c.dim]
		for j, v := range xa {
			if x := v - xb[j]; x != 0 {
				ids = append(ids, int32(j))
				d = append(d, x)
			}
		}
		return ids, d, ta, tb
	}
	ta, tb = c.sparseRow(b, ta, tb)
	alo, ahi := c.off[a], c.off[a+1]
	ai, av := c.lid[alo:ahi], c.val[alo:ahi]
	i, j := 0, 0
	for i < len(ai) || j < len(ta) {
		var id int32
		var x float64
		switch {
		case j == len(ta) || (i < len(ai) && ai[i] < ta[j]):
			id, x = ai[i], av[i]
			i++
		case i == len(ai) || ta[j] < ai[i]:
			id, x = ta[j], -tb[j]
			j++
		default:
			id, x = ai[i], av[i]-tb[j]
			i++
			j++
		}
		if x != 0 {
			ids = append(ids, id)
			d = append(d, x)
		}
	}
	return ids, d, ta, tb
}

// miraFormat is how a MIRA saves its state.
var miraFormat = stateFormat[MIRAOptions, MIRARun]{
	magic:   "mtune/batch.MIRA",
	version: 1,
	opts: func(c *statecodec.Coder, o *MIRAOptions) {
		c.F64(&o.C)
		c.F64(&o.Decay)
		statecodec.Int(c, &o.Passes)
		c.Bool(&o.NoShuffle)
		c.Bool(&o.ModelBackground)
		c.Bool(&o.SafeHope)
		statecodec.Int(c, &o.Background)
		c.Bool(&o.LastPass)
		c.U64(&o.Seed)
		statecodec.Int(c, &o.Threads)
	},
	run: func(c *statecodec.Coder, r *MIRARun) {
		c.F64(&r.Initial)
		statecodec.Int(c, &r.Best)
		statecodec.Records(c, &r.Passes, 8*4, func(c *statecodec.Coder, p *MIRAPass) {
			statecodec.Int(c, &p.Updates)
			statecodec.Int(c, &p.Examples)
			c.F64(&p.Loss)
			c.F64(&p.BLEU)
		})
	},
}
