package metric

import (
	"encoding/json"
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

// Stats are the sufficient statistics of one hypothesis, or, summed, of a
// corpus, under a metric (DESIGN.md §11): N numbers, V[:N], that add over
// sentences, from which the metric computes its score (Metric.Score). Their
// meaning is the metric's. BLEU's are Moses' layout, that of a SCORESTAT
// line of mert's extractor: for each order n = 1..Order() the clipped n-gram
// matches and the hypothesis n-gram count, then the reference length
// (m1 t1 m2 t2 … r, N = 2·Order+1), read by Order, Match, Total, HypLen and
// RefLen.
//
// Stats is a plain value of fixed size with no pointers: copying, adding and
// subtracting never allocate. Counts are float64 so that decayed or scaled
// statistics (a pseudo-corpus) fit too; sums of integer counts are exact up to
// 2^53. Entries at and beyond N are zero.
//
// The zero Stats is the identity of Add: it has N 0 and takes the length of
// the first Stats added to it.
type Stats struct {
	N int
	V [MaxStats]float64
}

// Values returns the statistics, V[:N].
func (s *Stats) Values() []float64 { return s.V[:s.N] }

// StatsOf returns the Stats of the values v; it panics if there are more
// than MaxStats.
func StatsOf(v ...float64) Stats {
	if len(v) > MaxStats {
		panic(fmt.Sprintf("metric: %d statistics, at most %d", len(v), MaxStats))
	}
	s := Stats{N: len(v)}
	copy(s.V[:], v)
	return s
}

// NewBLEUStats returns BLEU statistics of the given order (1..MaxOrder)
// with the counts matches[n] and totals[n] of order n+1 (0 past their
// ends) and the reference length refLen.
func NewBLEUStats(order int, matches, totals []float64, refLen float64) Stats {
	s := Stats{N: 2*order + 1}
	for n := 0; n < order; n++ {
		if n < len(matches) {
			s.V[2*n] = matches[n]
		}
		if n < len(totals) {
			s.V[2*n+1] = totals[n]
		}
	}
	s.V[2*order] = refLen
	return s
}

// Order returns the BLEU order of statistics in BLEU's layout, N = 2·Order+1
// (0 for the zero Stats).
func (s Stats) Order() int { return s.N / 2 }

// Match returns BLEU's clipped matches of order n+1 (0-based n).
func (s Stats) Match(n int) float64 { return s.V[2*n] }

// Total returns BLEU's hypothesis n-grams of order n+1 (0-based n).
func (s Stats) Total(n int) float64 { return s.V[2*n+1] }

// RefLen returns BLEU's reference length.
func (s Stats) RefLen() float64 {
	if s.N == 0 {
		return 0
	}
	return s.V[s.N-1]
}

// HypLen returns the hypothesis length, the number of unigrams.
func (s Stats) HypLen() float64 { return s.V[1] }

func mergeN(a, b int) int {
	switch {
	case a == b || b == 0:
		return a
	case a == 0:
		return b
	}
	panic(fmt.Sprintf("metric: combining statistics of %d and %d numbers", a, b))
}

// Add adds t to s. It panics if both have a non-zero N and they differ.
func (s *Stats) Add(t Stats) {
	if s.N != t.N {
		s.N = mergeN(s.N, t.N)
	}
	for i := range s.N {
		s.V[i] += t.V[i]
	}
}

// Sub subtracts t from s. It panics if both have a non-zero N and they
// differ.
func (s *Stats) Sub(t Stats) {
	if s.N != t.N {
		s.N = mergeN(s.N, t.N)
	}
	for i := range s.N {
		s.V[i] -= t.V[i]
	}
}

// Scale multiplies every count of s by a.
func (s *Stats) Scale(a float64) {
	for i := range s.N {
		s.V[i] *= a
	}
}

// Replace returns s with old taken out and new put in: the statistics of a
// corpus (or batch) in which one sentence's hypothesis changed.
func (s Stats) Replace(old, new Stats) Stats {
	s.Sub(old)
	s.Add(new)
	return s
}

// AddChecked adds t to s, as Add, when t is the zero Stats or valid
// statistics (Validate) of the same length as s (or s is zero); otherwise
// it returns an error and leaves s unchanged: for statistics read from
// files or other processes, which Add would panic on.
func (s *Stats) AddChecked(t Stats) error {
	if t == (Stats{}) {
		return nil
	}
	if err := t.Validate(); err != nil {
		return err
	}
	if s.N != 0 && s.N != t.N {
		return fmt.Errorf("%w: adding statistics of %d numbers to %d", ErrStats, t.N, s.N)
	}
	s.Add(t)
	return nil
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
	for n := 0; n < s.Order(); n++ {
		if s.Total(n) != 0 {
			p[n] = s.Match(n) / s.Total(n)
		}
	}
	return p
}

// BrevityPenalty returns exp(1 - r/c) when the hypothesis length c is below
// the reference length r, 1 otherwise, and 0 when c is 0 and r is not.
func (s Stats) BrevityPenalty() float64 {
	c, r := s.Total(0), s.RefLen()
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
	if s.RefLen() == 0 {
		return 0
	}
	return s.Total(0) / s.RefLen()
}

// LogBLEU returns the logarithm of BLEU (Papineni et al. 2002): the mean of
// the log precisions of orders 1..Order() plus min(0, 1 - r/c). It is -Inf when
// some order has no match (or no n-gram), or when Order is 0.
func (s Stats) LogBLEU() float64 {
	if s.Order() <= 0 {
		return math.Inf(-1)
	}
	var lp float64
	for n := 0; n < s.Order(); n++ {
		m, t := s.Match(n), s.Total(n)
		if m <= 0 || t <= 0 {
			return math.Inf(-1)
		}
		lp += math.Log(m) - math.Log(t)
	}
	lp /= float64(s.Order())
	if c, r := s.Total(0), s.RefLen(); c < r {
		lp += 1 - r/c
	}
	return lp
}

// BLEU returns corpus BLEU without smoothing, a fraction in [0, 1]: 0 when
// some order has no match.
func (s Stats) BLEU() float64 { return math.Exp(s.LogBLEU()) }

// Validate reports whether s holds statistics of some metric: N in
// 1..MaxStats, finite values, and zeros beyond N. What a metric asks more
// of its own is its Check (BLEU's: ValidateBLEU).
func (s Stats) Validate() error {
	if s.N < 1 || s.N > MaxStats {
		return fmt.Errorf("%w: %d numbers, want 1..%d", ErrStats, s.N, MaxStats)
	}
	for i, x := range s.V {
		switch {
		case i >= s.N && x != 0:
			return fmt.Errorf("%w: non-zero value %g beyond the %d numbers", ErrStats, x, s.N)
		case math.IsNaN(x) || math.IsInf(x, 0):
			return fmt.Errorf("%w: value %d is %g", ErrStats, i+1, x)
		}
	}
	return nil
}

// ValidateBLEU reports whether s holds BLEU statistics some hypothesis
// could have: Moses' layout (N = 2·Order+1) with an order in 1..MaxOrder,
// finite non-negative counts, no more matches than n-grams, and zeros
// beyond N.
func (s Stats) ValidateBLEU() error {
	if s.N%2 != 1 || s.Order() < 1 || s.Order() > MaxOrder {
		return fmt.Errorf("%w: %d numbers are not BLEU's 2n+1 for an order n in 1..%d", ErrStats, s.N, MaxOrder)
	}
	if err := s.Validate(); err != nil {
		return err
	}
	if err := checkCount("reference length", s.RefLen()); err != nil {
		return err
	}
	for n := 0; n < s.Order(); n++ {
		m, t := s.Match(n), s.Total(n)
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
	s.N = len(fields)
	for i, f := range fields {
		s.V[i] = float64(f)
	}
	return s, s.ValidateBLEU()
}

// ToMoses returns s in Moses' layout (see FromMoses). It fails if a count is
// not an integer, as decayed or scaled statistics are.
func (s Stats) ToMoses() ([]int, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	f := make([]int, s.N)
	for i, x := range s.V[:s.N] {
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return nil, fmt.Errorf("metric: count %g is not an integer", x)
		}
		f[i] = int(x)
	}
	return f, nil
}

// ParseMoses parses the text of one SCORESTAT entry of BLEU,
// "6 14 1 13 0 12 0 11 18" (fields separated by ASCII white space; Moses
// leaves a trailing space), as ParseScoreStat does, and checks that it is
// BLEU's (ValidateBLEU).
func ParseMoses(text string) (Stats, error) {
	s, err := ParseScoreStat(text)
	if err != nil {
		return s, err
	}
	if s.N%2 != 1 || s.N < 3 {
		return s, fmt.Errorf("%w: %d fields, want 2n+1 for n in 1..%d", ErrStats, s.N, MaxOrder)
	}
	return s, s.ValidateBLEU()
}

// ParseScoreStat parses the text of one SCORESTAT entry of any metric: its
// statistics separated by ASCII white space (Moses leaves a trailing
// space), integers or decimals (Moses writes them through a float stream,
// and background statistics are fractional), at most MaxStats of them.
func ParseScoreStat(text string) (Stats, error) {
	var s Stats
	fields := text
	for {
		start, end := nextField(fields)
		if start == end {
			break
		}
		if s.N == MaxStats {
			return Stats{}, fmt.Errorf("%w: more than %d fields", ErrStats, MaxStats)
		}
		v, err := strconv.ParseFloat(fields[start:end], 64)
		if err != nil {
			return Stats{}, fmt.Errorf("%w: field %d: %v", ErrStats, s.N+1, err)
		}
		s.V[s.N] = v
		s.N++
		fields = fields[end:]
	}
	if s.N == 0 {
		return Stats{}, fmt.Errorf("%w: no fields", ErrStats)
	}
	return s, s.Validate()
}

// AppendMoses appends s in Moses' SCORESTAT layout to dst: its statistics
// separated by single spaces, integers without a decimal point, other
// values in the shortest form that parses back to the same float64.
func (s Stats) AppendMoses(dst []byte) []byte {
	for i, x := range s.V[:s.N] {
		if i > 0 {
			dst = append(dst, ' ')
		}
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			dst = strconv.AppendInt(dst, int64(x), 10)
		} else {
			dst = strconv.AppendFloat(dst, x, 'g', -1, 64)
		}
	}
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
	m, t := make([]float64, s.Order()), make([]float64, s.Order())
	for n := range m {
		m[n], t[n] = s.Match(n), s.Total(n)
	}
	return Score{
		BLEU:       s.BLEU(),
		Precisions: append([]float64(nil), p[:s.Order()]...),
		BP:         s.BrevityPenalty(),
		Ratio:      s.Ratio(),
		HypLen:     s.Total(0),
		RefLen:     s.RefLen(),
		Matches:    m,
		Totals:     t,
		Order:      s.Order(),
	}
}

// MarshalJSON writes s as the JSON array of its statistics, V[:N]
// ([6,14,1,13,0,12,0,11,18] for BLEU).
func (s Stats) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, x := range s.V[:s.N] {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: value %d is %g", ErrStats, i+1, x)
		}
		b = strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	return append(b, ']'), nil
}

// legacyBLEU is the JSON form of BLEU statistics before Stats held any
// metric's ({"order":4,"matches":[…6],"totals":[…6],"ref_len":r}), which
// the files of earlier runs (dev-stats.json, a registry's gate.json) hold.
type legacyBLEU struct {
	Order   int                `json:"order"`
	Matches *[MaxOrder]float64 `json:"matches"`
	Totals  *[MaxOrder]float64 `json:"totals"`
	RefLen  float64            `json:"ref_len"`
}

// UnmarshalJSON reads what MarshalJSON writes, or BLEU statistics in the
// object form of earlier versions.
func (s *Stats) UnmarshalJSON(data []byte) error {
	var v []float64
	if err := json.Unmarshal(data, &v); err == nil {
		if len(v) > MaxStats {
			return fmt.Errorf("%w: %d statistics, at most %d", ErrStats, len(v), MaxStats)
		}
		*s = StatsOf(v...)
		return nil
	}
	var old legacyBLEU
	if err := json.Unmarshal(data, &old); err != nil {
		return fmt.Errorf("%w: %v", ErrStats, err)
	}
	if old.Order == 0 && old.Matches == nil && old.Totals == nil && old.RefLen == 0 {
		*s = Stats{}
		return nil
	}
	if old.Order < 1 || old.Order > MaxOrder || old.Matches == nil || old.Totals == nil {
		return fmt.Errorf("%w: BLEU statistics of order %d", ErrStats, old.Order)
	}
	*s = NewBLEUStats(old.Order, old.Matches[:], old.Totals[:], old.RefLen)
	return nil
}
