package poolfile

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/corpus"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
	"github.com/mtune/mtune/testsupport/shared"
	"github.com/mtune/mtune/testsupport/testfile"
)

func loadScorer(tb testing.TB, refPath string) *pool.Scorer {
	tb.Helper()
	refs, err := corpus.LoadRefs(context.Background(), []string{refPath})
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := pool.NewScorer(refs, metric.DefaultBLEU())
	if err != nil {
		tb.Fatal(err)
	}
	return sc
}

// expectedExtractor returns Moses' extractor output for mert-extractor with
// the STDOUT_N= prefixes stripped, split into its sections.
func expectedExtractor(t *testing.T) []string {
	t.Helper()
	zr := testfile.OpenGzip(t, shared.Path(t, "nbest", "mert-extractor", "expected-extractor-output.txt.gz"))
	var lines []string
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line := sc.Text()
		if k := strings.IndexByte(line, '='); strings.HasPrefix(line, "STDOUT_") && k > 0 {
			line = line[k+1:]
		}
		if strings.HasPrefix(line, "TOTAL_WALLTIME") {
			continue // the test harness' own footer
		}
		lines = append(lines, line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestExtractMatchesMoses checks that extracting the first iteration of
// mert-extractor writes exactly the bytes Moses' extractor wrote, and that
// pooling further iterations gives Moses' per-sentence counts.
func TestExtractMatchesMoses(t *testing.T) {
	ctx := context.Background()
	dir := shared.Path(t, "nbest", "mert-extractor")
	sc := loadScorer(t, filepath.Join(dir, "reference"))
	want := expectedExtractor(t)
	// Iteration k's output is 10 feature blocks then 10 score blocks.
	var sections [][]string
	for start := 0; start < len(want); {
		end := start
		blocks := 0
		for blocks < 20 && end < len(want) {
			if strings.HasPrefix(want[end], "FEATURES_TXT_END") || strings.HasPrefix(want[end], "SCORES_TXT_END") {
				blocks++
			}
			end++
		}
		sections = append(sections, want[start:end])
		start = end
	}
	if len(sections) != 5 {
		t.Fatalf("expected output has %d iterations, want 5", len(sections))
	}
	for iter := 1; iter <= 5; iter++ {
		t.Run(fmt.Sprintf("iteration%d", iter), func(t *testing.T) {
			var paths []string
			for k := 1; k <= iter; k++ {
				paths = append(paths, filepath.Join(dir, fmt.Sprintf("nbest.%d.gz", k)))
			}
			out := t.TempDir()
			feat, score := filepath.Join(out, "f.dat"), filepath.Join(out, "s.dat")
			res, err := Extract(ctx, paths, sc, feat, score, Options{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			if res.Sentences != 10 || res.Read != 1000*iter {
				t.Fatalf("result %+v", res)
			}
			got := readLines(t, feat)
			got = append(got, readLines(t, score)...)
			exp := sections[iter-1]
			if iter == 1 {
				// Statistics for iteration 1 are exact: every byte agrees.
				if strings.Join(got, "\n") != strings.Join(exp, "\n") {
					t.Fatal("iteration 1 output differs from Moses' extractor")
				}
				return
			}
			// Later iterations: Moses' de-duplication reorders rows, so
			// compare the block headers (sentence, count, names).
			if gh, eh := headers(got), headers(exp); strings.Join(gh, "\n") != strings.Join(eh, "\n") {
				t.Fatalf("headers differ:\n got %q\nwant %q", gh, eh)
			}
		})
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func headers(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.Contains(l, "_BEGIN_") {
			out = append(out, l)
		}
	}
	return out
}

// TestLoadEuroparl100 re-ranks europarl100 with init.weights: Moses
// measures 13.68 BLEU.
func TestLoadEuroparl100(t *testing.T) {
	ctx := context.Background()
	dir := shared.Path(t, "nbest", "europarl100")
	idx := feature.NewIndex()
	set, err := weights.Read(ctx, filepath.Join(dir, "init.weights"), idx)
	if err != nil {
		t.Fatal(err)
	}
	sc := loadScorer(t, filepath.Join(dir, "reference"))
	for _, threads := range []int{1, 2, 4} {
		lists, groups, err := Load(ctx, []string{filepath.Join(dir, "nbest.gz")}, idx, sc, Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		if len(lists) != 100 || pool.Size(lists) != 10000 {
			t.Fatalf("%d lists, %d hypotheses; want 100 and 10000", len(lists), pool.Size(lists))
		}
		for i, l := range lists {
			if l.Sent != i {
				t.Fatalf("list %d has sentence %d", i, l.Sent)
			}
		}
		if len(feature.GroupNames(groups)) != 15 {
			t.Fatalf("groups %v: want 15 dense features", groups)
		}
		got := metric.MultiBLEU(pool.OneBest(lists, set.Weights))
		if !strings.HasPrefix(got, "BLEU = 13.68,") {
			t.Fatalf("threads %d: %s; Moses gives 13.68", threads, got)
		}
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := testfile.Writer(t, dir)
	ref := write("ref", "a b c\nd e f\n")
	sc := loadScorer(t, ref)
	gz := testfile.Gzip(t, []byte(strings.Repeat("0 ||| a b c ||| LM0= -1 ||| -1\n", 200)))
	truncated := write("trunc.gz", string(gz[:len(gz)/2]))
	tests := []struct {
		name  string
		paths []string
		want  string
	}{
		{"no files", nil, "no n-best files"},
		{"missing file", []string{filepath.Join(dir, "absent")}, "absent"},
		{"id past the references", []string{write("far", "0 ||| a ||| LM0= -1 ||| -1\n\n5 ||| a ||| LM0= -1 ||| -1\n")}, "far:3: sentence id out of range: sentence 5, but the references have 2 sentences"},
		{"huge id", []string{write("huge", "2000000000 ||| a ||| LM0= -1 ||| -1\n")}, "huge:1: sentence id out of range: sentence 2000000000"},
		{"decreasing ids", []string{write("dec", "1 ||| a ||| LM0= -1 ||| -1\n0 ||| a ||| LM0= -1 ||| -1\n")}, "dec:2: sentence 0 comes after sentence 1"},
		{"malformed line", []string{write("bad", "0 ||| a ||| LM0= x ||| -1\n")}, "bad:1"},
		{"truncated gzip", []string{truncated}, "trunc.gz"},
		{"empty", []string{write("empty", "")}, "hold no hypotheses"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			_, err := Extract(ctx, tc.paths, sc, filepath.Join(out, "f"), filepath.Join(out, "s"), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Extract error %v, want one containing %q", err, tc.want)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Fatalf("failed Extract left %d files", len(entries))
			}
		})
	}
}
