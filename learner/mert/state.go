package mert

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/mtune/mtune/feature"
)

// The state format, version 1, little-endian:
//
//	"mtune/mert" 0x01
//	options: Restarts, RandomDirections (int64); Min, Max, Epsilon (float64
//	bits); MaxPasses (int64); NoNormalize (byte 0/1); Threads (int64);
//	Seed (uint64); number of Features (uint64), each an int32
//	weights: count (uint64), each float64 bits
//	generator: length (uint64), PCG's MarshalBinary
//
// The Info of the last Learn is not saved.
const (
	stateMagic   = "mtune/mert"
	stateVersion = 1
)

// ErrState is wrapped by the errors UnmarshalBinary returns for malformed
// state.
var ErrState = errors.New("mert: invalid state")

// MarshalBinary saves the weights, the options and the random generator.
func (m *MERT) MarshalBinary() ([]byte, error) {
	rng, err := m.src.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("mert: %w", err)
	}
	o := m.opts
	b := append([]byte(stateMagic), stateVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(int64(o.Restarts)))
	b = binary.LittleEndian.AppendUint64(b, uint64(int64(o.RandomDirections)))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(o.Min))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(o.Max))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(o.Epsilon))
	b = binary.LittleEndian.AppendUint64(b, uint64(int64(o.MaxPasses)))
	nn := byte(0)
	if o.NoNormalize {
		nn = 1
	}
	b = append(b, nn)
	b = binary.LittleEndian.AppendUint64(b, uint64(int64(o.Threads)))
	b = binary.LittleEndian.AppendUint64(b, o.Seed)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(o.Features)))
	for _, id := range o.Features {
		b = binary.LittleEndian.AppendUint32(b, uint32(id))
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(m.w)))
	for _, x := range m.w {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(rng)))
	return append(b, rng...), nil
}

// decoder reads the state, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.err = fmt.Errorf("%w: %w", ErrState, io.ErrUnexpectedEOF)
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) u64() uint64 {
	if b := d.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (d *decoder) int() int {
	x := int64(d.u64())
	if x != int64(int(x)) && d.err == nil {
		d.err = fmt.Errorf("%w: count %d out of range", ErrState, x)
	}
	return int(x)
}

func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }

// count reads a length of items of size bytes each, checking it against
// the bytes left.
func (d *decoder) count(size int) int {
	n := d.u64()
	if d.err == nil && n > uint64(len(d.b)/size) {
		d.err = fmt.Errorf("%w: %d items of %d bytes, %d bytes left: %w", ErrState, n, size, len(d.b), io.ErrUnexpectedEOF)
		return 0
	}
	return int(n)
}

// UnmarshalBinary restores state saved by MarshalBinary.
func (m *MERT) UnmarshalBinary(data []byte) error {
	d := &decoder{b: data}
	if magic := d.take(len(stateMagic)); d.err == nil && string(magic) != stateMagic {
		return fmt.Errorf("%w: not a MERT state", ErrState)
	}
	if v := d.take(1); d.err == nil && v[0] != stateVersion {
		return fmt.Errorf("%w: version %d, want %d", ErrState, v[0], stateVersion)
	}
	var o Options
	o.Restarts = d.int()
	o.RandomDirections = d.int()
	o.Min, o.Max, o.Epsilon = d.f64(), d.f64(), d.f64()
	o.MaxPasses = d.int()
	if nn := d.take(1); d.err == nil {
		if nn[0] > 1 {
			return fmt.Errorf("%w: flag byte %d", ErrState, nn[0])
		}
		o.NoNormalize = nn[0] == 1
	}
	o.Threads = d.int()
	o.Seed = d.u64()
	if n := d.count(4); n > 0 {
		o.Features = make([]feature.ID, n)
		for i := range o.Features {
			o.Features[i] = feature.ID(int32(binary.LittleEndian.Uint32(d.take(4))))
		}
	}
	var w feature.Weights
	if n := d.count(8); n > 0 {
		w = make(feature.Weights, n)
		for i := range w {
			w[i] = d.f64()
		}
	}
	rng := d.take(d.count(1))
	if d.err != nil {
		return d.err
	}
	if len(d.b) != 0 {
		return fmt.Errorf("%w: %d bytes after the end", ErrState, len(d.b))
	}
	if err := o.validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrState, err)
	}
	if !w.Finite() {
		return fmt.Errorf("%w: non-finite weight", ErrState)
	}
	src := &rand.PCG{}
	if err := src.UnmarshalBinary(rng); err != nil {
		return fmt.Errorf("%w: generator: %w", ErrState, err)
	}
	m.w, m.opts, m.src, m.rng, m.info = w, o, src, rand.New(src), Info{}
	return nil
}
