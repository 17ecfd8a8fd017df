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

// U64 writes or reads *p.
func (c *Coder) U64(p *uint64) {
	if c.e != nil {
		c.e.U64(*p)
	} else {
		*p = c.d.U64()
	}
}

// F64 writes or reads *p, whatever its value.
func (c *Coder) F64(p *float64) {
	if c.e != nil {
		c.e.F64(*p)
	} else {
		*p = c.d.F64()
	}
}

// Bool writes or reads *p.
func (c *Coder) Bool(p *bool) {
	if c.e != nil {
		c.e.Bool(*p)
	} else {
		*p = c.d.Bool()
	}
}

// String writes or reads *p as Bytes.
func (c *Coder) String(p *string) {
	if c.e != nil {
		c.e.Bytes([]byte(*p))
	} else {
		*p = string(c.d.Bytes())
	}
}

// F64s writes or reads *p, whatever its values.
func (c *Coder) F64s(p *[]float64) {
	if c.e != nil {
		c.e.F64s(*p)
	} else {
		*p = c.d.F64s()
	}
}

// FiniteF64s writes *p, or reads it with Decoder.FiniteF64s.
func (c *Coder) FiniteF64s(p *[]float64) {
	if c.e != nil {
		c.e.F64s(*p)
	} else {
		*p = c.d.FiniteF64s()
	}
}

// PCG writes or reads the generator *p.
func (c *Coder) PCG(p **rand.PCG) {
	if c.e != nil {
		c.e.PCG(*p)
	} else {
		*p = c.d.PCG()
	}
}

// Int writes or reads *p, an int or a type made of one, as an int64.
func Int[T ~int](c *Coder, p *T) {
	if c.e != nil {
		c.e.Int(int(*p))
	} else {
		*p = T(c.d.Int())
	}
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
