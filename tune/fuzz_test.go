package tune

import (
	"bytes"
	"fmt"
	"maps"
	"testing"
)

// FuzzParseMosesConfig: the in-process decoder's configuration string
// round-trips (fuzzConfig).
func FuzzParseMosesConfig(f *testing.F) {
	fuzzConfig(f, ParseMosesConfig, "/m/moses.ini", `{"ini":"gs://b/moses.ini","sparse":["pt","lo"]}`, `{"ini":""}`, `{"ini":"a","x":1}`, "{",
		`{"sparse":["pt"]}`, `{"ini":"${M}/moses.ini","env":{"M":"/models"}}`, `{"ini":"a","filter":true,"search":"cube"}`)
}

// FuzzParseExternalConfig: the external decoder's configuration string
// round-trips (fuzzConfig).
func FuzzParseExternalConfig(f *testing.F) {
	fuzzConfig(f, ParseExternalConfig, `{"command":["moses","-v","0"],"ini":"/m/moses.ini"}`, `{"command":["sh"],"ini":"a","env":{"M":"/m"}}`,
		`{"ini":"a"}`, "{", `{"command":[],"ini":"a"} x`)
}

// fuzzConfig fuzzes the parser of a decoder's configuration string from
// seeds: it never panics, and what it accepts encodes (String) to a
// string that parses to a configuration encoding the same.
func fuzzConfig[C fmt.Stringer](f *testing.F, parse func(string) (C, error), seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parse(s)
		if err != nil {
			return
		}
		again, err := parse(c.String())
		if err != nil {
			t.Fatalf("%q: re-encoded %q does not parse: %v", s, c.String(), err)
		}
		if again.String() != c.String() {
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
