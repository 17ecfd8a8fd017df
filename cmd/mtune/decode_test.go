package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/testsupport/testfile"
)

// TestDecodeSparseWeightsWithoutFlag decodes with sparse weights and no
// --sparse: the templates the weights need come on (which changes the
// output to what --sparse gives), a name of no template is warned about.
func TestDecodeSparseWeightsWithoutFlag(t *testing.T) {
	dir := shared.Path(t, "moses-models", "lexicalized-reordering-fr-en")
	t.Setenv("MODEL_PATH", dir)
	tmp := t.TempDir()
	sparse := filepath.Join(tmp, "sparse")
	// A large bonus for every one-word target phrase changes the output.
	if err := os.WriteFile(sparse, []byte("lb_t1 5\nOOVPenalty -1\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "to-translate.txt")
	ini := filepath.Join(dir, "moses.ini")
	code, plain, errOut := mtune(t, "", "decode", "--config", ini, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, named, errOut := mtune(t, "", "decode", "--config", ini, "--sparse", "lb", "--sparse-weights", sparse, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, auto, errOut := mtune(t, "", "decode", "--config", ini, "--sparse-weights", sparse, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if auto != named || auto == plain {
		t.Errorf("without --sparse the output is not that of --sparse lb (or the weights change nothing):\n%s\n%s\n%s", auto, named, plain)
	}
	if !strings.Contains(errOut, "switched on their templates") || !strings.Contains(errOut, "sparse=lb") ||
		!strings.Contains(errOut, "names=OOVPenalty") {
		t.Errorf("stderr %q", errOut)
	}
}

// TestDecodeNameValueWeights gives decode --weights as "name value" lines,
// the weights file tune-nbest writes for a cdec or Joshua list: it decodes
// as the same weights in Moses' format do, with no sparse warning.
func TestDecodeNameValueWeights(t *testing.T) {
	dir := shared.Path(t, "moses-models", "lexicalized-reordering-fr-en")
	t.Setenv("MODEL_PATH", dir)
	tmp := t.TempDir()
	moses, nameValue := filepath.Join(tmp, "moses"), filepath.Join(tmp, "name-value")
	if err := os.WriteFile(moses, []byte("KENLM0= 0.2\nWordPenalty0= 0.3\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nameValue, []byte("KENLM0_0 0.2\nWordPenalty0_0 0.3\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	in, ini := filepath.Join(dir, "to-translate.txt"), filepath.Join(dir, "moses.ini")
	code, want, errOut := mtune(t, "", "decode", "--config", ini, "--weights", moses, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, got, errOut := mtune(t, "", "decode", "--config", ini, "--weights", nameValue, in)
	if code != 0 || got != want || strings.Contains(errOut, "WARN") {
		t.Fatalf("exit %d, stderr %q; output\n%s\nwant\n%s", code, errOut, got, want)
	}
}

// TestDecodeSearchFlags: decode with cube pruning from the command line;
// its pop limit of 1 changes the output; bad values are refused.
func TestDecodeSearchFlags(t *testing.T) {
	model := filepath.Join(t.TempDir(), "demo")
	code, stdout, errOut := mtune(t, "", "build", "--demo", "--out", model)
	if code != 0 {
		t.Fatalf("build: exit %d: %s", code, errOut)
	}
	ini := strings.TrimSpace(stdout)
	input := filepath.Join(model, "corpus", "test.src")
	decode := func(args ...string) string {
		t.Helper()
		code, out, errOut := mtune(t, "", append([]string{"decode", "--config", ini, "--threads", "1"}, append(args, input)...)...)
		if code != 0 {
			t.Fatalf("decode %q: exit %d: %s", args, code, errOut)
		}
		return out
	}
	stack := decode()
	if got := decode("--search-algorithm", "0"); got != stack {
		t.Error("--search-algorithm 0 differs from the default")
	}
	cube := decode("--search-algorithm", "cube")
	if cube == "" || strings.Count(cube, "\n") != strings.Count(stack, "\n") {
		t.Fatalf("cube pruning: %d lines, stack search %d", strings.Count(cube, "\n"), strings.Count(stack, "\n"))
	}
	if one := decode("--search-algorithm", "1", "--cube-pruning-pop-limit", "1"); one == cube {
		t.Error("a pop limit of 1 changed nothing")
	}
	for _, tc := range []struct{ args []string }{
		{[]string{"--search-algorithm", "2"}},
		{[]string{"--cube-pruning-pop-limit", "0"}},
		{[]string{"--cube-pruning-diversity", "-1"}},
	} {
		if code, _, errOut := mtune(t, "", append([]string{"decode", "--config", ini}, append(tc.args, input)...)...); code != 2 {
			t.Errorf("%q: exit %d, %s", tc.args, code, errOut)
		}
	}
}

// TestDecodeAllCores: decode runs on every core unless --threads says
// otherwise (it ran on one).
func TestDecodeAllCores(t *testing.T) {
	dir := shared.Path(t, "moses-models", "lexicalized-reordering-fr-en")
	t.Setenv("MODEL_PATH", dir)
	code, _, errOut := mtune(t, "", "decode", "--config", filepath.Join(dir, "moses.ini"), filepath.Join(dir, "to-translate.txt"))
	if code != 0 {
		t.Fatalf("decode: exit %d: %s", code, errOut)
	}
	if want := fmt.Sprintf("threads=%d", runtime.NumCPU()); !strings.Contains(errOut, want) {
		t.Errorf("stderr %q does not say %s", errOut, want)
	}
}

// TestSparseBesideWeights: decode and rerank given the dense file of a
// weights trio (as tune's best/weights) without its non-empty
// weights.sparse warn that the sparse weights are not read; given the
// sparse file too, or beside an empty one, they do not.
func TestSparseBesideWeights(t *testing.T) {
	model := shared.Path(t, "moses-models", "lexicalized-reordering-fr-en")
	t.Setenv("MODEL_PATH", model)
	lists := shared.Path(t, "nbest", "europarl100")
	initWeights, err := os.ReadFile(filepath.Join(lists, "init.weights"))
	if err != nil {
		t.Fatal(err)
	}
	trio := func(dense, sparse string) string {
		dir := t.TempDir()
		for name, text := range map[string]string{"weights": dense, "weights.sparse": sparse} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o666); err != nil {
				t.Fatal(err)
			}
		}
		return filepath.Join(dir, "weights")
	}
	decodeTrio := trio("KENLM0= 0.2\nWordPenalty0= 0.3\n", "lb_t1 5\npp_a~b 0.1\n")
	decodeEmpty := trio("KENLM0= 0.2\nWordPenalty0= 0.3\n", "")
	rerankTrio := trio(string(initWeights), "pp_a~b 0.1\n")
	decode := []string{"decode", "--config", filepath.Join(model, "moses.ini"), filepath.Join(model, "to-translate.txt")}
	rerank := []string{"rerank", "--nbest", filepath.Join(lists, "nbest.gz")}
	for _, tc := range []struct {
		name string
		args []string
		warn bool
	}{
		{"decode dense file alone", withArgs(decode, "--weights", decodeTrio), true},
		{"decode with its sparse file", withArgs(decode, "--weights", decodeTrio, "--sparse-weights", decodeTrio+".sparse"), false},
		{"decode beside an empty sparse file", withArgs(decode, "--weights", decodeEmpty), false},
		{"rerank dense file alone", withArgs(rerank, "--weights", rerankTrio), true},
		{"rerank with its sparse file", withArgs(rerank, "--weights", rerankTrio, "--sparse-weights", rerankTrio+".sparse"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := mtune(t, "", tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			warned := strings.Contains(errOut, "sparse weights beside --weights are not read")
			if warned != tc.warn || warned && (!strings.Contains(errOut, ".sparse") || !strings.Contains(errOut, "count=")) {
				t.Errorf("warned %v, want %v: %s", warned, tc.warn, errOut)
			}
		})
	}
}

// TestDecodeLoadsInputPhrases: by default decode loads only the table
// lines of its input's phrases, so a line of another source phrase with a
// bad number (its "|||" fields whole) stops --full-model, naming the
// table's line, and not the default load, which translates as --full-model
// does on the intact table; an empty input loads no line at all.
func TestDecodeLoadsInputPhrases(t *testing.T) {
	dir := shared.Path(t, "moses-models", "lexicalized-reordering-fr-en")
	t.Setenv("MODEL_PATH", dir)
	in := filepath.Join(dir, "to-translate.txt")
	code, want, errOut := mtune(t, "", "decode", "--config", filepath.Join(dir, "moses.ini"), "--full-model", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	tmp := t.TempDir()
	for _, name := range []string{"europarl.lm.gz", "reordering-table.msd-bidirectional-fe.0.5.0-0.gz", "moses.ini"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	pt := string(testfile.GunzipFile(t, filepath.Join(dir, "phrase-table.0-0.gz")))
	lines := strings.Count(pt, "\n")
	pt += "zzqx wvkj ||| bad ||| 0.5 NaNx 1 0.1 2.718\n"
	if err := os.WriteFile(filepath.Join(tmp, "phrase-table.0-0"), []byte(pt), 0o666); err != nil {
		t.Fatal(err)
	}
	ini := filepath.Join(tmp, "moses.ini")
	text, err := os.ReadFile(ini)
	if err != nil {
		t.Fatal(err)
	}
	text = []byte(strings.ReplaceAll(string(text), "phrase-table.0-0.gz", "phrase-table.0-0"))
	if err := os.WriteFile(ini, text, 0o666); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MODEL_PATH", tmp)
	if code, got, errOut := mtune(t, "", "decode", "--config", ini, in); code != 0 || got != want {
		t.Errorf("default load: exit %d, %s\noutput %q, want --full-model's %q", code, errOut, got, want)
	}
	wantErr := fmt.Sprintf("phrase-table.0-0:%d", lines+1)
	if code, _, errOut := mtune(t, "", "decode", "--config", ini, "--full-model", in); code == 0 || !strings.Contains(errOut, wantErr) {
		t.Errorf("--full-model: exit %d, %q, want an error naming %s", code, errOut, wantErr)
	}
	if code, got, errOut := mtune(t, "", "decode", "--config", ini); code != 0 || got != "" {
		t.Errorf("empty input: exit %d, output %q, %s", code, got, errOut)
	}
}
