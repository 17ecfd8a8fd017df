package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/decoder/model"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/testsupport/gcstest"
	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/testsupport/testfile"
)

// mtune runs the command line args in-process and returns its exit status
// and output.
func mtune(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = runMain(context.Background(), args, &app{stdout: &out, stderr: &errOut, stdin: strings.NewReader(stdin)})
	return code, out.String(), errOut.String()
}

func TestScoreWMT15(t *testing.T) {
	dir := shared.Path(t, "bleu", "wmt15-en-ru-100")
	const want = "BLEU = 23.17, 53.8/29.6/17.6/10.3 (BP=1.000, ratio=1.074, hyp_len=1989, ref_len=1852)\n"
	hyp, ref := filepath.Join(dir, "google.ru"), filepath.Join(dir, "ref.ru")
	text, err := os.ReadFile(hyp)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"file", "", []string{"score", "-r", ref, hyp}},
		{"stdin", string(text), []string{"score", "-r", ref}},
		{"flags after the file", "", []string{"score", hyp, "--ref", ref}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := mtune(t, tc.stdin, tc.args...)
			if code != 0 || out != want {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
			}
		})
	}
	code, out, _ := mtune(t, "", "score", "--json", "-r", ref, hyp)
	var score struct {
		BLEU   float64 `json:"bleu"`
		HypLen float64 `json:"hyp_len"`
		RefLen float64 `json:"ref_len"`
	}
	if err := json.Unmarshal([]byte(out), &score); code != 0 || err != nil {
		t.Fatalf("--json: exit %d, %v: %q", code, err, out)
	}
	if score.HypLen != 1989 || score.RefLen != 1852 || score.BLEU < 0.23165 || score.BLEU >= 0.23175 {
		t.Fatalf("--json gave %+v", score)
	}
}

func TestScoreMultipleReferences(t *testing.T) {
	dir := shared.Path(t, "bleu", "cdec", "test_data")
	refs := filepath.Join(dir, "re.txt.")
	// Scoring a reference against all four references (itself included)
	// gives 100 BLEU.
	code, out, errOut := mtune(t, "", "score", "-r", refs, filepath.Join(dir, "re.txt.0"))
	if code != 0 || !strings.HasPrefix(out, "BLEU = 100.00, 100.0/100.0/100.0/100.0 (BP=1.000") {
		t.Fatalf("exit %d: %q %q", code, out, errOut)
	}
}

func TestRerankEuroparl100(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	code, out, errOut := mtune(t, "", "rerank",
		"--weights", filepath.Join(dir, "init.weights"),
		"--nbest", filepath.Join(dir, "nbest.gz"),
		"-r", filepath.Join(dir, "reference"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Moses re-ranks these lists with init.weights to 13.68 BLEU.
	if !strings.HasPrefix(errOut, "BLEU = 13.68, ") {
		t.Fatalf("stderr %q, want BLEU = 13.68", errOut)
	}
	if lines := strings.Count(out, "\n"); lines != 100 {
		t.Fatalf("%d lines of output, want 100", lines)
	}
	// The output scored by `mtune score` gives the same figure.
	hyp := filepath.Join(t.TempDir(), "hyp")
	if err := os.WriteFile(hyp, []byte(out), 0o666); err != nil {
		t.Fatal(err)
	}
	_, scored, _ := mtune(t, "", "score", "-r", filepath.Join(dir, "reference"), hyp)
	if scored != errOut {
		t.Fatalf("score of the re-ranked output %q differs from rerank's %q", scored, errOut)
	}
}

func TestExtractMertExtractor(t *testing.T) {
	dir := shared.Path(t, "nbest", "mert-extractor")
	out := t.TempDir()
	code, _, errOut := mtune(t, "", "extract",
		"--nbest", filepath.Join(dir, "nbest.1.gz"), filepath.Join(dir, "nbest.2.gz"),
		"-r", filepath.Join(dir, "reference"), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "10 sentences, 2000 hypotheses read, 1999 kept") {
		t.Fatalf("summary %q", errOut)
	}
	feats, err := os.ReadFile(filepath.Join(out, "features.dat"))
	if err != nil {
		t.Fatal(err)
	}
	// Moses' extractor kept 200 hypotheses of each sentence but 199 of
	// sentence 8 after these two iterations.
	if !strings.Contains(string(feats), "FEATURES_TXT_BEGIN_0 8 199 14 d_0") {
		t.Fatal("sentence 8 does not have Moses' 199 hypotheses")
	}
	if _, err := os.Stat(filepath.Join(out, "scores.dat")); err != nil {
		t.Fatal(err)
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no command", nil, 2, "commands:"},
		{"help", []string{"help"}, 0, "extract"},
		{"help command", []string{"help", "score"}, 0, "-tokenize"},
		{"unknown", []string{"frobnicate"}, 2, "unknown command"},
		{"score without refs", []string{"score", "x"}, 2, "no references"},
		{"bad flag", []string{"score", "--nope"}, 2, "flag provided but not defined"},
		{"bad tokenizer", []string{"score", "-r", "x", "--tokenize", "intl"}, 2, "--tokenize"},
		{"rerank missing flags", []string{"rerank"}, 2, "required"},
		{"missing file", []string{"rerank", "--weights", "/nonexistent/w", "--nbest", "x"}, 1, "/nonexistent/w"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := mtune(t, "", tc.args...)
			if code != tc.code || !strings.Contains(out+errOut, tc.want) {
				t.Fatalf("exit %d (want %d), output %q, want it to contain %q", code, tc.code, out+errOut, tc.want)
			}
		})
	}
}

func TestScoreBadInput(t *testing.T) {
	dir := t.TempDir()
	write := testfile.Writer(t, dir)
	ref := write("ref", "a b\nc d\n")
	tests := []struct {
		name string
		hyp  string
		want string
	}{
		{"line count", write("short", "a b\n"), "short has 1 lines but the references have 2"},
		{"invalid utf-8", write("bad", "a b\nc \xff\n"), "bad:2"},
	}
	for _, tc := range tests {
		code, _, errOut := mtune(t, "", "score", "-r", ref, tc.hyp)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want %q", tc.name, code, errOut, tc.want)
		}
	}
}

// TestTuneNbest tunes europarl100 with MERT, AdaGrad, and AdaGrad with
// Gaussian feature noising estimated on labelled and unlabelled pairs, and
// checks that the weights written re-rank the lists to the BLEU tune-nbest
// printed last.
func TestTuneNbest(t *testing.T) {
	dir := shared.Path(t, "nbest", "europarl100")
	for _, tc := range []struct {
		name  string
		args  []string
		floor string // the BLEU line must sort at or above "BLEU = floor"
	}{
		{"mert", []string{"--algo", "mert"}, "14.39"},
		{"adagrad", []string{"--algo", "adagrad"}, "13.35"},
		{"adagrad gaussian noise", []string{"--algo", "adagrad", "--noise-type", "gaussian", "--noise", "1", "--noise-unlabeled", "5"}, "13.35"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, errOut := mtune(t, "", append(append([]string{"tune-nbest"}, tc.args...), "--epochs", "3",
				"--init", filepath.Join(dir, "init.weights"),
				"--nbest", filepath.Join(dir, "nbest.gz"),
				"-r", filepath.Join(dir, "reference"), "--out", out)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			last := lines[len(lines)-1]
			var bleu float64
			if _, err := fmt.Sscanf(last, "BLEU = %f,", &bleu); err != nil {
				t.Fatalf("last line %q is not a BLEU line", last)
			}
			var floor float64
			fmt.Sscan(tc.floor, &floor)
			if bleu < floor {
				t.Fatalf("BLEU %.2f, want at least %s", bleu, tc.floor)
			}
			for _, f := range []string{"weights", "weights.json"} {
				code, _, rerankErr := mtune(t, "", "rerank", "--weights", filepath.Join(out, "best", f),
					"--nbest", filepath.Join(dir, "nbest.gz"), "-r", filepath.Join(dir, "reference"))
				if code != 0 || strings.TrimSpace(rerankErr) != last {
					t.Fatalf("rerank with %s: exit %d, %q; tune-nbest printed %q", f, code, rerankErr, last)
				}
			}
		})
	}
}

// TestBuildDemo builds the embedded demo system and loads its moses.ini
// back with the decoder's reader.
func TestBuildDemo(t *testing.T) {
	out := t.TempDir()
	code, stdout, errOut := mtune(t, "", "build", "--demo", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	ini := strings.TrimSpace(stdout)
	cfg, err := model.LoadConfig(context.Background(), ini, model.ConfigOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{model.TypePhraseDictionaryMemory, model.TypeLexicalReordering, model.TypeKENLM} {
		fs := cfg.FeaturesOfType(typ)
		if len(fs) != 1 {
			t.Fatalf("%s: %d features of type %s", ini, len(fs), typ)
		}
		if _, err := os.Stat(fs[0].Path()); err != nil {
			t.Fatalf("%s names %s: %v", ini, fs[0].Path(), err)
		}
	}
	for _, f := range []string{"tune.src", "tune.ref", "test.src", "test.ref"} {
		if _, err := os.Stat(filepath.Join(out, "corpus", f)); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, _ := mtune(t, "", "build", "--demo", "--src", "x", "--out", out); code != 2 {
		t.Fatalf("--demo with --src: exit %d, want 2", code)
	}
}

// TestDecodeLexicalizedReordering decodes the five inputs of Moses'
// lexicalized-reordering model and compares the 1-best with Moses'.
func TestDecodeLexicalizedReordering(t *testing.T) {
	dir := shared.Path(t, "moses-models", "lexicalized-reordering-fr-en")
	t.Setenv("MODEL_PATH", dir)
	nb := filepath.Join(t.TempDir(), "nbest.gz")
	code, out, errOut := mtune(t, "", "decode", "--config", filepath.Join(dir, "moses.ini"),
		"--nbest", "10", "--nbest-out", nb, filepath.Join(dir, "to-translate.txt"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	expected, err := os.ReadFile(filepath.Join(dir, "expected-moses-output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(out), "\n")
	if len(got) != 5 {
		t.Fatalf("%d lines of output, want 5", len(got))
	}
	for i, line := range got {
		want := fmt.Sprintf("TRANSLATION_%d=%s", i+1, line)
		if !strings.Contains(string(expected), want+" \n") && !strings.Contains(string(expected), want+"\n") {
			t.Errorf("sentence %d: %q is not Moses' 1-best", i+1, line)
		}
	}
	// The n-best file reads back: 5 sentences, up to 10 hypotheses each.
	code, _, errOut = mtune(t, "", "rerank", "--weights", filepath.Join(dir, "moses.ini"), "--nbest", nb)
	if code != 0 {
		t.Fatalf("rerank of the n-best lists: exit %d: %s", code, errOut)
	}
}

// TestDecodeRelativeModelPath decodes Moses' lexicalized-reordering model
// as README shows, with MODEL_PATH and --config relative to the working
// directory: ${MODEL_PATH} is resolved against the working directory, not
// joined onto the ini's folder a second time.
func TestDecodeRelativeModelPath(t *testing.T) {
	dir := shared.Path(t, "moses-models", "lexicalized-reordering-fr-en")
	wd := t.TempDir()
	t.Chdir(wd)
	rel, err := filepath.Rel(wd, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MODEL_PATH", rel)
	code, out, errOut := mtune(t, "", "decode", "--config", filepath.Join(rel, "moses.ini"), filepath.Join(rel, "to-translate.txt"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := len(strings.Split(strings.TrimSpace(out), "\n")); n != 5 {
		t.Fatalf("%d lines of output, want 5", n)
	}
}

// TestDemoIsATuningProblem builds the embedded demo system and runs two
// rounds of the Moses tuning loop (decode the tuning set with n-best lists,
// MERT on the pooled lists): the tuned weights must translate the test set
// better than the default weights do.
func TestDemoIsATuningProblem(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes the demo tuning set twice")
	}
	dir := t.TempDir()
	code, stdout, errOut := mtune(t, "", "build", "--demo", "--out", dir)
	if code != 0 {
		t.Fatalf("build: exit %d: %s", code, errOut)
	}
	ini := strings.TrimSpace(stdout)
	corpus := filepath.Join(dir, "corpus")
	bleu := func(weights string) float64 {
		t.Helper()
		args := []string{"decode", "--config", ini, filepath.Join(corpus, "test.src")}
		if weights != "" {
			args = append(args, "--weights", weights)
		}
		code, out, errOut := mtune(t, "", args...)
		if code != 0 {
			t.Fatalf("decode: exit %d: %s", code, errOut)
		}
		hyp := filepath.Join(dir, "test.out")
		if err := os.WriteFile(hyp, []byte(out), 0o666); err != nil {
			t.Fatal(err)
		}
		_, line, _ := mtune(t, "", "score", "-r", filepath.Join(corpus, "test.ref"), hyp)
		var b float64
		if _, err := fmt.Sscanf(line, "BLEU = %f,", &b); err != nil {
			t.Fatalf("score printed %q", line)
		}
		return b
	}
	var nbests []string
	weights := ""
	for it := 1; it <= 2; it++ {
		nb := filepath.Join(dir, fmt.Sprintf("it%d.nbest.gz", it))
		args := []string{"decode", "--config", ini, "--nbest", "100", "--nbest-out", nb, filepath.Join(corpus, "tune.src")}
		init := ini
		if weights != "" {
			args = append(args, "--weights", weights)
			init = weights
		}
		if code, _, errOut := mtune(t, "", args...); code != 0 {
			t.Fatalf("decode tune: exit %d: %s", code, errOut)
		}
		nbests = append(nbests, nb)
		out := filepath.Join(dir, fmt.Sprintf("w%d", it))
		args = append([]string{"tune-nbest", "--algo", "mert", "--init", init, "-r", filepath.Join(corpus, "tune.ref"), "--out", out, "--nbest"}, nbests...)
		if code, _, errOut := mtune(t, "", args...); code != 0 {
			t.Fatalf("tune-nbest: exit %d: %s", code, errOut)
		}
		weights = filepath.Join(out, "best", "weights")
	}
	untuned, tuned := bleu(""), bleu(weights)
	t.Logf("demo test BLEU: default weights %.2f, tuned %.2f", untuned, tuned)
	if tuned < untuned+5 {
		t.Fatalf("tuned weights give %.2f BLEU, default %.2f: the demo is not a tuning problem", tuned, untuned)
	}
}

// TestGCSTimeout runs mtune score, tune, retrain and registry status
// against a GCS that always answers 503: --gcs-timeout bounds the retries
// of every request (reads, the lease, the registry's files), each retry
// is logged and the error says GCS is unreachable; a timeout that is not
// positive is a usage error.
func TestGCSTimeout(t *testing.T) {
	storage.SetGCSClient(gcstest.Unavailable(t))
	t.Cleanup(func() { storage.SetGCSClient(nil); storage.SetGCSTimeout(0) })
	cases := []struct {
		name string
		args []string
		code int
		want []string // in stderr
	}{
		{"unreachable", []string{"score", "--gcs-timeout", "2s", "-r", "gs://b/ref.en"}, 1,
			[]string{"mtune score: ", "gs://b/ref.en: GCS unreachable after ", " attempts in 2s: ", "level=WARN", "attempt=1", "path=gs://b/ref.en"}},
		{"tune", []string{"tune", "--gcs-timeout", "2s", "--epochs", "1", "--out", "gs://b/run1"}, 1,
			[]string{"mtune tune: ", "gs://b/run1", ": GCS unreachable", " in 2s"}},
		{"retrain", []string{"retrain", "--gcs-timeout", "2s", "--epochs", "1", "--registry", "gs://b/nightly"}, 1,
			[]string{"mtune retrain: ", "gs://b/nightly", ": GCS unreachable", " in 2s", "level=WARN"}},
		{"registry status", []string{"registry", "--gcs-timeout", "2s", "--registry", "gs://b/nightly", "status"}, 1,
			[]string{"mtune registry: ", "gs://b/nightly", ": GCS unreachable", " in 2s", "level=WARN"}},
		{"zero timeout", []string{"score", "--gcs-timeout", "0s", "-r", "gs://b/ref.en"}, 2, []string{"--gcs-timeout 0s: must be positive"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := mtune(t, "a b c\n", tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
		})
	}
}

// TestHelpTune: "mtune help tune" and "help retrain" show mtune's own
// flags and examples, not Beam's (those are "mtune help beam"); the usage
// lines name --eval-tune and --search-algorithm, spelt as decode's.
func TestHelpTune(t *testing.T) {
	beamOnly := []string{"\n  -temp_location", "\n  -environment_type", "(required)"} // retrain's --registry is required
	for _, tc := range []struct {
		args        []string
		want, notIn []string
	}{
		{[]string{"help", "tune"}, []string{"data flags:", "-search-algorithm", "-eval-tune", "examples:", "mtune tune --epochs 1", "mtune help beam",
			"[--eval-tune] [--search-algorithm normal|cube]"}, beamOnly},
		{[]string{"help", "retrain"}, []string{"registry flags:", "examples:", "mtune retrain --registry", "mtune help beam", "--search-algorithm normal|cube"}, beamOnly[:2]},
		{[]string{"help", "decode"}, []string{"[--search-algorithm normal|cube ", "normal (or 0"}, nil},
		{[]string{"help", "beam"}, []string{"-temp_location", "-environment_type", "-project", "-runner"}, []string{"-epochs", "-sparse"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := mtune(t, "", tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in\n%s", w, out)
				}
			}
			for _, w := range tc.notIn {
				if strings.Contains(out, w) {
					t.Errorf("%q in\n%s", w, out)
				}
			}
		})
	}
}

// TestErrorMessages: an error names the command and the file, without
// the package tags before it ("mtune tune: pipelines: corpus: …").
func TestErrorMessages(t *testing.T) {
	for _, tc := range []struct{ err, want string }{
		{"pipelines: corpus: src:2: empty source line", "src:2: empty source line"},
		{"storage: open tune.fr: no such file or directory", "open tune.fr: no such file or directory"},
		{"tune: tune: epoch 3: x", "epoch 3: x"},
		{"tune.fr:3: a line of 60000 tokens", "tune.fr:3: a line of 60000 tokens"},
		{"pipelines: ", "pipelines: "},
		{"registry busy: held by x", "registry busy: held by x"},
	} {
		if got := userMessage(errors.New(tc.err)); got != tc.want {
			t.Errorf("userMessage(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
	dir := t.TempDir()
	src, ref := filepath.Join(dir, "tune.fr"), filepath.Join(dir, "tune.en")
	for p, text := range map[string]string{src: "a b\n\nc d\n", ref: "x\ny\nz\n"} {
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "--config", filepath.Join(dir, "moses.ini"), "--src", src, "--ref", ref, "--out", filepath.Join(dir, "out")},
			"mtune tune: " + src + ":2: empty source line\n"},
		{[]string{"rerank", "--weights", filepath.Join(dir, "none"), "--nbest", src},
			"mtune rerank: open " + filepath.Join(dir, "none") + ": no such file or directory\n"},
	} {
		code, _, errOut := mtune(t, "", tc.args...)
		if code != 1 || !strings.HasSuffix(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to end in %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestScoreMetricOptions checks a metric's options given in --metric
// (NAME:KEY=VALUE): TER's against sacreBLEU 2.6.0's figures on the
// released wmt15-en-ru-100 files (metric/testdata/sacrebleu-ter-wmt15.json),
// BLEU's against the same setting given by score's own flags, which may
// be repeated in the spec but not contradicted; bad options exit 2.
func TestScoreMetricOptions(t *testing.T) {
	dir := shared.Path(t, "bleu", "wmt15-en-ru-100")
	hyp, ref := filepath.Join(dir, "newstest-2015-100sents.en-ru.google.ru"), filepath.Join(dir, "newstest-2015-100sents.en-ru.ref.ru")
	score := func(args ...string) (int, string, string) {
		return mtune(t, "", append(append([]string{"score", "-r", ref}, args...), hyp)...)
	}
	_, bleu13a, _ := score("--tokenize", "13a")
	_, order2, _ := score("--order", "2")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--metric", "ter"}, 0, "TER = 67.63\n"},
		{[]string{"--metric", "ter:case=true"}, 0, "TER = 68.89\n"},
		{[]string{"--metric", "TER:Normalized=true:case=true"}, 0, "TER = 59.77\n"},
		{[]string{"--metric", "ter:no-punct=true"}, 0, "TER = 62.85\n"},
		{[]string{"--metric", "bleu:tokenize=13a"}, 0, bleu13a},
		{[]string{"--tokenize", "13a", "--metric", "bleu:tokenize=13a"}, 0, bleu13a},
		{[]string{"--metric", "bleu:order=2"}, 0, order2},
		{[]string{"--order", "2", "--metric", "bleu:order=3"}, 2, "order=3 contradicts order=2 set by a flag"},
		{[]string{"--metric", "bleu:order=9"}, 2, "BLEU order 9 is not in 1..6"},
		{[]string{"--metric", "ter:case=yes"}, 2, "case=yes: want true or false"},
		{[]string{"--metric", "ter:tokenize=13a"}, 2, `ter takes no option "tokenize"`},
	} {
		code, out, errOut := score(tc.args...)
		if code != tc.code || (tc.code == 0 && out != tc.want) || (tc.code != 0 && !strings.Contains(errOut, tc.want)) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, out, errOut, tc.code, tc.want)
		}
	}
	if bleu13a == order2 || !strings.HasPrefix(bleu13a, "BLEU = 23.20") {
		t.Errorf("--tokenize 13a gives %q, --order 2 %q", bleu13a, order2)
	}
}
