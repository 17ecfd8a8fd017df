package nbest

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/testsupport/parsetest"
	"github.com/mtune/mtune/testsupport/shared"
)

// readGz returns the decompressed content of a shared data file.
func readGz(tb testing.TB, rel ...string) []byte {
	tb.Helper()
	f, err := os.Open(shared.Path(tb, rel...))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// fv is a feature vector by name, for expectations.
type fv map[string]float64

func named(idx *feature.Index, v feature.Vector) fv {
	m := fv{}
	for k, id := range v.IDs {
		m[idx.Name(id)] = v.Vals[k]
	}
	return m
}

func equalFV(a, b fv) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		if y, ok := b[k]; !ok || x != y {
			return false
		}
	}
	return true
}

// want is an expected hypothesis.
type want struct {
	sent     int
	target   string
	feats    fv
	score    float64
	hasScore bool
	align    string
}

func TestRead(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   []want
		groups []feature.Group
	}{{
		name:   "moses",
		in:     "0 ||| we are here .  ||| LM0= -41.3 TranslationModel0= -1.5 -2 0 WordPenalty0= -4 pp_we~nous= 1 ||| -14.6 ||| 0-0 1-1\n",
		want:   []want{{0, "we are here .", fv{"LM0_0": -41.3, "TranslationModel0_0": -1.5, "TranslationModel0_1": -2, "WordPenalty0_0": -4, "pp_we~nous": 1}, -14.6, true, "0-0 1-1"}},
		groups: []feature.Group{{Label: "LM0", Len: 1}, {Label: "TranslationModel0", Len: 3}, {Label: "WordPenalty0", Len: 1}},
	}, {
		// A byte order mark at the start of the file is dropped, as
		// io/corpus drops it from a tuning set's files.
		name:   "byte order mark",
		in:     "\ufeff0 ||| we ||| LM0= -4 ||| -1\n1 ||| x ||| LM0= -2 ||| -1\n",
		want:   []want{{0, "we", fv{"LM0_0": -4}, -1, true, ""}, {1, "x", fv{"LM0_0": -2}, -1, true, ""}},
		groups: []feature.Group{{Label: "LM0", Len: 1}},
	}, {
		name:   "old labels, no space before the first separator",
		in:     "0||| this should .  ||| d: 0 -7.66174 0 lm: -41.3435 -40.3647 w: -9 ||| -14.6262\n",
		want:   []want{{0, "this should .", fv{"d_1": -7.66174, "lm_0": -41.3435, "lm_1": -40.3647, "w_0": -9}, -14.6262, true, ""}},
		groups: []feature.Group{{Label: "d", Len: 3}, {Label: "lm", Len: 2}, {Label: "w", Len: 1}},
	}, {
		name: "cdec with and without total",
		in:   "3 ||| a b ||| LanguageModel=-5.25 Glue=2 Zero=0 ||| -3\n7 ||| c ||| tm_pt_0=-1e-3 WordPenalty=-0.4342\n",
		want: []want{
			{3, "a b", fv{"LanguageModel": -5.25, "Glue": 2}, -3, true, ""},
			{7, "c", fv{"tm_pt_0": -0.001, "WordPenalty": -0.4342}, 0, false, ""},
		},
		groups: []feature.Group{},
	}, {
		name:   "bare sparse names and cdec name with =",
		in:     "1 ||| x ||| LM0= 2 sparse_name 3 foo -1 a=b=4 ||| 0\n",
		want:   []want{{1, "x", fv{"LM0_0": 2, "sparse_name": 3, "foo": -1, "a=b": 4}, 0, true, ""}},
		groups: []feature.Group{{Label: "LM0", Len: 1}},
	}, {
		name:   "repeated label continues its group",
		in:     "0 ||| x ||| d: 1 2 lm: 3 d: 4 ||| 1\n",
		want:   []want{{0, "x", fv{"d_0": 1, "d_1": 2, "d_2": 4, "lm_0": 3}, 1, true, ""}},
		groups: []feature.Group{{Label: "d", Len: 3}, {Label: "lm", Len: 1}},
	}, {
		name:   "cdec features may come and go, dense ones stay",
		in:     "0 ||| x ||| tm: 1 0 a=1 OOVPenalty=-100 ||| 1\n0 ||| y ||| tm: 1 2 a=-0.000 ||| 1\n",
		want:   []want{{0, "x", fv{"tm_0": 1, "a": 1, "OOVPenalty": -100}, 1, true, ""}, {0, "y", fv{"tm_0": 1, "tm_1": 2}, 1, true, ""}},
		groups: []feature.Group{{Label: "tm", Len: 2}},
	}, {
		name:   "six fields: alignment kept raw",
		in:     "2 ||| x ||| w: -1 ||| -1 ||| 0=0 ||| 0-0 \n",
		want:   []want{{2, "x", fv{"w_0": -1}, -1, true, "0=0 ||| 0-0"}},
		groups: []feature.Group{{Label: "w", Len: 1}},
	}, {
		name:   "tabs, CRLF, blank lines, no final newline",
		in:     "\r\n 4\t|||\tx  y\t|||\tw:\t-1\t|||\t-1\r\n   \n5 ||| z ||| w: 2e1 ||| +.5",
		want:   []want{{4, "x  y", fv{"w_0": -1}, -1, true, ""}, {5, "z", fv{"w_0": 20}, 0.5, true, ""}},
		groups: []feature.Group{{Label: "w", Len: 1}},
	}, {
		name:   "empty target, zeros dropped",
		in:     "0 |||  ||| LM0= 0 0 ||| 0\n1 ||| a ||| LM0= 0 -0 ||| 0\n",
		want:   []want{{0, "", fv{}, 0, true, ""}, {1, "a", fv{}, 0, true, ""}},
		groups: []feature.Group{{Label: "LM0", Len: 2}},
	}, {
		name:   "cdec hypothesis with no feature",
		in:     "0 ||| a ||| Glue=1 ||| 0\n0 ||| b |||  ||| 0\n",
		want:   []want{{0, "a", fv{"Glue": 1}, 0, true, ""}, {0, "b", fv{}, 0, true, ""}},
		groups: []feature.Group{},
	}, {
		name:   "repeated sparse feature is summed",
		in:     "0 ||| a ||| x_y= 1 x_y= 2.5 ||| 0\n",
		want:   []want{{0, "a", fv{"x_y": 3.5}, 0, true, ""}},
		groups: []feature.Group{},
	}, {
		name:   "old style sparse label with underscore",
		in:     "0 ||| a ||| lm: -3 dlmb_the: 1 w: -1 ||| 0\n",
		want:   []want{{0, "a", fv{"lm_0": -3, "dlmb_the": 1, "w_0": -1}, 0, true, ""}},
		groups: []feature.Group{{Label: "lm", Len: 1}, {Label: "w", Len: 1}},
	}, {
		name:   "empty input",
		in:     "",
		groups: []feature.Group{},
	}, {
		name:   "blank input",
		in:     "\n  \n\t\n",
		groups: []feature.Group{},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			idx := feature.NewIndex()
			r := NewReader(strings.NewReader(tc.in), "t", idx)
			var got []want
			for _, h := range parsetest.MustReadAll(t, r.Read) {
				if err := h.Features.Validate(); err != nil {
					t.Errorf("invalid vector: %v", err)
				}
				got = append(got, want{h.Sentence, h.Target, named(idx, h.Features), h.Score, h.HasScore, h.Alignment})
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d hypotheses, want %d: %+v", len(got), len(tc.want), got)
			}
			for i := range got {
				g, w := got[i], tc.want[i]
				if g.sent != w.sent || g.target != w.target || !equalFV(g.feats, w.feats) ||
					g.score != w.score || g.hasScore != w.hasScore || g.align != w.align {
					t.Errorf("hypothesis %d:\n got %+v\nwant %+v", i, g, w)
				}
			}
			if gr := r.Groups(); fmt.Sprint(gr) != fmt.Sprint(tc.groups) {
				t.Errorf("groups %v, want %v", gr, tc.groups)
			}
		})
	}
}

// TestReadErrors marks the expected error column with § in the input.
func TestReadErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
		err  error
		also error // a second error the result must wrap, if any
	}{
		{name: "one field", in: "0 ||| a\n", line: 1, err: ErrFieldCount},
		{name: "cut off at end of input", in: "0 ||| a ||| w: 1 ||| 1\n1 ||| partial", line: 2, err: ErrFieldCount, also: io.ErrUnexpectedEOF},
		{name: "negative id", in: "§-1 ||| a ||| w: 1 ||| 1\n", line: 1, err: ErrBadID},
		{name: "id not a number", in: "§x ||| a ||| w: 1 ||| 1\n", line: 1, err: ErrBadID},
		{name: "id overflows", in: "§99999999999999999999 ||| a ||| w: 1 ||| 1\n", line: 1, err: ErrBadID},
		{name: "empty id", in: "§ ||| a ||| w: 1 ||| 1\n", line: 1, err: ErrBadID},
		{name: "bad value", in: "0 ||| a ||| w: §1x ||| 1\n", line: 1, err: ErrBadNumber},
		{name: "nan", in: "0 ||| a ||| w: §NaN ||| 1\n", line: 1, err: ErrBadNumber},
		{name: "inf", in: "\n0 ||| a ||| w: §-Inf ||| 1\n", line: 2, err: ErrBadNumber},
		{name: "infinity after sparse name", in: "0 ||| a ||| x_y= §infinity ||| 1\n", line: 1, err: ErrBadNumber},
		{name: "overflow", in: "0 ||| a ||| w: §1e400 ||| 1\n", line: 1, err: ErrBadNumber},
		{name: "hex float", in: "0 ||| a ||| w: §0x1p3 ||| 1\n", line: 1, err: ErrBadNumber},
		{name: "cdec bad value", in: "0 ||| a ||| x=§y ||| 1\n", line: 1, err: ErrBadNumber},
		{name: "bad total", in: "0 ||| a ||| w: 1 |||§ abc\n", line: 1, err: ErrBadNumber},
		{name: "empty total", in: "0 ||| a ||| w: 1 |||§ \n", line: 1, err: ErrBadNumber},
		{name: "nan total", in: "0 ||| a ||| w: 1 |||§ nan\n", line: 1, err: ErrBadNumber},
		{name: "sparse name at end", in: "0 ||| a ||| w: 1 x_y= §||| 1\n", line: 1, err: ErrNoValue},
		{name: "sparse name before label", in: "0 ||| a ||| x_y= §w: 1 ||| 1\n", line: 1, err: ErrNoValue},
		{name: "bare sparse name at end", in: "0 ||| a ||| w: 1 foo§\n", line: 1, err: ErrNoValue},
		{name: "bare sparse name before cdec", in: "0 ||| a ||| foo §b=1 ||| 1\n", line: 1, err: ErrNoValue},
		{name: "dense label without value", in: "0 ||| a ||| LM0= §WP0= 1 ||| 1\n", line: 1, err: ErrNoValue},
		{name: "dense label at end", in: "0 ||| a ||| LM0= §||| 1\n", line: 1, err: ErrNoValue},
		{name: "value before any label", in: "0 ||| a ||| §5 ||| 1\n", line: 1, err: ErrBadFeature},
		{name: "value after sparse value", in: "0 ||| a ||| x_y= 1 §2 ||| 1\n", line: 1, err: ErrBadFeature},
		{name: "value after cdec token", in: "0 ||| a ||| x=1 §2 ||| 1\n", line: 1, err: ErrBadFeature},
		{name: "empty label", in: "0 ||| a ||| §= 5 ||| 1\n", line: 1, err: ErrBadFeature},
		{name: "empty cdec name", in: "0 ||| a ||| §=5 ||| 1\n", line: 1, err: ErrBadFeature},
		{name: "empty feature field", in: "0 ||| a ||| w: 1 ||| 1\n0 ||| a |||§  ||| 1\n", line: 2, err: ErrDenseLayout},
		{name: "empty feature field first", in: "0 ||| a |||   ||| 1\n0 ||| a |||§ w: 1 ||| 1\n", line: 2, err: ErrDenseLayout},
		{name: "cut at the start of the feature field", in: "0 ||| a ||| w: 1 ||| 1\n0 ||| b |||§", line: 2, err: ErrDenseLayout, also: io.ErrUnexpectedEOF},
		{name: "cut inside the feature field", in: "0 ||| a ||| d: 1 2 lm: 3 4 ||| 1\n0 ||| b |||§ d: 1 2 lm: 3", line: 2, err: ErrDenseLayout, also: io.ErrUnexpectedEOF},
		{name: "cut before a group", in: "0 ||| a ||| d: 1 2 lm: 3 4 ||| 1\n0 ||| b |||§ d: 1 2", line: 2, err: ErrDenseLayout, also: io.ErrUnexpectedEOF},
		{name: "missing dense group", in: "0 ||| a ||| d: 1 lm: 3 w: 1 ||| 1\n0 ||| b |||§ d: 1 w: 2 ||| 1\n", line: 2, err: ErrDenseLayout},
		{name: "only sparse features in a Moses list", in: "0 ||| a ||| LM0= 1 ||| 1\n0 ||| b |||§ pp_a~b= 1 ||| 1\n", line: 2, err: ErrDenseLayout},
		{name: "new dense group", in: "0 ||| a ||| LM0= 1 ||| 1\n0 ||| b |||§ LM0= 1 WordPenalty0= -1 ||| 1\n", line: 2, err: ErrDenseLayout},
		{name: "fewer values", in: "0 ||| a ||| tm: 1 2 3 ||| 1\n1 ||| b ||| tm: 1 2 3 ||| 1\n1 ||| c |||§ tm: 1 2 ||| 1\n", line: 3, err: ErrDenseLayout},
		{name: "more values", in: "0 ||| a ||| tm: 1 2 ||| 1\n0 ||| b |||§ tm: 1 2 3 ||| 1\n", line: 2, err: ErrDenseLayout},
		{name: "invalid UTF-8", in: "0 ||| a ||| w: 1 ||| 1\n0 ||| a§\xff ||| w: 1 ||| 1\n", line: 2, err: ErrInvalidUTF8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			col := 0
			in := tc.in
			if k := strings.Index(in, "§"); k >= 0 {
				nl := strings.LastIndexByte(in[:k], '\n')
				col = k - nl
				in = in[:k] + in[k+len("§"):]
			}
			r := NewReader(strings.NewReader(in), "f.gz", feature.NewIndex())
			var err error
			for err == nil {
				_, err = r.Read()
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want a *ParseError", err, err)
			}
			if !errors.Is(err, tc.err) || (tc.also != nil && !errors.Is(err, tc.also)) {
				t.Errorf("error %v, want %v", err, tc.err)
			}
			if pe.File != "f.gz" || pe.Line != tc.line || pe.Column != col {
				t.Errorf("error at %s:%d:%d, want f.gz:%d:%d (%v)", pe.File, pe.Line, pe.Column, tc.line, col, err)
			}
			if _, err2 := r.Read(); err2 != err {
				t.Errorf("error not sticky: then %v", err2)
			}
		})
	}
}

func TestParseErrorMessage(t *testing.T) {
	in := strings.Repeat("0 ||| a ||| w: 1 ||| 1\n", 11) + "0 ||| a ||| w: x ||| 1\n"
	// "x" is a bare sparse name followed by no value here; a number-like
	// token gives the bad-value message.
	in = strings.Replace(in, "w: x", "w: 1x", 1)
	r := NewReader(strings.NewReader(in), "file.gz", feature.NewIndex())
	var err error
	for err == nil {
		_, err = r.Read()
	}
	const want = `nbest: file.gz:12:16: bad feature value "1x"`
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
	msg := (&ParseError{Line: 3, Err: ErrFieldCount}).Error()
	if want := "nbest: line 3: too few fields"; msg != want {
		t.Errorf("got %q, want %q", msg, want)
	}
}

func TestReadSentence(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // "id:count ..."
		err  error
		line int
	}{
		{name: "grouped, ids not consecutive", in: "0 ||| a ||| w: 1\n0 ||| b ||| w: 1\n5 ||| c ||| w: 1\n2 ||| d ||| w: 1\n2 ||| e ||| w: 1\n", want: "0:2 5:1 2:2"},
		{name: "empty", in: "", want: ""},
		{name: "id comes back", in: "0 ||| a ||| w: 1\n1 ||| b ||| w: 1\n0 ||| c ||| w: 1\n", want: "0:1 1:1", err: ErrNotGrouped, line: 3},
		{name: "bad line mid-sentence", in: "0 ||| a ||| w: 1\n0 ||| b ||| w: x1\n", want: "", err: ErrNoValue, line: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.in), "s", feature.NewIndex())
			var got []string
			var err error
			for {
				var id int
				var hyps []Hypothesis
				id, hyps, err = r.ReadSentence()
				if err != nil {
					break
				}
				for _, h := range hyps {
					if h.Sentence != id {
						t.Errorf("sentence %d holds a hypothesis of %d", id, h.Sentence)
					}
				}
				got = append(got, fmt.Sprintf("%d:%d", id, len(hyps)))
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("got %q, want %q", s, tc.want)
			}
			if tc.err == nil {
				if err != io.EOF {
					t.Errorf("error %v, want io.EOF", err)
				}
				return
			}
			var pe *ParseError
			if !errors.Is(err, tc.err) || !errors.As(err, &pe) || pe.Line != tc.line {
				t.Errorf("error %v, want %v on line %d", err, tc.err, tc.line)
			}
		})
	}
}

func TestReadLongLine(t *testing.T) {
	// A line of 40,000 sparse features, far past bufio's buffer.
	var sb strings.Builder
	sb.WriteString("0 ||| long ||| LM0= -1")
	for i := range 40000 {
		fmt.Fprintf(&sb, " f_%d= %d", i, i+1)
	}
	sb.WriteString(" ||| 3\n1 ||| short ||| LM0= 2 ||| 1\n")
	in := sb.String()
	if len(in) < 4*readBufSize {
		t.Fatalf("line only %d bytes", len(in))
	}
	for _, mk := range []struct {
		name string
		f    func(io.Reader) io.Reader
	}{
		{"plain", func(r io.Reader) io.Reader { return r }},
		{"one byte", iotest.OneByteReader},
		{"half", iotest.HalfReader},
		{"data err", iotest.DataErrReader},
	} {
		t.Run(mk.name, func(t *testing.T) {
			idx := feature.NewIndex()
			r := NewReader(mk.f(strings.NewReader(in)), "long", idx)
			h, err := r.Read()
			if err != nil {
				t.Fatal(err)
			}
			if h.Features.Len() != 40001 || h.Score != 3 || h.Target != "long" {
				t.Fatalf("got %d features, score %v, target %q", h.Features.Len(), h.Score, h.Target)
			}
			id, _ := idx.Lookup("f_39999")
			if x := h.Features.At(id); x != 40000 {
				t.Errorf("f_39999 = %v, want 40000", x)
			}
			h, err = r.Read()
			if err != nil || h.Target != "short" {
				t.Fatalf("second line: %+v, %v", h, err)
			}
			if _, err := r.Read(); err != io.EOF {
				t.Errorf("got %v, want io.EOF", err)
			}
		})
	}
}

func TestReadReadError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("0 ||| a ||| w: 1 ||| 1\n"), iotest.ErrReader(boom)), "e", feature.NewIndex())
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(); err != boom {
		t.Errorf("got %v, want the read error", err)
	}
}

// readAll reads every hypothesis by sentence.
func readAll(tb testing.TB, data []byte, name string, idx *feature.Index) ([]Hypothesis, *Reader) {
	tb.Helper()
	r := NewReader(strings.NewReader(string(data)), name, idx)
	var all []Hypothesis
	for {
		_, hyps, err := r.ReadSentence()
		if err == io.EOF {
			return all, r
		}
		if err != nil {
			tb.Fatal(err)
		}
		all = append(all, hyps...)
	}
}

func TestReadEuroparl100(t *testing.T) {
	data := readGz(t, "nbest", "europarl100", "nbest.gz")
	idx := feature.NewIndex()
	hyps, r := readAll(t, data, "nbest.gz", idx)
	if len(hyps) != 10000 {
		t.Fatalf("%d hypotheses, want 10000", len(hyps))
	}
	count := map[int]int{}
	for _, h := range hyps {
		count[h.Sentence]++
	}
	for s := range 100 {
		if count[s] != 100 {
			t.Errorf("sentence %d has %d hypotheses, want 100", s, count[s])
		}
	}
	want := []feature.Group{{Label: "d", Len: 7}, {Label: "lm", Len: 2}, {Label: "tm", Len: 5}, {Label: "w", Len: 1}}
	if got := r.Groups(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("groups %v, want %v", got, want)
	}
	// The file's first line:
	// 0||| this should also be there is looking further .  ||| d: 0 -7.66174 0 0 -3.51621 0 0 lm: -41.3435 -40.3647 tm: -67.6349 -100.438 -27.6817 -23.4685 8.99907 w: -9 ||| -14.6262
	h := hyps[0]
	wantF := fv{"d_1": -7.66174, "d_4": -3.51621, "lm_0": -41.3435, "lm_1": -40.3647,
		"tm_0": -67.6349, "tm_1": -100.438, "tm_2": -27.6817, "tm_3": -23.4685, "tm_4": 8.99907, "w_0": -9}
	if h.Target != "this should also be there is looking further ." || h.Score != -14.6262 || !h.HasScore ||
		!equalFV(named(idx, h.Features), wantF) {
		t.Errorf("first hypothesis %+v (%v)", h, named(idx, h.Features))
	}
	if idx.Len() != 15 {
		t.Errorf("index holds %d names, want 15: %v", idx.Len(), idx.Names())
	}
}

// mosesWeights reads the [weight] section of a moses.ini.
func mosesWeights(tb testing.TB, path string) map[string]float64 {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := map[string]float64{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = line == "[weight]"
			continue
		}
		fs := strings.Fields(line)
		if !in || len(fs) < 2 || !strings.HasSuffix(fs[0], "=") {
			continue
		}
		for i, s := range fs[1:] {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				tb.Fatal(err)
			}
			w[feature.DenseName(strings.TrimSuffix(fs[0], "="), i)] = x
		}
	}
	return w
}

// TestReadMosesTest20 reads Moses' own 100-best lists and checks every
// total score against the weights of moses.ini.
func TestReadMosesTest20(t *testing.T) {
	data := readGz(t, "moses-models", "europarl-fr-en-8k", "expected-moses-test20.nbest.gz")
	weights := mosesWeights(t, shared.Path(t, "moses-models", "europarl-fr-en-8k", "moses.ini"))
	idx := feature.NewIndex()
	hyps, r := readAll(t, data, "test20", idx)
	if len(hyps) != 1536 {
		t.Fatalf("%d hypotheses, want 1536", len(hyps))
	}
	// Per-sentence counts, from `cut -d'|' -f1 | uniq -c` on the file.
	wantCount := []int{100, 40, 87, 61, 10, 100, 100, 100, 100, 39, 100, 100, 16, 56, 27, 100, 100, 100, 100, 100}
	count := make([]int, 20)
	for _, h := range hyps {
		count[h.Sentence]++
	}
	if fmt.Sprint(count) != fmt.Sprint(wantCount) {
		t.Errorf("counts %v, want %v", count, wantCount)
	}
	wantG := []feature.Group{{Label: "LexicalReordering0", Len: 6}, {Label: "Distortion0", Len: 1}, {Label: "LM0", Len: 1},
		{Label: "WordPenalty0", Len: 1}, {Label: "PhrasePenalty0", Len: 1}, {Label: "TranslationModel0", Len: 4}}
	if got := r.Groups(); fmt.Sprint(got) != fmt.Sprint(wantG) {
		t.Errorf("groups %v, want %v", got, wantG)
	}
	w := make(feature.Weights, idx.Len())
	for name, x := range weights {
		if id, ok := idx.Lookup(name); ok {
			w[id] = x
		}
	}
	// The total also holds UnknownWordPenalty0 (weight 1, -100 a word left
	// untranslated), which is not tuneable and so not in the list: the
	// rest must be a multiple of -100.
	worst := 0.0
	unknown := 0
	for _, h := range hyps {
		rest := h.Score - h.Features.Dot(w)
		k := math.Round(rest / -100)
		if k < 0 {
			t.Fatalf("sentence %d %q: total %v, w·φ %v", h.Sentence, h.Target, h.Score, h.Features.Dot(w))
		}
		unknown += int(k)
		// Moses prints 6 significant digits of each value.
		worst = max(worst, math.Abs(rest+100*k)/max(1, math.Abs(h.Score)))
	}
	if worst > 2e-5 {
		t.Errorf("w·φ differs from the total by up to %.3g (relative)", worst)
	}
	t.Logf("w·φ + unknown-word penalties match Moses' totals within %.2g (relative) on %d hypotheses (%d unknown words)", worst, len(hyps), unknown)
}
