package decoder

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mtune/mtune/metric"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/testsupport/shared"
)

// europarlLines returns lines [from, to] (1-based) of a europarl-fr-en file.
func europarlLines(t testing.TB, name string, from, to int) []string {
	t.Helper()
	rc, err := storage.Open(context.Background(), shared.Path(t, "europarl-fr-en", name))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(nil, 1<<20)
	var out []string
	for n := 1; sc.Scan() && n <= to; n++ {
		if n >= from {
			out = append(out, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) != to-from+1 {
		t.Fatalf("%s has %d lines in [%d, %d]", name, len(out), from, to)
	}
	return out
}

// readNBest reads an n-best list into per-sentence lists.
func readNBest(t testing.TB, path string, idx *feature.Index) map[int][]nbest.Hypothesis {
	t.Helper()
	rc, err := storage.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	r := nbest.NewReader(rc, path, idx)
	out := map[int][]nbest.Hypothesis{}
	for {
		id, hs, err := r.ReadSentence()
		if err != nil {
			break
		}
		out[id] = hs
	}
	return out
}

// europarl8k is the europarl-fr-en-8k model, loaded once for the tests
// and benchmarks of a run.
var europarl8k struct {
	once sync.Once
	m    *Model
	err  error
	load time.Duration
}

func load8k(tb testing.TB) *Model {
	tb.Helper()
	d := shared.Path(tb, "moses-models", "europarl-fr-en-8k")
	europarl8k.once.Do(func() {
		start := time.Now()
		europarl8k.m, europarl8k.err = Load(context.Background(), filepath.Join(d, "moses.ini"), LoadOptions{
			Getenv: func(name string) (string, bool) {
				if name == "MODEL_PATH" {
					return d, true
				}
				return os.LookupEnv(name)
			}})
		europarl8k.load = time.Since(start)
	})
	if europarl8k.err != nil {
		tb.Fatal(europarl8k.err)
	}
	return europarl8k.m
}

// run8k is the outcome of decoding the first n test sentences.
type run8k struct {
	n, better, same int
	bleu, mosesBLEU float64
	seconds, cpu    float64
	// scoreDiff is the mean of the 1-best's model score minus Moses'.
	scoreDiff float64
	worst     []string // sentences whose score is below Moses'
}

// decode8k decodes test lines 9001 … 9000+n of europarl-fr-en with the 8k
// model on threads goroutines and compares them with Moses' 1-best.
func decode8k(tb testing.TB, m *Model, n, threads int) run8k {
	tb.Helper()
	return decode8kWith(tb, m, n, threads, DecodeOptions{})
}

// decode8kWith is decode8k with decoding options.
func decode8kWith(tb testing.TB, m *Model, n, threads int, opts DecodeOptions) run8k {
	tb.Helper()
	d := shared.Path(tb, "moses-models", "europarl-fr-en-8k")
	src := europarlLines(tb, "fr.gz", 9001, 9000+n)
	refs := europarlLines(tb, "en.gz", 9001, 9000+n)
	moses := readLines(tb, filepath.Join(d, "expected-moses-test200.txt"))[:n]
	want := readNBest(tb, filepath.Join(d, "expected-moses-test200.scores.nbest.gz"), m.Index())
	start, cpu := time.Now(), shared.CPUTime()
	res, err := DecodeAll(context.Background(), m, src, opts, threads)
	if err != nil {
		tb.Fatal(err)
	}
	r := run8k{n: n, seconds: time.Since(start).Seconds(), cpu: (shared.CPUTime() - cpu).Seconds()}
	var mine, theirs []metric.Stats
	for i := range res {
		w := want[i][0]
		best := res[i].Best
		r.scoreDiff += (best.Score - w.Score) / float64(n)
		// Moses prints 6 significant digits.
		if best.Score >= w.Score-(1e-4+5e-6*math.Abs(w.Score)) {
			r.better++
		} else {
			r.worst = append(r.worst, fmt.Sprintf("%d: %.4f < Moses %.4f", i, best.Score, w.Score))
		}
		if best.Target == strings.TrimSpace(w.Target) {
			r.same++
		}
		ref, err := metric.NewReferenceText(4, refs[i])
		if err != nil {
			tb.Fatal(err)
		}
		mine = append(mine, ref.StatsString(best.Target))
		theirs = append(theirs, ref.StatsString(moses[i]))
	}
	r.bleu = 100 * metric.BLEUStats(metric.Sum(mine)).BLEU()
	r.mosesBLEU = 100 * metric.BLEUStats(metric.Sum(theirs)).BLEU()
	return r
}

// TestEuroparl8kSearch decodes the first 50 test sentences with Moses'
// europarl-fr-en-8k model: at least 95% of the 1-best translations must
// score at least as high as Moses' 1-best, and BLEU must be within 0.3 of
// the BLEU of Moses' translations of the same sentences.
// BenchmarkEuroparl8kDecode does all 200.
func TestEuroparl8kSearch(t *testing.T) {
	m := load8k(t)
	r := decode8k(t, m, 50, 2)
	t.Logf("%d sentences in %.1f s: score >= Moses' for %d, same translation for %d; BLEU %.2f (Moses %.2f)",
		r.n, r.seconds, r.better, r.same, r.bleu, r.mosesBLEU)
	for _, w := range r.worst {
		t.Log(w)
	}
	if r.better*100 < 95*r.n {
		t.Errorf("only %d of %d scores are at least Moses'", r.better, r.n)
	}
	if math.Abs(r.bleu-r.mosesBLEU) > 0.3 {
		t.Errorf("BLEU %.2f, Moses %.2f", r.bleu, r.mosesBLEU)
	}
}

// TestEuroparl8kNBest compares mtune's distinct 100-best lists of the first
// 20 test sentences with Moses': every target in both lists must have the
// same dense features (within 1e-3) and score.
func TestEuroparl8kNBest(t *testing.T) {
	m := load8k(t)
	d := shared.Path(t, "moses-models", "europarl-fr-en-8k")
	src := europarlLines(t, "fr.gz", 9001, 9020)
	want := readNBest(t, filepath.Join(d, "expected-moses-test20.nbest.gz"), m.Index())
	res, err := DecodeAll(context.Background(), m, src, DecodeOptions{NBest: 100}, 2)
	if err != nil {
		t.Fatal(err)
	}
	common, total, sameSize := 0, 0, 0
	worst := 0.0
	for i := range src {
		mine := map[string]*Hypothesis{}
		for k := range res[i].NBest {
			mine[res[i].NBest[k].Target] = &res[i].NBest[k]
		}
		if len(res[i].NBest) == len(want[i]) {
			sameSize++
		}
		for _, w := range want[i] {
			total++
			h := mine[strings.TrimSpace(w.Target)]
			if h == nil {
				continue
			}
			common++
			label := fmt.Sprintf("%q", w.Target)
			worst = max(worst, checkNBestEntry(t, m, i, h, w, label, 1e-4+5e-6*math.Abs(w.Score)))
		}
	}
	t.Logf("%d of Moses' %d hypotheses are in mtune's lists (%d of 20 lists have Moses' length); largest dense difference %.2g",
		common, total, sameSize, worst)
	if common*10 < total*9 {
		t.Errorf("only %d of %d hypotheses in common", common, total)
	}
}

// BenchmarkEuroparl8kLoad loads europarl-fr-en-8k (Moses: 4.6–7.6 s, 693
// MiB).
func BenchmarkEuroparl8kLoad(b *testing.B) {
	benchmarkLoad8k(b, nil)
}

// BenchmarkEuroparl8kLoadSources is BenchmarkEuroparl8kLoad with
// LoadOptions.Sources set to the 200 test sentences (lines 9001–9200), as
// "mtune decode" loads for its input; run it with -benchmem.
func BenchmarkEuroparl8kLoadSources(b *testing.B) {
	benchmarkLoad8k(b, europarlLines(b, "fr.gz", 9001, 9200))
}

// benchmarkLoad8k loads europarl-fr-en-8k with LoadOptions.Sources sources
// and reports the wall and CPU seconds of a load, the heap in use, the
// peak RSS and the phrase pairs loaded (pt-options).
func benchmarkLoad8k(b *testing.B, sources []string) {
	d := shared.Path(b, "moses-models", "europarl-fr-en-8k")
	b.Setenv("MODEL_PATH", d)
	var m *Model
	cpu := shared.CPUTime()
	start := time.Now()
	for b.Loop() {
		var err error
		m, err = Load(context.Background(), filepath.Join(d, "moses.ini"), LoadOptions{Sources: sources})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/load")
	b.ReportMetric((shared.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/load")
	b.ReportMetric(shared.LiveHeapMiB(), "heap-MiB")
	b.ReportMetric(float64(maxRSS())/(1<<20), "maxrss-MiB")
	b.ReportMetric(float64(m.Stats().Options), "pt-options")
	runtime.KeepAlive(m)
}

// BenchmarkEuroparl8kDecode decodes the 200 test sentences of Moses'
// expected output on 1 and 2 threads (Moses: 5.6 and 8.9 sentences/s) and
// reports search quality against Moses (score-ge-moses: sentences whose
// 1-best scores at least as high as Moses'; same-as-moses: identical 1-best
// strings) and BLEU (Moses 19.79).
func BenchmarkEuroparl8kDecode(b *testing.B) {
	m := load8k(b)
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			r := benchDecode8k(b, m, threads, DecodeOptions{})
			b.ReportMetric(r.mosesBLEU, "moses-BLEU")
		})
	}
}

// benchDecode8k decodes the 200 test sentences with o on threads
// goroutines b.N times and reports speed, agreement with Moses' 1-best,
// BLEU and the mean score difference; it returns the last run.
func benchDecode8k(b *testing.B, m *Model, threads int, o DecodeOptions) run8k {
	var r run8k
	var secs, cpu float64
	for b.Loop() {
		r = decode8kWith(b, m, 200, threads, o)
		secs += r.seconds
		cpu += r.cpu
	}
	b.ReportMetric(float64(r.n*b.N)/secs, "sent/s")
	b.ReportMetric(1000*cpu/float64(r.n*b.N), "cpu-ms/sent")
	b.ReportMetric(float64(r.better), "score-ge-moses")
	b.ReportMetric(float64(r.same), "same-as-moses")
	b.ReportMetric(r.bleu, "BLEU")
	b.ReportMetric(r.scoreDiff, "score-diff")
	return r
}

// cube8k are the cube pruning settings the tests and benchmarks of the 8k
// model try: Moses' default pop limit and a fifth of it.
var cube8k = []SearchOptions{
	{Algorithm: CubePruning, CubePruningPopLimit: 1000},
	{Algorithm: CubePruning, CubePruningPopLimit: 200},
}

// TestEuroparl8kCube decodes the first 50 test sentences with cube pruning:
// BLEU must be within 0.5 of Moses' (the stack search gives Moses' 1-best
// on all of them), and enough 1-best translations must score as high as
// Moses', the mean score not too far below (measured: 47 and -0.04 with
// pop limit 1000, 40 and -0.19 with 200).
func TestEuroparl8kCube(t *testing.T) {
	m := load8k(t)
	for i, want := range []struct {
		better int
		diff   float64
	}{{45, -0.1}, {35, -0.4}} {
		so := cube8k[i]
		r := decode8kWith(t, m, 50, 2, DecodeOptions{Search: so})
		t.Logf("pop limit %d: %d sentences in %.1f s: score >= Moses' for %d, same translation for %d, mean score difference %.4f; BLEU %.2f (Moses %.2f)",
			so.CubePruningPopLimit, r.n, r.seconds, r.better, r.same, r.scoreDiff, r.bleu, r.mosesBLEU)
		if r.better < want.better || r.scoreDiff < want.diff {
			t.Errorf("pop limit %d: %d of %d scores are at least Moses' (want %d), mean difference %.4f (want ≥ %g)",
				so.CubePruningPopLimit, r.better, r.n, want.better, r.scoreDiff, want.diff)
		}
		if math.Abs(r.bleu-r.mosesBLEU) > 0.5 {
			t.Errorf("pop limit %d: BLEU %.2f, Moses %.2f", so.CubePruningPopLimit, r.bleu, r.mosesBLEU)
		}
	}
	// The n-best lists of the first 10 sentences: the hypotheses Moses'
	// distinct 100-best lists share have Moses' features and scores.
	d := shared.Path(t, "moses-models", "europarl-fr-en-8k")
	want := readNBest(t, filepath.Join(d, "expected-moses-test20.nbest.gz"), m.Index())
	src := europarlLines(t, "fr.gz", 9001, 9010)
	res, err := DecodeAll(context.Background(), m, src, DecodeOptions{NBest: 100, Search: cube8k[0]}, 2)
	if err != nil {
		t.Fatal(err)
	}
	common, total := 0, 0
	for i := range src {
		mine := map[string]*Hypothesis{}
		for k := range res[i].NBest {
			h := &res[i].NBest[k]
			checkScore(t, "cube n-best", h, m.Weights())
			mine[h.Target] = h
		}
		for _, w := range want[i] {
			total++
			if h := mine[strings.TrimSpace(w.Target)]; h != nil {
				common++
				checkNBestEntry(t, m, i, h, w, fmt.Sprintf("%q", w.Target), 1e-4+5e-6*math.Abs(w.Score))
			}
		}
	}
	t.Logf("cube pruning's 100-best lists hold %d of the %d hypotheses of Moses' (stack search) lists", common, total)
	if common*10 < total*9 {
		t.Errorf("only %d of %d hypotheses in common", common, total)
	}
}

// BenchmarkEuroparl8kDecodeCube is BenchmarkEuroparl8kDecode with cube
// pruning, pop limits 1000 (Moses' default) and 200; score-diff is the
// mean model score of the 1-best minus Moses' (the stack search's).
func BenchmarkEuroparl8kDecodeCube(b *testing.B) {
	m := load8k(b)
	for _, so := range cube8k {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("pop=%d/threads=%d", so.CubePruningPopLimit, threads), func(b *testing.B) {
				benchDecode8k(b, m, threads, DecodeOptions{Search: so})
			})
		}
	}
}
