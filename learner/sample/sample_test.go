package sample

import (
	"bufio"
	"cmp"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/learntest"
	"github.com/mtune/mtune/testsupport/shared"
)

// randLists returns nl lists of up to maxHyps hypotheses with random sparse
// features over dim ids.
func randLists(r *rand.Rand, nl, maxHyps, dim int) []pool.List {
	return learntest.Lists(nl, func() int { return 1 + r.IntN(maxHyps) }, func(b *feature.Builder) metric.Stats {
		for range 1 + r.IntN(8) {
			b.Add(feature.ID(r.IntN(dim)), r.NormFloat64())
		}
		return learntest.RandStats(r)
	})
}

func TestPROPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lists := randLists(r, 30, 60, 40)
	lists = append(lists, pool.List{Sent: 30}) // empty list: no pairs
	tests := []struct {
		name    string
		s       PRO
		xi      int
		minDiff float64
		gain    Gain
	}{
		{"moses defaults", PRO{}, 50, 0.05, PlusOne(metric.MosesPlusOne)},
		{"green", Green(), 15, 0.05, PlusOne(metric.LinOch)},
		{"no threshold", PRO{Gamma: 300, Xi: 1000, MinDiff: -1}, 1000, 0, PlusOne(metric.MosesPlusOne)},
		{"high threshold", PRO{MinDiff: 0.2, Xi: 7, Gain: PlusOne(metric.LinOch)}, 7, 0.2, PlusOne(metric.LinOch)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pairs := tc.s.Sample(rand.New(rand.NewPCG(7, 8)), lists, nil)
			again := tc.s.Sample(rand.New(rand.NewPCG(7, 8)), lists, nil)
			if !slices.Equal(pairs, again) {
				t.Fatal("same seed, different pairs")
			}
			perList := make([]int, len(lists))
			for _, p := range pairs {
				perList[p.List]++
				gb := tc.gain(lists[p.List].Hyps[p.Better].Stats())
				gw := tc.gain(lists[p.List].Hyps[p.Worse].Stats())
				if p.Gap != gb-gw || p.Gap <= 0 || p.Gap < tc.minDiff {
					t.Fatalf("pair %+v: gains %v and %v", p, gb, gw)
				}
			}
			for i, n := range perList {
				if n > tc.xi {
					t.Errorf("list %d: %d pairs, more than %d", i, n, tc.xi)
				}
			}
			if perList[30] != 0 {
				t.Errorf("empty list gave %d pairs", perList[30])
			}
			if len(pairs) == 0 {
				t.Fatal("no pairs")
			}
		})
	}
}

// TestPROKeepsLargestGaps replays the candidate draws of one list and checks
// that the kept pairs are the Xi with the largest gaps (the earliest drawn
// among equal gaps at the cut), in draw order, as Moses' pro keeps them.
func TestPROKeepsLargestGaps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	random := randLists(r, 1, 80, 10)[0]
	ties := pool.List{Hyps: make([]pool.Hyp, 30)}
	for k := range ties.Hyps { // three gain values: most gaps tie
		ties.Hyps[k] = pool.NewHyp(ties.Hyps[k].Features, metric.NewBLEUStats(1, []float64{float64(k % 3)}, []float64{2}, 2))
	}
	tests := []struct {
		name string
		l    pool.List
		s    PRO
	}{
		{"random gains", random, PRO{Gamma: 400, Xi: 25}},
		{"tied gains", ties, PRO{Gamma: 300, Xi: 40}},
		{"fewer candidates than Xi", ties, PRO{Gamma: 20, Xi: 40}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pairs := tc.s.SampleList(rand.New(rand.NewPCG(5, 6)), tc.l, 9, nil)
			gains := Gains(tc.l, tc.s.gain(), nil)
			rr := rand.New(rand.NewPCG(5, 6))
			type cand struct {
				p     Pair
				order int
			}
			var cands []cand
			for range tc.s.gamma() {
				a, b := rr.IntN(len(gains)), rr.IntN(len(gains))
				if gains[a] < gains[b] {
					a, b = b, a
				}
				if d := gains[a] - gains[b]; d >= 0.05 {
					cands = append(cands, cand{Pair{List: 9, Better: a, Worse: b, Gap: d}, len(cands)})
				}
			}
			slices.SortStableFunc(cands, func(x, y cand) int { return cmp.Compare(y.p.Gap, x.p.Gap) })
			cands = cands[:min(tc.s.xi(), len(cands))]
			slices.SortFunc(cands, func(x, y cand) int { return x.order - y.order })
			var want []Pair
			for _, c := range cands {
				want = append(want, c.p)
			}
			if !slices.Equal(pairs, want) {
				t.Fatalf("kept %v\nwant %v", pairs, want)
			}
		})
	}
}

// TestPROUniform checks the draws are uniform with replacement: with no
// threshold and no cut, the share of kept candidates estimates the chance
// that two random hypotheses have different gains.
func TestPROUniform(t *testing.T) {
	l := pool.List{Hyps: make([]pool.Hyp, 4)}
	for k := range l.Hyps {
		l.Hyps[k] = pool.NewHyp(l.Hyps[k].Features, metric.NewBLEUStats(1, []float64{float64(k % 2)}, []float64{1}, 1))
	}
	// Two gain values, two hypotheses each: P(differ) = 1/2.
	const gamma = 200000
	pairs := PRO{Gamma: gamma, Xi: gamma, MinDiff: -1}.SampleList(rand.New(rand.NewPCG(1, 1)), l, 0, nil)
	frac := float64(len(pairs)) / gamma
	if se := math.Sqrt(0.25 / gamma); math.Abs(frac-0.5) > 5*se {
		t.Fatalf("kept %.4f of the candidates, want 0.5 ± %.4f", frac, 5*se)
	}
	var count [4][4]int
	for _, p := range pairs {
		count[p.Better][p.Worse]++
	}
	// Each of the 8 ordered (better, worse) pairs has probability 1/16 of
	// a draw; each kept pair counts one of them.
	for a := range 4 {
		for b := range 4 {
			if a%2 == 1 && b%2 == 0 {
				if c := float64(count[a][b]) / gamma; math.Abs(c-1.0/8) > 0.005 {
					t.Errorf("pair (%d,%d) drawn %.4f of the time, want 0.125", a, b, c)
				}
			} else if count[a][b] != 0 {
				t.Errorf("pair (%d,%d) kept though not better", a, b)
			}
		}
	}
}

func TestExamples(t *testing.T) {
	v := func(xs ...float64) feature.Vector { return feature.FromDense(xs) }
	lists := []pool.List{{Hyps: []pool.Hyp{{Features: v(1, 2)}, {Features: v(0, 5)}}}}
	xs, ys := Examples(lists, []Pair{{List: 0, Better: 1, Worse: 0}})
	if len(xs) != 2 || !xs[0].Equal(v(-1, 3)) || !xs[1].Equal(v(1, -3)) || !slices.Equal(ys, []float64{1, 0}) {
		t.Fatalf("examples %v labels %v", xs, ys)
	}
	if got := Vectors(lists, []Pair{{Better: 0, Worse: 1}}, nil); len(got) != 1 || !got[0].Equal(v(1, -3)) {
		t.Fatalf("Vectors = %v", got)
	}
}

// batchScore is the corpus score of the chosen hypotheses under m, summed
// from scratch: BLEU as a fraction for a nil m, else m's gain.
func batchScore(lists []pool.List, m metric.Metric, choice []int) float64 {
	var s []metric.Stats
	for i, l := range lists {
		if choice[i] >= 0 {
			s = append(s, l.Hyps[choice[i]].Stats())
		}
	}
	if m == nil {
		return metric.BLEUStats(metric.Sum(s)).BLEU()
	}
	return metric.Gain(m, metric.Sum(s))
}

// restat replaces the statistics of lists' hypotheses by random ones of
// m (TER: edits 0..12 against a reference length a list draws in 1..15;
// external: a score in [0, 1)), some of them repeated; nil leaves BLEU's.
func restat(r *rand.Rand, lists []pool.List, m metric.Metric) {
	for _, l := range lists {
		refLen := float64(1 + r.IntN(15))
		for k := range l.Hyps {
			switch m := m.(type) {
			case metric.TER:
				l.Hyps[k] = pool.NewHyp(l.Hyps[k].Features, metric.StatsOf(float64(r.IntN(13)), refLen))
			case metric.FileScored:
				l.Hyps[k] = pool.NewHyp(l.Hyps[k].Features, m.FileStats(float64(r.IntN(8))/8))
			}
		}
	}
}

// TestOracles checks Watanabe's greedy oracles under BLEU, TER and
// external scores: a local optimum of the batch score no worse than its
// start (each list's best sentence score), never above the exhaustive
// optimum, and the oracle-versus-rest pairs with their gaps.
func TestOracles(t *testing.T) {
	for _, m := range []metric.Metric{nil, metric.TER{}, metric.External{}} {
		r := rand.New(rand.NewPCG(11, 12))
		for trial := range 50 {
			lists := randLists(r, 1+r.IntN(8), 12, 5)
			restat(r, lists, m)
			if trial%10 == 0 {
				lists = append(lists, pool.List{})
			}
			checkOracles(t, lists, m, trial)
		}
	}
}

func checkOracles(t *testing.T, lists []pool.List, m metric.Metric, trial int) {
	t.Helper()
	name := "BLEU"
	sent := func(s metric.Stats) float64 { return metric.BLEUPlusOne(s, metric.LinOch) }
	if m != nil {
		name = m.Name()
		sent = func(s metric.Stats) float64 { return metric.SentenceGain(m, s) }
	}
	or := Oracles(lists, m, nil)
	top := batchScore(lists, m, or)
	init := make([]int, len(lists))
	for i, l := range lists {
		init[i] = -1
		best := math.Inf(-1)
		for k, h := range l.Hyps {
			if b := sent(h.Stats()); b > best {
				init[i], best = k, b
			}
		}
	}
	if b := batchScore(lists, m, init); top < b-1e-12 {
		t.Fatalf("%s trial %d: greedy oracle score %v below its start %v", name, trial, top, b)
	}
	// No single replacement raises the batch score: a local optimum.
	for i, l := range lists {
		if len(l.Hyps) == 0 {
			if or[i] != -1 {
				t.Fatalf("%s trial %d: empty list has oracle %d", name, trial, or[i])
			}
			continue
		}
		c := slices.Clone(or)
		for k := range l.Hyps {
			c[i] = k
			if b := batchScore(lists, m, c); b > top+1e-12 {
				t.Fatalf("%s trial %d: list %d hyp %d raises batch score %v to %v", name, trial, i, k, top, b)
			}
		}
	}
	// Small batches: compare with exhaustive search.
	if len(lists) <= 3 {
		best := exhaustive(lists, m)
		if top > best+1e-12 {
			t.Fatalf("%s trial %d: greedy %v above exhaustive %v", name, trial, top, best)
		}
	}
	pairs := OracleVsRest(lists, m, nil)
	n := 0
	for i, l := range lists {
		if len(l.Hyps) == 0 {
			continue
		}
		set := OracleSet(l, or[i], nil)
		n += len(set) * (len(l.Hyps) - len(set))
	}
	if len(pairs) != n {
		t.Fatalf("%s trial %d: %d pairs, want %d", name, trial, len(pairs), n)
	}
	for _, p := range pairs {
		l := lists[p.List]
		if l.Hyps[p.Better].Stats() != l.Hyps[or[p.List]].Stats() || l.Hyps[p.Worse].Stats() == l.Hyps[p.Better].Stats() {
			t.Fatalf("%s trial %d: pair %+v is not oracle vs rest", name, trial, p)
		}
		c := slices.Clone(or)
		c[p.List] = p.Worse
		if want := top - batchScore(lists, m, c); p.Gap < 0 || math.Abs(p.Gap-want) > 1e-9*max(1, math.Abs(want)) {
			t.Fatalf("%s trial %d: pair %+v gap, want %v", name, trial, p, want)
		}
	}
}

func exhaustive(lists []pool.List, m metric.Metric) float64 {
	c := make([]int, len(lists))
	best := math.Inf(-1)
	var rec func(i int)
	rec = func(i int) {
		if i == len(lists) {
			best = max(best, batchScore(lists, m, c))
			return
		}
		if len(lists[i].Hyps) == 0 {
			c[i] = -1
			rec(i + 1)
			return
		}
		for k := range lists[i].Hyps {
			c[i] = k
			rec(i + 1)
		}
	}
	rec(0)
	return best
}

func TestOracleSet(t *testing.T) {
	a := metric.NewBLEUStats(1, []float64{1}, []float64{2}, 2)
	b := metric.NewBLEUStats(1, []float64{2}, []float64{2}, 2)
	l := pool.List{Hyps: []pool.Hyp{pool.NewHyp(feature.Vector{}, a), pool.NewHyp(feature.Vector{}, b), pool.NewHyp(feature.Vector{}, a), pool.NewHyp(feature.Vector{}, b)}}
	if got := OracleSet(l, 3, nil); !slices.Equal(got, []int{1, 3}) {
		t.Fatalf("OracleSet = %v", got)
	}
	pairs := OracleVsRest([]pool.List{l}, nil, nil)
	if len(pairs) != 4 {
		t.Fatalf("%d pairs, want 2 oracles × 2 others", len(pairs))
	}
}

// TestMetricGain: nil for BLEU, whose learners keep their own BLEU+1;
// another metric's sentence score as a fraction.
func TestMetricGain(t *testing.T) {
	if MetricGain(nil) != nil || MetricGain(metric.DefaultBLEU()) != nil {
		t.Errorf("MetricGain of BLEU is not nil")
	}
	for _, tc := range []struct {
		m    metric.Metric
		s    metric.Stats
		want float64
	}{
		{metric.TER{}, metric.StatsOf(3, 12), -0.25},
		{metric.External{}, metric.ExternalStats(0.75), 0.75},
	} {
		if got := MetricGain(tc.m)(tc.s); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: %v, want %v", tc.m.Name(), got, tc.want)
		}
	}
}

// TestMosesProPairs checks the sign convention and the BLEU+1 variant
// against the pairs Moses' pro sampled from mert-basic: every "1" line is
// φ(a) − φ(b) for hypotheses a, b of one sentence with
// MosesPlusOne(a) − MosesPlusOne(b) ≥ 0.05, the "0" line after it its
// negation, and the sentences come in order with at most 50 pairs each.
func TestMosesProPairs(t *testing.T) {
	feats, stats := readMertBasic(t)
	pairs := readProPairs(t, shared.Path(t, "nbest", "mert-pro", "expected-pro-pairs.txt"))
	if len(pairs) != 700 {
		t.Fatalf("%d lines, want 700", len(pairs))
	}
	sent := 0
	perSent := map[int]int{}
	linOchBelow := 0
	for k := 0; k < len(pairs); k += 2 {
		pos, neg := pairs[k], pairs[k+1]
		if pos.label != 1 || neg.label != 0 {
			t.Fatalf("line %d: labels %d, %d; want 1 then 0", k+1, pos.label, neg.label)
		}
		for j := range pos.x {
			if pos.x[j] != -neg.x[j] {
				t.Fatalf("line %d: the 0 line is not the negation of the 1 line", k+2)
			}
		}
		found := false
		for s := sent; s < len(feats) && !found; s++ {
			for a := range feats[s] {
				for b := range feats[s] {
					if !matches(pos.x, feats[s][a], feats[s][b]) {
						continue
					}
					d := metric.BLEUPlusOne(stats[s][a], metric.MosesPlusOne) - metric.BLEUPlusOne(stats[s][b], metric.MosesPlusOne)
					if d >= 0.05-1e-6 {
						found, sent = true, s
						if metric.BLEUPlusOne(stats[s][a], metric.LinOch)-metric.BLEUPlusOne(stats[s][b], metric.LinOch) < 0.05 {
							linOchBelow++
						}
						break
					}
				}
				if found {
					break
				}
			}
		}
		if !found {
			t.Fatalf("line %d: no pair of sentence ≥ %d with difference %v and a BLEU+1 gap ≥ 0.05", k+1, sent, pos.x)
		}
		perSent[sent]++
	}
	for s, n := range perSent {
		if n > 50 {
			t.Errorf("sentence %d: %d pairs", s, n)
		}
	}
	t.Logf("350 pairs over %d sentences; %d of them below 0.05 under Lin & Och's BLEU+1", len(perSent), linOchBelow)
}

type proLine struct {
	label int
	x     []float64 // dense, by column
}

// matches reports whether x is φ(a) − φ(b) as pro prints it: columns whose
// difference is within 1e-5 of zero are left out, the others printed with
// 6 significant digits, from features FEATSTAT printed with 6 significant
// digits too (so the tolerance scales with |a| + |b|).
func matches(x, a, b []float64) bool {
	for j := range x {
		d := a[j] - b[j]
		if math.Abs(d) <= 1e-5 {
			d = 0
		}
		if math.Abs(x[j]-d) > 1e-5*(math.Abs(a[j])+math.Abs(b[j])+math.Abs(d))+1e-6 {
			return false
		}
	}
	return true
}

func readProPairs(t *testing.T, path string) []proLine {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []proLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "STDOUT_")
		if !ok {
			continue
		}
		_, line, _ = strings.Cut(line, "=")
		fs := strings.Fields(line)
		p := proLine{x: make([]float64, 14)}
		p.label, err = strconv.Atoi(fs[0])
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; k+1 < len(fs); k += 2 {
			j, err := strconv.Atoi(strings.TrimPrefix(fs[k], "F"))
			if err != nil {
				t.Fatal(err)
			}
			if p.x[j], err = strconv.ParseFloat(fs[k+1], 64); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// readMertBasic returns mert-basic's dense features (by FEATSTAT column) and
// BLEU statistics, per sentence and hypothesis.
func readMertBasic(t *testing.T) ([][][]float64, [][]metric.Stats) {
	ff, err := os.Open(shared.Path(t, "nbest", "mert-basic", "FEATSTAT.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer ff.Close()
	sf, err := os.Open(shared.Path(t, "nbest", "mert-basic", "SCORESTAT.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	idx := feature.NewIndex()
	fr := nbest.NewFeatStatReader(ff, "FEATSTAT.txt", idx)
	sr := nbest.NewScoreStatReader(sf, "SCORESTAT.txt")
	var feats [][][]float64
	var stats [][]metric.Stats
	for {
		fb, err := fr.Read()
		if err != nil {
			break
		}
		sb, err := sr.Read()
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]feature.ID, len(fb.Dense))
		for j, name := range fb.Dense {
			ids[j] = idx.ID(name)
		}
		var fs [][]float64
		var ss []metric.Stats
		for k, v := range fb.Vectors {
			row := make([]float64, len(ids))
			for j, id := range ids {
				row[j] = v.At(id)
			}
			fs = append(fs, row)
			ints := make([]int, len(sb.Stats[k]))
			for j, x := range sb.Stats[k] {
				ints[j] = int(x)
			}
			st, err := metric.FromMoses(ints)
			if err != nil {
				t.Fatal(err)
			}
			ss = append(ss, st)
		}
		feats = append(feats, fs)
		stats = append(stats, ss)
	}
	if len(feats) != 10 {
		t.Fatalf("%d sentences in mert-basic, want 10", len(feats))
	}
	return feats, stats
}
