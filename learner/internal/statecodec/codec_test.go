package statecodec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const (
	testMagic   = "mtune/test"
	testVersion = 3
)

// record has a field of every kind the codec writes.
type record struct {
	u      uint64
	i      int64
	n      int
	f, ff  float64 // ff finite
	b      bool
	p      []byte
	fs     []float64
	ffs    []float64 // finite
	is     []int64
	pcg    *rand.PCG
	c0, c1 bool
}

func encode(r record) ([]byte, error) {
	e := NewEncoder(testMagic, testVersion)
	e.U64(r.u)
	e.I64(r.i)
	e.Int(r.n)
	e.F64(r.f)
	e.F64(r.ff)
	e.Bool(r.b)
	e.Bytes(r.p)
	e.F64s(r.fs)
	e.F64s(r.ffs)
	e.I64s(r.is)
	e.PCG(r.pcg)
	e.Bool(r.c0)
	e.Bool(r.c1)
	return e.Finish()
}

func decode(data []byte) (record, error) {
	d := NewDecoder(data, testMagic, testVersion)
	var r record
	r.u = d.U64()
	r.i = d.I64()
	r.n = d.Int()
	r.f = d.F64()
	r.ff = d.FiniteF64()
	r.b = d.Bool()
	r.p = d.Bytes()
	r.fs = d.F64s()
	r.ffs = d.FiniteF64s()
	r.is = d.I64s()
	r.pcg = d.PCG()
	r.c0, r.c1 = d.Bool(), d.Bool()
	return r, d.Finish()
}

func sample() record {
	return record{
		u:   math.MaxUint64,
		i:   math.MinInt64,
		n:   -7,
		f:   math.Float64frombits(0x7ff8000000000123), // a NaN with a payload
		ff:  math.Copysign(0, -1),
		b:   true,
		p:   []byte("hello\x00\xff"),
		fs:  []float64{math.Inf(-1), 1e-310, math.NaN()},
		ffs: []float64{math.MaxFloat64, -2.5},
		is:  []int64{math.MaxInt64, 0, -1},
		pcg: rand.NewPCG(11, 12),
		c1:  true,
	}
}

func mustEncode(t testing.TB, r record) []byte {
	t.Helper()
	b, err := encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLayout checks the bytes of the example in the package doc, written
// out by hand from the format's description.
func TestLayout(t *testing.T) {
	e := NewEncoder("mtune/x", 1)
	e.I64(-2)
	e.F64s([]float64{1.5})
	got, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	want := []byte("mtune/x")
	want = append(want, 1, 0, 0, 0)
	want = append(want, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	want = append(want, 1, 0, 0, 0, 0, 0, 0, 0)
	want = append(want, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f)
	if !bytes.Equal(got, want) {
		t.Errorf("got  % x\nwant % x", got, want)
	}
}

func TestRoundTrip(t *testing.T) {
	r := sample()
	data := mustEncode(t, r)
	got, err := decode(data)
	if err != nil {
		t.Fatal(err)
	}
	same := got.u == r.u && got.i == r.i && got.n == r.n &&
		math.Float64bits(got.f) == math.Float64bits(r.f) && math.Float64bits(got.ff) == math.Float64bits(r.ff) &&
		got.b == r.b && bytes.Equal(got.p, r.p) && got.c0 == r.c0 && got.c1 == r.c1 &&
		slices.Equal(bits(got.fs), bits(r.fs)) && slices.Equal(bits(got.ffs), bits(r.ffs)) && slices.Equal(got.is, r.is)
	if !same {
		t.Errorf("decoded %+v, want %+v", got, r)
	}
	// The restored generator continues the original's sequence.
	for range 5 {
		if a, b := r.pcg.Uint64(), got.pcg.Uint64(); a != b {
			t.Fatalf("generator: %d, want %d", b, a)
		}
	}
	// Empty slices decode non-nil; a nil generator state is not allowed.
	empty := mustEncode(t, record{pcg: rand.NewPCG(0, 0)})
	got, err = decode(empty)
	if err != nil {
		t.Fatal(err)
	}
	if got.p == nil || got.fs == nil || got.ffs == nil || got.is == nil {
		t.Errorf("empty slices decoded as nil: %+v", got)
	}
	if cap(got.p) != 0 {
		t.Errorf("Bytes: capacity %d past the field", cap(got.p))
	}
}

func bits(x []float64) []uint64 {
	b := make([]uint64, len(x))
	for i, v := range x {
		b[i] = math.Float64bits(v)
	}
	return b
}

// at returns data with the 8 bytes at off replaced by x.
func at(data []byte, off int, x uint64) []byte {
	b := slices.Clone(data)
	binary.LittleEndian.PutUint64(b[off:], x)
	return b
}

func TestDecodeErrors(t *testing.T) {
	good := mustEncode(t, sample())
	h := len(testMagic) + 4 // header
	// Offsets of the fields of sample(): u, i, n, f, ff at h+8k; then b.
	bOff := h + 40
	pOff := bOff + 1
	fsOff := pOff + 8 + len(sample().p)
	ffsOff := fsOff + 8 + 3*8
	pcgOff := ffsOff + 8 + 2*8 + 8 + 3*8
	version := slices.Clone(good)
	version[len(testMagic)]++
	tests := []struct {
		name string
		data []byte
		eof  bool // wraps io.ErrUnexpectedEOF
	}{
		{"empty", nil, false},
		{"magic only", []byte(testMagic), true},
		{"foreign magic", append([]byte("mtune/TEST"), good[len(testMagic):]...), false},
		{"magic prefix", []byte(testMagic[:4]), false},
		{"version", version, false},
		{"trailing byte", append(slices.Clone(good), 0), false},
		{"truncated", good[:len(good)-1], true},
		{"non-finite FiniteF64", at(good, h+32, math.Float64bits(math.Inf(1))), false},
		{"bool byte 2", append(append(slices.Clone(good[:bOff]), 2), good[bOff+1:]...), false},
		{"huge bytes length", at(good, pOff, math.MaxUint64), false},
		{"bytes length past the end", at(good, pOff, uint64(len(good))), false},
		{"huge F64s count", at(good, fsOff, 1<<60), false},
		{"negative F64s count", at(good, fsOff, uint64(1<<63)), false},
		{"NaN in FiniteF64s", at(good, ffsOff+8, math.Float64bits(math.NaN())), false},
		{"random state length", at(good, pcgOff, 19), false},
		{"random state bytes", append(append(slices.Clone(good[:pcgOff+8]), "xyz:"...), good[pcgOff+12:]...), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decode(tc.data)
			switch {
			case err == nil:
				t.Fatal("no error")
			case !strings.HasPrefix(err.Error(), "statecodec: "):
				t.Errorf("error %q lacks the package prefix", err)
			case tc.eof != errors.Is(err, io.ErrUnexpectedEOF):
				t.Errorf("error %v: wraps io.ErrUnexpectedEOF: %v, want %v", err, !tc.eof, tc.eof)
			}
		})
	}
	for n := range len(good) {
		if _, err := decode(good[:n]); err == nil {
			t.Errorf("%d of %d bytes: no error", n, len(good))
		}
	}
}

// TestSticky: after the first error every read returns a zero value and
// Finish returns that first error.
func TestSticky(t *testing.T) {
	good := mustEncode(t, sample())
	d := NewDecoder(good[:len(testMagic)+4+3], testMagic, testVersion)
	if d.Err() != nil {
		t.Fatal(d.Err())
	}
	if x := d.U64(); x != 0 || d.Err() == nil {
		t.Fatalf("U64 of 3 bytes: %d, error %v", x, d.Err())
	}
	first := d.Err()
	if d.I64() != 0 || d.Int() != 0 || d.F64() != 0 || d.FiniteF64() != 0 || d.Bool() ||
		d.Bytes() != nil || d.F64s() != nil || d.FiniteF64s() != nil || d.I64s() != nil || d.PCG() != nil || d.Count(1) != 0 {
		t.Error("a read after an error returned a value")
	}
	if d.Check(false, "later") || d.Finish() != first {
		t.Errorf("Finish: %v, want the first error %v", d.Finish(), first)
	}
}

// TestHugeCount: a corrupt count is refused before anything is allocated
// for it.
func TestHugeCount(t *testing.T) {
	e := NewEncoder(testMagic, testVersion)
	e.U64(1 << 40) // a count of 2^40 float64, 8 TiB
	data, _ := e.Finish()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d := NewDecoder(data, testMagic, testVersion)
	x := d.F64s()
	runtime.ReadMemStats(&after)
	if x != nil || d.Err() == nil {
		t.Fatalf("huge count: %d values, error %v", len(x), d.Err())
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<16 {
		t.Errorf("%d bytes allocated decoding a huge count", n)
	}
}

// FuzzDecoder: no input panics; input that decodes re-encodes to the same
// bytes, and every proper prefix of it, and it under another version or
// magic, is an error.
func FuzzDecoder(f *testing.F) {
	f.Add(mustEncode(f, sample()))
	f.Add(mustEncode(f, record{pcg: rand.NewPCG(1, 2)}))
	f.Add([]byte(testMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decode(data)
		if err != nil {
			return
		}
		again, err := encode(r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("round trip changed the state:\n% x\n% x", data, again)
		}
		for n := range len(data) {
			if _, err := decode(data[:n]); err == nil {
				t.Fatalf("prefix of %d of %d bytes decoded", n, len(data))
			}
		}
		v := slices.Clone(data)
		v[len(testMagic)] ^= 1
		if _, err := decode(v); err == nil {
			t.Fatal("another version decoded")
		}
		m := slices.Clone(data)
		m[0] ^= 0x20
		if _, err := decode(m); err == nil {
			t.Fatal("another magic decoded")
		}
	})
}
