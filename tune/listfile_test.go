package tune

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/metric"
)

// TestListFile: lists read back from a list file are the lists written,
// in order, bit for bit; a truncated or corrupt file is an error naming
// it, never fewer lists read without a word.
func TestListFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := metric.Stats{N: 2}
	st.V[0], st.V[1] = 3, 0.1+0.2
	lists := []NBest{
		{Sent: 7, Names: []string{"LM0", "pt_a~b"}, Hyps: []WireHyp{
			{Target: "a b", Features: feature.Vector{IDs: []feature.ID{0, 1}, Vals: []float64{-1.5e-300, 1.0 / 3}}, Stats: st, Score: -2.25, HasScore: true},
			{Target: "", Features: feature.Vector{IDs: []feature.ID{0}, Vals: []float64{4}}, Stats: st}}},
		{Sent: 9, Names: []string{"LM0"}, Hyps: []WireHyp{{Target: "é", Features: feature.Vector{IDs: []feature.ID{0}, Vals: []float64{2}}, Stats: st}}},
	}
	f, err := CreateListFile(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range lists {
		if err := f.Add(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var got []NBest
	if err := ReadListFile(ctx, f.Path(), func(n NBest) error { got = append(got, n); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, lists) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, lists)
	}
	data, err := os.ReadFile(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{"truncated": data[:len(data)-9], "corrupt": append([]byte("x"), data[1:]...), "empty": nil} {
		p := filepath.Join(dir, name+".gob.gz")
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		err := ReadListFile(ctx, p, func(NBest) error { return nil })
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s file: %v, want an error naming %s", name, err, p)
		}
	}
}
