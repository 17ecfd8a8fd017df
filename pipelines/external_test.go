package pipelines

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mtune/mtune/decoder/external"
	"github.com/mtune/mtune/testsupport/testfile"
)

func TestExternalConfig(t *testing.T) {
	c := ExternalConfig{Command: []string{"/opt/moses/bin/moses", "-v", "0"}, Ini: "/m/moses.ini", Env: map[string]string{"MODEL_PATH": "/m"}}
	back, err := ParseExternalConfig(c.String())
	if err != nil || !reflect.DeepEqual(back, c) {
		t.Fatalf("round trip of %+v: %+v, %v", c, back, err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"ini":"/m/moses.ini"}`, "names no command or no moses.ini"},
		{`{"command":["moses"]}`, "names no command or no moses.ini"},
		{`{"command":["moses"],"ini":"a","x":1}`, "unknown field"},
		{`/m/moses.ini`, "external decoder configuration"},
	} {
		if _, err := ParseExternalConfig(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseExternalConfig(%q): %v, want an error saying %q", tc.in, err, tc.want)
		}
	}
}

// TestExternalOptions: DecoderCommand selects the external decoder, its
// words are split and its program looked up when the options are
// validated, and what only the in-process decoder does is refused.
func TestExternalOptions(t *testing.T) {
	base := Options{Config: "/m/moses.ini", Src: "tune.src", Refs: []string{"tune.ref"}, Out: "out"}
	o := base
	o.DecoderCommand = `sh -c 'exit 0' "a b"`
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if o.Decoder != ExternalDecoderName || !reflect.DeepEqual(o.decoderArgs, []string{"sh", "-c", "exit 0", "a b"}) {
		t.Errorf("decoder %q, words %q", o.Decoder, o.decoderArgs)
	}
	c, err := ParseExternalConfig(o.decoderConfig())
	if err != nil || c.Ini != "/m/moses.ini" || !reflect.DeepEqual(c.Command, o.decoderArgs) {
		t.Errorf("configuration %+v, %v", c, err)
	}
	for _, tc := range []struct {
		edit func(*Options)
		want string
		is   error
	}{
		{func(o *Options) { o.DecoderCommand = "'sh" }, "unterminated", external.ErrCommand},
		{func(o *Options) { o.Decoder = ExternalDecoderName }, "holds no command", external.ErrCommand},
		{func(o *Options) { o.DecoderCommand = "no-such-decoder-mtune" }, "executable file not found", nil},
		{func(o *Options) { o.DecoderCommand, o.Decoder = "sh", DecoderName }, `a decoder command runs the "external" decoder, not "moses"`, nil},
		{func(o *Options) { o.DecoderCommand, o.Config = "sh", "gs://b/moses.ini" }, "must be a local path", nil},
		{func(o *Options) { o.DecoderCommand, o.FilterModel = "sh", true }, "--filter-model", nil},
		{func(o *Options) { o.DecoderCommand, o.SearchAlgorithm = "sh", "cube" }, "--search-algorithm", nil},
		{func(o *Options) { o.DecoderCommand, o.Sparse = "sh", []string{"pt"} }, "--sparse", nil},
	} {
		o := base
		tc.edit(&o)
		err := o.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%+v: %v, want an error saying %q", o, err, tc.want)
		}
	}
}

// TestExternalInputs: the variables the moses.ini uses reach the external
// decoder's configuration with this machine's values, and the model files
// it names are the run's inputs, found where Moses or "mtune decode" would
// find them; a path that names nothing is refused, naming the line.
func TestExternalInputs(t *testing.T) {
	dir := t.TempDir()
	lmDir := filepath.Join(dir, "lm")
	for _, f := range []string{"lm/lm.arpa", "pt/phrase-table.minphr", "pt/phrase-table.gz", "pt/phrase-table-other.gz", "pt/phrase-table.d/x"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o777); err != nil {
			t.Fatal(err)
		}
		testfile.Write(t, dir, f, f)
	}
	ini := testfile.Write(t, dir, "moses.ini", "[feature]\nKENLM name=LM0 path=${MTUNE_TEST_LM}/lm.arpa ${MTUNE_TEST_UNSET}\n"+
		"PhraseDictionaryCompact path=pt/phrase-table\n[weight]\nLM0= 1\nPhraseDictionaryCompact0= 1\n")
	t.Setenv("MTUNE_TEST_LM", lmDir)
	o := Options{Config: ini, DecoderCommand: "sh", Src: "s", Refs: []string{"r"}, Out: "out"}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	in, err := o.externalInputs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"model LM0", filepath.Join(lmDir, "lm.arpa")},
		{"model PhraseDictionaryCompact0", filepath.Join(dir, "pt/phrase-table.gz")},
		{"model PhraseDictionaryCompact0", filepath.Join(dir, "pt/phrase-table.minphr")}}
	if !reflect.DeepEqual(in, want) {
		t.Errorf("inputs %q, want %q", in, want)
	}
	c, err := ParseExternalConfig(o.decoderConfig())
	if err != nil || !reflect.DeepEqual(c.Env, map[string]string{"MTUNE_TEST_LM": lmDir}) {
		t.Errorf("configuration %+v, %v", c, err)
	}
	t.Setenv("MTUNE_TEST_LM", filepath.Join(dir, "nowhere"))
	if _, err := o.externalInputs(context.Background()); !errors.Is(err, external.ErrModelFile) || !strings.Contains(err.Error(), "line 2: LM0") {
		t.Errorf("a moses.ini naming no LM file: %v", err)
	}
}
