package pipelines_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/pipelines"
	"github.com/mtune/mtune/testsupport/gobuild"
)

// TestExternalDecoderFails runs the small demo with an external decoder
// that fails: the epoch's error, as the driver reports it, holds the
// decoder's command line, its exit status and what it said.
func TestExternalDecoderFails(t *testing.T) {
	d := smallDemo(t)
	o := options(d, filepath.Join(t.TempDir(), "out"))
	o.Epochs = 1
	o.DecoderCommand = `sh -c 'echo "decoder: cannot load the phrase table" >&2; exit 3'`
	_, err := pipelines.Run(context.Background(), o)
	if err == nil {
		t.Fatal("the run did not fail")
	}
	for _, want := range []string{"external: sh -c ", "exit status 3", "decoder: cannot load the phrase table", " -n-best-list "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestExternalResumeModelChanged: with an external decoder ("mtune
// decode", built from this module) the model files the moses.ini names are
// inputs of the run too, so --resume refuses the same moses.ini once its LM
// changed, naming the LM, and goes on when the LM is back.
func TestExternalResumeModelChanged(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds mtune and tunes one epoch with it as the decoder")
	}
	d := smallDemo(t)
	tmp := t.TempDir()
	bin := gobuild.Binary(t, "..", "./cmd/mtune", filepath.Join(tmp, "mtune"))
	iniText, err := os.ReadFile(d.ini)
	if err != nil {
		t.Fatal(err)
	}
	modelDir := filepath.Join(tmp, "model")
	if err := os.Mkdir(modelDir, 0o777); err != nil {
		t.Fatal(err)
	}
	o := options(d, filepath.Join(tmp, "out"))
	o.Epochs, o.DecoderCommand = 1, "'"+bin+"' decode"
	o.Config = copyModel(t, filepath.Dir(d.ini), modelDir, iniText)
	if _, err := pipelines.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	lms, err := filepath.Glob(filepath.Join(modelDir, "*lm*.arpa.gz"))
	if err != nil || len(lms) != 1 {
		t.Fatalf("the model's LM: %q, %v", lms, err)
	}
	runLM := string(readFile(t, lms[0]))
	setLM := func(b string) {
		if err := os.WriteFile(lms[0], []byte(b), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	setLM(string(readFile(t, filepath.Join(filepath.Dir(d.ini), filepath.Base(lms[0])))))
	r := o
	r.Epochs, r.Resume = 2, true
	if _, err := pipelines.Run(context.Background(), r); err == nil || !strings.Contains(err.Error(), "input model LM0: "+lms[0]) ||
		strings.Contains(err.Error(), "input config") {
		t.Errorf("resume with another LM: %v, want a refusal naming input model LM0 only", err)
	}
	setLM(runLM)
	if res, err := pipelines.Run(context.Background(), r); err != nil || len(res.Epochs) != 2 {
		t.Errorf("resume with the same model: %d epochs, %v", len(res.Epochs), err)
	}
}
