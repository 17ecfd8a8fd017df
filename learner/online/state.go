package online

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// ErrState reports learner state that UnmarshalBinary cannot restore:
// another learner's state, another version, or corrupt or truncated bytes.
var ErrState = errors.New("online: invalid learner state")

// The state of every learner is a versioned little-endian binary record:
//
//	magic (the learner's name, then a zero byte), version uint32,
//	then the learner's fields: uint64/int64/float64 scalars as 8 bytes
//	(floats by their IEEE bits), slices as a uint64 length and the
//	elements, the generator as its length-prefixed MarshalBinary bytes.
//
// Floats keep their exact bits, so a restored learner continues
// bit-identically.
type encoder struct{ b []byte }

func newEncoder(magic string, version uint32) *encoder {
	e := &encoder{b: append([]byte(magic), 0)}
	e.b = binary.LittleEndian.AppendUint32(e.b, version)
	return e
}

func (e *encoder) u64(x uint64)  { e.b = binary.LittleEndian.AppendUint64(e.b, x) }
func (e *encoder) i64(x int64)   { e.u64(uint64(x)) }
func (e *encoder) f64(x float64) { e.u64(math.Float64bits(x)) }

func (e *encoder) f64s(xs []float64) {
	e.u64(uint64(len(xs)))
	for _, x := range xs {
		e.f64(x)
	}
}

func (e *encoder) i64s(xs []int64) {
	e.u64(uint64(len(xs)))
	for _, x := range xs {
		e.i64(x)
	}
}

func (e *encoder) bytes(b []byte) {
	e.u64(uint64(len(b)))
	e.b = append(e.b, b...)
}

func (e *encoder) rng(p *rand.PCG) {
	b, err := p.MarshalBinary()
	if err != nil { // PCG's MarshalBinary never fails
		panic(err)
	}
	e.bytes(b)
}

// decoder reads what encoder writes; its first error sticks and every
// later read returns zero values.
type decoder struct {
	b   []byte
	err error
}

func newDecoder(data []byte, magic string, version uint32) *decoder {
	d := &decoder{b: data}
	m := append([]byte(magic), 0)
	if len(data) < len(m) || string(data[:len(m)]) != string(m) {
		d.err = fmt.Errorf("%w: not %s state", ErrState, magic)
		return d
	}
	d.b = d.b[len(m):]
	if v := uint32(d.fixed(4)); d.err == nil && v != version {
		d.err = fmt.Errorf("%w: %s state version %d, want %d", ErrState, magic, v, version)
	}
	return d
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrState}, args...)...)
	}
}

func (d *decoder) fixed(n int) uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < n {
		d.fail("truncated")
		return 0
	}
	var x uint64
	if n == 4 {
		x = uint64(binary.LittleEndian.Uint32(d.b))
	} else {
		x = binary.LittleEndian.Uint64(d.b)
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) u64() uint64 { return d.fixed(8) }
func (d *decoder) i64() int64  { return int64(d.fixed(8)) }
func (d *decoder) f64() float64 {
	x := math.Float64frombits(d.fixed(8))
	if d.err == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
		d.fail("non-finite value")
	}
	return x
}

// length reads a slice length whose elements take size bytes each,
// refusing lengths the remaining bytes cannot hold.
func (d *decoder) length(size int) int {
	n := d.u64()
	if d.err == nil && n > uint64(len(d.b)/size) {
		d.fail("length %d past the end", n)
		return 0
	}
	return int(n)
}

func (d *decoder) f64s() []float64 {
	xs := make([]float64, d.length(8))
	for i := range xs {
		xs[i] = d.f64()
	}
	return xs
}

func (d *decoder) i64s() []int64 {
	xs := make([]int64, d.length(8))
	for i := range xs {
		xs[i] = d.i64()
	}
	return xs
}

func (d *decoder) bytes() []byte {
	n := d.length(1)
	if d.err != nil {
		return nil
	}
	b := d.b[:n:n]
	d.b = d.b[n:]
	return b
}

func (d *decoder) rng() *rand.PCG {
	b := d.bytes()
	if d.err != nil {
		return nil
	}
	p := new(rand.PCG)
	if err := p.UnmarshalBinary(b); err != nil {
		d.fail("random state: %v", err)
		return nil
	}
	return p
}

// done returns the first error, or an error if bytes are left over.
func (d *decoder) done() error {
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d bytes left over", len(d.b))
	}
	return d.err
}

// check records an error unless ok.
func (d *decoder) check(ok bool, format string, args ...any) {
	if !ok {
		d.fail(format, args...)
	}
}
