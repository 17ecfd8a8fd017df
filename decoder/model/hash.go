package model

import "github.com/mtune/mtune/internal/wordhash"

// pairHash combines a source entry and the hash of a target phrase.
func pairHash(entry int32, tgt uint64) uint64 {
	return wordhash.Mix(tgt ^ (uint64(uint32(entry)) * 0x9e3779b97f4a7c15))
}

// tableSize returns the number of slots of an open-addressing table for n
// keys: a power of two at least 2n (load ≤ 1/2), at least 16.
func tableSize(n int) int {
	s := 16
	for s < 2*n {
		s <<= 1
	}
	return s
}
