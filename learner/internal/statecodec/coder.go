package statecodec

import "math/rand/v2"

// Coder lists a state's fields once for both directions: made by Writing
// it appends each field it is handed to an Encoder, made by Reading it
// sets each from a Decoder. A state's fields are then a single function of
// a *Coder, which saves and restores them in the same order.
type Coder struct {
	e *Encoder
	d *Decoder
}

// Writing returns a Coder that appends the fields to e.
func Writing(e *Encoder) *Coder { return &Coder{e: e} }

// Reading returns a Coder that reads the fields from d.
func Reading(d *Decoder) *Coder { return &Coder{d: d} }

// Err returns the Decoder's first error when reading, nil when writing.
func (c *Coder) Err() error {
	if c.d != nil {
		return c.d.Err()
	}
	return nil
}

// code is the one step of every field: writing, it hands *p to put;
// reading, it sets *p to what get returns.
func code[T any](c *Coder, p *T, put func(*Encoder, T), get func(*Decoder) T) {
	if c.e != nil {
		put(c.e, *p)
	} else {
		*p = get(c.d)
	}
}

// U64 writes or reads *p.
func (c *Coder) U64(p *uint64) { code(c, p, (*Encoder).U64, (*Decoder).U64) }

// F64 writes or reads *p, whatever its value.
func (c *Coder) F64(p *float64) { code(c, p, (*Encoder).F64, (*Decoder).F64) }

// Bool writes or reads *p.
func (c *Coder) Bool(p *bool) { code(c, p, (*Encoder).Bool, (*Decoder).Bool) }

// String writes or reads *p as Bytes.
func (c *Coder) String(p *string) {
	code(c, p, func(e *Encoder, s string) { e.Bytes([]byte(s)) }, func(d *Decoder) string { return string(d.Bytes()) })
}

// F64s writes or reads *p, whatever its values.
func (c *Coder) F64s(p *[]float64) { code(c, p, (*Encoder).F64s, (*Decoder).F64s) }

// FiniteF64s writes *p, or reads it with Decoder.FiniteF64s.
func (c *Coder) FiniteF64s(p *[]float64) { code(c, p, (*Encoder).F64s, (*Decoder).FiniteF64s) }

// PCG writes or reads the generator *p.
func (c *Coder) PCG(p **rand.PCG) { code(c, p, (*Encoder).PCG, (*Decoder).PCG) }

// Int writes or reads *p, an int or a type made of one, as an int64.
func Int[T ~int](c *Coder, p *T) {
	code(c, p, func(e *Encoder, x T) { e.Int(int(x)) }, func(d *Decoder) T { return T(d.Int()) })
}

// Records writes or reads the slice *p: its length, read with
// Decoder.Count(size), then each element through field. Reading appends
// to *p, stopping at the first error; no elements leave *p nil.
func Records[T any](c *Coder, p *[]T, size int, field func(c *Coder, r *T)) {
	if c.e != nil {
		c.e.Int(len(*p))
		for i := range *p {
			field(c, &(*p)[i])
		}
		return
	}
	n := c.d.Count(size)
	for i := 0; i < n && c.d.Err() == nil; i++ {
		var r T
		field(c, &r)
		*p = append(*p, r)
	}
}
