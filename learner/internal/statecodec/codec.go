package statecodec

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
)

// Encoder writes a state: NewEncoder writes the header, each method appends
// one field, and Finish returns the bytes.
type Encoder struct {
	b   []byte
	err error
}

// NewEncoder returns an Encoder whose state starts with magic and version.
func NewEncoder(magic string, version uint32) *Encoder {
	b := append([]byte(magic), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(b[len(magic):], version)
	return &Encoder{b: b}
}

// U64 appends x.
func (e *Encoder) U64(x uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, x) }

// I64 appends x.
func (e *Encoder) I64(x int64) { e.U64(uint64(x)) }

// Int appends x as an int64.
func (e *Encoder) Int(x int) { e.I64(int64(x)) }

// F64 appends the bits of x.
func (e *Encoder) F64(x float64) { e.U64(math.Float64bits(x)) }

// Bool appends x as one byte, 0 or 1.
func (e *Encoder) Bool(x bool) {
	var c byte
	if x {
		c = 1
	}
	e.b = append(e.b, c)
}

// Bytes appends the length of p, then p.
func (e *Encoder) Bytes(p []byte) {
	e.Int(len(p))
	e.b = append(e.b, p...)
}

// F64s appends the length of x, then the bits of each element.
func (e *Encoder) F64s(x []float64) {
	e.Int(len(x))
	for _, v := range x {
		e.F64(v)
	}
}

// I64s appends the length of x, then its elements.
func (e *Encoder) I64s(x []int64) {
	e.Int(len(x))
	for _, v := range x {
		e.I64(v)
	}
}

// PCG appends the state of p as Bytes.
func (e *Encoder) PCG(p *rand.PCG) {
	b, err := p.MarshalBinary()
	if err != nil && e.err == nil {
		e.err = fmt.Errorf("statecodec: saving the random state: %w", err)
	}
	e.Bytes(b)
}

// Finish returns the state, or the first error met.
func (e *Encoder) Finish() ([]byte, error) {
	if e.err != nil {
		return nil, e.err
	}
	return e.b, nil
}

// Decoder reads a state an Encoder wrote, field by field in the same order.
// Its first error sticks: every later read returns a zero value.
type Decoder struct {
	magic string
	n     int    // length of the whole input
	b     []byte // what is left of it
	err   error
}

// NewDecoder returns a Decoder of data, having checked its header: data
// must start with magic and version, or the Decoder holds an error.
func NewDecoder(data []byte, magic string, version uint32) *Decoder {
	d := &Decoder{magic: magic, n: len(data), b: data}
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		d.err = fmt.Errorf("statecodec: not a %s state", magic)
		return d
	}
	d.b = data[len(magic):]
	if p := d.take(4); p != nil {
		if v := binary.LittleEndian.Uint32(p); v != version {
			d.err = fmt.Errorf("statecodec: %s state version %d, want %d", magic, v, version)
		}
	}
	return d
}

// Check records an error, formatted as fmt.Sprintf(format, args...) does,
// unless ok or an error is already recorded. It reports whether the
// Decoder is free of errors.
func (d *Decoder) Check(ok bool, format string, args ...any) bool {
	if !ok && d.err == nil {
		d.err = fmt.Errorf("statecodec: %s state, byte %d: %s", d.magic, d.n-len(d.b), fmt.Sprintf(format, args...))
	}
	return d.err == nil
}

// Err returns the first error recorded, or nil.
func (d *Decoder) Err() error { return d.err }

// Finish returns the first error recorded, or an error if input is left
// after the last field read.
func (d *Decoder) Finish() error {
	d.Check(len(d.b) == 0, "%d bytes after the end", len(d.b))
	return d.err
}

// take returns the next n bytes, or nil (recording an error) if fewer
// remain.
func (d *Decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.err = fmt.Errorf("statecodec: %s state, byte %d: %w", d.magic, d.n-len(d.b), io.ErrUnexpectedEOF)
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

// U64 reads a uint64.
func (d *Decoder) U64() uint64 {
	p := d.take(8)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(p)
}

// I64 reads an int64.
func (d *Decoder) I64() int64 { return int64(d.U64()) }

// Int reads an int64 that must fit an int.
func (d *Decoder) Int() int {
	x := d.I64()
	if !d.Check(int64(int(x)) == x, "%d overflows int", x) {
		return 0
	}
	return int(x)
}

// F64 reads a float64, whatever its value.
func (d *Decoder) F64() float64 { return math.Float64frombits(d.U64()) }

// FiniteF64 reads a float64 that must be neither NaN nor infinite.
func (d *Decoder) FiniteF64() float64 {
	x := d.F64()
	if !d.Check(!math.IsNaN(x) && !math.IsInf(x, 0), "non-finite value %v", x) {
		return 0
	}
	return x
}

// Bool reads a byte that must be 0 or 1.
func (d *Decoder) Bool() bool {
	p := d.take(1)
	if p == nil || !d.Check(p[0] <= 1, "bool byte %d", p[0]) {
		return false
	}
	return p[0] == 1
}

// Count reads the number of items that follow, each taking at least size
// (> 0) bytes, and returns it; a count the rest of the input cannot hold
// is an error, and Count returns 0. F64s, I64s and Bytes read their
// lengths with it; a caller reads a count of its own records with it.
func (d *Decoder) Count(size int) int {
	n := d.U64()
	if !d.Check(n <= uint64(len(d.b)/size), "count %d of %d-byte items, %d bytes left", n, size, len(d.b)) {
		return 0
	}
	return int(n)
}

// Bytes reads a length and that many bytes. The result shares the input's
// memory (with its capacity cut to its length); nil on error.
func (d *Decoder) Bytes() []byte { return d.take(d.Count(1)) }

// F64s reads a count and that many float64, whatever their values. The
// result is non-nil unless there is an error.
func (d *Decoder) F64s() []float64 { return slice(d, d.F64) }

// FiniteF64s is F64s for values that must be neither NaN nor infinite.
func (d *Decoder) FiniteF64s() []float64 {
	x := d.F64s()
	for _, v := range x {
		if !d.Check(!math.IsNaN(v) && !math.IsInf(v, 0), "non-finite value %v", v) {
			return nil
		}
	}
	return x
}

// I64s reads a count and that many int64. The result is non-nil unless
// there is an error.
func (d *Decoder) I64s() []int64 { return slice(d, d.I64) }

// slice reads a count and that many 8-byte elements with read; nil on
// error.
func slice[T any](d *Decoder, read func() T) []T {
	n := d.Count(8)
	if d.err != nil {
		return nil
	}
	x := make([]T, n)
	for i := range x {
		x[i] = read()
	}
	return x
}

// PCG reads a generator state written by Encoder.PCG; nil on error.
func (d *Decoder) PCG() *rand.PCG {
	b := d.Bytes()
	if d.err != nil {
		return nil
	}
	p := new(rand.PCG)
	if err := p.UnmarshalBinary(b); err != nil {
		d.Check(false, "random state: %v", err)
		return nil
	}
	return p
}
