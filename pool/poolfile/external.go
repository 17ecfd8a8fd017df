package poolfile

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/fastnum"
	"github.com/mtune/mtune/internal/textpos"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/metric"
	"github.com/mtune/mtune/pool"
)

// ExternalScores are per-hypothesis scores computed elsewhere (COMET, a
// quality-estimation model), read from score files aligned with n-best
// files (docs/formats.md, "Score files"), as qaware-decode feeds
// Travatar's MERT with COMET scores. A hypothesis is known by the n-best
// file and line it was read from (nbest.Hypothesis.File and Line), which
// it keeps through pooling: the score of a hypothesis several files hold
// is the first copy's, the one de-duplication keeps (dedup).
type ExternalScores struct {
	// byFile holds, by n-best path, the score of the hypothesis on each
	// line (indexed by the 1-based line; NaN on a line without one).
	byFile    map[string][]float64
	sentences int // 1 + the largest sentence id of the n-best files
}

// nbestLine is one hypothesis of an n-best file: its sentence id, its
// 0-based index among its sentence's lines, and its 1-based line.
type nbestLine struct{ sent, index, line int }

// ReadExternalScores reads the score files at scorePaths, scorePaths[i]
// the scores of the hypotheses of the n-best file at nbestPaths[i] (local
// or gs://, .gz/.zst allowed; in format, nbest.FormatAuto detecting each
// file's). Each file holds either one score a line, the k-th the score of
// the n-best file's k-th hypothesis in line order (its k-th H- line in
// fairseq's output), or lines
// "id ||| index ||| score", index the 0-based position of the hypothesis
// among its sentence's lines; the first non-blank line tells which, blank
// lines are skipped. Every hypothesis must have exactly one finite score:
// anything else is an error naming the file and line. A hypothesis is known
// by its n-best file and line, so lists that hold several hypotheses on a
// line (Sockeye's) are an error.
func ReadExternalScores(ctx context.Context, nbestPaths, scorePaths []string, format nbest.Format) (*ExternalScores, error) {
	if len(nbestPaths) != len(scorePaths) {
		return nil, fmt.Errorf("poolfile: %d score files for %d n-best files: give one a file, in the same order", len(scorePaths), len(nbestPaths))
	}
	for i, np := range nbestPaths {
		if slices.Contains(nbestPaths[:i], np) {
			return nil, fmt.Errorf("poolfile: n-best file %s given twice: its hypotheses would have two scores", np)
		}
	}
	e := &ExternalScores{byFile: make(map[string][]float64)}
	for i, np := range nbestPaths {
		hyps, err := readNbestLines(ctx, np, format)
		if err != nil {
			return nil, err
		}
		for k := 1; k < len(hyps); k++ {
			if hyps[k].line == hyps[k-1].line {
				return nil, fmt.Errorf("poolfile: %s:%d: several hypotheses on one line (Sockeye's lists): external scores are given a hypothesis a line", np, hyps[k].line)
			}
		}
		rc, err := storage.Open(ctx, scorePaths[i])
		if err != nil {
			return nil, err
		}
		scores, err := parseScores(rc, scorePaths[i], np, hyps)
		rc.Close()
		if err != nil {
			return nil, err
		}
		byLine := make([]float64, 1)
		if len(hyps) > 0 {
			byLine = make([]float64, hyps[len(hyps)-1].line+1)
		}
		for k := range byLine {
			byLine[k] = math.NaN()
		}
		for k, h := range hyps {
			byLine[h.line] = scores[k]
			e.sentences = max(e.sentences, h.sent+1)
		}
		e.byFile[np] = byLine
	}
	return e, nil
}

// readNbestLines returns the hypotheses of the n-best file at path, in
// line order (a line's several hypotheses, Sockeye's, in their order).
func readNbestLines(ctx context.Context, path string, format nbest.Format) ([]nbestLine, error) {
	rc, err := storage.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	r, err := nbest.NewSentenceReader(rc, path, feature.NewIndex(), format)
	if err != nil {
		return nil, err
	}
	var out []nbestLine
	for {
		id, hyps, err := r.ReadSentence()
		if err == io.EOF {
			// fairseq's sentences come in id order, not in line order.
			slices.SortStableFunc(out, func(a, b nbestLine) int { return cmp.Compare(a.line, b.line) })
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		for k, h := range hyps {
			out = append(out, nbestLine{sent: id, index: k, line: h.Line})
		}
	}
}

// Sentences is 1 + the largest sentence id of the n-best files.
func (e *ExternalScores) Sentences() int { return e.sentences }

// Score returns the score of the hypothesis read at file:line.
func (e *ExternalScores) Score(file string, line int) (float64, error) {
	s := e.byFile[file]
	if line <= 0 || line >= len(s) || math.IsNaN(s[line]) {
		return 0, fmt.Errorf("poolfile: %s:%d: no external score for this line", file, line)
	}
	return s[line], nil
}

// ExternalScorer returns a scorer of the hypotheses of the n-best files at
// nbestPaths under m whose statistics are the scores of the files at
// scorePaths (ReadExternalScores; format is the n-best files'), for Load,
// Extract and Scorer.Hyp.
func ExternalScorer(ctx context.Context, nbestPaths, scorePaths []string, format nbest.Format, m metric.FileScored) (*pool.Scorer, error) {
	e, err := ReadExternalScores(ctx, nbestPaths, scorePaths, format)
	if err != nil {
		return nil, err
	}
	return pool.NewExternalScorer(m, e.Sentences(), e.Score), nil
}

// errScoreLine is the error of line of the score file name.
func errScoreLine(name string, line int, format string, args ...any) error {
	return fmt.Errorf("poolfile: %s:%d: %s", name, line, fmt.Sprintf(format, args...))
}

// parseScore parses one score: a finite number.
func parseScore(s string) (float64, error) {
	s = strings.TrimSpace(s)
	x, ok := fastnum.ParseFloat64([]byte(s)) // decimal only, as the n-best lists' numbers: no "1_0", hex or "inf"
	if !ok {
		return 0, fmt.Errorf("score %q: want a finite number", s)
	}
	return x, nil
}

// parseScores reads the score file r, named name, of the hypotheses hyps
// of the n-best file nbestName (in line order) and returns their scores,
// in the order of hyps. See ReadExternalScores for the formats.
func parseScores(r io.Reader, name, nbestName string, hyps []nbestLine) ([]float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	scores := make([]float64, len(hyps))
	indexed := false  // "id ||| index ||| score" lines
	var firstAt []int // indexed: the score file's line of each hypothesis' score, 0 for none yet
	var at map[[2]int]int
	var perSent map[int]int
	n, line := 0, 0 // scores read; the score file's line
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			text = strings.TrimPrefix(text, string(textpos.BOM)) // as the n-best readers
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		if !utf8.ValidString(text) {
			return nil, errScoreLine(name, line, "invalid UTF-8")
		}
		if n == 0 && !indexed && strings.Contains(text, "|||") {
			indexed = true
			firstAt = make([]int, len(hyps))
			at = make(map[[2]int]int, len(hyps))
			perSent = make(map[int]int)
			for k, h := range hyps {
				at[[2]int{h.sent, h.index}] = k
				perSent[h.sent]++
			}
		}
		n++
		if !indexed {
			if n > len(hyps) {
				return nil, errScoreLine(name, line, "a score beyond the %d hypotheses of %s", len(hyps), nbestName)
			}
			x, err := parseScore(text)
			if err != nil {
				return nil, errScoreLine(name, line, "%v (the first line has one score a line)", err)
			}
			scores[n-1] = x
			continue
		}
		f := strings.Split(text, "|||")
		if len(f) != 3 {
			return nil, errScoreLine(name, line, "%d fields: want id ||| index ||| score, as the first line", len(f))
		}
		id, err1 := strconv.Atoi(strings.TrimSpace(f[0]))
		index, err2 := strconv.Atoi(strings.TrimSpace(f[1]))
		if err1 != nil || err2 != nil || id < 0 || index < 0 {
			return nil, errScoreLine(name, line, "id %q, index %q: want non-negative integers", strings.TrimSpace(f[0]), strings.TrimSpace(f[1]))
		}
		x, err := parseScore(f[2])
		if err != nil {
			return nil, errScoreLine(name, line, "%v", err)
		}
		k, ok := at[[2]int{id, index}]
		switch {
		case !ok && perSent[id] == 0:
			return nil, errScoreLine(name, line, "sentence %d: %s has no hypothesis of it", id, nbestName)
		case !ok:
			return nil, errScoreLine(name, line, "sentence %d, index %d: %s has %d hypotheses of it (indices 0 to %d)", id, index, nbestName, perSent[id], perSent[id]-1)
		case firstAt[k] > 0:
			return nil, errScoreLine(name, line, "sentence %d, index %d again (first at line %d)", id, index, firstAt[k])
		}
		firstAt[k], scores[k] = line, x
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("poolfile: %s:%d: %w", name, line+1, err)
	}
	if n == 0 && len(hyps) > 0 {
		return nil, errScoreLine(name, max(line, 1), "no score (an empty file) for the %d hypotheses of %s", len(hyps), nbestName)
	}
	if !indexed && n < len(hyps) {
		return nil, fmt.Errorf("poolfile: %s:%d: %d scores for the %d hypotheses of %s (%s:%d has none)", name, line, n, len(hyps), nbestName, nbestName, hyps[n].line)
	}
	for k, h := range hyps {
		if indexed && firstAt[k] == 0 {
			return nil, fmt.Errorf("poolfile: %s: no score for sentence %d, index %d (%s:%d)", name, h.sent, h.index, nbestName, h.line)
		}
	}
	return scores, nil
}
