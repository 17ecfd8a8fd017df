package decodertest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mtune/mtune/feature"
)

func TestPool(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nbest")
	data := "0 ||| a b ||| F0= 1 2 ||| 0\n0 ||| a c ||| F0= 2 1 ||| 0\n0 ||| a d ||| F0= 1 2 ||| 0\n3 ||| x ||| F0= 0 1 ||| 0\n"
	if err := os.WriteFile(path, []byte(data), 0o666); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := Load(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Sentences(); len(got) != 2 || got[0] != 0 || got[1] != 3 {
		t.Errorf("sentences %v", got)
	}
	idx := p.Features()
	w := feature.Weights{}
	w.Set(idx.ID("F0_0"), 1)
	tests := []struct {
		name string
		w    feature.Weights
		n    int
		want []string
	}{
		{"F0_0 up", w, 3, []string{"a c", "a b", "a d"}},
		{"ties keep the file's order", nil, 3, []string{"a b", "a c", "a d"}},
		{"first two", nil, 2, []string{"a b", "a c"}},
		{"more than the pool", nil, 10, []string{"a b", "a c", "a d"}},
	}
	for _, tc := range tests {
		hyps, err := p.NBest(ctx, 0, "", tc.w, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hyps {
			got = append(got, h.Target)
			if h.Score != h.Features.Dot(tc.w) {
				t.Errorf("%s: score %v", tc.name, h.Score)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
				break
			}
		}
	}
	if _, err := p.NBest(ctx, 1, "", nil, 5); err == nil {
		t.Error("a sentence not in the pool: no error")
	}
	if _, err := p.NBest(ctx, 0, "", nil, 0); err == nil {
		t.Error("n = 0: no error")
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o666)
	for _, bad := range []string{empty, filepath.Join(dir, "missing"), path + "x"} {
		if _, err := Load(ctx, bad); err == nil {
			t.Errorf("Load(%s): no error", bad)
		}
	}
	os.WriteFile(path+"x", []byte("0 ||| a ||| F0= x ||| 0\n"), 0o666)
	if _, err := Load(ctx, path+"x"); err == nil {
		t.Error("a malformed line: no error")
	}
}
