package build

import "strconv"

// lexTable holds the word translation probabilities Moses' train-model.perl
// (step 4, get_lexical) writes to lex.f2e and lex.e2f, from the counts of
// the alignment points, with id 0 (NULL) explaining unaligned words:
//
//	w(e|f) = c(f,e) / c(f)    (lex.f2e)
//	w(f|e) = c(f,e) / c(e)    (lex.e2f)
//
// where a point counts once for its pair and an unaligned word once for its
// pair with NULL. The values are rounded to 7 decimals, as the files hold
// them ("%.7f") and Moses' score reads them back.
type lexTable struct {
	idx map[uint64]int32 // pairKey(f, e) → index
	ef  []float64        // w(e|f)
	fe  []float64        // w(f|e)
}

func pairKey(f, e int32) uint64 { return uint64(uint32(f))<<32 | uint64(uint32(e)) }

func buildLex(b *bitext) *lexTable {
	t := &lexTable{idx: make(map[uint64]int32, 1<<16)}
	var cnt []int64
	totF := make([]int64, len(b.sv.words))
	totE := make([]int64, len(b.tv.words))
	add := func(f, e int32) {
		k := pairKey(f, e)
		i, ok := t.idx[k]
		if !ok {
			i = int32(len(cnt))
			t.idx[k] = i
			cnt = append(cnt, 0)
		}
		cnt[i]++
		totF[f]++
		totE[e]++
	}
	var alignedF []bool
	for s := range b.len() {
		fs, es := b.srcSent(s), b.tgtSent(s)
		alignedF = append(alignedF[:0], make([]bool, len(fs))...)
		for j, e := range es {
			pts := b.alignedTo(s, j)
			if len(pts) == 0 {
				add(0, e)
				continue
			}
			for _, i := range pts {
				add(fs[i], e)
				alignedF[i] = true
			}
		}
		for i, f := range fs {
			if !alignedF[i] {
				add(f, 0)
			}
		}
	}
	t.ef = make([]float64, len(cnt))
	t.fe = make([]float64, len(cnt))
	for k, i := range t.idx {
		f, e := int32(k>>32), int32(uint32(k))
		c := float64(cnt[i])
		t.ef[i] = round7(c / float64(totF[f]))
		t.fe[i] = round7(c / float64(totE[e]))
	}
	return t
}

// round7 rounds x to 7 decimals as printf("%.7f") followed by atof does.
func round7(x float64) float64 {
	var buf [32]byte
	v, err := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], x, 'f', 7, 64)), 64)
	if err != nil {
		panic(err) // unreachable: AppendFloat output always parses
	}
	return v
}

// w returns probs' entry (t.ef: w(e|f), t.fe: w(f|e)) for the pair of x
// and y, 1 for a pair never seen (as Moses' permissiveLookup). x is the
// target word and y the source word when ef is set, the other way round
// when not.
func (t *lexTable) w(probs []float64, x, y int32, ef bool) float64 {
	k := pairKey(x, y)
	if ef {
		k = pairKey(y, x)
	}
	if i, ok := t.idx[k]; ok {
		return probs[i]
	}
	return 1
}
