package pipelines

import (
	"bytes"
	"maps"
	"slices"
	"testing"
)

// FuzzParseMosesConfig: the decoder's configuration string never panics,
// and what it accepts encodes back to a string that parses equal.
func FuzzParseMosesConfig(f *testing.F) {
	for _, s := range []string{"/m/moses.ini", `{"ini":"gs://b/moses.ini","sparse":["pt","lo"]}`, `{"ini":""}`, `{"ini":"a","x":1}`, "{", `{"sparse":["pt"]}`, `{"ini":"${M}/moses.ini","env":{"M":"/models"}}`} {
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
		if again.Ini != c.Ini || len(again.Sparse) != len(c.Sparse) || !maps.Equal(again.Env, c.Env) && len(c.Env)+len(again.Env) > 0 {
			t.Fatalf("%q: %+v, then %+v", s, c, again)
		}
		for i := range c.Sparse {
			if again.Sparse[i] != c.Sparse[i] {
				t.Fatalf("%q: %+v, then %+v", s, c, again)
			}
		}
	})
}

// FuzzParseExternalConfig: the external decoder's configuration string
// never panics, and what it accepts encodes back to a string that parses
// equal.
func FuzzParseExternalConfig(f *testing.F) {
	for _, s := range []string{`{"command":["moses","-v","0"],"ini":"/m/moses.ini"}`, `{"command":["sh"],"ini":"a","env":{"M":"/m"}}`, `{"ini":"a"}`, "{", `{"command":[],"ini":"a"} x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseExternalConfig(s)
		if err != nil {
			return
		}
		again, err := ParseExternalConfig(c.String())
		if err != nil {
			t.Fatalf("%q: re-encoded %q does not parse: %v", s, c.String(), err)
		}
		if again.Ini != c.Ini || !slices.Equal(again.Command, c.Command) || !maps.Equal(again.Env, c.Env) && len(c.Env)+len(again.Env) > 0 {
			t.Fatalf("%q: %+v, then %+v", s, c, again)
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
		{"json with variables", `{"ini":"/m/moses.ini","env":{"MODEL_PATH":"/m"}}`, MosesConfig{Ini: "/m/moses.ini", Env: map[string]string{"MODEL_PATH": "/m"}}, ""},
		{"no ini", `{"sparse":["pt"]}`, MosesConfig{}, "names no moses.ini"},
		{"unknown field", `{"ini":"a","templates":["pt"]}`, MosesConfig{}, "unknown field"},
		{"truncated", `{"ini":"a"`, MosesConfig{}, "decoder configuration"},
		{"text after the object", `{"ini":"a"} {"ini":"b"}`, MosesConfig{}, "text after the JSON value"},
		{"a path starting with a brace, as JSON", `{"ini":"{m}/moses.ini"}`, MosesConfig{Ini: "{m}/moses.ini"}, ""},
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
			if got.Ini != tt.want.Ini || len(got.Sparse) != len(tt.want.Sparse) || !maps.Equal(got.Env, tt.want.Env) {
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
