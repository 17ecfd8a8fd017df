package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/testsupport/gobuild"
	"github.com/mtune/mtune/testsupport/long"
	"github.com/mtune/mtune/tune"
)

// TestTuneExternalDecoder runs the demo's default tuning (no flags, as
// "mtune tune" runs it: line-search mixing, 2 shards, 100-best lists) for
// three epochs twice: with the in-process decoder, and with
// --decoder "BIN decode", BIN being mtune built from this module, which
// the workers start as a subprocess for every mini-batch and once for
// each dev decoding. The tune and dev BLEU of every epoch, and every epoch's
// weights, must be identical, bit for bit.
func TestTuneExternalDecoder(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds mtune and tunes the demo twice")
	}
	long.Test(t, "builds mtune and tunes the demo twice, 127 s on a loaded machine")
	tmp := t.TempDir()
	// A folder with a blank: the command line quotes it.
	bin := gobuild.Binary(t, ".", ".", filepath.Join(tmp, "my bin", "mtune"))

	const epochs = 3
	run := func(name string, args ...string) []rundir.Metrics {
		t.Helper()
		out := filepath.Join(tmp, name)
		start := time.Now()
		code, _, errOut := mtune(t, "", append([]string{"tune", "--epochs", fmt.Sprint(epochs), "--out", out}, args...)...)
		if code != 0 {
			t.Fatalf("tune %q: exit %d: %s", args, code, errOut)
		}
		t.Logf("%s: %.1f s\n%s", name, time.Since(start).Seconds(), errOut)
		ms, err := rundir.CompleteEpochs(context.Background(), rundir.Layout{Root: out})
		if err != nil {
			t.Fatal(err)
		}
		return ms
	}
	in := run("inproc")
	ext := run("external", "--decoder", "'"+bin+"' decode")

	var mc tune.ModelCheck
	if err := rundir.ReadJSON(context.Background(), filepath.Join(tmp, "external", "init", "model.json"), &mc); err != nil {
		t.Fatal(err)
	}
	if mc.Decoder != tune.ExternalDecoderName {
		t.Errorf("the workers loaded the %q decoder, want %q", mc.Decoder, tune.ExternalDecoderName)
	}
	if len(in) != epochs || len(ext) != epochs {
		t.Fatalf("%d and %d epochs, want %d", len(in), len(ext), epochs)
	}
	for e := range epochs {
		a, b := in[e], ext[e]
		if a.TuneScore != b.TuneScore || a.DevScore == nil || b.DevScore == nil || *a.DevScore != *b.DevScore || a.Updates != b.Updates {
			t.Errorf("epoch %d: in process tune BLEU %v dev BLEU %v, %d updates; external %v, %v, %d",
				e+1, a.TuneScore, deref(a.DevScore), a.Updates, b.TuneScore, deref(b.DevScore), b.Updates)
		}
		t.Logf("epoch %d: tune BLEU (decoded) %.2f dev BLEU %.2f, both", e+1, a.TuneScore, deref(a.DevScore))
		layout := func(name string) string {
			return filepath.Join(rundir.Layout{Root: filepath.Join(tmp, name)}.Epoch(e+1).Dir, "weights.json")
		}
		if wa, wb := readFile(t, layout("inproc")), readFile(t, layout("external")); wa != wb {
			t.Errorf("epoch %d: weights.json differs:\nin process %s\nexternal %s", e+1, wa, wb)
		}
	}
	if a, b := readFile(t, filepath.Join(tmp, "inproc", "best", "weights.json")), readFile(t, filepath.Join(tmp, "external", "best", "weights.json")); a != b {
		t.Errorf("best/weights.json differs:\nin process %s\nexternal %s", a, b)
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

// TestTuneDecoderRefused: a --decoder that cannot run, or with an option
// only the in-process decoder has, is refused (exit 2) before anything is
// written.
func TestTuneDecoderRefused(t *testing.T) {
	tmp := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--decoder", ""}, "--decoder: an empty command"},
		{[]string{"--decoder", " \t"}, "holds no command"},
		{[]string{"--decoder", "'moses -v 0"}, "unterminated '"},
		{[]string{"--decoder", "no-such-decoder-mtune -v 0"}, `"no-such-decoder-mtune": executable file not found`},
		{[]string{"--decoder", filepath.Join(tmp, "moses")}, "no such file"},
		{[]string{"--decoder", "sh", "--filter-model"}, "--filter-model: an external decoder takes model filtering on its own command line"},
		{[]string{"--decoder", "sh", "--search-algorithm", "cube"}, "--search-algorithm: an external decoder takes the search algorithm"},
		{[]string{"--decoder", "sh", "--sparse", "pt"}, "--sparse: an external decoder takes sparse templates"},
	} {
		out := filepath.Join(tmp, "out")
		code, _, errOut := mtune(t, "", append([]string{"tune", "--out", out}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("tune %q: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, errOut, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("tune %q wrote %s", tc.args, out)
		}
	}
}
