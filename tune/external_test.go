package tune

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

// TestExternalOptions: Command selects the external decoder, its words
// are split and its program looked up when the choice is checked, and what
// only the in-process decoder does is refused.
func TestExternalOptions(t *testing.T) {
	base := DecoderSetup{Ini: "/m/moses.ini"}
	o := base
	o.Command = `sh -c 'exit 0' "a b"`
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	if o.Name != ExternalDecoderName || !reflect.DeepEqual(o.args, []string{"sh", "-c", "exit 0", "a b"}) {
		t.Errorf("decoder %q, words %q", o.Name, o.args)
	}
	c, err := ParseExternalConfig(o.Config())
	if err != nil || c.Ini != "/m/moses.ini" || !reflect.DeepEqual(c.Command, o.args) {
		t.Errorf("configuration %+v, %v", c, err)
	}
	for _, tc := range []struct {
		edit func(*DecoderSetup)
		want string
		is   error
	}{
		{func(o *DecoderSetup) { o.Command = "'sh" }, "unterminated", external.ErrCommand},
		{func(o *DecoderSetup) { o.Name = ExternalDecoderName }, "holds no command", external.ErrCommand},
		{func(o *DecoderSetup) { o.Command = "no-such-decoder-mtune" }, "executable file not found", nil},
		{func(o *DecoderSetup) { o.Command, o.Name = "sh", MosesDecoderName }, `a decoder command runs the "external" decoder, not "moses"`, nil},
		{func(o *DecoderSetup) { o.Command, o.Ini = "sh", "gs://b/moses.ini" }, "must be a local path", nil},
		{func(o *DecoderSetup) { o.Command, o.Filter = "sh", true }, "--filter-model", nil},
		{func(o *DecoderSetup) { o.Command, o.Search = "sh", "cube" }, "--search-algorithm", nil},
		{func(o *DecoderSetup) { o.Command, o.Sparse = "sh", []string{"pt"} }, "--sparse", nil},
	} {
		o := base
		tc.edit(&o)
		err := o.Check()
		if err == nil || !strings.Contains(err.Error(), tc.want) || tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%+v: %v, want an error saying %q", o, err, tc.want)
		}
	}
}

// TestBatchSize: the external decoder's decodings are dealt into at most
// one batch a worker (one run of the decoder each), as even as
// ⌈sentences/size⌉ batches make them; the in-process decoder keeps the
// default batch size (0).
func TestBatchSize(t *testing.T) {
	ext := DecoderSetup{Name: ExternalDecoderName}
	for _, tc := range []struct{ sentences, workers, size, batches int }{
		{100, 1, 100, 1},
		{100, 0, 100, 1}, // no count: one worker
		{300, 2, 150, 2},
		{100, 3, 34, 3},
		{4, 3, 2, 2}, // at most, not exactly, one a worker
		{2, 5, 1, 2},
		{15000, 40, 375, 40},
	} {
		size := ext.BatchSize(tc.sentences, tc.workers)
		batches := (tc.sentences + size - 1) / size // transforms.DecodeFn.Batches
		if size != tc.size || batches != tc.batches {
			t.Errorf("%d sentences on %d workers: batches of %d (%d of them), want %d (%d)", tc.sentences, tc.workers, size, batches, tc.size, tc.batches)
		}
	}
	for s := 1; s <= 60; s++ {
		for w := 1; w <= 12; w++ {
			size := ext.BatchSize(s, w)
			if b := (s + size - 1) / size; b > w || b < 1 || size*b-s >= b {
				t.Fatalf("%d sentences on %d workers: %d batches of %d", s, w, b, size)
			}
		}
	}
	in := DecoderSetup{Name: MosesDecoderName}
	if size := in.BatchSize(15000, 40); size != 0 {
		t.Errorf("in-process decoder: batches of %d, want the default (0)", size)
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
	o := DecoderSetup{Ini: ini, Command: "sh"}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	in, err := o.Inputs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"config", ini}, {"model LM0", filepath.Join(lmDir, "lm.arpa")},
		{"model PhraseDictionaryCompact0", filepath.Join(dir, "pt/phrase-table.gz")},
		{"model PhraseDictionaryCompact0", filepath.Join(dir, "pt/phrase-table.minphr")}}
	if !reflect.DeepEqual(in, want) {
		t.Errorf("inputs %q, want %q", in, want)
	}
	c, err := ParseExternalConfig(o.Config())
	if err != nil || !reflect.DeepEqual(c.Env, map[string]string{"MTUNE_TEST_LM": lmDir}) {
		t.Errorf("configuration %+v, %v", c, err)
	}
	t.Setenv("MTUNE_TEST_LM", filepath.Join(dir, "nowhere"))
	if _, err := o.Inputs(context.Background()); !errors.Is(err, external.ErrModelFile) || !strings.Contains(err.Error(), "line 2: LM0") {
		t.Errorf("a moses.ini naming no LM file: %v", err)
	}
}
