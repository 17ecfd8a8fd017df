package linesearch

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mtune/mtune/metric"
)

// TestPacked: envelopes packed in two pieces, the pieces merged packed and
// unpacked, are the envelopes merged unpacked, and sweep to the same
// result; statistics that are not counts, or of two orders, are refused.
func TestPacked(t *testing.T) {
	for trial := range 30 {
		r := rand.New(rand.NewPCG(9, uint64(trial)))
		dims := 2 + r.IntN(3)
		lists := randomLists(r, 1+r.IntN(20), 2+r.IntN(20), dims)
		w, d := randomWeights(r, dims), randomWeights(r, dims)
		var pieces [2]Envelopes
		var all Envelopes
		cut := r.IntN(len(lists) + 1)
		for i, l := range lists {
			e, err := SentenceEnvelope(l, w, d)
			if err != nil {
				t.Fatal(err)
			}
			if err := pieces[min(i/max(cut, 1), 1)].Add(e); err != nil {
				t.Fatal(err)
			}
			if err := all.Add(e); err != nil {
				t.Fatal(err)
			}
		}
		var merged Packed
		for _, piece := range pieces {
			p, err := piece.Pack()
			if err != nil {
				t.Fatal(err)
			}
			if err := merged.Merge(p); err != nil {
				t.Fatal(err)
			}
		}
		got, err := merged.Unpack()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, all) {
			t.Fatalf("trial %d: unpacked %+v\nwant %+v", trial, got, all)
		}
		want, err := Sweep(all, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res, err := Sweep(got, Options{}); err != nil || res != want {
			t.Errorf("trial %d: swept %+v (%v), want %+v", trial, res, err, want)
		}
	}

	one := metric.NewBLEUStats(1, []float64{1}, []float64{2}, 2)
	scaled := one
	scaled.V[2*0] = 0.5
	if _, err := (Envelopes{First: scaled, Lists: 1}).Pack(); err == nil || !strings.Contains(err.Error(), "not a count") {
		t.Errorf("scaled statistics: error %v", err)
	}
	two := metric.NewBLEUStats(2, nil, []float64{1, 0}, 1)
	p1, _ := (Envelopes{First: one, Lists: 1}).Pack()
	p2, _ := (Envelopes{First: two, Lists: 1}).Pack()
	if err := p1.Merge(p2); err == nil {
		t.Error("orders 1 and 2 merged")
	}
	if _, err := (Packed{N: 3, First: []int64{1, 2}, Lists: 1}).Unpack(); err == nil {
		t.Error("a malformed packing unpacked")
	}
	if _, err := (Packed{N: 3, First: []int64{1}, Lists: 1}).Unpack(); err == nil {
		t.Error("a malformed packing unpacked")
	}
}
