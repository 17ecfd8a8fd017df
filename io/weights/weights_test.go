package weights

import (
	"bytes"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/testsupport/floattest"
)

// want describes a Set: its groups with their values, and its other
// non-zero weights.
type want struct {
	groups []feature.Group
	dense  []float64 // in layout order
	sparse map[string]float64
}

func check(t *testing.T, s *Set, w want) {
	t.Helper()
	if !slices.Equal(s.Groups, w.groups) {
		t.Fatalf("groups = %v, want %v", s.Groups, w.groups)
	}
	if got := s.Dense(); !floattest.SameBits(got, w.dense) {
		t.Fatalf("dense = %v, want %v", got, w.dense)
	}
	sp := s.Sparse()
	nonZero := 0
	for _, x := range w.sparse {
		if x != 0 {
			nonZero++
		}
	}
	if len(sp) != nonZero {
		t.Fatalf("sparse = %v, want %v", sp, w.sparse)
	}
	for _, e := range sp {
		if x, ok := w.sparse[e.Name]; !ok || math.Float64bits(x) != math.Float64bits(e.Value) {
			t.Fatalf("sparse = %v, want %v", sp, w.sparse)
		}
	}
}

// sameSet reports whether a and b hold the same layout and weights, bit
// for bit (the sparse parts compared by name, zeros ignored).
func sameSet(a, b *Set) bool {
	if !slices.Equal(a.Groups, b.Groups) || !floattest.SameBits(a.Dense(), b.Dense()) {
		return false
	}
	sa, sb := a.Sparse(), b.Sparse()
	if len(sa) != len(sb) {
		return false
	}
	for i := range sa {
		if sa[i].Name != sb[i].Name || math.Float64bits(sa[i].Value) != math.Float64bits(sb[i].Value) {
			return false
		}
	}
	return true
}

func g(label string, n int) feature.Group { return feature.Group{Label: label, Len: n} }

// wantErr describes an expected *ParseError.
type wantErr struct {
	kind      error
	line, col int // 0: not checked
}

// errCase is a row of a table of inputs a reader rejects.
type errCase struct {
	name string
	in   string
	want wantErr
}

// checkErrs runs checkErr on what read makes of each case's input.
func checkErrs(t *testing.T, cases []errCase, read func(io.Reader) (*Set, error)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := read(strings.NewReader(tc.in))
			checkErr(t, err, tc.want)
		})
	}
}

func checkErr(t *testing.T, err error, w wantErr) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", w.kind)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
	if !errors.Is(err, w.kind) {
		t.Fatalf("error %v does not wrap %v", err, w.kind)
	}
	if w.line != 0 && pe.Line != w.line {
		t.Errorf("error %v: line %d, want %d", err, pe.Line, w.line)
	}
	if w.col != 0 && pe.Column != w.col {
		t.Errorf("error %v: column %d, want %d", err, pe.Column, w.col)
	}
	if !strings.HasPrefix(err.Error(), "weights: ") {
		t.Errorf("error %q does not start with the package name", err)
	}
}

func TestReadMoses(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want want
		file string // Set.WeightFile
	}{
		{
			name: "bare lines",
			in:   "LM0= 0.5\nTranslationModel0= 0.2 0.1 -0.3 4e-05\n",
			want: want{groups: []feature.Group{g("LM0", 1), g("TranslationModel0", 4)}, dense: []float64{0.5, 0.2, 0.1, -0.3, 4e-05}},
		},
		{
			name: "repeated labels continue (kbmira dense-init)",
			in:   "d= 0.3\nd= 0.4\nlm= 0.5\nd= 0.6\n",
			want: want{groups: []feature.Group{g("d", 3), g("lm", 1)}, dense: []float64{0.3, 0.4, 0.6, 0.5}},
		},
		{
			name: "old style colon labels, several on a line",
			in:   "d: 1 2 lm: 3\tw: -1\n",
			want: want{groups: []feature.Group{g("d", 2), g("lm", 1), g("w", 1)}, dense: []float64{1, 2, 3, -1}},
		},
		{
			name: "comments, blank lines, CRLF, BOM, no final newline",
			in:   "\ufeff# weights\r\n\r\n  LM0= 0.5 # the LM\r\n\t# more\r\nWordPenalty0= -1",
			want: want{groups: []feature.Group{g("LM0", 1), g("WordPenalty0", 1)}, dense: []float64{0.5, -1}},
		},
		{
			name: "moses.ini: other sections skipped",
			in: "[input-factors]\n0\n[feature]\nKENLM name=LM0 factor=0 path=lm.gz order=5\nDistortion\n" +
				"[weight]\nLM0= 0.5\nDistortion0= 0.3\n[distortion-limit]\n6\n",
			want: want{groups: []feature.Group{g("LM0", 1), g("Distortion0", 1)}, dense: []float64{0.5, 0.3}},
		},
		{
			name: "moses.ini v1 sections",
			in: "[ttable-file]\n0 0 0 5 phrase-table.gz\n[weight-d]\n0.3\n0.1\n[weight-l]\n0.5\n" +
				"[weight-t]\n0.2\n0.2\n[weight-w]\n-1\n[weight-u] \n1 # unknown words\n",
			want: want{groups: []feature.Group{g("d", 2), g("lm", 1), g("tm", 2), g("w", 1), g("u", 1)}, dense: []float64{0.3, 0.1, 0.5, 0.2, 0.2, -1, 1}},
		},
		{
			name: "weight-file",
			in:   "[weight]\nLM0= 1\n[weight-file]\n/models/sparse.weights\n",
			want: want{groups: []feature.Group{g("LM0", 1)}, dense: []float64{1}},
			file: "/models/sparse.weights",
		},
		{
			name: "numbers strconv accepts",
			in:   "a= -0 +1.5 1E3 0x1p-2 5e-324\n",
			want: want{groups: []feature.Group{g("a", 5)}, dense: []float64{math.Copysign(0, -1), 1.5, 1000, 0.25, 5e-324}},
		},
		{
			name: "label with inner colon and equals",
			in:   "a:b= 1\nx=y: 2\n",
			want: want{groups: []feature.Group{g("a:b", 1), g("x=y", 1)}, dense: []float64{1, 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ReadMoses(strings.NewReader(tc.in), nil)
			if err != nil {
				t.Fatal(err)
			}
			check(t, s, tc.want)
			if s.WeightFile != tc.file {
				t.Errorf("WeightFile = %q, want %q", s.WeightFile, tc.file)
			}
			s, err = ReadMoses(iotest.OneByteReader(strings.NewReader(tc.in)), nil)
			if err != nil {
				t.Fatalf("one byte reader: %v", err)
			}
			check(t, s, tc.want)
		})
	}
}

func TestReadMosesErrors(t *testing.T) {
	tests := []errCase{
		{"empty", "", wantErr{kind: ErrEmpty}},
		{"comments only", "# nothing\n\n", wantErr{kind: ErrEmpty}},
		{"ini without weights", "[feature]\nDistortion\n", wantErr{kind: ErrEmpty}},
		{"value before label", "LM0= 1\n 0.5 x= 1\n", wantErr{ErrSyntax, 2, 2}},
		{"glued label", "LM0=0.5\n", wantErr{ErrSyntax, 1, 1}},
		{"label without values at end of line", "LM0= 1\nTM0=\n", wantErr{ErrNoValues, 2, 1}},
		{"label followed by label", "a= b= 1\n", wantErr{ErrNoValues, 1, 1}},
		{"label without values before comment", "a= # 1\n", wantErr{ErrNoValues, 1, 1}},
		{"NaN", "a= 1 NaN\n", wantErr{ErrNumber, 1, 6}},
		{"Inf", "a= +Inf\n", wantErr{ErrNumber, 1, 4}},
		{"out of range", "a= 1e400\n", wantErr{ErrNumber, 1, 4}},
		{"garbage", "a= 0.5x\n", wantErr{ErrNumber, 1, 4}},
		{"empty label", "= 1\n", wantErr{ErrSyntax, 1, 1}},
		{"label starting with [", "a= 1 [b= 2\n", wantErr{ErrSyntax, 1, 6}},
		{"invalid UTF-8 label", "a\xff= 1\n", wantErr{ErrSyntax, 1, 1}},
		{"unclosed section", "[weight\nLM0= 1\n", wantErr{ErrSyntax, 1, 1}},
		{"weight-overwrite", "[weight-overwrite]\nLM0 0 1\n", wantErr{ErrSyntax, 1, 1}},
		{"unknown weight section", "[weight-zz]\n1\n", wantErr{ErrSyntax, 1, 1}},
		{"old section garbage", "[weight-d]\n0.3\nx\n", wantErr{ErrNumber, 3, 1}},
		{"old section NaN", "[weight-l]\n  nan\n", wantErr{ErrNumber, 2, 3}},
		{"two weight files", "[weight-file]\na\nb\n", wantErr{ErrSyntax, 3, 1}},
		{"value in skipped section is fine, then bad weight", "[feature]\nx= y\n[weight]\nLM0=\n", wantErr{ErrNoValues, 4, 1}},
	}
	checkErrs(t, tests, func(r io.Reader) (*Set, error) { return ReadMoses(r, nil) })
}

func TestReadMosesReadError(t *testing.T) {
	r := iotest.DataErrReader(iotest.TimeoutReader(strings.NewReader("LM0= 1\nTM0= 2\n")))
	_, err := ReadMoses(iotest.OneByteReader(r), nil)
	if !errors.Is(err, iotest.ErrTimeout) {
		t.Fatalf("err = %v, want %v", err, iotest.ErrTimeout)
	}
}

func TestReadSparse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]float64
	}{
		{"empty is allowed", "", map[string]float64{}},
		{"pairs", "pp_la~the 0.25\nwt_de~of\t-0.03\n", map[string]float64{"pp_la~the": 0.25, "wt_de~of": -0.03}},
		{"name=", "a= 1\nb 2\n", map[string]float64{"a": 1, "b": 2}},
		{"comments, CRLF, spaces, no final newline", "# sparse\r\n\r\n  a   1  \r\n#b 2\nc: 3", map[string]float64{"a": 1, "c:": 3}},
		{"zero kept out of Sparse", "a 0\nb 1\n", map[string]float64{"b": 1}},
		{"non-ASCII space is part of the name", "a\u00a0b 1\n", map[string]float64{"a\u00a0b": 1}},
		{"names with # inside", "a#b 1\n", map[string]float64{"a#b": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ReadSparse(iotest.OneByteReader(strings.NewReader(tc.in)), nil)
			if err != nil {
				t.Fatal(err)
			}
			check(t, s, want{sparse: tc.want})
		})
	}
}

func TestReadSparseErrors(t *testing.T) {
	tests := []errCase{
		{"one field", "a 1\nb\n", wantErr{ErrSyntax, 2, 1}},
		{"three fields", "a = 1\n", wantErr{ErrSyntax, 1, 1}},
		{"duplicate", "a 1\nb 2\na= 3\n", wantErr{ErrDuplicate, 3, 1}},
		{"NaN", "a nan\n", wantErr{ErrNumber, 1, 3}},
		{"Inf", "a -inf\n", wantErr{ErrNumber, 1, 3}},
		{"garbage", "a 1,5\n", wantErr{ErrNumber, 1, 3}},
		{"empty name", "= 1\n", wantErr{ErrSyntax, 1, 1}},
		{"invalid UTF-8", "ok 1\n\xc3( 1\n", wantErr{ErrSyntax, 2, 1}},
	}
	checkErrs(t, tests, func(r io.Reader) (*Set, error) { return ReadSparse(r, nil) })
}

func TestReadList(t *testing.T) {
	names := []string{"d_0", "d_1", "lm_0", "extra"}
	s, err := ReadList(strings.NewReader("0.1 0.2\n# comment\n0.3 -4 \n"), names, nil)
	if err != nil {
		t.Fatal(err)
	}
	check(t, s, want{groups: []feature.Group{g("d", 2), g("lm", 1)}, dense: []float64{0.1, 0.2, 0.3}, sparse: map[string]float64{"extra": -4}})

	errTests := []errCase{
		{"too few", "1 2 3\n", wantErr{kind: ErrCount}},
		{"too many", "1 2 3 4\n5\n", wantErr{ErrCount, 2, 1}},
		{"empty", "\n", wantErr{kind: ErrEmpty}},
		{"NaN", "1 2 NaN 4\n", wantErr{ErrNumber, 1, 5}},
	}
	checkErrs(t, errTests, func(r io.Reader) (*Set, error) { return ReadList(r, names, nil) })
	for _, bad := range [][]string{nil, {"a", "a"}, {""}, {"\xff"}} {
		if _, err := ReadList(strings.NewReader("1 2\n"), bad, nil); err == nil {
			t.Errorf("names %q: no error", bad)
		}
	}
}

func TestGroupsOf(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  []feature.Group
	}{
		{"mert header", strings.Fields("d_0 d_1 d_2 d_3 d_4 d_5 d_6 lm_0 tm_0 tm_1 tm_2 tm_3 tm_4 w_0"),
			[]feature.Group{g("d", 7), g("lm", 1), g("tm", 5), g("w", 1)}},
		{"interleaved", []string{"a_0", "b_0", "a_1"}, []feature.Group{g("a", 2), g("b", 1)}},
		{"gap is sparse", []string{"a_0", "a_2", "b_1"}, nil},
		{"duplicate is sparse", []string{"a_0", "a_0"}, nil},
		{"not dense names", []string{"pp_x~y", "LM0", "a_01"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := GroupsOf(tc.names); !slices.Equal(got, tc.want) {
				t.Errorf("GroupsOf = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestReadJSON(t *testing.T) {
	in := `{"version": 1,
	"dense": [{"label": "LM0", "values": [0.5]}, {"values": [-0, 1e-300, 2], "label": "TM0"}],
	"sparse": {"pp_a~b": 0.25, "LM0_1": -1, "zero": 0}}`
	s, err := ReadJSON(strings.NewReader(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	check(t, s, want{
		groups: []feature.Group{g("LM0", 1), g("TM0", 3)},
		dense:  []float64{0.5, math.Copysign(0, -1), 1e-300, 2},
		sparse: map[string]float64{"pp_a~b": 0.25, "LM0_1": -1},
	})
	for _, ok := range []string{`{"version":1}`, `{"version":1,"dense":null,"sparse":null}`, "\ufeff {\"sparse\":{},\"version\":1,\"dense\":[]}\n"} {
		if _, err := ReadJSON(strings.NewReader(ok), nil); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

func TestReadJSONErrors(t *testing.T) {
	tests := []errCase{
		{"empty", "  \n", wantErr{kind: ErrEmpty}},
		{"no version", `{"dense": []}`, wantErr{kind: ErrVersion}},
		{"version 2", `{"version": 2}`, wantErr{kind: ErrVersion}},
		{"version string", `{"version": "1"}`, wantErr{kind: ErrSyntax}},
		{"unknown key", "{\"version\": 1,\n \"weights\": {}}", wantErr{ErrSyntax, 2, 11}},
		{"duplicate key", `{"version": 1, "version": 1}`, wantErr{kind: ErrDuplicate}},
		{"duplicate label", `{"version": 1, "dense": [{"label": "a", "values": [1]}, {"label": "a", "values": [2]}]}`, wantErr{kind: ErrDuplicate}},
		{"duplicate sparse", "{\"version\": 1, \"sparse\": {\"a\": 1,\n\"a\": 2}}", wantErr{ErrDuplicate, 2, 4}},
		{"sparse equals dense", `{"version": 1, "dense": [{"label": "a", "values": [1]}], "sparse": {"a_0": 2}}`, wantErr{kind: ErrDuplicate}},
		{"no values", `{"version": 1, "dense": [{"label": "a", "values": []}]}`, wantErr{kind: ErrNoValues}},
		{"values missing", `{"version": 1, "dense": [{"label": "a"}]}`, wantErr{kind: ErrNoValues}},
		{"label missing", `{"version": 1, "dense": [{"values": [1]}]}`, wantErr{kind: ErrSyntax}},
		{"empty label", `{"version": 1, "dense": [{"label": "", "values": [1]}]}`, wantErr{kind: ErrSyntax}},
		{"empty sparse name", `{"version": 1, "sparse": {"": 1}}`, wantErr{kind: ErrSyntax}},
		{"NaN", `{"version": 1, "sparse": {"a": NaN}}`, wantErr{kind: ErrSyntax}},
		{"out of range", `{"version": 1, "sparse": {"a": 1e400}}`, wantErr{kind: ErrNumber}},
		{"string value", `{"version": 1, "sparse": {"a": "1"}}`, wantErr{kind: ErrNumber}},
		{"truncated", `{"version": 1, "sparse": {"a": 1`, wantErr{kind: ErrSyntax}},
		{"trailing data", `{"version": 1} {}`, wantErr{kind: ErrSyntax}},
		{"invalid UTF-8", "{\"version\": 1, \"sparse\": {\"a\xff\": 1}}", wantErr{ErrSyntax, 1, 29}},
		{"array", `[]`, wantErr{kind: ErrSyntax}},
	}
	checkErrs(t, tests, func(r io.Reader) (*Set, error) { return ReadJSON(r, nil) })
}

// testSet is a small Set with awkward values.
func testSet() *Set {
	s := NewSet(nil)
	b := newDenseBuilder(s)
	b.add("LM0", 0.5)
	for _, x := range []float64{0.1, math.Copysign(0, -1), 1e-300, 5e-324} {
		b.add("TranslationModel0", x)
	}
	b.add("WordPenalty0", -1)
	tenth, fifth := 0.1, 0.2 // variables: constants would fold to exactly 0.3
	s.SetValue("pp_la~the", tenth+fifth)
	s.SetValue("zz", math.MaxFloat64)
	s.SetValue("aa", -1.0/3)
	s.SetValue("zero", 0)
	return s
}

func TestWriters(t *testing.T) {
	s := testSet()
	tests := []struct {
		name  string
		write func(*bytes.Buffer) error
		want  string
	}{
		{"moses lines", func(b *bytes.Buffer) error { return WriteMoses(b, s, StyleLines) },
			"LM0= 0.5\nTranslationModel0= 0.1 -0 1e-300 5e-324\nWordPenalty0= -1\n"},
		{"moses ini", func(b *bytes.Buffer) error { return WriteMoses(b, s, StyleINI) },
			"[weight]\nLM0= 0.5\nTranslationModel0= 0.1 -0 1e-300 5e-324\nWordPenalty0= -1\n"},
		{"moses components", func(b *bytes.Buffer) error { return WriteMoses(b, s, StyleComponents) },
			"LM0= 0.5\nTranslationModel0= 0.1\nTranslationModel0= -0\nTranslationModel0= 1e-300\nTranslationModel0= 5e-324\nWordPenalty0= -1\n"},
		{"sparse", func(b *bytes.Buffer) error { return WriteSparse(b, s) },
			"aa -0.3333333333333333\npp_la~the 0.30000000000000004\nzz 1.7976931348623157e+308\n"},
		{"list", func(b *bytes.Buffer) error { return WriteList(b, s, nil) },
			"0.5 0.1 -0 1e-300 5e-324 -1\n"},
		{"list with names", func(b *bytes.Buffer) error { return WriteList(b, s, []string{"zz", "LM0_0", "missing"}) },
			"1.7976931348623157e+308 0.5 0\n"},
		{"json", func(b *bytes.Buffer) error { return WriteJSON(b, s) }, `{
  "version": 1,
  "dense": [
    {"label": "LM0", "values": [0.5]},
    {"label": "TranslationModel0", "values": [0.1, -0, 1e-300, 5e-324]},
    {"label": "WordPenalty0", "values": [-1]}
  ],
  "sparse": {
    "aa": -0.3333333333333333,
    "pp_la~the": 0.30000000000000004,
    "zz": 1.7976931348623157e+308
  }
}
`},
		{"json empty", func(b *bytes.Buffer) error { return WriteJSON(b, NewSet(nil)) },
			"{\n  \"version\": 1,\n  \"dense\": [],\n  \"sparse\": {}\n}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("wrote\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	s := testSet()
	var b bytes.Buffer
	if err := WriteJSON(&b, s); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadJSON(&b, nil); err != nil || !sameSet(got, s) {
		t.Fatalf("json: %v, %v", got, err)
	}
	for _, style := range []Style{StyleLines, StyleINI, StyleComponents} {
		b.Reset()
		if err := WriteMoses(&b, s, style); err != nil {
			t.Fatal(err)
		}
		dense, err := ReadMoses(&b, nil)
		if err != nil {
			t.Fatal(err)
		}
		b.Reset()
		if err := WriteSparse(&b, s); err != nil {
			t.Fatal(err)
		}
		sparse, err := ReadSparse(&b, dense.Index)
		if err != nil {
			t.Fatal(err)
		}
		if err := dense.Merge(sparse); err != nil {
			t.Fatal(err)
		}
		if !sameSet(dense, s) {
			t.Fatalf("moses style %d + sparse: got %v %v, want %v %v", style, dense.Groups, dense.Weights, s.Groups, s.Weights)
		}
	}
	b.Reset()
	names := feature.GroupNames(s.Groups)
	if err := WriteList(&b, s, names); err != nil {
		t.Fatal(err)
	}
	got, err := ReadList(&b, names, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Groups, []feature.Group{g("LM0", 1), g("TranslationModel0", 4), g("WordPenalty0", 1)}) || !floattest.SameBits(got.Dense(), s.Dense()) {
		t.Fatalf("list: %v %v", got.Groups, got.Dense())
	}
}

func TestWriteRefuses(t *testing.T) {
	nan := testSet()
	nan.SetValue("aa", math.NaN())
	inf := testSet()
	inf.SetValue("TranslationModel0_1", math.Inf(-1))
	space := testSet()
	space.SetValue("a b", 1)
	hash := testSet()
	hash.SetValue("#a", 1)
	badUTF8 := testSet()
	badUTF8.SetValue("\xff", 1)
	dupGroup := testSet()
	dupGroup.Groups = append(dupGroup.Groups, g("LM0", 1))
	emptyGroup := testSet()
	emptyGroup.Groups = append(emptyGroup.Groups, g("E", 0))
	badLabel := NewSet(nil)
	newDenseBuilder(badLabel).add("[x", 1)
	tests := []struct {
		name  string
		s     *Set
		moses bool
		spars bool
		json  bool
	}{
		{"NaN", nan, false, false, false},
		{"Inf in a group", inf, false, false, false},
		{"space in a sparse name", space, true, false, true},
		{"# in a sparse name", hash, true, false, true},
		{"invalid UTF-8 name", badUTF8, true, false, false},
		{"duplicate group", dupGroup, false, false, false},
		{"empty group", emptyGroup, false, false, false},
		{"label starting with [", badLabel, false, true, true},
		{"no groups", NewSet(nil), false, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteMoses(&b, tc.s, StyleLines); (err == nil) != tc.moses {
				t.Errorf("WriteMoses: %v", err)
			}
			if err := WriteSparse(&b, tc.s); (err == nil) != tc.spars {
				t.Errorf("WriteSparse: %v", err)
			}
			if err := WriteJSON(&b, tc.s); (err == nil) != tc.json {
				t.Errorf("WriteJSON: %v", err)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	idx := feature.NewIndex()
	a, err := ReadMoses(strings.NewReader("LM0= 1\nTM0= 2 3\n"), idx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadMoses(strings.NewReader("TM0= 0 4\nWP0= -1\n"), idx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ReadSparse(strings.NewReader("x 5\n"), idx)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	if err := a.Merge(c); err != nil {
		t.Fatal(err)
	}
	check(t, a, want{groups: []feature.Group{g("LM0", 1), g("TM0", 2), g("WP0", 1)}, dense: []float64{1, 0, 4, -1}, sparse: map[string]float64{"x": 5}})
	bad, _ := ReadMoses(strings.NewReader("LM0= 1 2\n"), idx)
	if err := a.Merge(bad); err == nil {
		t.Error("merge of groups of different lengths: no error")
	}
	other, _ := ReadSparse(strings.NewReader("x 1\n"), nil)
	if err := a.Merge(other); err == nil {
		t.Error("merge over different indexes: no error")
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		in   string
		want Format
	}{
		{"\n  {\"version\": 1}", JSON},
		{"\ufeff{}", JSON},
		{"# c\n\n[weight]\nLM0= 1\n", Moses},
		{"  LM0= 1\n", Moses},
		{"d: 1\n", Moses},
		{"name= 1\n", Moses},
		{"pp_a~b 0.5\n", Sparse},
		{"#x\r\n 0.1 0.2 0.3\n", List},
		{"-1\n", List},
	}
	for _, tc := range tests {
		got, err := Detect([]byte(tc.in))
		if err != nil || got != tc.want {
			t.Errorf("Detect(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, empty := range []string{"", " \n# x\n\r\n"} {
		if _, err := Detect([]byte(empty)); !errors.Is(err, ErrEmpty) {
			t.Errorf("Detect(%q): err = %v, want ErrEmpty", empty, err)
		}
	}
}

func TestParseErrorMessage(t *testing.T) {
	tests := []struct {
		err  *ParseError
		want string
	}{
		{&ParseError{File: "w.txt", Line: 3, Column: 5, Err: ErrNoValues}, "weights: w.txt:3:5: label has no values"},
		{&ParseError{File: "w.txt", Line: 3, Err: ErrNoValues}, "weights: w.txt:3: label has no values"},
		{&ParseError{File: "w.txt", Err: ErrEmpty}, "weights: w.txt: no weights"},
		{&ParseError{Line: 3, Column: 5, Err: ErrNoValues}, "weights: line 3, column 5: label has no values"},
		{&ParseError{Line: 3, Err: ErrNoValues}, "weights: line 3: label has no values"},
		{&ParseError{Err: ErrEmpty}, "weights: no weights"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}
