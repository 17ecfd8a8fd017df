package statecodec

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"
)

type coded struct {
	u    uint64
	n    int
	f    float64
	b    bool
	s    string
	fs   []float64
	ffs  []float64
	pcg  *rand.PCG
	recs []codedRec
}

type codedRec struct {
	n  int
	fs []float64
}

func (x *coded) code(c *Coder) {
	c.U64(&x.u)
	Int(c, &x.n)
	c.F64(&x.f)
	c.Bool(&x.b)
	c.String(&x.s)
	c.F64s(&x.fs)
	c.FiniteF64s(&x.ffs)
	c.PCG(&x.pcg)
	Records(c, &x.recs, 16, func(c *Coder, r *codedRec) {
		Int(c, &r.n)
		c.F64s(&r.fs)
	})
}

// TestCoder: a Coder writes the bytes the Encoder methods it stands for
// write, and reads back what it wrote.
func TestCoder(t *testing.T) {
	x := coded{u: 1 << 63, n: -3, f: 2.5, b: true, s: "ab", fs: []float64{1}, ffs: []float64{}, pcg: rand.NewPCG(1, 2),
		recs: []codedRec{{1, []float64{3}}, {2, nil}}}
	e := NewEncoder(testMagic, testVersion)
	x.code(Writing(e))
	got, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	w := NewEncoder(testMagic, testVersion)
	w.U64(x.u)
	w.Int(x.n)
	w.F64(x.f)
	w.Bool(x.b)
	w.Bytes([]byte(x.s))
	w.F64s(x.fs)
	w.F64s(x.ffs)
	w.PCG(x.pcg)
	w.Int(len(x.recs))
	for _, r := range x.recs {
		w.Int(r.n)
		w.F64s(r.fs)
	}
	want, _ := w.Finish()
	if !bytes.Equal(got, want) {
		t.Fatalf("Coder wrote %x, want %x", got, want)
	}
	var y coded
	d := NewDecoder(got, testMagic, testVersion)
	c := Reading(d)
	y.code(c)
	if err := d.Finish(); err != nil || c.Err() != nil {
		t.Fatal(err)
	}
	x.recs[1].fs = []float64{} // F64s reads a non-nil empty slice
	if !reflect.DeepEqual(x, y) {
		t.Fatalf("read %+v, want %+v", y, x)
	}
	if Writing(e).Err() != nil {
		t.Fatal("writing Coder has an error")
	}
}
