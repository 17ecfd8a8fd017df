package model

import "math/bits"

// hashIDs returns a 64-bit hash of a word-id sequence. Sequences that
// differ only in length (a prefix) hash differently.
func hashIDs(ids []int32) uint64 {
	h := uint64(len(ids))*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	for _, id := range ids {
		h = bits.RotateLeft64((h^uint64(uint32(id)))*0xbf58476d1ce4e5b9, 29)
	}
	return fmix64(h)
}

// fmix64 is the finaliser of MurmurHash3: every input bit affects every
// output bit.
func fmix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// pairHash combines a source entry and the hash of a target phrase.
func pairHash(entry int32, tgt uint64) uint64 {
	return fmix64(tgt ^ (uint64(uint32(entry)) * 0x9e3779b97f4a7c15))
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
