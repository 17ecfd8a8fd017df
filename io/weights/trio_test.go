package weights

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
)

// TestWriteTrio: a set with dense groups gives weights ([weight] and Moses
// lines), weights.sparse (possibly empty) and weights.json; a set without
// groups (cdec, Joshua) gives "name value" weights and no weights.sparse;
// each file reads back to the same weights.
func TestWriteTrio(t *testing.T) {
	ctx := context.Background()
	dense := func() *Set {
		s := NewSet(nil)
		s.Groups = []feature.Group{{Label: "LM0", Len: 1}, {Label: "TM0", Len: 2}}
		s.SetValue("LM0_0", 0.5)
		s.SetValue("TM0_0", 0.25)
		s.SetValue("TM0_1", -0.125)
		return s
	}
	withSparse := dense()
	withSparse.SetValue("pp_a~b", 0.75)
	flat := NewSet(nil)
	flat.SetValue("LanguageModel", 1.5)
	flat.SetValue("tm_pt_0", -0.5)
	cases := []struct {
		name          string
		set           *Set
		moses, sparse string // "" sparse: no file
		noSparseFile  bool
		wantErr       string
	}{
		{name: "dense", set: dense(), moses: "[weight]\nLM0= 0.5\nTM0= 0.25 -0.125\n", sparse: ""},
		{name: "dense and sparse", set: withSparse, moses: "[weight]\nLM0= 0.5\nTM0= 0.25 -0.125\n", sparse: "pp_a~b 0.75\n"},
		{name: "no groups", set: flat, moses: "LanguageModel 1.5\ntm_pt_0 -0.5\n", noSparseFile: true},
		{name: "all zero", set: NewSet(nil), wantErr: "every weight is zero"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			err := WriteTrio(ctx, dir, c.set)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.HasPrefix(err.Error(), "weights: ") {
					t.Fatalf("error %v, want one with %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			read := func(name string) string {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			if got := read(TrioMoses); got != c.moses {
				t.Errorf("%s:\n%s\nwant\n%s", TrioMoses, got, c.moses)
			}
			if c.noSparseFile {
				if _, err := os.Stat(filepath.Join(dir, TrioSparse)); !os.IsNotExist(err) {
					t.Errorf("%s written for a set without groups (%v)", TrioSparse, err)
				}
			} else if got := read(TrioSparse); got != c.sparse {
				t.Errorf("%s: %q, want %q", TrioSparse, got, c.sparse)
			}
			for _, name := range []string{TrioMoses, TrioJSON} {
				back, err := Read(ctx, filepath.Join(dir, name), nil)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				want := c.set.Sparse()
				if len(c.set.Groups) > 0 {
					if name == TrioMoses {
						want = nil // the sparse weights are in weights.sparse
					}
					for _, g := range c.set.Groups {
						for i := 0; i < g.Len; i++ {
							n := feature.DenseName(g.Label, i)
							if back.Value(n) != c.set.Value(n) {
								t.Errorf("%s: %s = %v, want %v", name, n, back.Value(n), c.set.Value(n))
							}
						}
					}
				}
				for _, e := range want {
					if back.Value(e.Name) != e.Value {
						t.Errorf("%s: %s = %v, want %v", name, e.Name, back.Value(e.Name), e.Value)
					}
				}
			}
		})
	}
}
