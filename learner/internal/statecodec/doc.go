// Package statecodec is the versioned binary format of the learners' saved
// state (learner/batch, learner/mert, learner/online): an Encoder that
// MarshalBinary fills field by field and a Decoder that UnmarshalBinary
// reads back in the same order.
//
// A state is a header, then the fields with no padding or tags:
//
//	magic     the learner's name, e.g. "mtune/online.SGD", as bytes
//	version   uint32, little-endian
//	fields    u64/i64/int  8 bytes, little-endian (int as int64)
//	          f64          8 bytes: the IEEE-754 bits, so floats restore
//	                       bit for bit (NaN payloads and -0 included)
//	          bool         1 byte, 0 or 1
//	          bytes        a u64 length, then the bytes
//	          F64s, I64s   a u64 count, then the elements
//	          PCG          bytes: math/rand/v2's PCG MarshalBinary
//
// For example the Encoder calls
//
//	e := statecodec.NewEncoder("mtune/x", 1)
//	e.I64(-2)
//	e.F64s([]float64{1.5})
//	b, err := e.Finish()
//
// give the 35 bytes
//
//	6d 74 75 6e 65 2f 78                 "mtune/x"
//	01 00 00 00                          version 1
//	fe ff ff ff ff ff ff ff              -2
//	01 00 00 00 00 00 00 00              count 1
//	00 00 00 00 00 00 f8 3f              1.5
//
// The Decoder's first error sticks: later reads return zero values, and
// Finish returns that error, so a caller reads every field, adds its own
// checks with Check and calls Finish once. Input of another magic or
// version, input cut short, a count larger than the rest of the input could
// hold (nothing is allocated for it), a bool byte other than 0 or 1, a
// non-finite value where FiniteF64 or FiniteF64s is read, an invalid PCG
// state and bytes left after the last field are all errors, never panics.
// Errors from the Decoder name the magic and the byte offset; those of
// input cut short wrap io.ErrUnexpectedEOF.
//
// The magic of one kind of state must not be a prefix of another's: the
// Decoder compares the magic as a prefix and then reads the version.
package statecodec
