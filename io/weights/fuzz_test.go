package weights

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/testsupport/floattest"
	"github.com/mtune/mtune/testsupport/shared"
)

// addSeeds adds the given strings and, when the shared data is here, the
// real files named.
func addSeeds(f *testing.F, seeds []string, files ...[]string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	if shared.Dir() == "" {
		return
	}
	for _, rel := range files {
		if data, err := os.ReadFile(filepath.Join(append([]string{shared.Dir()}, rel...)...)); err == nil {
			f.Add(data)
		}
	}
}

// checkParseErr fails unless err is a *ParseError (read errors are too).
func checkParseErr(t *testing.T, err error) {
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
}

func FuzzReadMoses(f *testing.F) {
	addSeeds(f, []string{
		"LM0= 0.5\nTM0= 0.2 0.2\n", "d: 1 2 lm: 3\n", "d= 1\nd= 2\n",
		"[feature]\nX name=Y\n[weight]\nY= 1 # c\n[weight-file]\n/x\n",
		"[weight-d]\n0.3\n[weight-l]\n0.5\n", "a= 1 [b= 2\n", "\ufeffa= -0\r\n", "a= 1e400\n",
	}, []string{"nbest", "europarl100", "init.weights"},
		[]string{"moses-models", "europarl-fr-en-8k", "moses.ini"},
		[]string{"moses-models", "europarl-fr-en-8k", "moses-mert.weights"})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadMoses(bytes.NewReader(data), nil)
		if err != nil {
			checkParseErr(t, err)
			return
		}
		if len(s.Groups) == 0 {
			if s.WeightFile == "" {
				t.Fatal("no groups and no error")
			}
			return
		}
		for _, style := range []Style{StyleLines, StyleINI, StyleComponents} {
			write := func(w io.Writer, s *Set) error { return WriteMoses(w, s, style) }
			roundTrip(t, fmt.Sprintf("style %d", style), s, write, ReadMoses)
		}
		jsonRoundTrip(t, s)
	})
}

func jsonRoundTrip(t *testing.T, s *Set) {
	t.Helper()
	roundTrip(t, "JSON", s, WriteJSON, ReadJSON)
}

// roundTrip fails t unless what write makes of s, read reads back as s.
func roundTrip(t *testing.T, what string, s *Set, write func(io.Writer, *Set) error, read func(io.Reader, *feature.Index) (*Set, error)) {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b, s); err != nil {
		t.Fatalf("%s: cannot write what was read: %v", what, err)
	}
	back, err := read(&b, nil)
	if err != nil {
		t.Fatalf("%s: cannot read what was written: %v\n%s", what, err, b.Bytes())
	}
	if !sameSet(back, s) {
		t.Fatalf("%s round trip: %v %v, want %v %v", what, back.Groups, back.Weights, s.Groups, s.Weights)
	}
}

func FuzzReadSparse(f *testing.F) {
	addSeeds(f, []string{"a 1\nb= -2\n", "# c\n\n x\t0.5 \r\n", "a 1\na 2\n", "\xff 1\n", "a\u00a0b 1e-310\n"})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSparse(bytes.NewReader(data), nil)
		if err != nil {
			checkParseErr(t, err)
			return
		}
		roundTrip(t, "sparse", s, WriteSparse, ReadSparse)
		jsonRoundTrip(t, s)
	})
}

func FuzzReadList(f *testing.F) {
	names := []string{"d_0", "d_1", "lm_0", "x"}
	addSeeds(f, []string{"1 2 3 4\n", "1\n2\n# c\n3 4", "1 2 3", "1 2 3 4 5", "1 2 nan 4\n"})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadList(bytes.NewReader(data), names, nil)
		if err != nil {
			checkParseErr(t, err)
			return
		}
		var b bytes.Buffer
		if err := WriteList(&b, s, names); err != nil {
			t.Fatalf("cannot write what was read: %v", err)
		}
		back, err := ReadList(&b, names, nil)
		if err != nil {
			t.Fatalf("cannot read what was written: %v\n%s", err, b.Bytes())
		}
		for _, n := range names {
			if !floattest.SameBits([]float64{back.Value(n)}, []float64{s.Value(n)}) {
				t.Fatalf("%s: %v, want %v", n, back.Value(n), s.Value(n))
			}
		}
		if !slices.Equal(s.Groups, []feature.Group{g("d", 2), g("lm", 1)}) {
			t.Fatalf("groups %v", s.Groups)
		}
	})
}

func FuzzReadJSON(f *testing.F) {
	addSeeds(f, []string{
		`{"version": 1, "dense": [{"label": "LM0", "values": [0.5, -0]}], "sparse": {"a": 1e-300}}`,
		`{"version":1,"dense":null,"sparse":{}}`,
		`{"version": 1, "sparse": {"a": 1, "a": 2}}`,
		`{"version": 1, "dense": [{"label": "a", "values": [1]}], "sparse": {"a_0": 2}}`,
		`{"version": 2}`, `{"version": 1} x`, "{\"version\": 1, \"sparse\": {\"\\u00e9\\n\": 5e-324}}",
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadJSON(bytes.NewReader(data), nil)
		if err != nil {
			checkParseErr(t, err)
			return
		}
		jsonRoundTrip(t, s)
		// Whatever a Moses file can hold must come back from it too.
		canMoses := len(s.Groups) > 0
		for _, g := range s.Groups {
			canMoses = canMoses && checkLabel(g.Label) == nil
		}
		canSparse := true
		for _, e := range s.Sparse() {
			canSparse = canSparse && checkSparseName(e.Name) == nil
		}
		if !canMoses || !canSparse {
			return
		}
		var dense, sparse bytes.Buffer
		if err := WriteMoses(&dense, s, StyleINI); err != nil {
			t.Fatal(err)
		}
		if err := WriteSparse(&sparse, s); err != nil {
			t.Fatal(err)
		}
		back, err := ReadMoses(&dense, nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, dense.Bytes())
		}
		sp, err := ReadSparse(&sparse, back.Index)
		if err != nil {
			t.Fatalf("%v\n%s", err, sparse.Bytes())
		}
		if err := back.Merge(sp); err != nil {
			t.Fatal(err)
		}
		if !sameSet(back, s) {
			t.Fatalf("Moses round trip: %v %v, want %v %v", back.Groups, back.Weights, s.Groups, s.Weights)
		}
	})
}
