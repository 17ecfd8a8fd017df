package weights

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
)

// TestByNameFile: WriteByName writes JSON that ReadByName reads back bit
// for bit, with the dense layout of the names; invalid weights are refused
// and nothing is written; ReadByName reads the other formats too.
func TestByNameFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "w.json")
	ww := ByName{Names: []string{"LM0_0", "tm_0", "tm_1", "pp_a~b"}, Vals: []float64{0.1, -1e-300, 0.3, 2}}
	if err := WriteByName(ctx, path, ww); err != nil {
		t.Fatal(err)
	}
	back, err := ReadByName(ctx, path)
	if err != nil || !reflect.DeepEqual(back, ww) {
		t.Fatalf("round trip: %+v, %v; want %+v", back, err, ww)
	}
	set, err := Read(ctx, path, nil)
	if err != nil || len(set.Groups) != 2 || set.Groups[0].Label != "LM0" || set.Groups[1].Label != "tm" {
		t.Errorf("groups %v (%v), want LM0 and tm", set.Groups, err)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := WriteByName(ctx, bad, ByName{Names: []string{"a"}, Vals: []float64{math.NaN()}}); err == nil {
		t.Error("NaN weight: no error")
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a refused write left %s (%v)", bad, err)
	}

	moses := filepath.Join(dir, "moses.ini")
	if err := os.WriteFile(moses, []byte("[weight]\nLM0= 0.5\nd= 0.25 0.125\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadByName(ctx, moses)
	if want := (ByName{Names: []string{"LM0_0", "d_0", "d_1"}, Vals: []float64{0.5, 0.25, 0.125}}); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("%s: %+v, %v; want %+v", moses, got, err, want)
	}
	missing := filepath.Join(dir, "missing")
	if _, err := ReadByName(ctx, missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
}

func TestByNameNonZero(t *testing.T) {
	for _, c := range []struct {
		name string
		in   ByName
		want ByName
	}{
		{"empty", ByName{}, ByName{}},
		{"no zero", ByName{Names: []string{"b", "a"}, Vals: []float64{1, -2}}, ByName{Names: []string{"b", "a"}, Vals: []float64{1, -2}}},
		{"zeros dropped, order kept", ByName{Names: []string{"c", "z", "a", "y"}, Vals: []float64{0.5, 0, -1, math.Copysign(0, -1)}},
			ByName{Names: []string{"c", "a"}, Vals: []float64{0.5, -1}}},
		{"all zero", ByName{Names: []string{"a"}, Vals: []float64{0}}, ByName{Names: []string{}, Vals: []float64{}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.in.NonZero()
			if !slices.Equal(got.Names, c.want.Names) || !slices.Equal(got.Vals, c.want.Vals) {
				t.Fatalf("NonZero(%v) = %v, want %v", c.in, got, c.want)
			}
			// Over gives the same weights, up to trailing zeros.
			a, err := c.in.Over(feature.NewIndexOf(c.in.Names...))
			if err != nil {
				t.Fatal(err)
			}
			b, err := got.Over(feature.NewIndexOf(c.in.Names...))
			if err != nil {
				t.Fatal(err)
			}
			for i := range max(len(a), len(b)) {
				if a.At(feature.ID(i)) != b.At(feature.ID(i)) {
					t.Fatalf("Over: weight %d is %v, want %v", i, b.At(feature.ID(i)), a.At(feature.ID(i)))
				}
			}
		})
	}
}
