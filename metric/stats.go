package metric

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

const (
	// MaxOrder is the largest n-gram order a Stats can hold.
	MaxOrder = 6
	// DefaultOrder is the n-gram order of BLEU-4, used wherever an order of
	// zero is given.
	DefaultOrder = 4
)

// ErrStats is wrapped by the errors that report malformed statistics: a wrong
// number of fields, a negative, NaN or infinite count, more matches than
// n-grams, or an order outside 1..MaxOrder.
var ErrStats = errors.New("metric: invalid statistics")

// Stats are the sufficient statistics of BLEU for one hypothesis or, summed,
// for a corpus: for each order n = 1..Order the clipped n-gram matches and the
// hypothesis n-gram count, and the reference length. The hypothesis length is
// Totals[0].
//
// Stats is a plain value of fixed size with no pointers: copying, adding and
// subtracting never allocate. Counts are float64 so that decayed or scaled
// statistics (a pseudo-corpus) fit too; sums of integer counts are exact up to
// 2^53. Entries at and beyond Order are zero.
//
// The zero Stats is the identity of Add: it has Order 0 and takes the order of
// the first Stats added to it.
type Stats struct {
	Order   int               `json:"order"`
	Matches [MaxOrder]float64 `json:"matches"`
	Totals  [MaxOrder]float64 `json:"totals"`
	RefLen  float64           `json:"ref_len"`
}

// HypLen returns the hypothesis length, the number of unigrams.
func (s Stats) HypLen() float64 { return s.Totals[0] }

func mergeOrder(a, b int) int {
	switch {
	case a == b || b == 0:
		return a
	case a == 0:
		return b
	}
	panic(fmt.Sprintf("metric: combining statistics of orders %d and %d", a, b))
}

// Add adds t to s. It panics if both have a non-zero order and the orders
// differ.
func (s *Stats) Add(t Stats) {
	if s.Order != t.Order {
		s.Order = mergeOrder(s.Order, t.Order)
	}
	for i := range s.Matches {
		s.Matches[i] += t.Matches[i]
		s.Totals[i] += t.Totals[i]
	}
	s.RefLen += t.RefLen
}

// Sub subtracts t from s. It panics if both have a non-zero order and the
// orders differ.
func (s *Stats) Sub(t Stats) {
	if s.Order != t.Order {
		s.Order = mergeOrder(s.Order, t.Order)
	}
	for i := range s.Matches {
		s.Matches[i] -= t.Matches[i]
		s.Totals[i] -= t.Totals[i]
	}
	s.RefLen -= t.RefLen
}

// Scale multiplies every count of s by a.
func (s *Stats) Scale(a float64) {
	for i := range s.Matches {
		s.Matches[i] *= a
		s.Totals[i] *= a
	}
	s.RefLen *= a
}

// Replace returns s with old taken out and new put in: the statistics of a
// corpus (or batch) in which one sentence's hypothesis changed.
func (s Stats) Replace(old, new Stats) Stats {
	s.Sub(old)
	s.Add(new)
	return s
}

// Sum returns the sum of stats (the zero Stats if there are none).
func Sum(stats []Stats) Stats {
	var s Stats
	for i := range stats {
		s.Add(stats[i])
	}
	return s
}

// Precisions returns the n-gram precisions Matches[n]/Totals[n] for the
// orders in use; an order with no hypothesis n-grams has precision 0.
func (s Stats) Precisions() [MaxOrder]float64 {
	var p [MaxOrder]float64
	for n := 0; n < s.Order; n++ {
		if s.Totals[n] != 0 {
			p[n] = s.Matches[n] / s.Totals[n]
		}
	}
	return p
}

// BrevityPenalty returns exp(1 - r/c) when the hypothesis length c is below
// the reference length r, 1 otherwise, and 0 when c is 0 and r is not.
func (s Stats) BrevityPenalty() float64 {
	c, r := s.Totals[0], s.RefLen
	switch {
	case c >= r:
		return 1
	case c <= 0:
		return 0
	}
	return math.Exp(1 - r/c)
}

// Ratio returns the hypothesis length over the reference length, or 0 when
// the reference length is 0.
func (s Stats) Ratio() float64 {
	if s.RefLen == 0 {
		return 0
	}
	return s.Totals[0] / s.RefLen
}

// LogBLEU returns the logarithm of BLEU (Papineni et al. 2002): the mean of
// the log precisions of orders 1..Order plus min(0, 1 - r/c). It is -Inf when
// some order has no match (or no n-gram), or when Order is 0.
func (s Stats) LogBLEU() float64 {
	if s.Order <= 0 {
		return math.Inf(-1)
	}
	var lp float64
	for n := 0; n < s.Order; n++ {
		m, t := s.Matches[n], s.Totals[n]
		if m <= 0 || t <= 0 {
			return math.Inf(-1)
		}
		lp += math.Log(m) - math.Log(t)
	}
	lp /= float64(s.Order)
	if c, r := s.Totals[0], s.RefLen; c < r {
		lp += 1 - r/c
	}
	return lp
}

// BLEU returns corpus BLEU without smoothing, a fraction in [0, 1]: 0 when
// some order has no match.
func (s Stats) BLEU() float64 { return math.Exp(s.LogBLEU()) }

// Validate reports whether s holds statistics some hypothesis could have: an
// order in 1..MaxOrder, finite non-negative counts, no more matches than
// n-grams, and zeros beyond Order.
func (s Stats) Validate() error {
	if s.Order < 1 || s.Order > MaxOrder {
		return fmt.Errorf("%w: order %d is not in 1..%d", ErrStats, s.Order, MaxOrder)
	}
	if err := checkCount("reference length", s.RefLen); err != nil {
		return err
	}
	for n := 0; n < MaxOrder; n++ {
		m, t := s.Matches[n], s.Totals[n]
		if n >= s.Order {
			if m != 0 || t != 0 {
				return fmt.Errorf("%w: non-zero counts for order %d > %d", ErrStats, n+1, s.Order)
			}
			continue
		}
		if err := checkCount("matches", m); err != nil {
			return err
		}
		if err := checkCount("n-grams", t); err != nil {
			return err
		}
		if m > t {
			return fmt.Errorf("%w: %g matches > %g n-grams of order %d", ErrStats, m, t, n+1)
		}
	}
	return nil
}

func checkCount(what string, x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return fmt.Errorf("%w: %s %g", ErrStats, what, x)
	}
	return nil
}

// FromMoses converts the statistics Moses' BLEU scorer writes (a SCORESTAT
// line of mert's extractor): m1 t1 m2 t2 … mN tN r, the clipped matches and
// hypothesis n-grams of each order followed by the reference length. Moses
// writes N = 4; any N in 1..MaxOrder is accepted.
func FromMoses(fields []int) (Stats, error) {
	var s Stats
	if len(fields)%2 != 1 || len(fields) < 3 || len(fields) > 2*MaxOrder+1 {
		return s, fmt.Errorf("%w: %d fields, want 2n+1 for n in 1..%d", ErrStats, len(fields), MaxOrder)
	}
	s.Order = len(fields) / 2
	for n := 0; n < s.Order; n++ {
		s.Matches[n] = float64(fields[2*n])
		s.Totals[n] = float64(fields[2*n+1])
	}
	s.RefLen = float64(fields[2*s.Order])
	return s, s.Validate()
}

// ToMoses returns s in Moses' layout (see FromMoses). It fails if a count is
// not an integer, as decayed or scaled statistics are.
func (s Stats) ToMoses() ([]int, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	f := make([]int, 0, 2*s.Order+1)
	add := func(x float64) error {
		if x != math.Trunc(x) || x > 1<<53 {
			return fmt.Errorf("metric: count %g is not an integer", x)
		}
		f = append(f, int(x))
		return nil
	}
	for n := 0; n < s.Order; n++ {
		if err := add(s.Matches[n]); err != nil {
			return nil, err
		}
		if err := add(s.Totals[n]); err != nil {
			return nil, err
		}
	}
	if err := add(s.RefLen); err != nil {
		return nil, err
	}
	return f, nil
}

// ParseMoses parses the text of one SCORESTAT entry, "6 14 1 13 0 12 0 11 18"
// (fields separated by ASCII white space; Moses leaves a trailing space). The
// fields may be integers or decimals (Moses writes them through a float
// stream, and background statistics are fractional).
func ParseMoses(text string) (Stats, error) {
	var (
		s      Stats
		vals   [2*MaxOrder + 1]float64
		nf     int
		fields = text
	)
	for {
		start, end := nextField(fields)
		if start == end {
			break
		}
		if nf == len(vals) {
			return s, fmt.Errorf("%w: more than %d fields", ErrStats, len(vals))
		}
		v, err := strconv.ParseFloat(fields[start:end], 64)
		if err != nil {
			return s, fmt.Errorf("%w: field %d: %v", ErrStats, nf+1, err)
		}
		vals[nf] = v
		nf++
		fields = fields[end:]
	}
	if nf%2 != 1 || nf < 3 {
		return s, fmt.Errorf("%w: %d fields, want 2n+1 for n in 1..%d", ErrStats, nf, MaxOrder)
	}
	s.Order = nf / 2
	for n := 0; n < s.Order; n++ {
		s.Matches[n] = vals[2*n]
		s.Totals[n] = vals[2*n+1]
	}
	s.RefLen = vals[2*s.Order]
	return s, s.Validate()
}

// AppendMoses appends s in Moses' layout to dst: the fields separated by
// single spaces, integers without a decimal point, other values in the
// shortest form that parses back to the same float64.
func (s Stats) AppendMoses(dst []byte) []byte {
	put := func(x float64) {
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			dst = strconv.AppendInt(dst, int64(x), 10)
		} else {
			dst = strconv.AppendFloat(dst, x, 'g', -1, 64)
		}
	}
	for n := 0; n < s.Order; n++ {
		put(s.Matches[n])
		dst = append(dst, ' ')
		put(s.Totals[n])
		dst = append(dst, ' ')
	}
	put(s.RefLen)
	return dst
}

// String returns s in Moses' layout (see AppendMoses).
func (s Stats) String() string { return string(s.AppendMoses(nil)) }

// Score is the report of a BLEU score, with the JSON field names of
// `mtune score --json`. BLEU, the precisions and BP are fractions in [0, 1]
// (multi-bleu.perl prints them multiplied by 100).
type Score struct {
	BLEU       float64   `json:"bleu"`
	Precisions []float64 `json:"precisions"`
	BP         float64   `json:"bp"`
	Ratio      float64   `json:"ratio"`
	HypLen     float64   `json:"hyp_len"`
	RefLen     float64   `json:"ref_len"`
	Matches    []float64 `json:"matches"`
	Totals     []float64 `json:"totals"`
	Order      int       `json:"order"`
}

// Score returns the unsmoothed corpus BLEU of s and its parts.
func (s Stats) Score() Score {
	p := s.Precisions()
	return Score{
		BLEU:       s.BLEU(),
		Precisions: append([]float64(nil), p[:s.Order]...),
		BP:         s.BrevityPenalty(),
		Ratio:      s.Ratio(),
		HypLen:     s.Totals[0],
		RefLen:     s.RefLen,
		Matches:    append([]float64(nil), s.Matches[:s.Order]...),
		Totals:     append([]float64(nil), s.Totals[:s.Order]...),
		Order:      s.Order,
	}
}
