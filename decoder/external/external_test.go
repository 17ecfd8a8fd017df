//go:build unix

package external

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/nbest"
)

// fakeScript is a decoder for the tests: it records its arguments (one a
// line), its standard input and its sparse weights file in $FAKE_DIR, then
// does what $FAKE_MODE says. "good" writes, for input line k (from 0),
// two hypotheses "k ||| words ||| LM0= -(k+1) WordPenalty0= -words
// TranslationModel0= 0.5 0 ||| -(k+1)" and "… ||| … LM0= -(k+2) … |||
// -(k+2)" with the words reversed, and prints each input line.
const fakeScript = `#!/bin/sh
printf '%s\n' "$@" > "$FAKE_DIR/args"
echo $$ > "$FAKE_DIR/pid"
nb=
while [ $# -gt 0 ]; do
	case "$1" in
	-n-best-list) nb="$2"; shift ;;
	-weight-file) cp "$2" "$FAKE_DIR/sparse"; shift ;;
	esac
	shift
done
cat > "$FAKE_DIR/stdin"
good() {
	awk '{ n = split($0, w, " "); r = w[n]; for (i = n - 1; i >= 1; i--) r = r " " w[i]
		print NR-1 " ||| " $0 " ||| LM0= -" NR " WordPenalty0= -" n " TranslationModel0= 0.5 0 ||| -" NR
		print NR-1 " ||| " r " ||| LM0= -" NR+1 " WordPenalty0= -" n " TranslationModel0= 0.5 0 ||| -" NR+1 }' "$FAKE_DIR/stdin" > "$nb"
	cat "$FAKE_DIR/stdin"
}
case "$FAKE_MODE" in
good) good ;;
exit1) echo "loading the phrase table" >&2; echo "moses: out of memory" >&2; exit 1 ;;
signal) kill -9 $$ ;;
malformed) good; sed -i '2s/LM0= -2 /LM0= -2x /' "$nb" ;;
truncated) good; head -c -20 "$nb" > "$nb.cut"; mv "$nb.cut" "$nb" ;;
missing) good; grep -v '^2 ' "$nb" > "$nb.cut"; mv "$nb.cut" "$nb" ;;
outside) good; echo '7 ||| x ||| LM0= -1 WordPenalty0= -1 TranslationModel0= 0 0 ||| -1' >> "$nb" ;;
toomany) good; grep '^0 ' "$nb" > "$nb.more"; cat "$nb.more" >> "$nb" ;;
stdout) good > /dev/null; echo one ;;
nofile) cat "$FAKE_DIR/stdin" ;;
noscore) good; sed -i 's/ ||| -[0-9]*$//' "$nb" ;;
renamed) good; sed -i 's/LM0= /LMX0= /' "$nb" ;;
count) good; sed -i 's/TranslationModel0= 0.5 0 /TranslationModel0= 0.5 0 1 /' "$nb" ;;
sleep) sleep 60 & echo $! > "$FAKE_DIR/child"; wait ;;
spawn) sleep 555 & sleep 555 & echo $! > "$FAKE_DIR/child.tmp"; mv "$FAKE_DIR/child.tmp" "$FAKE_DIR/child"; wait ;;
esac
`

const fakeIni = `[feature]
KENLM name=LM0 factor=0 path=lm.arpa order=3
WordPenalty
PhraseDictionaryMemory name=TranslationModel0 num-features=2 path=pt.gz input-factor=0 output-factor=0

[weight]
LM0= 0.5
WordPenalty0= -1
TranslationModel0= 0.2 0.2
`

// fake returns a decoder running fakeScript (as "sh SCRIPT -v 0") in mode,
// and the folder it records into.
func fake(t *testing.T, mode string) (*Decoder, string) {
	t.Helper()
	return fakeIn(t, t.TempDir(), mode)
}

// fakeIn is fake recording into dir.
func fakeIn(t *testing.T, dir, mode string) (*Decoder, string) {
	t.Helper()
	script := filepath.Join(dir, "fake.sh")
	ini := filepath.Join(dir, "moses.ini")
	if err := os.WriteFile(script, []byte(fakeScript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ini, []byte(fakeIni), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := New(context.Background(), Config{Command: []string{"sh", script, "-v", "0"}, Ini: ini,
		Env: map[string]string{"FAKE_DIR": dir, "FAKE_MODE": mode}})
	if err != nil {
		t.Fatal(err)
	}
	return d, dir
}

var testSents = []string{"a b c", "d e", "f"}

// testWeights returns weights over d's index: the dense ones, and a
// sparse one if sparse.
func testWeights(d *Decoder, sparse bool) feature.Weights {
	var w feature.Weights
	idx := d.Features()
	w.Set(idx.ID("LM0_0"), 0.25)
	w.Set(idx.ID("WordPenalty0_0"), -1)
	w.Set(idx.ID("TranslationModel0_0"), 1e-5)
	w.Set(idx.ID("TranslationModel0_1"), 0.1)
	if sparse {
		w.Set(idx.ID("pp_a~b"), 0.5)
		w.Set(idx.ID("pp_z~y"), -1.0/3)
	}
	return w
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// TestNBestBatch runs the fake decoder: its command line (Moses' options
// after the command's own, every dense weight in -weight-overwrite, the
// sparse ones in a -weight-file, numbers exact), its input, and the n-best
// lists read back with their features and scores.
func TestNBestBatch(t *testing.T) {
	d, dir := fake(t, "good")
	if got, want := d.Features().Names(), []string{"LM0_0", "WordPenalty0_0", "TranslationModel0_0", "TranslationModel0_1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("index %q, want %q", got, want)
	}
	w := testWeights(d, true)
	lists, err := d.NBestBatch(context.Background(), []int{10, 11, 12}, testSents, w, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	args := readLines(t, filepath.Join(dir, "args"))
	nbFile := ""
	if len(args) > 7 {
		nbFile = args[7]
	}
	want := []string{"-v", "0", "-f", filepath.Join(dir, "moses.ini"), "-threads", "2", "-n-best-list", nbFile, "5", "distinct",
		"-weight-overwrite", "LM0= 0.25 WordPenalty0= -1 TranslationModel0= 1e-05 0.1", "-weight-file", filepath.Join(filepath.Dir(nbFile), "sparse")}
	if !reflect.DeepEqual(args, want) {
		t.Errorf("arguments\n%q\nwant\n%q", args, want)
	}
	if _, err := os.Stat(filepath.Dir(nbFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the run's folder %s is left behind: %v", filepath.Dir(nbFile), err)
	}
	if got := readLines(t, filepath.Join(dir, "sparse")); !reflect.DeepEqual(got, []string{"pp_a~b 0.5", "pp_z~y -0.3333333333333333"}) {
		t.Errorf("sparse weights file %q", got)
	}
	if got := readLines(t, filepath.Join(dir, "stdin")); !reflect.DeepEqual(got, testSents) {
		t.Errorf("standard input %q, want %q", got, testSents)
	}
	idx := d.Features()
	if len(lists) != 3 {
		t.Fatalf("%d lists, want 3", len(lists))
	}
	for k, hyps := range lists {
		words := strings.Fields(testSents[k])
		if len(hyps) != 2 || hyps[0].Target != testSents[k] || hyps[0].Score != -float64(k+1) || hyps[1].Score != -float64(k+2) {
			t.Errorf("sentence %d: %+v", k, hyps)
			continue
		}
		f := hyps[0].Features
		if f.At(idx.ID("LM0_0")) != -float64(k+1) || f.At(idx.ID("WordPenalty0_0")) != -float64(len(words)) ||
			f.At(idx.ID("TranslationModel0_0")) != 0.5 || f.Len() != 3 {
			t.Errorf("sentence %d: features %+v", k, f)
		}
	}

	// Without sparse weights there is no weight file; one sentence runs
	// on one thread.
	one, err := d.NBest(context.Background(), 4, "x y", testWeights(d, false), 2)
	if err != nil {
		t.Fatal(err)
	}
	args = readLines(t, filepath.Join(dir, "args"))
	if len(args) != 12 || args[5] != "1" || args[8] != "2" || slicesContain(args, "-weight-file") {
		t.Errorf("arguments for one sentence without sparse weights: %q", args)
	}
	if len(one) != 2 || one[0].Target != "x y" || one[1].Target != "y x" {
		t.Errorf("NBest: %+v", one)
	}
}

func slicesContain(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// TestNBestBatchScoreless: a list without totals (as cdec writes) scores
// each hypothesis as w · features.
func TestNBestBatchScoreless(t *testing.T) {
	d, _ := fake(t, "noscore")
	w := testWeights(d, false)
	lists, err := d.NBestBatch(context.Background(), []int{0, 1, 2}, testSents, w, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	for k, hyps := range lists {
		for _, h := range hyps {
			if want := h.Features.Dot(w); h.Score != want || want == 0 {
				t.Errorf("sentence %d: score %v, want w·f = %v", k, h.Score, want)
			}
		}
	}
}

// TestNBestBatchErrors runs decoders that fail in every way the protocol
// can: each error names the command and the sentences, never panics.
func TestNBestBatchErrors(t *testing.T) {
	cases := []struct {
		mode string
		want []string // the error holds each
		is   error
	}{
		{"exit1", []string{"exit status 1; its standard error ends: loading the phrase table ⏎ moses: out of memory", "sentences 10, 11, 12", "fake.sh -v 0 -f "}, nil},
		{"signal", []string{"signal: killed", "sentences 10, 11, 12"}, nil},
		{"malformed", []string{"nbest: ", "/nbest:2:", "sentences 10, 11, 12"}, nbest.ErrBadNumber},
		{"truncated", []string{"/nbest:6:"}, io.ErrUnexpectedEOF},
		{"missing", []string{"sentence 12 (line 3 of the batch) is not in the n-best list"}, nil},
		{"outside", []string{"/nbest:7: sentence 7 of a batch of 3"}, nil},
		{"toomany", []string{"/nbest:7: more than 2 hypotheses for sentence 10 (line 1 of the batch)"}, nil},
		{"stdout", []string{"1 lines on standard output for 3 sentences"}, nil},
		{"nofile", []string{"the n-best list: open ", "no such file"}, os.ErrNotExist},
		{"renamed", []string{"sentences 10, 11, 12", "/nbest:1: ", "LMX0 (1 values) is not in ", "moses.ini (the moses.ini's: LM0 (1), WordPenalty0 (1), TranslationModel0 (2))"}, ErrGroups},
		{"count", []string{"/nbest:1: ", "TranslationModel0 has 3 values, 2 in "}, ErrGroups},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			d, _ := fake(t, tc.mode)
			n := 5
			if tc.mode == "toomany" {
				n = 2
			}
			_, err := d.NBestBatch(context.Background(), []int{10, 11, 12}, testSents, testWeights(d, false), n, 1)
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is not one line", err)
			}
			if !strings.HasPrefix(err.Error(), "external: sh ") {
				t.Errorf("error %q does not start with the command", err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q is not %v", err, tc.is)
			}
		})
	}
}

// TestNBestBatchCancel cancels a decoder that runs a child of its own:
// both must be killed and NBestBatch must return at once.
func TestNBestBatchCancel(t *testing.T) {
	d, dir := fake(t, "sleep")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := d.NBestBatch(ctx, []int{0, 1, 2}, testSents, testWeights(d, false), 5, 1)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "sentences 0, 1, 2") {
		t.Errorf("error %v, want the deadline naming the sentences", err)
	}
	if s := time.Since(start); s > 10*time.Second {
		t.Errorf("NBestBatch returned after %v", s)
	}
	for _, f := range []string{"pid", "child"} {
		lines := readLines(t, filepath.Join(dir, f))
		pid, err := strconv.Atoi(lines[0])
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for syscall.Kill(pid, 0) == nil && !zombie(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if syscall.Kill(pid, 0) == nil && !zombie(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the decoder's %s %d outlived the cancellation", f, pid)
		}
	}
}

// zombie reports whether pid has exited and waits for its parent to reap
// it (always false without Linux's /proc).
func zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

func TestNew(t *testing.T) {
	dir := t.TempDir()
	ini := filepath.Join(dir, "moses.ini")
	noWeights := filepath.Join(dir, "none.ini")
	if err := os.WriteFile(ini, []byte(fakeIni), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(noWeights, []byte("[feature]\nWordPenalty\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Ini: ini}, "bad decoder command: no program"},
		{Config{Command: []string{"sh"}}, "no moses.ini"},
		{Config{Command: []string{"no-such-decoder-mtune"}, Ini: ini}, `decoder no-such-decoder-mtune: exec: "no-such-decoder-mtune": executable file not found`},
		{Config{Command: []string{"sh"}, Ini: filepath.Join(dir, "missing.ini")}, "missing.ini"},
		{Config{Command: []string{"sh"}, Ini: noWeights}, "none.ini: no weights"},
	} {
		_, err := New(context.Background(), tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v): %v, want an error saying %q", tc.cfg, err, tc.want)
		}
	}
}

// TestTailEnds: the end of a standard error, on one line of at most
// endsMax bytes.
func TestTailEnds(t *testing.T) {
	long := strings.Repeat("x", 400)
	for _, tc := range []struct {
		max      int
		in, want string
	}{
		{2048, "", ""},
		{2048, " \n\t\n", ""},
		{2048, "a\n\n b \nc\n", "; its standard error ends: a ⏎ b ⏎ c"},
		{5, "abcdef\ngh\n", "; its standard error ends: …f ⏎ gh"},
		{2048, long + "\nlast\n", "; its standard error ends: …last"},
		{2048, "first\n" + long, "; its standard error ends: …" + long[100:]},
	} {
		tl := &Tail{Max: tc.max}
		tl.Write([]byte(tc.in))
		if got := tl.Ends(); got != tc.want {
			t.Errorf("Ends of %q (Max %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}
