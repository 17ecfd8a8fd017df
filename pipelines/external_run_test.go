package pipelines_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/pipelines"
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
