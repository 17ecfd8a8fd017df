package pipelines

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadNBests feeds arbitrary bytes to the reader of batch mode's
// n-best files: no panic, and what it accepts re-encodes to lists that
// read back equal.
func FuzzReadNBests(f *testing.F) {
	f.Add([]byte(`{"Sent":7,"Names":["LM0_0","pp_we~nous"],"Hyps":[{"Target":"we","Features":{"IDs":[0,1],"Vals":[-40,1]},"Stats":{"order":4,"matches":[1,0,0,0,0,0],"totals":[1,0,0,0,0,0],"ref_len":1}}]}` + "\n"))
	f.Add([]byte("{}\n{\"Sent\":1}\n"))
	f.Add([]byte(`{"Sent":1,"Names":["a"],"Hyps":[{"Features":{"IDs":[3],"Vals":[1]}}]}`))
	f.Add([]byte("{\"Sent\":"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		dir := t.TempDir()
		p := filepath.Join(dir, "nbest.jsonl")
		if err := os.WriteFile(p, data, 0o666); err != nil {
			t.Fatal(err)
		}
		got, err := readNBests(ctx, p)
		if err != nil {
			return
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		for _, n := range got {
			if err := enc.Encode(n); err != nil {
				t.Fatal(err)
			}
		}
		q := filepath.Join(dir, "again.jsonl")
		if err := os.WriteFile(q, b.Bytes(), 0o666); err != nil {
			t.Fatal(err)
		}
		again, err := readNBests(ctx, q)
		if err != nil {
			t.Fatalf("re-encoded lists do not read back: %v", err)
		}
		if len(again) != len(got) {
			t.Fatalf("%d lists, %d after a round trip", len(got), len(again))
		}
		for i := range got {
			x, _ := json.Marshal(got[i])
			y, _ := json.Marshal(again[i])
			if !bytes.Equal(x, y) {
				t.Fatalf("list %d: %s, after a round trip %s", i, x, y)
			}
		}
	})
}

// FuzzParseMosesConfig: the decoder's configuration string never panics,
// and what it accepts encodes back to a string that parses equal.
func FuzzParseMosesConfig(f *testing.F) {
	for _, s := range []string{"/m/moses.ini", `{"ini":"gs://b/moses.ini","sparse":["pt","lo"]}`, `{"ini":""}`, `{"ini":"a","x":1}`, "{", `{"sparse":["pt"]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseMosesConfig(s)
		if err != nil {
			return
		}
		again, err := ParseMosesConfig(c.String())
		if err != nil {
			t.Fatalf("%q: re-encoded %q does not parse: %v", s, c.String(), err)
		}
		if again.Ini != c.Ini || len(again.Sparse) != len(c.Sparse) {
			t.Fatalf("%q: %+v, then %+v", s, c, again)
		}
		for i := range c.Sparse {
			if again.Sparse[i] != c.Sparse[i] {
				t.Fatalf("%q: %+v, then %+v", s, c, again)
			}
		}
	})
}

func TestMosesConfig(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    MosesConfig
		wantErr string
	}{
		{"bare path", "gs://bucket/m/moses.ini", MosesConfig{Ini: "gs://bucket/m/moses.ini"}, ""},
		{"json with templates", `{"ini":"/m/moses.ini","sparse":["pt","lo"]}`, MosesConfig{Ini: "/m/moses.ini", Sparse: []string{"pt", "lo"}}, ""},
		{"no ini", `{"sparse":["pt"]}`, MosesConfig{}, "names no moses.ini"},
		{"unknown field", `{"ini":"a","templates":["pt"]}`, MosesConfig{}, "unknown field"},
		{"truncated", `{"ini":"a"`, MosesConfig{}, "decoder configuration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMosesConfig(tt.in)
			if tt.wantErr != "" {
				if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tt.wantErr)) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Ini != tt.want.Ini || len(got.Sparse) != len(tt.want.Sparse) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			if back, _ := ParseMosesConfig(got.String()); back.Ini != got.Ini {
				t.Fatalf("round trip: %+v", back)
			}
		})
	}
	// A configuration without templates stays the bare path, so that the
	// strings of earlier runs (and of other tools) still read.
	if s := (MosesConfig{Ini: "/m/moses.ini"}).String(); s != "/m/moses.ini" {
		t.Errorf("String() = %q", s)
	}
}
