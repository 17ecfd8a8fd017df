package mert

import (
	"context"
	"github.com/mtune/mtune/metric"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/learntest"
)

// widen adds extra synthetic dense features (ids base, base+1, …) to every
// hypothesis: informative ones (noisy unigram precision, length) and noise.
func widen(lists []pool.List, extra int, seed uint64) []pool.List {
	r := rand.New(rand.NewPCG(seed, 7))
	var base feature.ID
	for _, l := range lists {
		for _, h := range l.Hyps {
			if n := len(h.Features.IDs); n > 0 {
				base = max(base, h.Features.IDs[n-1]+1)
			}
		}
	}
	out := make([]pool.List, len(lists))
	for i, l := range lists {
		out[i] = pool.List{Sent: l.Sent, Hyps: make([]pool.Hyp, len(l.Hyps))}
		for k, h := range l.Hyps {
			var b feature.Builder
			for q, id := range h.Features.IDs {
				b.Add(id, h.Features.Vals[q])
			}
			for e := 0; e < extra; e++ {
				var x float64
				switch e % 3 {
				case 0:
					x = metric.BLEUStats(h.Stats()).Match(0)/max(1, metric.BLEUStats(h.Stats()).Total(0)) + 0.3*r.NormFloat64()
				case 1:
					x = metric.BLEUStats(h.Stats()).Total(0) + 3*r.NormFloat64()
				default:
					x = r.NormFloat64()
				}
				b.Add(base+feature.ID(e), math.Round(x*1000)/1000)
			}
			out[i].Hyps[k] = pool.NewHyp(b.Vector(), h.Stats())
		}
	}
	return out
}

// TestGapExperiment measures MERT on small high-dimensional lists
// (gapSets: europarl100; europarl100 with 6 synthetic features, two draws;
// 100 random 21-dimensional lists of 100 hypotheses) and logs the BLEU of
// each seed. Run with MTUNE_MERTGAP=1; SEEDS (at least 3), RESTARTS, NDIR
// (random directions), EPS, RMIN and RMAX set the Options. The lists were
// compared with Moses' mert through TestGapExport (issue 13).
func TestGapExperiment(t *testing.T) {
	if os.Getenv("MTUNE_MERTGAP") == "" {
		t.Skip("MTUNE_MERTGAP not set")
	}
	sets := gapSets(t)
	for _, s := range sets {
		nseeds, _ := strconv.Atoi(os.Getenv("SEEDS"))
		restarts, _ := strconv.Atoi(os.Getenv("RESTARTS"))
		ndir, _ := strconv.Atoi(os.Getenv("NDIR"))
		eps, _ := strconv.ParseFloat(os.Getenv("EPS"), 64)
		rmin, _ := strconv.ParseFloat(os.Getenv("RMIN"), 64)
		rmax, _ := strconv.ParseFloat(os.Getenv("RMAX"), 64)
		for seed := uint64(1); seed <= uint64(max(3, nseeds)); seed++ {
			m := New(s.w, Options{Seed: seed, Threads: 1, Epsilon: eps, Restarts: restarts, Min: rmin, Max: rmax, RandomDirections: ndir})
			t0 := time.Now()
			if err := m.Learn(context.Background(), s.lists); err != nil {
				t.Fatal(err)
			}
			in := m.Info()
			t.Logf("%-14s seed %d: BLEU %.4f from %.4f; best run %d, passes %d, searches %d, %v",
				s.name, seed, 100*in.BLEU, 100*BLEU(s.lists, s.w), in.BestRun, in.Passes, in.LineSearches, time.Since(t0).Round(time.Millisecond))
		}
	}
}

// writeMoses writes lists as Moses' mert reads them (features.dat,
// scores.dat, init.opt with the range [0, 1]) into dir.
func writeMoses(t *testing.T, dir string, lists []pool.List, w feature.Weights, dims int) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	var fb, sb []byte
	names := ""
	for j := 0; j < dims; j++ {
		names += " f_" + strconv.Itoa(j)
	}
	for _, l := range lists {
		fb = append(fb, "FEATURES_TXT_BEGIN_0 "+strconv.Itoa(l.Sent)+" "+strconv.Itoa(len(l.Hyps))+" "+strconv.Itoa(dims)+names+"\n"...)
		sb = append(sb, "SCORES_TXT_BEGIN_0 "+strconv.Itoa(l.Sent)+" "+strconv.Itoa(len(l.Hyps))+" 9 BLEU\n"...)
		for _, h := range l.Hyps {
			for j := 0; j < dims; j++ {
				fb = strconv.AppendFloat(fb, h.Features.At(feature.ID(j)), 'g', -1, 64)
				fb = append(fb, ' ')
			}
			fb = append(fb, '\n')
			sb = h.Stats().AppendMoses(sb)
			sb = append(sb, '\n')
		}
		fb = append(fb, "FEATURES_TXT_END_0\n"...)
		sb = append(sb, "SCORES_TXT_END_0\n"...)
	}
	var ib []byte
	for j := 0; j < dims; j++ {
		ib = strconv.AppendFloat(ib, w.At(feature.ID(j)), 'g', -1, 64)
		ib = append(ib, ' ')
	}
	ib = append(ib, '\n')
	for j := 0; j < dims; j++ {
		ib = append(ib, "0 "...)
	}
	ib = append(ib, '\n')
	for j := 0; j < dims; j++ {
		ib = append(ib, "1 "...)
	}
	ib = append(ib, '\n')
	for name, b := range map[string][]byte{"features.dat": fb, "scores.dat": sb, "init.opt": ib} {
		if err := os.WriteFile(dir+"/"+name, b, 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGapExport writes the experiment's lists for Moses' mert into
// $MTUNE_MERTGAP_OUT, and re-ranks them with every weights file found
// there (DIR/*.weights: Moses' weights.txt, one line of values).
func TestGapExport(t *testing.T) {
	out := os.Getenv("MTUNE_MERTGAP_OUT")
	if out == "" {
		t.Skip("MTUNE_MERTGAP_OUT not set")
	}
	for _, s := range gapSets(t) {
		dir := out + "/" + s.name
		dims := 21
		if s.name == "europarl100" {
			dims = 15
		}
		writeMoses(t, dir, s.lists, s.w, dims)
		files, _ := filepath.Glob(dir + "/*.weights")
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var w feature.Weights
			for _, x := range strings.Fields(string(b)) {
				v, err := strconv.ParseFloat(x, 64)
				if err != nil {
					t.Fatal(err)
				}
				w = append(w, v)
			}
			t.Logf("%s %s: re-ranked BLEU %.4f", s.name, filepath.Base(f), 100*BLEU(s.lists, w))
		}
	}
}

type gapSet struct {
	name  string
	lists []pool.List
	w     feature.Weights
}

func gapSets(t *testing.T) []gapSet {
	orig, w := loadEuroparl(t)
	sets := []gapSet{{"europarl100", orig, w}}
	for _, s := range []uint64{1, 2} {
		l := widen(orig, 6, s)
		w2 := w.Clone()
		for len(w2) < 21 {
			w2 = append(w2, 0.05)
		}
		sets = append(sets, gapSet{"ep100+6-" + string(rune('0'+s)), l, w2})
	}
	r := rand.New(rand.NewPCG(3, 3))
	dl := learntest.DenseLists(r, 100, 100, 21, false)
	dw := make(feature.Weights, 21)
	for i := range dw {
		dw[i] = 0.1
	}
	sets = append(sets, gapSet{"dense21", dl, dw})
	return sets
}

// TestHighDimensional guards MERT's strength on a small high-dimensional
// list: europarl100 with 6 synthetic features (21 dimensions, widen with
// seed 1), from init.weights and 0.05 for the new features. Moses' mert
// (mert/mert.cpp, -n 20, init.opt ranges [0, 1]) on the same list and
// start reaches 14.578 BLEU on average over seeds 1–30 (sd 0.031, 14.538
// to 14.657); mtune 14.581 (sd 0.036). The median of seeds 1–3 must not
// fall below Moses' mean less one standard deviation.
func TestHighDimensional(t *testing.T) {
	if testing.Short() {
		t.Skip("three MERT runs over 21 dimensions")
	}
	orig, w := loadEuroparl(t)
	lists := widen(orig, 6, 1)
	for len(w) < 21 {
		w = append(w, 0.05)
	}
	var got []float64
	for seed := uint64(1); seed <= 3; seed++ {
		m := New(w, Options{Seed: seed})
		if err := m.Learn(context.Background(), lists); err != nil {
			t.Fatal(err)
		}
		if m.Info().Dims != 21 {
			t.Fatalf("%d dimensions, want 21", m.Info().Dims)
		}
		got = append(got, 100*BLEU(lists, m.Weights()))
	}
	slices.Sort(got)
	t.Logf("BLEU over seeds 1-3: %.4f", got)
	if got[1] < 14.578-0.031 {
		t.Errorf("median BLEU %.4f over seeds 1-3, Moses' mert averages 14.578", got[1])
	}
}
