package nbest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
)

func TestPool(t *testing.T) {
	idx := feature.NewIndex()
	a := vec(idx, "lm_0", -1, "w_0", -2)
	b := vec(idx, "lm_0", -1, "w_0", -3)
	type add struct {
		sent   int
		target string
		v      feature.Vector
		idx    int
		added  bool
	}
	tests := []struct {
		name string
		adds []add
		want map[int]int // sentence → count
	}{
		{name: "same target and vector", adds: []add{{0, "x", a, 0, true}, {0, "x", a, 0, false}}, want: map[int]int{0: 1}},
		{name: "same vector, other target", adds: []add{{0, "x", a, 0, true}, {0, "y", a, 1, true}}, want: map[int]int{0: 2}},
		{name: "same target, other vector", adds: []add{{0, "x", a, 0, true}, {0, "x", b, 1, true}, {0, "x", b, 1, false}, {0, "x", a, 0, false}}, want: map[int]int{0: 2}},
		{name: "sentences apart", adds: []add{{5, "x", a, 0, true}, {2, "x", a, 0, true}, {5, "x", a, 0, false}, {2, "z", b, 1, true}}, want: map[int]int{2: 2, 5: 1}},
		{name: "empty vector and target", adds: []add{{0, "", feature.Vector{}, 0, true}, {0, "", feature.Vector{}, 0, false}}, want: map[int]int{0: 1}},
	}
	for _, collide := range []bool{false, true} {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/collide=%v", tc.name, collide), func(t *testing.T) {
				p := NewPool()
				if collide {
					// Every hypothesis has the same hash: equality decides.
					p.testHash = func(*Hypothesis) uint64 { return 7 }
				}
				for i, ad := range tc.adds {
					k, added := p.Add(ad.sent, Hypothesis{Sentence: ad.sent, Target: ad.target, Features: ad.v})
					if k != ad.idx || added != ad.added {
						t.Errorf("add %d: got (%d, %v), want (%d, %v)", i, k, added, ad.idx, ad.added)
					}
				}
				var sents []int
				total := 0
				for s, n := range tc.want {
					sents = append(sents, s)
					total += n
					if got := len(p.Hyps(s)); got != n {
						t.Errorf("sentence %d: %d hypotheses, want %d", s, got, n)
					}
				}
				slices.Sort(sents)
				if got := p.Sentences(); !slices.Equal(got, sents) {
					t.Errorf("sentences %v, want %v", got, sents)
				}
				if p.Len() != total {
					t.Errorf("Len %d, want %d", p.Len(), total)
				}
				if p.Hyps(99) != nil {
					t.Error("unknown sentence has hypotheses")
				}
			})
		}
	}
}

// sameVec is the equality Pool uses; the tests below simulate Moses with
// it.
func sameVec(a, b Hypothesis) bool { return a.Target == b.Target && a.Features.Equal(b.Features) }

// mosesDedup is Moses' Data::removeDuplicates on one sentence's list: a
// duplicate of an earlier item is replaced by the last item, which is then
// examined in its turn.
func mosesDedup(list []Hypothesis) []Hypothesis {
	end := len(list) - 1
	for k := 0; k <= end; k++ {
		for j := 0; j < k; j++ {
			if sameVec(list[k], list[j]) {
				list[k], list[end] = list[end], list[k]
				end--
				k--
				break
			}
		}
	}
	return list[:end+1]
}

// TestPoolMertExtractor pools Moses' five tuning iterations and compares
// the result after each with Moses' extractor output.
func TestPoolMertExtractor(t *testing.T) {
	feats, _ := extractorSections(t)
	idx := feature.NewIndex()
	pool := NewPool()
	moses := map[int][]Hypothesis{} // Moses' lists, in Moses' order
	for it := 1; it <= 5; it++ {
		data := readGz(t, "nbest", "mert-extractor", fmt.Sprintf("nbest.%d.gz", it))
		hyps, _ := readAll(t, data, fmt.Sprintf("nbest.%d.gz", it), idx)
		if len(hyps) != 1000 {
			t.Fatalf("iteration %d: %d hypotheses", it, len(hyps))
		}
		added := 0
		for _, h := range hyps {
			if _, ok := pool.Add(h.Sentence, h); ok {
				added++
			}
			moses[h.Sentence] = append(moses[h.Sentence], h)
		}
		blocks := readFeatBlocks(t, feats[it-1], idx)
		var counts, wantCounts []string
		for _, blk := range blocks {
			s := blk.Sentence
			ours := pool.Hyps(s)
			counts = append(counts, fmt.Sprint(len(ours)))
			wantCounts = append(wantCounts, fmt.Sprint(len(blk.Vectors)))
			if len(ours) != len(blk.Vectors) {
				t.Errorf("iteration %d sentence %d: pool has %d hypotheses, Moses %d", it, s, len(ours), len(blk.Vectors))
				continue
			}
			// The same vectors as a multiset.
			key := func(v feature.Vector) string { return fmt.Sprint(v.IDs, v.Vals) }
			var a, b []string
			for k := range ours {
				a = append(a, key(ours[k].Features))
				b = append(b, key(blk.Vectors[k]))
			}
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Errorf("iteration %d sentence %d: pooled vectors differ from Moses'", it, s)
			}
			// In Moses' own order, simulating its duplicate removal.
			moses[s] = mosesDedup(moses[s])
			for k, h := range moses[s] {
				if !h.Features.Equal(blk.Vectors[k]) {
					t.Errorf("iteration %d sentence %d row %d: %v, Moses %v", it, s, k, h.Features, blk.Vectors[k])
					break
				}
			}
		}
		if pool.Len() != sum(wantCounts) {
			t.Errorf("iteration %d: pool holds %d, Moses %d", it, pool.Len(), sum(wantCounts))
		}
		t.Logf("iteration %d: %d new, counts %s (Moses %s)", it, added, strings.Join(counts, " "), strings.Join(wantCounts, " "))
	}
}

func sum(ss []string) int {
	n := 0
	for _, s := range ss {
		x, _ := parseUint([]byte(s))
		n += x
	}
	return n
}
