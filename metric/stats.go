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
// sentences, from which the metric computes its score (Metric.Score). It is
// an opaque vector: its meaning is the metric's, and only the metric reads
// it (BLEU's layout and maths are BLEUStats').
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

// Validate reports whether s holds statistics of some metric: N in
// 1..MaxStats, finite values, and zeros beyond N. What a metric asks more
// of its own is its Check (BLEU's: BLEUStats.Validate).
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
	return s, BLEUStats(s).Validate()
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
// BLEU's (BLEUStats.Validate).
func ParseMoses(text string) (Stats, error) {
	s, err := ParseScoreStat(text)
	if err != nil {
		return s, err
	}
	if s.N%2 != 1 || s.N < 3 {
		return s, fmt.Errorf("%w: %d fields, want 2n+1 for n in 1..%d", ErrStats, s.N, MaxOrder)
	}
	return s, BLEUStats(s).Validate()
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
