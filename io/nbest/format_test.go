package nbest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mtune/mtune/feature"
)

func TestParseFormat(t *testing.T) {
	for _, name := range FormatNames() {
		f, err := ParseFormat(strings.ToUpper(name))
		if err != nil || f.String() != name {
			t.Errorf("ParseFormat(%q) = %v, %v", strings.ToUpper(name), f, err)
		}
	}
	if _, err := ParseFormat("nematus"); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "auto, fairseq, marian, moses, sockeye") {
		t.Errorf("ParseFormat(nematus): %v", err)
	}
	// A format takes only the options it declares (none, for these).
	if _, err := ParseFormat("Moses:n=3"); err == nil || !strings.Contains(err.Error(), `moses takes no option "n"`) {
		t.Errorf("ParseFormat(Moses:n=3): %v", err)
	}
	for _, name := range Formats.Names() {
		if name != "auto" && !slices.Contains(FormatNames(), name) {
			t.Errorf("%s not in FormatNames", name)
		}
	}
	var f Format
	if err := f.Set("marian"); err != nil || f != FormatMarian {
		t.Errorf("Set(marian): %v, %v", f, err)
	}
	if err := f.Set("x"); err == nil || f != FormatMarian {
		t.Errorf("Set(x): %v, %v", f, err)
	}
}

// TestHasDetok: only fairseq's lists have a detokenized text (D- lines).
func TestHasDetok(t *testing.T) {
	for _, f := range []Format{FormatAuto, FormatMoses, FormatMarian, FormatFairseq, FormatSockeye} {
		if got := f.HasDetok(); got != (f == FormatFairseq) {
			t.Errorf("%v.HasDetok() = %v", f, got)
		}
	}
}

func TestDetectLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Format // FormatAuto: none
	}{
		{"", FormatAuto},
		{"  \r\n", FormatAuto},
		{"2025-09-30 07:16:06 | INFO | fairseq_cli.generate | {'_name': None}", FormatAuto},
		{"| [en] dictionary: 44206 types", FormatAuto},
		{"S-0\tdanke .", FormatFairseq},
		{"H-12\t-0.5\tthank you .", FormatFairseq},
		{"E-3_1\tthank", FormatFairseq},
		{"H-12 -0.5 thank you .", FormatAuto},
		{`{"sentence_id": 1, "translation": "a", "score": 1}`, FormatSockeye},
		{"0 ||| a ||| LM0= -1 ||| -1", FormatMoses},
		{"0||| this should ||| d: 0 -7.66174 lm: -41.3 ||| -14.6", FormatMoses},
		{"3 ||| a b ||| LanguageModel=-5.25 Glue=2", FormatMoses},
		{"0 ||| a ||| LM0= -1 ||| -1 ||| 0-0 1-1", FormatMoses},
		{"0 ||| a |||  ||| -1", FormatMoses},
		{"0 ||| a ||| F0= -2.04924 ||| -0.486136", FormatMarian},
		{"0 ||| a ||| F0=-2.04924 ||| -0.486136", FormatMarian},
		{"1 ||| a ||| 0-0 1-1 ||| F0= -1 ||| -1", FormatMarian},
		{"1 ||| a ||| 0.9,0.1 0.2,7.1e-05 ||| F0= -1 ||| -1", FormatMarian},
		{"1 ||| a ||| WordScores= -0.1 -0.2 ||| Score= -1 ||| -1", FormatMarian},
		{"0 ||| a ||| 0-0 ||| -1", FormatMarian},
	} {
		got, ok := DetectLine([]byte(tc.line))
		if ok != (tc.want != FormatAuto) || got != tc.want {
			t.Errorf("DetectLine(%q) = %v, %v; want %v", tc.line, got, ok, tc.want)
		}
	}
}

// TestNewSentenceReaderAuto detects the format of every test list, and
// of lists whose first lines show none.
func TestNewSentenceReaderAuto(t *testing.T) {
	want := map[string]Format{"marian": FormatMarian, "fairseq": FormatFairseq, "sockeye": FormatSockeye}
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*"))
	if err != nil || len(files) != 19 {
		t.Fatalf("%d test files: %v", len(files), err)
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewSentenceReader(bytes.NewReader(data), path, feature.NewIndex(), FormatAuto)
		if err != nil {
			t.Fatal(err)
		}
		if f := want[filepath.Base(filepath.Dir(path))]; r.Format() != f {
			t.Errorf("%s: detected %v, want %v", path, r.Format(), f)
		}
		// The detected reader reads the whole list from its first line.
		ids, _ := readSentences(t, r)
		if len(ids) == 0 {
			t.Errorf("%s: no sentence", path)
		}
	}
	for _, tc := range []struct {
		name, in string
		want     Format
	}{
		{"empty", "", FormatMoses},
		{"a Moses list, BOM", "\xef\xbb\xbf0 ||| a ||| LM0= -1 ||| -1\n", FormatMoses},
		{"a Marian list, BOM", "\xef\xbb\xbf0 ||| a ||| F0= -1 ||| -1\n", FormatMarian},
		{"garbage first", "hello\n0 ||| a ||| F0= -1 ||| -1\n", FormatMarian},
		{"nothing known", "hello\nworld", FormatMoses},
		{"a long log line", strings.Repeat("x", 3*readBufSize) + "\nH-0\t-1\ta\n", FormatFairseq},
		{"past DetectBytes", strings.Repeat("log line\n", DetectBytes/9+1) + "H-0\t-1\ta\n", FormatMoses},
	} {
		r, err := NewSentenceReader(strings.NewReader(tc.in), "x", feature.NewIndex(), FormatAuto)
		if err != nil || r.Format() != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.name, r.Format(), err, tc.want)
		}
	}
	// The Moses reader reports the first bad line of a list no line of
	// which is known.
	r, _ := NewSentenceReader(strings.NewReader("hello\nworld\n"), "x", feature.NewIndex(), FormatAuto)
	_, _, err = r.ReadSentence()
	checkAt(t, err, ErrFieldCount, "x", 1, 0, "1 of at least 3")
	// A read error while detecting is an error naming the file.
	if _, err := NewSentenceReader(iotest.ErrReader(io.ErrClosedPipe), "x", feature.NewIndex(), FormatAuto); !errors.Is(err, io.ErrClosedPipe) || !strings.Contains(err.Error(), "x") {
		t.Errorf("read error: %v", err)
	}
	// Named formats read as their reader does.
	for _, f := range []Format{FormatMoses, FormatMarian, FormatFairseq, FormatSockeye} {
		r, err := NewSentenceReader(strings.NewReader(""), "x", feature.NewIndex(), f)
		if err != nil || r.Format() != f {
			t.Errorf("%v: %v, %v", f, r, err)
		}
	}
}

// TestDocsNameFormats: docs/formats.md names every registered format, so
// that a format added to Formats cannot go undocumented.
func TestDocsNameFormats(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "formats.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range FormatNames() {
		if !bytes.Contains(doc, []byte("`"+name+"`")) {
			t.Errorf("docs/formats.md does not name the n-best format `%s`", name)
		}
	}
}
