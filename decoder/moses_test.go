package decoder

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/testsupport/shared"
)

// mosesOutput is an expected-moses-output.txt of Moses' regression tests.
type mosesOutput struct {
	best   map[int]string
	scores map[int]float64
	nbest  map[int][]nbest.Hypothesis
}

var (
	reTrans = regexp.MustCompile(`^TRANSLATION_(\d+)=(.*)$`)
	reNBest = regexp.MustCompile(`^TRANSLATION_(\d+)_NBEST_(\d+)=(.*)$`)
	reScore = regexp.MustCompile(`^SCORE_(\d+) = (\S+)$`)
)

func readMosesOutput(t *testing.T, path string, idx *feature.Index) *mosesOutput {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := &mosesOutput{best: map[int]string{}, scores: map[int]float64{}, nbest: map[int][]nbest.Hypothesis{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := reNBest.FindStringSubmatch(line); m != nil {
			id, _ := strconv.Atoi(m[1])
			r := nbest.NewReader(strings.NewReader(m[1]+" ||| "+m[3]), path, idx)
			h, err := r.Read()
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			h.Alignment = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(h.Alignment), "|||"))
			out.nbest[id] = append(out.nbest[id], h)
		} else if m := reTrans.FindStringSubmatch(line); m != nil {
			id, _ := strconv.Atoi(m[1])
			out.best[id] = strings.TrimSpace(m[2])
		} else if m := reScore.FindStringSubmatch(line); m != nil {
			id, _ := strconv.Atoi(m[1])
			out.scores[id], _ = strconv.ParseFloat(m[2], 64)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func readLines(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

// checkNBestEntry checks mtune's hypothesis h of sentence i against
// Moses' n-best entry w: the dense features within 1e-3 and the score
// within scoreTol. label names the entry in the errors. It returns the
// largest feature difference.
func checkNBestEntry(t *testing.T, m *Model, i int, h *Hypothesis, w nbest.Hypothesis, label string, scoreTol float64) float64 {
	t.Helper()
	e := m.NBestEntry(i, h)
	diff, where := maxDenseDiff(m.Groups(), m.Index(), e.Features, w.Features)
	if diff > 1e-3 {
		t.Errorf("sentence %d %s: %s differs by %g", i, label, where, diff)
	}
	if d := math.Abs(h.Score - w.Score); d > scoreTol {
		t.Errorf("sentence %d %s: score %.4f, Moses %.4f", i, label, h.Score, w.Score)
	}
	return diff
}

// maxDenseDiff returns the largest difference between the dense features
// (groups) of a and b, and the feature where it is.
func maxDenseDiff(groups []feature.Group, idx *feature.Index, a, b feature.Vector) (float64, string) {
	worst, where := 0.0, ""
	for _, name := range feature.GroupNames(groups) {
		id, ok := idx.Lookup(name)
		if !ok {
			continue
		}
		if d := math.Abs(a.At(id) - b.At(id)); d > worst {
			worst, where = d, name
		}
	}
	return worst, where
}

func loadMosesModel(t testing.TB, dir, env string) *Model {
	t.Helper()
	d := shared.Path(t, "moses-models", dir)
	t.Setenv(env, d)
	m, err := Load(context.Background(), filepath.Join(d, "moses.ini"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestEarlyDistortion checks Moses' own early-distortion-de-en model: every
// 1-best, and the dense features of every hypothesis (target and
// segmentation) of Moses' 50-best lists that mtune's 50-best lists hold.
func TestEarlyDistortion(t *testing.T) {
	m := loadMosesModel(t, "early-distortion-de-en", "TEST_PATH")
	d := shared.Path(t, "moses-models", "early-distortion-de-en")
	want := readMosesOutput(t, filepath.Join(d, "expected-moses-output.txt"), m.Index())
	inputs := readLines(t, filepath.Join(d, "to-translate.txt"))
	cfg := m.Config()
	if cfg.NBestSize != 50 || cfg.NBestDistinct || !cfg.IncludeSegmentation || !cfg.EarlyDistortionCost {
		t.Fatalf("unexpected moses.ini settings: n-best %d distinct %v segmentation %v early %v",
			cfg.NBestSize, cfg.NBestDistinct, cfg.IncludeSegmentation, cfg.EarlyDistortionCost)
	}
	var common, total int
	worst := 0.0
	for i, in := range inputs {
		res, err := Decode(context.Background(), m, in, DecodeOptions{NBest: 50, AllDerivations: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Best.Target != want.best[i] {
			t.Errorf("sentence %d: 1-best %q, Moses %q", i, res.Best.Target, want.best[i])
		}
		if d := math.Abs(res.Best.Score - want.scores[i]); d > 0.001 {
			t.Errorf("sentence %d: score %.4f, Moses %.3f", i, res.Best.Score, want.scores[i])
		}
		mine := map[string]*Hypothesis{}
		for k := range res.NBest {
			h := &res.NBest[k]
			mine[h.Target+" ||| "+h.SegmentationString()] = h
		}
		for _, w := range want.nbest[i] {
			total++
			h := mine[w.Target+" ||| "+w.Alignment]
			if h == nil {
				continue
			}
			common++
			label := strconv.Quote(w.Target) + " [" + w.Alignment + "]"
			worst = max(worst, checkNBestEntry(t, m, i, h, w, label, 1e-3))
		}
	}
	t.Logf("%d of Moses' %d n-best hypotheses are in mtune's lists; largest dense feature difference %.2g", common, total, worst)
	if common < total*9/10 {
		t.Errorf("only %d of %d hypotheses in common", common, total)
	}
}

// TestLexicalizedReordering checks Moses' lexicalized-reordering-fr-en
// model: the 1-best of at least 4 of the 5 inputs equals Moses', with the
// same model score where it does.
func TestLexicalizedReordering(t *testing.T) {
	m := loadMosesModel(t, "lexicalized-reordering-fr-en", "MODEL_PATH")
	d := shared.Path(t, "moses-models", "lexicalized-reordering-fr-en")
	want := readMosesOutput(t, filepath.Join(d, "expected-moses-output.txt"), m.Index())
	inputs := readLines(t, filepath.Join(d, "to-translate.txt"))
	same := 0
	worst := 0.0
	for i, in := range inputs {
		res, err := Decode(context.Background(), m, in, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		id := i + 1 // Moses numbers these from 1
		if res.Best.Target != want.best[id] {
			t.Logf("sentence %d: 1-best %q (%.3f), Moses %q (%.3f)", id, res.Best.Target, res.Best.Score, want.best[id], want.scores[id])
			continue
		}
		same++
		d := math.Abs(res.Best.Score - want.scores[id])
		worst = max(worst, d)
		if d > 0.01 {
			t.Errorf("sentence %d: score %.4f, Moses %.3f", id, res.Best.Score, want.scores[id])
		}
	}
	t.Logf("%d of %d 1-best translations equal Moses'; largest score difference %.2g", same, len(inputs), worst)
	if same < 4 {
		t.Errorf("only %d of %d 1-best translations equal Moses'", same, len(inputs))
	}
}
