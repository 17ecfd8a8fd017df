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

// TestExternalEnv: the variables the moses.ini uses reach the external
// decoder's configuration with this machine's values.
func TestExternalEnv(t *testing.T) {
	ini := filepath.Join(t.TempDir(), "moses.ini")
	if err := os.WriteFile(ini, []byte("[feature]\nKENLM name=LM0 path=${MTUNE_TEST_LM}/lm.arpa ${MTUNE_TEST_UNSET}\n[weight]\nLM0= 1\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MTUNE_TEST_LM", "/models/lm")
	o := Options{Config: ini, DecoderCommand: "sh", Src: "s", Refs: []string{"r"}, Out: "out"}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := o.externalEnv(context.Background()); err != nil {
		t.Fatal(err)
	}
	c, err := ParseExternalConfig(o.decoderConfig())
	if err != nil || !reflect.DeepEqual(c.Env, map[string]string{"MTUNE_TEST_LM": "/models/lm"}) {
		t.Errorf("configuration %+v, %v", c, err)
	}
}
