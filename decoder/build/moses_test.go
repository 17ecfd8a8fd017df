package build

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/testsupport/shared"
)

// The key check: the model built from lines 1–8000 of europarl-fr-en must
// be Moses' own model of the same data (moses-models/europarl-fr-en-8k,
// made by train-model.perl steps 4–9 from the same alignments).

func europarlOptions(t testing.TB, out string) Options {
	data := shared.Path(t, "europarl-fr-en")
	return Options{
		Src: filepath.Join(data, "fr.gz"), Tgt: filepath.Join(data, "en.gz"), Align: filepath.Join(data, "align.fr-en.gz"),
		Lines: LineRange{1, 8000}, Out: out,
	}
}

// lineDiff compares two (compressed) text files line by line.
type lineDiff struct {
	got, want, same int
	examples        []string
}

func diffFiles(t testing.TB, gotPath, wantPath string) lineDiff {
	t.Helper()
	open := func(p string) (io.ReadCloser, *bufio.Scanner) {
		rc, err := storage.Open(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(rc)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		return rc, sc
	}
	gr, gs := open(gotPath)
	defer gr.Close()
	wr, ws := open(wantPath)
	defer wr.Close()
	var d lineDiff
	for {
		g, w := gs.Scan(), ws.Scan()
		if g {
			d.got++
		}
		if w {
			d.want++
		}
		if !g && !w {
			break
		}
		if g && w && gs.Text() == ws.Text() {
			d.same++
		} else if len(d.examples) < 5 {
			d.examples = append(d.examples, fmt.Sprintf("line %d:\n  got:  %q\n  want: %q", max(d.got, d.want), gs.Text(), ws.Text()))
		}
	}
	for _, err := range []error{gs.Err(), ws.Err()} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// peakRSS returns the process' peak resident set size in MiB (Linux), or 0.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	kb, _ := strconv.Atoi(string(m[1]))
	return float64(kb) / 1024
}

func TestMosesEuroparl8k(t *testing.T) {
	mdir := shared.Path(t, "moses-models", "europarl-fr-en-8k")
	o := europarlOptions(t, t.TempDir())
	o.SkipLM = true // TestMosesEuroparl8kLM checks the language model
	cpu0, t0 := shared.CPUTime(), time.Now()
	res := mustRun(t, o)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("built in %.2f s wall, %.2f s CPU (stages %+v); heap obtained from the OS %.0f MiB, peak RSS of the test %.0f MiB",
		time.Since(t0).Seconds(), (shared.CPUTime() - cpu0).Seconds(), res.Stages, float64(ms.HeapSys)/(1<<20), peakRSS())
	t.Logf("%d sentence pairs, %d occurrences, %d phrase pairs (%d source, %d target phrases)",
		res.Sentences, res.Occurrences, res.PhrasePairs, res.SourcePhrases, res.TargetPhrases)

	// Moses' figures (its phrase table: 607,252 lines, 433,671 distinct
	// source phrases, 402,509 target phrases, counts summing to 812,360).
	if res.PhrasePairs != 607252 || res.SourcePhrases != 433671 || res.TargetPhrases != 402509 || res.Occurrences != 812360 {
		t.Errorf("got %d pairs, %d source, %d target phrases, %d occurrences; Moses has 607252, 433671, 402509, 812360",
			res.PhrasePairs, res.SourcePhrases, res.TargetPhrases, res.Occurrences)
	}
	for _, f := range []struct{ got, want string }{
		{res.PhraseTable, filepath.Join(mdir, "phrase-table.gz")},
		{res.ReorderingTable, filepath.Join(mdir, "reordering-table.wbe-msd-bidirectional-fe.gz")},
	} {
		d := diffFiles(t, f.got, f.want)
		t.Logf("%s: %d of %d lines identical to Moses' %d", filepath.Base(f.got), d.same, d.got, d.want)
		if d.same != d.want || d.got != d.want {
			t.Errorf("%s differs from Moses' (%d lines, %d identical, Moses %d):\n%s", filepath.Base(f.got), d.got, d.same, d.want, strings.Join(d.examples, "\n"))
		}
	}
}

// TestMosesEuroparl8kLM builds the whole system, language model included
// (about 2 s more CPU and 250 MiB more memory, in decoder/lm's estimator),
// and checks the n-gram counts against Moses' lmplz model. Set
// MTUNE_BUILD_LM=1 to run it.
func TestMosesEuroparl8kLM(t *testing.T) {
	if os.Getenv("MTUNE_BUILD_LM") == "" {
		t.Skip("set MTUNE_BUILD_LM=1 to build the 8k system with its language model")
	}
	mdir := shared.Path(t, "moses-models", "europarl-fr-en-8k")
	o := europarlOptions(t, t.TempDir())
	res := mustRun(t, o)
	t.Logf("built in %.2f s (stages %+v), peak RSS of the test %.0f MiB", res.Seconds, res.Stages, peakRSS())
	want, err := arpaCounts(filepath.Join(mdir, "lm.en.5.arpa.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.NGrams) != fmt.Sprint(want) {
		t.Errorf("n-gram counts %v, Moses' lmplz model has %v", res.NGrams, want)
	}
	got, err := arpaCounts(res.LM)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the ARPA file says %v, Moses' %v", got, want)
	}
	d := diffFiles(t, res.LM, filepath.Join(mdir, "lm.en.5.arpa.gz"))
	t.Logf("%s: %d of %d lines identical to Moses' lmplz model (%d lines)", filepath.Base(res.LM), d.same, d.got, d.want)
}

// arpaCounts reads the \data\ section of an ARPA file.
func arpaCounts(path string) ([]int, error) {
	rc, err := storage.Open(context.Background(), path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	var counts []int
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "\\1-grams") {
			break
		}
		if _, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(line, "ngram ") {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, err
			}
			counts = append(counts, n)
		}
	}
	return counts, sc.Err()
}
