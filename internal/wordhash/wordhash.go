// Package wordhash hashes word ids and sequences of them, for the hash
// tables of decoder/lm and decoder/model.
package wordhash

import "math/bits"

// IDs returns a 64-bit hash of a word-id sequence. Sequences that differ
// only in length (a prefix) hash differently.
func IDs(ids []int32) uint64 {
	h := uint64(len(ids))*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	for _, id := range ids {
		h = bits.RotateLeft64((h^uint64(uint32(id)))*0xbf58476d1ce4e5b9, 29)
	}
	return Mix(h)
}

// Pair returns a 64-bit hash of two ids, such as a context and a word.
func Pair(a, b int32) uint64 { return Mix(uint64(uint32(a))<<32 | uint64(uint32(b))) }

// Mix is the finaliser of MurmurHash3: every input bit affects every
// output bit.
func Mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
