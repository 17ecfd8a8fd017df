package decoder

import (
	"github.com/mtune/mtune/decoder/model"
	"github.com/mtune/mtune/feature"
)

// dense holds the weights of the dense features the search uses, read
// from a weight vector over the model's Index; absent features weigh 0.
type dense struct {
	tm                    []float64
	lm, dist, wp, pp, uwp float64
	lr                    []float64
	// sparse is set when some feature outside the dense ones has a
	// non-zero weight (only computed when templates are on).
	sparse bool
	all    feature.Weights
}

func (m *Model) denseWeights(w feature.Weights) *dense {
	d := &dense{all: w}
	at := func(fi, j int) float64 {
		if fi < 0 {
			return 0
		}
		return w.At(m.feats[fi].ids[j])
	}
	d.tm = make([]float64, m.feats[m.fTM].n)
	for j := range d.tm {
		d.tm[j] = at(m.fTM, j)
	}
	d.lm, d.dist, d.wp, d.pp, d.uwp = at(m.fLM, 0), at(m.fDist, 0), at(m.fWP, 0), at(m.fPP, 0), at(m.fUWP, 0)
	if m.fLR >= 0 {
		d.lr = make([]float64, m.feats[m.fLR].n)
		for j := range d.lr {
			d.lr[j] = at(m.fLR, j)
		}
	}
	if m.tmpl.any() {
		for id, x := range w {
			if x != 0 && !m.isDense[feature.ID(id)] {
				d.sparse = true
				break
			}
		}
	}
	return d
}

// Orientations of Moses' LRModel::ReorderingType.
const (
	oriM  = 0 // monotone
	oriNM = 1 // non-monotone (monotonicity model)
	oriS  = 1 // swap
	oriD  = 2 // discontinuous (msd)
	oriDL = 2 // discontinuous left (mslr)
	oriDR = 3 // discontinuous right (mslr)
	oriR  = 0 // right (leftright)
	oriL  = 1 // left (leftright)
)

// lrConfig is a phrase-based lexicalized reordering model as Moses'
// LRModel and PhraseBasedReorderingState score it.
type lrConfig struct {
	rt        model.ReorderingType
	n         int  // scores in the table and features
	back, fwd bool // directions scored
	offB      int  // first feature (and table score) of the backward direction
	offF      int  // first feature of the forward direction
	def       []float32
}

func newLRConfig(rt model.ReorderingType) lrConfig {
	c := lrConfig{rt: rt, n: rt.NumScores()}
	types := c.n
	switch rt.Direction {
	case model.Backward:
		c.back = true
	case model.Forward:
		c.fwd = true
	case model.Bidirectional:
		c.back, c.fwd = true, true
		types = c.n / 2
		c.offF = types
	}
	return c
}

// orientFirst is LRModel::GetOrientation(cur) for the first phrase.
func (c *lrConfig) orientFirst(s int) int {
	switch {
	case c.rt.Model == model.LeftRight:
		return oriR
	case s == 0:
		return oriM
	case c.rt.Model == model.MSD:
		return oriD
	case c.rt.Model == model.MSLR:
		return oriDR
	}
	return oriNM
}

// orient is LRModel::GetOrientation(prev, cur).
func (c *lrConfig) orient(ps, pe, s, e int) int {
	switch {
	case c.rt.Model == model.LeftRight:
		if pe <= s {
			return oriR
		}
		return oriL
	case s == pe+1:
		return oriM
	case c.rt.Model == model.Monotonicity:
		return oriNM
	case ps == e+1:
		return oriS
	case c.rt.Model == model.MSD:
		return oriD
	case s > pe:
		return oriDR
	}
	return oriDL
}

// distortion is Moses' Distortion feature for a phrase covering [s, e]
// after one covering [ps, pe] (ps = pe = -1 before the first phrase);
// firstGap is the first uncovered position before the phrase is added.
// Without early distortion cost it is minus the jump; with it, the cost of
// Moore and Quirk (2007) as DistortionScoreProducer computes it.
func distortion(early bool, ps, pe, firstGap, s, e int) float64 {
	if !early {
		if pe < 0 {
			return -float64(s)
		}
		d := pe - s + 1
		if d < 0 {
			d = -d
		}
		return -float64(d)
	}
	prefixEnd := firstGap - 1
	switch {
	case s == prefixEnd+1:
		return 0
	case e < pe:
		return -2 * float64(e-s+1)
	case pe <= prefixEnd:
		z := s - prefixEnd - 1
		return -2 * float64(z+e-s+1)
	}
	var between int
	if pe < s {
		between = s - pe - 1
	} else {
		between = ps - e - 1
	}
	return -2 * float64(between+e-s+1)
}

// jump is InputType::ComputeDistortionDistance: the distortion limit's
// measure of a jump from [ps, pe] (pe = -1 for none) to start s.
func jump(pe, s int) int {
	if pe < 0 {
		return s
	}
	d := pe - s + 1
	if d < 0 {
		return -d
	}
	return d
}
