package batch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
)

// ErrState is wrapped by the errors UnmarshalBinary returns for data that is
// not a learner state of the expected kind and version.
var ErrState = errors.New("batch: invalid learner state")

// errUninit is returned by the methods of a zero learner that was not
// restored with UnmarshalBinary.
var errUninit = errors.New("batch: learner not made by its New function nor restored by UnmarshalBinary")

// State layout: a magic string naming the learner, a version byte, then the
// fields in a fixed order. Integers are little-endian uint64, floats their
// IEEE-754 bits, slices a length then the elements, so a state restores to
// the exact same bits.

type encoder struct{ b []byte }

func newEncoder(magic string, version byte) *encoder {
	e := &encoder{b: append([]byte(magic), version)}
	return e
}

func (e *encoder) u64(x uint64)   { e.b = binary.LittleEndian.AppendUint64(e.b, x) }
func (e *encoder) int(x int)      { e.u64(uint64(int64(x))) }
func (e *encoder) f64(x float64)  { e.u64(math.Float64bits(x)) }
func (e *encoder) bool(x bool)    { e.b = append(e.b, b2u(x)) }
func (e *encoder) bytes(p []byte) { e.int(len(p)); e.b = append(e.b, p...) }

func (e *encoder) floats(x []float64) {
	e.int(len(x))
	for _, v := range x {
		e.f64(v)
	}
}

func (e *encoder) pcg(p *rand.PCG) error {
	b, err := p.MarshalBinary()
	if err != nil {
		return fmt.Errorf("batch: saving the random state: %w", err)
	}
	e.bytes(b)
	return nil
}

func b2u(x bool) byte {
	if x {
		return 1
	}
	return 0
}

type decoder struct {
	b   []byte
	err error
}

func newDecoder(data []byte, magic string, version byte) (*decoder, error) {
	if len(data) < len(magic)+1 || string(data[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: not a %q state", ErrState, magic)
	}
	if v := data[len(magic)]; v != version {
		return nil, fmt.Errorf("%w: %q state version %d, want %d", ErrState, magic, v, version)
	}
	return &decoder{b: data[len(magic)+1:]}, nil
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.err = fmt.Errorf("%w: %w", ErrState, io.ErrUnexpectedEOF)
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) u64() uint64 {
	p := d.take(8)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(p)
}

func (d *decoder) int() int     { return int(int64(d.u64())) }
func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }

func (d *decoder) bool() bool {
	p := d.take(1)
	if p == nil {
		return false
	}
	if p[0] > 1 {
		d.err = fmt.Errorf("%w: bad boolean %d", ErrState, p[0])
	}
	return p[0] == 1
}

// length reads a slice length of elements of size bytes each, checking it
// against what is left.
func (d *decoder) length(size int) int {
	n := d.int()
	if d.err == nil && (n < 0 || n > len(d.b)/size) {
		d.err = fmt.Errorf("%w: length %d exceeds the data", ErrState, n)
		return 0
	}
	return n
}

func (d *decoder) bytes() []byte { return d.take(d.length(1)) }

func (d *decoder) floats() []float64 {
	n := d.length(8)
	if d.err != nil {
		return nil
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = d.f64()
	}
	return x
}

func (d *decoder) pcg() *rand.PCG {
	b := d.bytes()
	if d.err != nil {
		return nil
	}
	p := new(rand.PCG)
	if err := p.UnmarshalBinary(b); err != nil {
		d.err = fmt.Errorf("%w: random state: %w", ErrState, err)
		return nil
	}
	return p
}

// finish returns the first error met, or an error if bytes are left over.
func (d *decoder) finish() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d trailing bytes", ErrState, len(d.b))
	}
	return d.err
}

// checkFinite records an error if x is NaN or infinite.
func (d *decoder) checkFinite(what string, x ...float64) {
	for _, v := range x {
		if d.err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			d.err = fmt.Errorf("%w: %s is %v", ErrState, what, v)
		}
	}
}
