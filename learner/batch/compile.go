package batch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/par"
	"github.com/mtune/mtune/learner"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// ErrEmpty is returned by Learn when the pool holds no hypothesis.
var ErrEmpty = errors.New("batch: empty pool")

// compiled is a pool laid out flat for the optimizers' hot loops: features
// renumbered to local ids 0..dim-1 (in increasing global id, so sparse rows
// stay sorted), stored dense (hyp-major, dim values a hypothesis) when that
// takes no more memory than the sparse rows would, and the statistics as
// rows of stride numbers. Under a metric with a pseudo-corpus of its own
// (metric.Backgrounder: BLEU) order is BLEU's and the rows have 2·order+1
// numbers laid out as Moses' SCORESTAT (matches and n-grams of each order,
// then the reference length); under another metric order is 0.
type compiled struct {
	ids    []feature.ID // local id → global id
	dim    int
	dense  bool
	start  []int // hypotheses of list l are start[l]..start[l+1]-1
	x      []float64
	off    []int32 // sparse: row h is lid/val[off[h]:off[h+1]]
	lid    []int32
	val    []float64
	order  int
	stride int
	stats  []float64
}

// layout chooses how compile stores features.
type layout int

const (
	layoutAuto   layout = iota // dense when it takes no more memory
	layoutDense                // always dense
	layoutSparse               // always sparse
)

// compile checks and lays out lists. Lists without hypotheses are dropped.
// It returns ErrEmpty when no hypothesis is left, and an error wrapping
// learner.ErrNoFeatures when no hypothesis has a feature.
func compile(lists []pool.List) (*compiled, error) { return compileLayout(lists, layoutAuto, nil) }

// compileMetric is compile for lists whose statistics are m's (nil:
// BLEU).
func compileMetric(lists []pool.List, m metric.Metric) (*compiled, error) {
	return compileLayout(lists, layoutAuto, m)
}

func compileLayout(lists []pool.List, lay layout, m metric.Metric) (*compiled, error) {
	nHyp, nnz := 0, 0
	maxID := feature.ID(-1)
	width := 0
	for _, l := range lists {
		for k, h := range l.Hyps {
			if err := checkHyp(h, m); err != nil {
				return nil, fmt.Errorf("batch: sentence %d hypothesis %d: %w", l.Sent, k, err)
			}
			if width == 0 {
				width = h.Stats().N
			} else if h.Stats().N != width {
				return nil, fmt.Errorf("batch: sentence %d hypothesis %d: %d statistics, earlier hypotheses have %d",
					l.Sent, k, h.Stats().N, width)
			}
			if n := len(h.Features.IDs); n > 0 {
				maxID = max(maxID, h.Features.IDs[n-1])
			}
			nnz += len(h.Features.IDs)
		}
		nHyp += len(l.Hyps)
	}
	if nHyp == 0 {
		return nil, ErrEmpty
	}
	if nnz == 0 { // vectors hold no zeros
		return nil, fmt.Errorf("batch: %w", learner.ErrNoFeatures)
	}
	if nnz > math.MaxInt32 {
		return nil, fmt.Errorf("batch: the pool holds %d feature values, more than %d", nnz, math.MaxInt32)
	}
	// Local ids in increasing global order.
	local := make([]int32, int(maxID)+1)
	for _, l := range lists {
		for _, h := range l.Hyps {
			for _, id := range h.Features.IDs {
				local[id] = 1
			}
		}
	}
	c := &compiled{stride: width}
	if _, ok := metric.OrDefault(m).(metric.Backgrounder); ok {
		c.order = width / 2
	}
	for id, seen := range local {
		if seen != 0 {
			local[id] = int32(len(c.ids))
			c.ids = append(c.ids, feature.ID(id))
		}
	}
	c.dim = len(c.ids)
	// Dense rows cost 8·dim bytes a hypothesis, sparse ones 12 a value.
	switch lay {
	case layoutAuto:
		c.dense = 8*c.dim*nHyp <= 12*nnz+4*nHyp
	case layoutDense:
		c.dense = true
	}
	c.start = make([]int, 0, len(lists)+1)
	c.stats = make([]float64, 0, nHyp*c.stride)
	if c.dense {
		c.x = make([]float64, nHyp*c.dim)
	} else {
		c.off = make([]int32, 1, nHyp+1)
		c.lid = make([]int32, 0, nnz)
		c.val = make([]float64, 0, nnz)
	}
	h := 0
	for _, l := range lists {
		if len(l.Hyps) == 0 {
			continue
		}
		c.start = append(c.start, h)
		for _, hyp := range l.Hyps {
			f := hyp.Features
			if c.dense {
				row := c.x[h*c.dim : (h+1)*c.dim]
				for k, id := range f.IDs {
					row[local[id]] = f.Vals[k]
				}
			} else {
				for k, id := range f.IDs {
					c.lid = append(c.lid, local[id])
					c.val = append(c.val, f.Vals[k])
				}
				c.off = append(c.off, int32(len(c.lid)))
			}
			st := hyp.Stats()
			c.stats = append(c.stats, st.V[:width]...)
			h++
		}
	}
	c.start = append(c.start, h)
	return c, nil
}

func checkHyp(h pool.Hyp, m metric.Metric) error {
	if err := metric.CheckStats(m, h.Stats()); err != nil {
		return err
	}
	f := h.Features
	if len(f.IDs) != len(f.Vals) {
		return fmt.Errorf("feature vector has %d ids and %d values", len(f.IDs), len(f.Vals))
	}
	for k, id := range f.IDs {
		if id < 0 || (k > 0 && id <= f.IDs[k-1]) {
			return fmt.Errorf("feature ids not strictly increasing at entry %d", k)
		}
		if x := f.Vals[k]; math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("feature %d has value %v", id, x)
		}
	}
	return nil
}

func (c *compiled) lists() int { return len(c.start) - 1 }
func (c *compiled) hyps() int  { return c.start[len(c.start)-1] }

// row returns the statistics of hypothesis h.
func (c *compiled) row(h int) []float64 { return c.stats[h*c.stride : (h+1)*c.stride] }

// dot returns w·φ(h) for local weights w.
func (c *compiled) dot(h int, w []float64) float64 {
	var s float64
	if c.dense {
		x := c.x[h*c.dim : (h+1)*c.dim]
		w = w[:len(x)]
		for j, v := range x {
			s += v * w[j]
		}
		return s
	}
	lo, hi := c.off[h], c.off[h+1]
	val := c.val[lo:hi]
	for k, j := range c.lid[lo:hi] {
		s += val[k] * w[j]
	}
	return s
}

// addTo adds alpha·φ(h) to the local vector dst.
func (c *compiled) addTo(dst []float64, h int, alpha float64) {
	if c.dense {
		x := c.x[h*c.dim : (h+1)*c.dim]
		dst = dst[:len(x)]
		for j, v := range x {
			dst[j] += alpha * v
		}
		return
	}
	lo, hi := c.off[h], c.off[h+1]
	val := c.val[lo:hi]
	for k, j := range c.lid[lo:hi] {
		dst[j] += alpha * val[k]
	}
}

// sparseRow returns hypothesis h as local ids and values (for dense rows,
// the non-zero entries), appending to ids and vals.
func (c *compiled) sparseRow(h int, ids []int32, vals []float64) ([]int32, []float64) {
	if c.dense {
		for j, v := range c.x[h*c.dim : (h+1)*c.dim] {
			if v != 0 {
				ids = append(ids, int32(j))
				vals = append(vals, v)
			}
		}
		return ids, vals
	}
	lo, hi := c.off[h], c.off[h+1]
	return append(ids, c.lid[lo:hi]...), append(vals, c.val[lo:hi]...)
}

// gather returns the local view of the global weights w.
func (c *compiled) gather(w feature.Weights) []float64 {
	out := make([]float64, c.dim)
	for j, id := range c.ids {
		out[j] = w.At(id)
	}
	return out
}

// scatter returns a copy of w, long enough for every pool feature, with the
// pool's coordinates replaced by the local weights lw.
func (c *compiled) scatter(w feature.Weights, lw []float64) feature.Weights {
	out := w.Clone()
	if c.dim > 0 {
		out.Grow(int(c.ids[c.dim-1]) + 1)
	}
	for j, id := range c.ids {
		out[id] = lw[j]
	}
	return out
}

// best returns the hypothesis of list l with the highest model score, the
// earlier one on ties (as pool.Best).
func (c *compiled) best(l int, w []float64) int {
	lo, hi := c.start[l], c.start[l+1]
	best, bestScore := lo, c.dot(lo, w)
	for h := lo + 1; h < hi; h++ {
		if s := c.dot(h, w); s > bestScore {
			best, bestScore = h, s
		}
	}
	return best
}

// evalChunk is the number of lists one goroutine of oneBest takes at a time.
const evalChunk = 256

// oneBest returns the summed statistics of each list's 1-best under the
// local weights w, computed by up to threads goroutines (0 means
// GOMAXPROCS). The result does not depend on threads: chunks are summed
// in a fixed order.
func (c *compiled) oneBest(w []float64, threads int) metric.Stats {
	n := c.lists()
	chunks := (n + evalChunk - 1) / evalChunk
	sums := make([][]float64, chunks)
	work := func(ch int) {
		s := make([]float64, c.stride)
		for l := ch * evalChunk; l < min(n, (ch+1)*evalChunk); l++ {
			r := c.row(c.best(l, w))
			for k := range s {
				s[k] += r[k]
			}
		}
		sums[ch] = s
	}
	par.Do(chunks, threads, work)
	total := make([]float64, c.stride)
	for _, s := range sums {
		for k := range total {
			total[k] += s[k]
		}
	}
	return c.toStats(total)
}

// toStats converts a statistics row to metric.Stats.
func (c *compiled) toStats(r []float64) metric.Stats {
	return metric.StatsOf(r[:c.stride]...)
}

// fromStats converts metric.Stats to a row of the compiled layout.
func (c *compiled) fromStats(s metric.Stats) []float64 {
	r := make([]float64, c.stride)
	copy(r, s.V[:c.stride])
	return r
}

// gains returns f of each hypothesis' statistics.
func (c *compiled) gains(f func(metric.Stats) float64) []float64 {
	g := make([]float64, c.hyps())
	for h := range g {
		g[h] = f(c.toStats(c.row(h)))
	}
	return g
}

// backgroundBLEU returns metric.BackgroundBLEU of the statistics rows sent
// and bg of the given order: the unsmoothed BLEU of sent+bg times the summed
// reference length. It computes the geometric mean of the precisions from
// the products of the matches and of the n-gram counts, with no logarithm,
// and returns 0 when some order of the sum has no match.
func backgroundBLEU(sent, bg []float64, order int) float64 {
	p := geoPrecision(sent, bg, order)
	c, r := sent[1]+bg[1], sent[2*order]+bg[2*order]
	if p != 0 && c < r {
		p *= math.Exp(1 - r/c)
	}
	return p * r
}

// geoPrecision returns the geometric mean of the n-gram precisions of
// sent+bg, 0 when some order has no match or no n-gram.
func geoPrecision(sent, bg []float64, order int) float64 {
	num, den := 1.0, 1.0
	for n := 0; n < order; n++ {
		m, t := sent[2*n]+bg[2*n], sent[2*n+1]+bg[2*n+1]
		if m <= 0 || t <= 0 {
			return 0
		}
		num *= m
		den *= t
	}
	p := num / den
	switch order {
	case 4:
		return math.Sqrt(math.Sqrt(p))
	case 2:
		return math.Sqrt(p)
	case 1:
		return p
	}
	return math.Pow(p, 1/float64(order))
}

// bpCache remembers brevity penalties by hypothesis and reference length
// while the pseudo-corpus stays the same: a list's hypotheses have few
// distinct lengths.
type bpCache [16]struct{ c, r, bp float64 }

func (k *bpCache) reset() {
	for i := range k {
		k[i].c = -1
	}
}

// get returns exp(min(0, 1 − r/c)).
func (k *bpCache) get(c, r float64) float64 {
	if c >= r {
		return 1
	}
	e := &k[int(c)&15]
	if e.c != c || e.r != r {
		e.c, e.r, e.bp = c, r, math.Exp(1-r/c)
	}
	return e.bp
}

// checkCtx returns ctx's error wrapped for this package, or nil.
func checkCtx(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	return nil
}

// validWeights returns an error if w holds NaN or ±Inf.
func validWeights(w feature.Weights) error {
	if !w.Finite() {
		i := slices.IndexFunc(w, func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) })
		return fmt.Errorf("batch: weight %d is %v", i, w[i])
	}
	return nil
}
