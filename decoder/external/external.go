package external

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mtune/mtune/decoder"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/internal/proctemp"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/weights"
)

// TempPrefix starts the names of the decoder's temporary folders
// (proctemp.MkdirTemp).
const TempPrefix = "mtune-decoder"

// Config is an external decoder: a command and the model it decodes with.
type Config struct {
	// Command is the decoder's program and its own arguments (Split splits
	// a command line into them); required. The program is looked up on
	// PATH unless it holds a slash.
	Command []string
	// Ini is the moses.ini given to the decoder with -f (local path, as
	// the decoder reads it); required. Its weight sections name the dense
	// features (io/weights reads them; the rest of the file is the
	// decoder's business).
	Ini string
	// Env holds variables added to the decoder's environment (those of
	// ${NAME} in the moses.ini, as the launching machine gives them);
	// nil adds none. The decoder inherits the rest of this process's
	// environment.
	Env map[string]string
}

// Decoder runs a Moses-compatible decoder as a subprocess. It implements
// tune.Decoder and tune.BatchDecoder: each NBest or NBestBatch call starts
// the decoder once for all its sentences. It is safe for concurrent use;
// concurrent calls run separate subprocesses.
type Decoder struct {
	cfg    Config
	index  *feature.Index
	groups []feature.Group // the dense features, from the moses.ini
	dense  map[feature.ID]bool
}

// New checks cfg (the program must be found) and reads the dense features
// from the moses.ini's weight sections: their names come first in the
// decoder's feature index, in the moses.ini's order, as in the index of
// package decoder's Model.
func New(ctx context.Context, cfg Config) (*Decoder, error) {
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return nil, fmt.Errorf("%w: no program", ErrCommand)
	}
	if cfg.Ini == "" {
		return nil, errors.New("external: no moses.ini")
	}
	if _, err := exec.LookPath(cfg.Command[0]); err != nil {
		return nil, fmt.Errorf("external: decoder %s: %w", cfg.Command[0], err)
	}
	idx := feature.NewIndex()
	set, err := weights.Read(ctx, cfg.Ini, idx)
	if err != nil {
		return nil, fmt.Errorf("external: the dense features of %s: %w", cfg.Ini, err)
	}
	if len(set.Groups) == 0 {
		return nil, fmt.Errorf("external: %s has no dense weights", cfg.Ini)
	}
	dense := map[feature.ID]bool{}
	for _, g := range set.Groups {
		for j := range g.Len {
			dense[idx.ID(feature.DenseName(g.Label, j))] = true
		}
	}
	return &Decoder{cfg: cfg, index: idx, groups: slices.Clone(set.Groups), dense: dense}, nil
}

// Features returns the decoder's feature index: the moses.ini's dense
// features, then the names met in n-best lists or added by callers.
func (d *Decoder) Features() *feature.Index { return d.index }

// NBest decodes one sentence (NBestBatch of one, on one thread).
func (d *Decoder) NBest(ctx context.Context, sentID int, src string, w feature.Weights, n int) ([]decoder.Hypothesis, error) {
	out, err := d.NBestBatch(ctx, []int{sentID}, []string{src}, w, n, 1)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// NBestBatch decodes the sentences srcs (whose tuning-set ids are ids, for
// messages) under the weights w (over Features) with one run of the
// decoder:
//
//	CMD… -f INI -threads T -n-best-list DIR/nbest N distinct
//	    -weight-overwrite 'Label= v v … Label2= v …' [-weight-file DIR/sparse]
//
// with the sentences on its standard input, one a line. Every dense
// feature of the moses.ini gets its weight from w (0 where w has none);
// the other non-zero weights of w go to the sparse weights file, "name
// value" lines, as Moses' mert-moses.pl passes them. Numbers are written
// in the shortest form that reads back exactly. The n-best file is read
// with io/nbest; its sentence k is srcs[k]. It returns up to n
// hypotheses for each sentence, best first, with the n-best file's
// features (over Features) and total score; without a total the score is
// w · features.
//
// A decoder that cannot start, exits with an error, prints other than
// one line per sentence on its standard output, or writes a malformed
// n-best file, or one without some sentence, is an error naming the
// command and the sentence (with the end of the decoder's standard error
// for a failed run, on the error's line). The decoder runs in a process
// group of its own (RunGroup, on Unix), killed when ctx is cancelled,
// when the decoder exits, and when this process dies, even by SIGKILL.
// Its files go to a temporary folder removed after the run; one that a
// killed process left is removed by the next process that runs a
// decoder on the host (proctemp.MkdirTemp).
func (d *Decoder) NBestBatch(ctx context.Context, ids []int, srcs []string, w feature.Weights, n, threads int) ([][]decoder.Hypothesis, error) {
	if len(ids) != len(srcs) {
		panic("external: NBestBatch with different numbers of ids and sentences")
	}
	if len(srcs) == 0 {
		return nil, nil
	}
	n, threads = max(n, 1), max(threads, 1)
	for k, s := range srcs {
		if strings.ContainsAny(s, "\n\r") {
			return nil, fmt.Errorf("external: sentence %d holds a line break", ids[k])
		}
	}
	dir, err := proctemp.MkdirTemp(TempPrefix)
	if err != nil {
		return nil, fmt.Errorf("external: %w", err)
	}
	defer os.RemoveAll(dir)
	nbFile := filepath.Join(dir, "nbest")
	args := append(slices.Clone(d.cfg.Command[1:]), "-f", d.cfg.Ini, "-threads", strconv.Itoa(threads),
		"-n-best-list", nbFile, strconv.Itoa(n), "distinct", "-weight-overwrite", d.denseWeights(w))
	if sparse := d.sparseWeights(w); sparse != nil {
		sp := filepath.Join(dir, "sparse")
		if err := os.WriteFile(sp, sparse, 0o666); err != nil {
			return nil, fmt.Errorf("external: %w", err)
		}
		args = append(args, "-weight-file", sp)
	}
	run := &run{d: d, ids: ids, args: args}
	if err := run.exec(ctx, srcs); err != nil {
		return nil, err
	}
	return run.read(nbFile, w, n)
}

// denseWeights formats the dense weights of w as Moses' -weight-overwrite
// takes them.
func (d *Decoder) denseWeights(w feature.Weights) string {
	var b []byte
	for i, g := range d.groups {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(append(b, g.Label...), '=')
		for j := range g.Len {
			id, _ := d.index.Lookup(feature.DenseName(g.Label, j))
			b = strconv.AppendFloat(append(b, ' '), w.At(id), 'g', -1, 64)
		}
	}
	return string(b)
}

// sparseWeights formats the non-zero weights of w that are not dense as a
// Moses sparse weights file, sorted by name; nil if there are none.
func (d *Decoder) sparseWeights(w feature.Weights) []byte {
	type entry struct {
		name string
		x    float64
	}
	var es []entry
	for id, x := range w {
		if x != 0 && !d.dense[feature.ID(id)] {
			es = append(es, entry{d.index.Name(feature.ID(id)), x})
		}
	}
	if len(es) == 0 {
		return nil
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	var b []byte
	for _, e := range es {
		b = strconv.AppendFloat(append(append(b, e.name...), ' '), e.x, 'g', -1, 64)
		b = append(b, '\n')
	}
	return b
}

// run is one run of the decoder over a batch.
type run struct {
	d    *Decoder
	ids  []int
	args []string
}

// String names the run in errors: the command line (quoted as Split reads
// it back) and the sentences.
func (r *run) String() string {
	return fmt.Sprintf("%s (%s)", Quote(append([]string{r.d.cfg.Command[0]}, r.args...)), r.sentences())
}

// sentences names the batch's sentences: "sentence 7", or "sentences 7, 12,
// 30 and 17 more".
func (r *run) sentences() string {
	if len(r.ids) == 1 {
		return fmt.Sprintf("sentence %d", r.ids[0])
	}
	const show = 3
	var b strings.Builder
	b.WriteString("sentences ")
	for k, id := range r.ids[:min(show, len(r.ids))] {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(id))
	}
	if len(r.ids) > show {
		fmt.Fprintf(&b, " and %d more", len(r.ids)-show)
	}
	return b.String()
}

// WaitDelay is how long a killed child's output pipes may stay open (a
// grandchild holding them) before RunGroup gives up on them: the
// decoder's and the feature commands' (tune.FeatureCommand).
const WaitDelay = 5 * time.Second

// exec runs the decoder on srcs and checks its exit status and its
// standard output.
func (r *run) exec(ctx context.Context, srcs []string) error {
	cmd := exec.CommandContext(ctx, r.d.cfg.Command[0], r.args...)
	cmd.Stdin = strings.NewReader(strings.Join(srcs, "\n") + "\n")
	var lines lineCounter
	stderr := &Tail{Max: 2048}
	cmd.Stdout, cmd.Stderr = &lines, stderr
	if len(r.d.cfg.Env) > 0 {
		cmd.Env = os.Environ()
		for _, k := range slices.Sorted(maps.Keys(r.d.cfg.Env)) {
			cmd.Env = append(cmd.Env, k+"="+r.d.cfg.Env[k])
		}
	}
	err := RunGroup(cmd)
	if ctx.Err() != nil {
		return fmt.Errorf("external: %s: %w", r, context.Cause(ctx))
	}
	if err != nil {
		return fmt.Errorf("external: %s: %w%s", r, err, stderr.Ends())
	}
	if n := lines.lines(); n != len(srcs) {
		return fmt.Errorf("external: %s: %d lines on standard output for %d sentences", r, n, len(srcs))
	}
	return nil
}

// read reads the n-best file of the run.
func (r *run) read(path string, w feature.Weights, n int) ([][]decoder.Hypothesis, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("external: %s: the n-best list: %w", r, err)
	}
	defer f.Close()
	out := make([][]decoder.Hypothesis, len(r.ids))
	rd := nbest.NewReader(f, path, r.d.index)
	first := true // the first line's dense groups, which every line has (nbest.ErrDenseLayout), are checked
	for {
		h, err := rd.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("external: %s: %w", r, err)
		}
		if first {
			if err := r.d.checkGroups(rd.Groups()); err != nil {
				return nil, fmt.Errorf("external: %s: %s:%d: %w", r, path, rd.Line(), err)
			}
			first = false
		}
		k := h.Sentence
		if k >= len(out) {
			return nil, fmt.Errorf("external: %s: %s:%d: sentence %d of a batch of %d", r, path, rd.Line(), k, len(out))
		}
		if len(out[k]) == n {
			return nil, fmt.Errorf("external: %s: %s:%d: more than %d hypotheses for sentence %d (line %d of the batch)", r, path, rd.Line(), n, r.ids[k], k+1)
		}
		score := h.Score
		if !h.HasScore {
			score = h.Features.Dot(w)
		}
		out[k] = append(out[k], decoder.Hypothesis{Target: h.Target, Features: h.Features, Score: score})
	}
	for k, hyps := range out {
		if len(hyps) == 0 {
			return nil, fmt.Errorf("external: %s: sentence %d (line %d of the batch) is not in the n-best list", r, r.ids[k], k+1)
		}
	}
	return out, nil
}

// ErrGroups: an external decoder's n-best list has a dense feature the
// moses.ini has not (LMX0= where the moses.ini has LM0=), or one with
// another number of values: its weight would be learnt under a name the
// decoder is never given.
var ErrGroups = errors.New("the n-best list's dense features are not the moses.ini's")

// checkGroups checks the dense groups of an n-best list of the decoder
// against the moses.ini's: each must be one of them with its number of
// values. A group of the moses.ini the list lacks is allowed: Moses writes
// no feature declared tuneable=false.
func (d *Decoder) checkGroups(groups []feature.Group) error {
	var bad []string
	for _, g := range groups {
		k := slices.IndexFunc(d.groups, func(x feature.Group) bool { return x.Label == g.Label })
		switch {
		case k < 0:
			bad = append(bad, fmt.Sprintf("%s (%d values) is not in %s", g.Label, g.Len, d.cfg.Ini))
		case d.groups[k].Len != g.Len:
			bad = append(bad, fmt.Sprintf("%s has %d values, %d in %s", g.Label, g.Len, d.groups[k].Len, d.cfg.Ini))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: %s (the moses.ini's: %s)", ErrGroups, strings.Join(bad, "; "), feature.GroupsString(d.groups))
	}
	return nil
}

// lineCounter counts the lines written to it; a last line without a
// newline counts.
type lineCounter struct {
	newlines int
	open     bool // bytes after the last newline
}

func (c *lineCounter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		c.newlines += bytes.Count(p, []byte{'\n'})
		c.open = p[len(p)-1] != '\n'
	}
	return len(p), nil
}

// lines returns the number of lines written.
func (c *lineCounter) lines() int {
	if c.open {
		return c.newlines + 1
	}
	return c.newlines
}

// Tail keeps the last Max bytes written to it: a child's standard error,
// for the error that reports its failure.
type Tail struct {
	Max int
	buf []byte
	cut bool
}

func (t *Tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.Max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.Max:]...)
		t.cut = true
	}
	return len(p), nil
}

// String returns what was kept, after "…" when the start was cut.
func (t *Tail) String() string {
	if t.cut {
		return "…" + string(t.buf)
	}
	return string(t.buf)
}

// endsMax bounds the standard error Ends shows.
const endsMax = 300

// Ends returns "; its standard error ends: " and its last lines, for an
// error's end, or "" when nothing but blanks was written. It is one line
// (the lines are joined by " ⏎ ") of at most endsMax bytes of them, after
// "…" when some were left out: errors that cross a Beam runner are shown
// by their first line (pipelines.Cause).
func (t *Tail) Ends() string {
	var lines []string
	for _, l := range strings.Split(string(t.buf), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	cut := t.cut
	k, n := len(lines)-1, len(lines[len(lines)-1])
	for k > 0 && n+len(" ⏎ ")+len(lines[k-1]) <= endsMax {
		k--
		n += len(" ⏎ ") + len(lines[k])
	}
	msg := strings.Join(lines[k:], " ⏎ ")
	if k > 0 {
		cut = true
	}
	if len(msg) > endsMax {
		msg, cut = strings.ToValidUTF8(msg[len(msg)-endsMax:], ""), true
	}
	if cut {
		msg = "…" + msg
	}
	return "; its standard error ends: " + msg
}
