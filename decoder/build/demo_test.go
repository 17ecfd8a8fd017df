package build

import (
	"context"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/testfile"
)

// demoPoints parses a pair's alignment.
func demoPoints(t testing.TB, p DemoPair) (src, tgt []string, pts [][2]int) {
	t.Helper()
	src, tgt = strings.Fields(p.Src), strings.Fields(p.Tgt)
	for _, a := range strings.Fields(p.Align) {
		x, y, ok := strings.Cut(a, "-")
		i, err1 := strconv.Atoi(x)
		j, err2 := strconv.Atoi(y)
		if !ok || err1 != nil || err2 != nil || i < 0 || j < 0 || i >= len(src) || j >= len(tgt) {
			t.Fatalf("bad point %q in %+v", a, p)
		}
		pts = append(pts, [2]int{i, j})
	}
	return src, tgt, pts
}

func TestDemoDeterministic(t *testing.T) {
	a, b := Demo(DemoOptions{Seed: 42}), Demo(DemoOptions{Seed: 42})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different corpora")
	}
	if c := Demo(DemoOptions{Seed: 43}); reflect.DeepEqual(a.Train[:10], c.Train[:10]) {
		t.Fatal("different seeds gave the same corpus")
	}
	if len(a.Train) != 3000 || len(a.Tune) != 300 || len(a.Test) != 300 {
		t.Fatalf("sizes %d %d %d", len(a.Train), len(a.Tune), len(a.Test))
	}
	small := Demo(DemoOptions{Seed: 1, Train: 10, Tune: 2, Test: 3})
	if len(small.Train) != 10 || len(small.Tune) != 2 || len(small.Test) != 3 {
		t.Fatalf("sizes %d %d %d", len(small.Train), len(small.Tune), len(small.Test))
	}
}

// TestDemoProperties checks what makes the demo a tuning problem, for a few
// seeds: a consistent alignment, reordering, function words, multi-word
// expressions, and ambiguous words whose most frequent translation is
// often wrong in the test set, with the disambiguating word next to the
// target word but not to the source word.
func TestDemoProperties(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2} {
		t.Run("seed "+strconv.FormatUint(seed, 10), func(t *testing.T) {
			c := Demo(DemoOptions{Seed: seed})
			lex := c.Lexicon
			unaligned := map[string]bool{}
			for _, w := range lex.Unaligned {
				unaligned[w] = true
			}
			train := map[string]bool{}
			// counts[src][tgt] over the training alignment
			counts := map[string]map[string]int{}
			crossing, jumps, oneToMany, manyToOne := 0, 0, 0, 0
			for part, pairs := range map[string][]DemoPair{"train": c.Train, "tune": c.Tune, "test": c.Test} {
				for _, p := range pairs {
					if part == "train" {
						train[p.Src] = true
					} else if train[p.Src] {
						t.Fatalf("%s sentence %q is in the training part", part, p.Src)
					}
					src, tgt, pts := demoPoints(t, p)
					srcLinks, tgtLinks := make([]int, len(src)), make([]int, len(tgt))
					for _, pt := range pts {
						srcLinks[pt[0]]++
						tgtLinks[pt[1]]++
						if part == "train" {
							if counts[src[pt[0]]] == nil {
								counts[src[pt[0]]] = map[string]int{}
							}
							counts[src[pt[0]]][tgt[pt[1]]]++
						}
					}
					for i, n := range srcLinks {
						if (n == 0) != unaligned[src[i]] {
							t.Fatalf("source word %q has %d links in %+v", src[i], n, p)
						}
						if n == 2 {
							oneToMany++
						}
					}
					for j, n := range tgtLinks {
						if n == 0 {
							t.Fatalf("target word %q unaligned in %+v", tgt[j], p)
						}
						if n == 2 {
							manyToOne++
						}
					}
					crossed, maxJump := false, 0
					for _, a := range pts {
						for _, b := range pts {
							if a[0] < b[0] && a[1] > b[1] {
								crossed = true
								maxJump = max(maxJump, b[0]-a[0])
							}
						}
					}
					if crossed {
						crossing++
					}
					if maxJump >= 3 {
						jumps++
					}
				}
			}
			all := len(c.Train) + len(c.Tune) + len(c.Test)
			if crossing != all || jumps < all*9/10 {
				t.Errorf("%d of %d pairs reorder, %d over 3 words or more", crossing, all, jumps)
			}
			if oneToMany == 0 || manyToOne == 0 {
				t.Errorf("multi-word expressions: %d one-to-many, %d many-to-one links", oneToMany, manyToOne)
			}
			if len(lex.MultiWord) == 0 || len(lex.Unaligned) == 0 {
				t.Errorf("lexicon %+v", lex)
			}

			// Ambiguity: the listed translations are the only ones, the
			// first is the most frequent in training, with 55–85 %.
			for w, tr := range lex.Ambiguous {
				got := counts[w]
				if len(got) != len(tr) || got[tr[0]] <= got[tr[1]] {
					t.Errorf("%q: translations %v in training, lexicon %v", w, got, tr)
					continue
				}
				share := float64(got[tr[0]]) / float64(got[tr[0]]+got[tr[1]])
				if share < 0.55 || share > 0.85 {
					t.Errorf("%q: most frequent translation %q has %.2f of %v", w, tr[0], share, got)
				}
			}

			// In the test part the most frequent translation of an
			// ambiguous word is often wrong, and for the determiners the
			// deciding noun is usually not next to them in the source but
			// always next in the target.
			wrong, total, apart := 0, 0, 0
			for _, p := range c.Test {
				src, tgt, pts := demoPoints(t, p)
				for _, pt := range pts {
					tr, ok := lex.Ambiguous[src[pt[0]]]
					if !ok {
						continue
					}
					total++
					if tgt[pt[1]] != tr[0] {
						wrong++
					}
					if w := src[pt[0]]; w == demoDefSrc || w == demoIndefSrc {
						// the noun is target word j+1; where is it in the source?
						for _, q := range pts {
							if q[1] == pt[1]+1 && q[0] > pt[0]+1 {
								apart++
							}
						}
					}
				}
			}
			if total == 0 || float64(wrong)/float64(total) < 0.2 {
				t.Errorf("the most frequent translation is wrong for %d of %d ambiguous words in the test part", wrong, total)
			}
			dets := 0
			for _, p := range c.Test {
				for _, w := range strings.Fields(p.Src) {
					if w == demoDefSrc || w == demoIndefSrc {
						dets++
					}
				}
			}
			if float64(apart)/float64(dets) < 0.6 {
				t.Errorf("only %d of %d determiners are separated from their noun in the source", apart, dets)
			}
			t.Logf("%d ambiguous word occurrences in test, %d (%.0f%%) need the less frequent translation; %d of %d determiners apart from their noun",
				total, wrong, 100*float64(wrong)/float64(total), apart, dets)
		})
	}
}

// TestDemoBuild builds a model from the demo and checks that the phrase
// table prefers the frequent, often wrong, translation of the ambiguous
// words, and that the phrase table rarely holds a test determiner
// together with its noun.
func TestDemoBuild(t *testing.T) {
	c := Demo(DemoOptions{Seed: 5})
	f, err := c.Write(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := f.BuildOptions(filepath.Join(t.TempDir(), "model"))
	res := mustRun(t, o)
	t.Logf("demo model: %d phrase pairs from %d sentence pairs, LM n-grams %v, %.2f s", res.PhrasePairs, res.Sentences, res.NGrams, res.Seconds)
	pEF := map[[2]string]float64{}
	sources := map[string]bool{}
	for _, line := range testfile.GunzipLines(t, res.PhraseTable, -1) {
		fs := strings.Split(line, " ||| ")
		sc := strings.Fields(fs[2])
		p, _ := strconv.ParseFloat(sc[2], 64)
		pEF[[2]string{fs[0], fs[1]}] = p
		sources[fs[0]] = true
	}
	for w, tr := range c.Lexicon.Ambiguous {
		if pEF[[2]string{w, tr[0]}] <= pEF[[2]string{w, tr[1]}] {
			t.Errorf("p(%s|%s) = %v ≤ p(%s|%s) = %v", tr[0], w, pEF[[2]string{w, tr[0]}], tr[1], w, pEF[[2]string{w, tr[1]}])
		}
	}
	// Test determiners whose whole source span up to the noun is a phrase
	// of the table.
	covered, dets := 0, 0
	for _, p := range c.Test {
		src, _, pts := demoPoints(t, p)
		for _, pt := range pts {
			if w := src[pt[0]]; w != demoDefSrc && w != demoIndefSrc {
				continue
			}
			for _, q := range pts {
				if q[1] == pt[1]+1 {
					dets++
					if sources[strings.Join(src[pt[0]:q[0]+1], " ")] {
						covered++
					}
				}
			}
		}
	}
	t.Logf("%d of %d test determiners have their noun within a source phrase of the table", covered, dets)
	if float64(covered)/float64(dets) > 0.4 {
		t.Errorf("%d of %d test determiners have their noun within a source phrase of the table", covered, dets)
	}
}
