package build

import (
	"context"
	"fmt"
	"math"
	"sync"
)

// Orientations of the msd reordering model, as Moses' extract names them
// for the word-based (wbe) model: mono, swap, and other (discontinuous).
const (
	oriMono  = 0
	oriSwap  = 1
	oriOther = 2
)

// occ is one extracted phrase-pair occurrence: source positions
// fs..fs+fl-1 and target positions es..es+el-1 of sentence sent, and its
// orientations with respect to the previous and the next phrase
// (ori = 3*prev + next).
type occ struct {
	sent   int32
	fs, es uint16
	fl, el uint8
	ori    uint8
}

// extractScratch is a worker's reusable memory.
type extractScratch struct {
	countS  []int32 // alignedCountS
	usedF   []int32
	aligned []bool // aligned[e*F+f]
}

// extractSentence appends to dst the phrase pairs of sentence s consistent
// with the alignment, as Moses' extract (phrase-extract/extract-main.cpp)
// enumerates them: every target span of at most maxLen words that is
// aligned to something, the minimal source span covering its alignment if
// no word inside is aligned outside the target span, and every extension
// of that source span over unaligned words at its ends, within maxLen.
// Target spans are not extended: every target span is tried, so spans with
// unaligned words at their ends come out by themselves. Orientations are
// those of Moses' word-based msd model (getOrientWordModel).
func extractSentence(dst []occ, b *bitext, s, maxLen int, sc *extractScratch) []occ {
	nF := int(b.srcOff[s+1] - b.srcOff[s])
	nE := int(b.tgtOff[s+1] - b.tgtOff[s])
	if nF == 0 || nE == 0 {
		return dst // Moses skips a pair with an empty side
	}
	countS := resize(sc.countS, nF)
	usedF := resize(sc.usedF, nF)
	aligned := sc.aligned[:0]
	for range nE * nF {
		aligned = append(aligned, false)
	}
	sc.countS, sc.usedF, sc.aligned = countS, usedF, aligned
	clear(countS)
	for j := range nE {
		for _, i := range b.alignedTo(s, j) {
			countS[i]++
			aligned[j*nF+int(i)] = true
		}
	}
	// isAligned of extract-main.cpp: the corners (-1,-1) and (nF,nE) are
	// aligned, everything else outside the sentence is not.
	isAligned := func(f, e int) bool {
		switch {
		case f == -1 && e == -1:
			return true
		case f < 0 || e < 0:
			return false
		case f == nF && e == nE:
			return true
		case f >= nF || e >= nE:
			return false
		}
		return aligned[e*nF+f]
	}
	orient := func(leftTop, rightTop bool) uint8 {
		switch {
		case leftTop && !rightTop:
			return oriMono
		case !leftTop && rightTop:
			return oriSwap
		}
		return oriOther
	}
	for startE := range nE {
		copy(usedF, countS)
		minF, maxF := nF, -1
		for endE := startE; endE < nE && endE < startE+maxLen; endE++ {
			for _, i := range b.alignedTo(s, endE) {
				fi := int(i)
				minF = min(minF, fi)
				maxF = max(maxF, fi)
				usedF[fi]--
			}
			if maxF < 0 || maxF-minF >= maxLen {
				continue
			}
			outOfBounds := false
			for fi := minF; fi <= maxF; fi++ {
				if usedF[fi] > 0 {
					outOfBounds = true
					break
				}
			}
			if outOfBounds {
				continue
			}
			for startF := minF; startF >= 0 && startF > maxF-maxLen && (startF == minF || countS[startF] == 0); startF-- {
				for endF := maxF; endF < nF && endF < startF+maxLen && (endF == maxF || countS[endF] == 0); endF++ {
					prev := orient(isAligned(startF-1, startE-1), isAligned(endF+1, startE-1))
					next := orient(isAligned(endF+1, endE+1), isAligned(startF-1, endE+1))
					dst = append(dst, occ{
						sent: int32(s),
						fs:   uint16(startF), es: uint16(startE),
						fl: uint8(endF - startF + 1), el: uint8(endE - startE + 1),
						ori: 3*prev + next,
					})
				}
			}
		}
	}
	return dst
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// extractAll extracts the phrase pairs of every sentence with the given
// number of workers. The result is in sentence order.
func extractAll(ctx context.Context, b *bitext, maxLen, workers int) ([]occ, error) {
	const chunk = 128
	n := b.len()
	nChunks := (n + chunk - 1) / chunk
	parts := make([][]occ, nChunks)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			var sc extractScratch
			for c := range next {
				var out []occ
				for s := c * chunk; s < min(n, (c+1)*chunk); s++ {
					out = extractSentence(out, b, s, maxLen, &sc)
				}
				parts[c] = out
			}
		})
	}
	var err error
	for c := range nChunks {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- c
	}
	close(next)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("%d phrase-pair occurrences, more than this builder indexes (%d)", total, math.MaxInt32)
	}
	all := make([]occ, 0, total)
	for _, p := range parts {
		all = append(all, p...)
	}
	return all, nil
}
