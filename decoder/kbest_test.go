package decoder

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/decoder/lm"
	"github.com/mtune/mtune/feature"
)

// The straightforward n-best extraction Decode used before its buffers
// were reused and its sparse feature ids cached (commit 006dda1): every
// contender path in a fresh slice, every popped target built as a string,
// every hypothesis' feature names built and looked up anew. It is the
// oracle of TestNBestOracle.

// oracleKBest enumerates paths best first as Moses' Manager::CalcNBest does and
// returns the chosen ones, each as its hypotheses from the final one back
// to the empty one, with their scores.
func (x *searcher) oracleKBest(final []int32, count int, distinct bool) ([][]int32, []float64) {
	var paths []tpath
	var heap []heapEntry
	push := func(p tpath) {
		id := int32(len(paths))
		paths = append(paths, p)
		heap = append(heap, heapEntry{score: p.score, id: id})
		heapUp(heap, len(heap)-1)
	}
	for _, h := range final {
		push(tpath{parent: -1, edge: -1, arc: h, score: x.hyps[h].total})
	}
	limit := count * nBestFactor
	var out [][]int32
	var scores []float64
	seen := map[string]bool{}
	var buf []int32
	var sb strings.Builder
	for iter := 0; len(out) < count && len(heap) > 0 && iter < limit; iter++ {
		p := heap[0].id
		last := len(heap) - 1
		heap[0] = heap[last]
		heap = heap[:last]
		heapDown(heap, 0)
		buf = x.pathNodes(buf, paths, p)
		from := 0
		if paths[p].parent >= 0 {
			from = int(paths[p].edge) + 1
		}
		for i := from; i < len(buf); i++ {
			win := buf[i]
			for a := x.hyps[win].arcHead; a >= 0; a = x.hyps[a].arcNext {
				push(tpath{parent: p, edge: int32(i), arc: a,
					score: paths[p].score - x.hyps[win].total + x.hyps[a].total})
			}
		}
		// Moses prunes the contenders after each step; no more than the
		// remaining steps can be popped, so the contenders beyond that
		// many best ones never are: dropping them now and then changes
		// nothing.
		if rest := limit - iter - 1; len(heap) > 2*rest+1024 {
			selectBest(heap, rest)
			heap = heap[:rest]
			for i := len(heap)/2 - 1; i >= 0; i-- {
				heapDown(heap, i)
			}
		}
		if distinct {
			sb.Reset()
			x.oracleAppendTarget(&sb, buf)
			t := sb.String()
			if seen[t] {
				continue
			}
			seen[t] = true
		}
		out = append(out, slices.Clone(buf))
		scores = append(scores, paths[p].score)
	}
	return out, scores
}

// selectBest moves the k best entries of h to its front (quickselect).
func selectBest(h []heapEntry, k int) {
	lo, hi := 0, len(h)-1
	for lo < hi {
		pivot := h[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for h[i].better(pivot) {
				i++
			}
			for pivot.better(h[j]) {
				j--
			}
			if i <= j {
				h[i], h[j] = h[j], h[i]
				i++
				j--
			}
		}
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			return
		}
	}
}

// TestSelectBest checks the oracle's selection of the best contenders.
func TestSelectBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + rng.IntN(300)
		h := make([]heapEntry, n)
		for i := range h {
			h[i] = heapEntry{score: float64(rng.IntN(20)), id: int32(i)}
		}
		k := 1 + rng.IntN(n)
		sorted := slices.Clone(h)
		slices.SortFunc(sorted, func(a, b heapEntry) int {
			if a.better(b) {
				return -1
			}
			return 1
		})
		selectBest(h, k)
		got := slices.Clone(h[:k])
		slices.SortFunc(got, func(a, b heapEntry) int {
			if a.better(b) {
				return -1
			}
			return 1
		})
		if !slices.Equal(got, sorted[:k]) {
			t.Fatalf("trial %d: n %d k %d: selected %v, want %v", trial, n, k, got, sorted[:k])
		}
	}
}

// oracleAppendTarget writes the target words of the path nodes (final first).
func (x *searcher) oracleAppendTarget(sb *strings.Builder, nodes []int32) {
	first := true
	for i := len(nodes) - 1; i >= 0; i-- {
		h := &x.hyps[nodes[i]]
		if h.opt < 0 {
			continue
		}
		o := &x.st.opts[h.opt]
		for j := 0; j < int(o.tLen); j++ {
			if !first {
				sb.WriteByte(' ')
			}
			first = false
			sb.WriteString(x.targetWord(o, j))
		}
	}
}

// oracleHypothesis replays the derivation nodes (final first) and returns it as
// a Hypothesis with its features. score is the path's model score.
func (x *searcher) oracleHypothesis(nodes []int32, score float64) Hypothesis {
	m := x.m
	vals := x.denseBuf()
	off := m.denseOff
	var b feature.Builder
	var sb strings.Builder
	var out Hypothesis
	out.Score = score
	tgtPos := 0
	var lmState lm.State
	if m.lm != nil {
		lmState = m.lm.BeginSentence()
	}
	first := true
	for i := len(nodes) - 2; i >= 0; i-- {
		prev := &x.hyps[nodes[i+1]]
		h := &x.hyps[nodes[i]]
		o := &x.st.opts[h.opt]
		s, e := int(o.s), int(o.e)
		complete := x.covs.count[h.cov] == x.st.n
		if o.opt >= 0 {
			tm := off[m.fTM]
			ns := m.pt.NumScores()
			for j, v := range m.optLogs[int(o.opt)*ns : int(o.opt)*ns+ns] {
				vals[tm+j] += float64(v)
			}
		} else if m.fUWP >= 0 {
			vals[off[m.fUWP]] += -100
		}
		if m.fWP >= 0 {
			vals[off[m.fWP]] -= float64(o.tLen)
		}
		if m.fPP >= 0 {
			vals[off[m.fPP]]++
		}
		if m.fLM >= 0 {
			var next lm.State
			ctx := x.lmContext(&next, &lmState, o, complete)
			lmState = next
			vals[off[m.fLM]] += float64(o.ngram) + float64(ctx)
		}
		if m.fDist >= 0 {
			vals[off[m.fDist]] += distortion(x.early, int(prev.s), int(prev.e), x.covs.firstGap[prev.cov], s, e)
		}
		if m.fLR >= 0 {
			lr := &m.lr
			base := off[m.fLR]
			var ori int
			if prev.opt < 0 {
				ori = lr.orientFirst(s)
			} else {
				ori = lr.orient(int(prev.s), int(prev.e), s, e)
				if p := x.st.opts[prev.opt].lr; lr.fwd && p != nil {
					vals[base+lr.offF+ori] += float64(p[lr.offF+ori])
				}
			}
			if lr.back && o.lr != nil {
				vals[base+lr.offB+ori] += float64(o.lr[lr.offB+ori])
			}
		}
		if m.tmpl.any() {
			x.oracleSparseFeatures(&b, prev, h, o)
		}
		// Output: words, segment, alignment.
		for j := 0; j < int(o.tLen); j++ {
			if !first {
				sb.WriteByte(' ')
			}
			first = false
			sb.WriteString(x.targetWord(o, j))
		}
		out.Segments = append(out.Segments, Segment{SrcStart: s, SrcEnd: e,
			TgtStart: tgtPos, TgtEnd: tgtPos + int(o.tLen) - 1, Unknown: o.opt < 0})
		if o.opt >= 0 {
			al := m.pt.Alignment(o.opt)
			k0 := len(out.Alignment)
			for k := 0; k < al.Len(); k++ {
				si, ti := al.At(k)
				out.Alignment = append(out.Alignment, AlignPoint{Src: s + si, Tgt: tgtPos + ti})
			}
			pts := out.Alignment[k0:]
			slices.SortFunc(pts, func(a, b AlignPoint) int {
				if a.Src != b.Src {
					return a.Src - b.Src
				}
				return a.Tgt - b.Tgt
			})
		} else {
			out.Alignment = append(out.Alignment, AlignPoint{Src: s, Tgt: tgtPos})
		}
		tgtPos += int(o.tLen)
	}
	for fi, f := range m.feats {
		for j, id := range f.ids {
			b.Add(id, vals[off[fi]+j])
		}
	}
	out.Target = sb.String()
	out.Features = b.Vector()
	return out
}

// oracleSparseFeatures adds the sparse features of option o placed after prev.
func (x *searcher) oracleSparseFeatures(b *feature.Builder, prev, h *hyp, o *transOpt) {
	m := x.m
	ori := msdOrient(int(prev.s), int(prev.e), int(o.s), int(o.e))
	if m.tmpl.Reordering && prev.opt >= 0 {
		if p := &x.st.opts[prev.opt]; p.opt >= 0 {
			psrc := x.st.words[p.s : p.e+1]
			b.Add(m.index.ID(string(m.loName(&x.sb, psrc, p.opt, msdFwd(ori)))), 1)
		}
	}
	if o.opt < 0 {
		return
	}
	src := x.st.words[o.s : o.e+1]
	m.eachStatic(&x.sb, src, o.opt, func(name []byte) {
		b.Add(m.index.ID(string(name)), 1)
	})
	if m.tmpl.Reordering {
		cb, cm := msdBack(ori)
		b.Add(m.index.ID(string(m.loName(&x.sb, src, o.opt, cb))), 1)
		b.Add(m.index.ID(string(m.loName(&x.sb, src, o.opt, cm))), 1)
	}
}

// oracleDecode decodes sentence as Decode does, with the oracle's n-best
// extraction.
func oracleDecode(t testing.TB, m *Model, sentence string, opts DecodeOptions) Result {
	t.Helper()
	so, err := m.searchOptions(opts.Search)
	if err != nil {
		t.Fatal(err)
	}
	x := m.newSearcher()
	distinct := !opts.AllDerivations
	x.setup(strings.Fields(sentence), m.dw, so, opts.NBest, distinct)
	final, err := x.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res := Result{Stats: SearchStats{Options: len(x.st.opts), Hypotheses: len(x.hyps)}}
	res.Best = x.oracleHypothesis(x.chain(nil, final[0]), x.hyps[final[0]].total)
	if opts.NBest > 0 {
		paths, scores := x.oracleKBest(final, opts.NBest, distinct)
		for i, p := range paths {
			res.NBest = append(res.NBest, x.oracleHypothesis(p, scores[i]))
		}
	}
	return res
}

// TestNBestOracle checks that Decode's 1-best and n-best lists (targets,
// features, scores, segmentations, alignments) are those of the
// straightforward extraction on the small system with every sparse
// template on; TestNBestOracleEuroparl8k does it on 10 europarl test
// sentences.
func TestNBestOracle(t *testing.T) {
	checkOracle(t, loadSmall(t, LoadOptions{Sparse: allTemplates(t)}),
		[]string{"le chat noir dort", "le chat", "noir le chat dort", "chat inconnu noir le dort", "dort"})
}

// TestNBestOracleEuroparl8k is TestNBestOracle on lines 9001–9010 of
// europarl-fr-en with europarl-fr-en-8k and --sparse all.
func TestNBestOracleEuroparl8k(t *testing.T) {
	last := 9010
	if raceEnabled {
		// Ten sentences take two minutes under the race detector, for
		// a comparison that runs in one goroutine: two show that the
		// race detector finds nothing.
		last = 9002
	}
	src := europarlLines(t, "fr.gz", 9001, last)
	checkOracle(t, load8kSparse(t, src), src)
}

func allTemplates(t testing.TB) Templates {
	all, err := ParseTemplates("all")
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// checkOracle decodes input with m as Decode does and as the oracle does,
// with the stack search and cube pruning, the 1-best alone and n-best
// lists, distinct or of every derivation, and fails on any difference.
// Decode takes searchers from the model's pool, so most sentences are
// decoded by a searcher that decoded others before.
func checkOracle(t *testing.T, m *Model, input []string) {
	for _, search := range []SearchOptions{{Algorithm: StackSearch}, {Algorithm: CubePruning}} {
		for _, o := range []DecodeOptions{{}, {NBest: 7}, {NBest: 100}, {NBest: 100, AllDerivations: true}, {NBest: 3, AllDerivations: true}} {
			o.Search = search
			for i, s := range input {
				got, err := Decode(context.Background(), m, s, o)
				if err != nil {
					t.Fatal(err)
				}
				want := oracleDecode(t, m, s, o)
				if reflect.DeepEqual(got, want) {
					continue
				}
				t.Errorf("algorithm %d, n-best %d (all derivations %v), sentence %d: %d hypotheses, the oracle %d, or they differ",
					search.Algorithm, o.NBest, o.AllDerivations, i, len(got.NBest), len(want.NBest))
				if !reflect.DeepEqual(got.Best, want.Best) {
					t.Logf("1-best %+v\nwant %+v", got.Best, want.Best)
				}
				for k := range min(len(got.NBest), len(want.NBest)) {
					if !reflect.DeepEqual(got.NBest[k], want.NBest[k]) {
						t.Logf("first difference at %d: %+v\nwant %+v", k, got.NBest[k], want.NBest[k])
						break
					}
				}
			}
		}
	}
}

// TestKBestTies checks kbest against the oracle on random search graphs
// whose totals tie often, exactly or after rounding (totals near 2⁵³
// beside small ones, so that P.score - win.total + arc.total rounds
// different arc totals to the same score): the paths must come in the
// same order, ties broken by Moses' contender order.
func TestKBestTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// The hand-made case first: at node N, arcs A (place 0, total 0.5)
	// and B (place 1, total 1) deviate from a path of score 2⁵³ with
	// N.total 0: both score 2⁵³, and A, made first, comes first.
	x := &searcher{hyps: []hyp{
		{prev: -1, opt: -1, arcHead: -1, arcTail: -1, arcNext: -1},                // 0 root
		{total: 1 << 53, prev: 2, opt: -1, arcHead: -1, arcTail: -1, arcNext: -1}, // 1 final
		{total: 0, prev: 0, opt: -1, arcHead: 3, arcTail: 4, arcNext: -1},         // 2 N
		{total: 0.5, prev: 0, opt: -1, arcHead: -1, arcTail: -1, arcNext: 4},      // 3 A
		{total: 1, prev: 0, opt: -1, arcHead: -1, arcTail: -1, arcNext: -1},       // 4 B
	}}
	checkKBest(t, x, []int32{1}, 10)
	if got := x.kb.nodes[x.kb.out[1].start+1]; got != 3 {
		t.Errorf("second path goes through %d, want A (3)", got)
	}
	for trial := range 300 {
		x := &searcher{hyps: []hyp{{prev: -1, opt: -1, arcHead: -1, arcTail: -1, arcNext: -1}}}
		total := func() float64 {
			v := float64(rng.IntN(4)) / 2
			if rng.IntN(3) == 0 {
				v += 1 << 53
			}
			if rng.IntN(2) == 0 {
				v = -v
			}
			return v
		}
		layer := []int32{0}
		for range 2 + rng.IntN(4) {
			var next []int32
			for range 1 + rng.IntN(4) {
				id := int32(len(x.hyps))
				x.hyps = append(x.hyps, hyp{total: total(), prev: layer[rng.IntN(len(layer))], opt: -1, arcHead: -1, arcTail: -1, arcNext: -1})
				for range rng.IntN(5) {
					a := int32(len(x.hyps))
					x.hyps = append(x.hyps, hyp{total: total(), prev: layer[rng.IntN(len(layer))], opt: -1, arcHead: -1, arcTail: -1, arcNext: -1})
					x.addArc(id, a)
				}
				next = append(next, id)
			}
			layer = next
		}
		if !t.Run(fmt.Sprint(trial), func(t *testing.T) { checkKBest(t, x, layer, 1+rng.IntN(200)) }) {
			break
		}
	}
}

// checkKBest compares kbest's paths (all derivations: the targets are
// empty) with the oracle's.
func checkKBest(t *testing.T, x *searcher, final []int32, count int) {
	t.Helper()
	paths, scores := x.oracleKBest(final, count, false)
	got := x.kbest(final, count, false)
	if len(got) != len(paths) {
		t.Fatalf("%d paths, the oracle %d", len(got), len(paths))
	}
	for i, p := range got {
		nodes := x.kb.nodes[p.start:p.end]
		if !slices.Equal(nodes, paths[i]) || p.score != scores[i] {
			t.Fatalf("path %d: %v score %v, the oracle %v score %v", i, nodes, p.score, paths[i], scores[i])
		}
	}
}
