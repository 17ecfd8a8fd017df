package tune

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/mtune/mtune/decoder/external"
	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/io/weights"
	"github.com/mtune/mtune/pool/poolfile"
)

// FeatureCommand is a feature added to the decoder's n-best lists by a
// command (mtune tune --feature-command NAME=CMD, batch mode): the command
// reads a Moses n-best list on its standard input and writes one score a
// line on its standard output, the k-th score the k-th n-best line's (as a
// wrapper around marian-scorer --n-best would). The feature is a dense one
// like the lists' own, the group Name of one component
// (feature.DenseName(Name, 0)), weighted by the weights files' "Name= w"
// line, as tune-nbest's --feature (poolfile.FeatureFile).
type FeatureCommand struct {
	// Name is the feature's label (poolfile.CheckFeatureName).
	Name string
	// Command is the command line, split into words as a POSIX shell
	// splits it, without expanding anything (external.Split, as
	// --decoder's); its program must be on PATH or a path, on the
	// workers too.
	Command string
}

// ParseFeatureCommand parses a value of --feature-command, NAME=CMD.
func ParseFeatureCommand(s string) (FeatureCommand, error) {
	name, cmd, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(cmd) == "" {
		return FeatureCommand{}, fmt.Errorf("%q: want NAME=COMMAND", s)
	}
	if err := poolfile.CheckFeatureName(name); err != nil {
		return FeatureCommand{}, err
	}
	if _, err := external.Split(cmd); err != nil {
		return FeatureCommand{}, fmt.Errorf("%s: %w", name, err)
	}
	return FeatureCommand{Name: name, Command: cmd}, nil
}

// Program returns the command's program when it is given as a path (its
// first word holds a "/"), else "": a run records its checksum with its
// inputs, so that --resume with another script is refused.
func (c FeatureCommand) Program() string {
	words, err := external.Split(c.Command)
	if err != nil || !strings.Contains(words[0], "/") {
		return ""
	}
	return words[0]
}

// String returns the command as --feature-command takes it, NAME=CMD.
func (c FeatureCommand) String() string { return c.Name + "=" + c.Command }

// FeatureInBatchOnly is why --feature-command is refused outside batch
// mode.
const FeatureInBatchOnly = "--feature-command applies to --mode batch, whose optimizer tunes on the pool of the n-best lists the command scored; ipm and stale learn from each mini-batch's lists as the decoder ranks them"

// FeatureCommands are the features a run adds to its decoded n-best lists
// by commands (FeatureCommand) and the run's dense features.
type FeatureCommands struct {
	Commands []FeatureCommand
	// Dense names the run's dense features, the added ones too: the
	// groups of its weights (pipelines' starting weights).
	Dense []string
	// Set ("tune" or "dev") and Source (its source file, as the run was
	// given it) name the set whose lists the commands score, in their
	// environment: MTUNE_SET and MTUNE_SOURCE. The lists' sentence ids
	// are the set's line numbers from 0; a scorer that needs the source
	// sentences (marian-scorer) reads them there.
	Set, Source string
}

// Check refuses a command without a name or command, two of one name, and
// a program not found (on PATH or as a path, as --decoder's is checked
// before any work: a worker would find it missing only after the epoch's
// decoding).
func (f FeatureCommands) Check() error {
	for i, c := range f.Commands {
		if _, err := ParseFeatureCommand(c.String()); err != nil {
			return fmt.Errorf("tune: --feature-command %w", err)
		}
		if slices.ContainsFunc(f.Commands[:i], func(d FeatureCommand) bool { return d.Name == c.Name }) {
			return fmt.Errorf("tune: --feature-command: two commands for the feature %s", c.Name)
		}
	}
	for _, c := range f.Commands {
		words, _ := external.Split(c.Command) // ParseFeatureCommand split it
		if _, err := exec.LookPath(words[0]); err != nil {
			return fmt.Errorf("tune: --feature-command %s: %w", c, err)
		}
	}
	return nil
}

// Names returns the added features' names (feature.DenseName(Name, 0)).
func (f FeatureCommands) Names() []string {
	var out []string
	for _, c := range f.Commands {
		out = append(out, feature.DenseName(c.Name, 0))
	}
	return out
}

// decoderDense returns Dense without the added features: the decoder's.
func (f FeatureCommands) decoderDense() []string {
	added := f.Names()
	return slices.DeleteFunc(slices.Clone(f.Dense), func(n string) bool { return slices.Contains(added, n) })
}

// DecoderWeights returns w without the added features' weights: what the
// decoder takes, which has no such feature (an external decoder would
// refuse the name).
func (f FeatureCommands) DecoderWeights(w weights.ByName) weights.ByName {
	if len(f.Commands) == 0 {
		return w
	}
	added := f.Names()
	var out weights.ByName
	for k, n := range w.Names {
		if !slices.Contains(added, n) {
			out.Names, out.Vals = append(out.Names, n), append(out.Vals, w.Vals[k])
		}
	}
	return out
}

// StartWeights returns the run's starting weights init with every added
// feature: the weight init gives it (an --init file's "Name= w" line),
// else 0, after the others.
func (f FeatureCommands) StartWeights(init weights.ByName) weights.ByName {
	out := weights.ByName{Names: slices.Clone(init.Names), Vals: slices.Clone(init.Vals)}
	for _, n := range f.Names() {
		if !slices.Contains(out.Names, n) {
			out.Names, out.Vals = append(out.Names, n), append(out.Vals, 0)
		}
	}
	return out
}

// Add runs each command once on lists (the n-best lists of some
// sentences, as the decoder gave them), written as one Moses n-best list
// by increasing sentence id, and returns the lists in that order with the
// commands' scores added. where names the lists in errors ("epoch 2,
// pool part 0"). A command that fails (its exit status and the end of its
// standard error), writes another number of lines than the list has, or a
// line that is not a finite number, is an error naming the command, where
// and the line (its sentence and hypothesis); so is a list that holds a
// feature of an added one's name. The commands' environment is the
// process's with MTUNE_SET and MTUNE_SOURCE (Set, Source). Each runs in
// a process group of its own (external.RunGroup): it and its children are
// killed when ctx is cancelled, when it exits, and when this process
// dies, even by SIGKILL.
func (f FeatureCommands) Add(ctx context.Context, lists []NBest, where string) ([]NBest, error) {
	if len(f.Commands) == 0 || len(lists) == 0 {
		return lists, nil
	}
	lists = slices.Clone(lists)
	slices.SortStableFunc(lists, func(a, b NBest) int { return a.Sent - b.Sent })
	dense := f.decoderDense()
	idx := feature.NewIndexOf(dense...)
	var text bytes.Buffer
	w := mosesWriter(&text, idx, dense)
	var lines [][2]int // sentence and hypothesis of each line
	for _, n := range lists {
		if err := writeList(w, n, idx); err != nil {
			return nil, fmt.Errorf("tune: %s: %w", where, err)
		}
		for k := range n.Hyps {
			lines = append(lines, [2]int{n.Sent, k})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("tune: %s: %w", where, err)
	}
	for _, c := range f.Commands {
		xs, err := c.run(ctx, text.Bytes(), lines, where, []string{"MTUNE_SET=" + f.Set, "MTUNE_SOURCE=" + f.Source})
		if err != nil {
			return nil, err
		}
		if lists, err = addScores(lists, feature.DenseName(c.Name, 0), xs); err != nil {
			return nil, fmt.Errorf("tune: --feature-command %s: %s: %w", c.Name, where, err)
		}
	}
	return lists, nil
}

// addScores returns lists with the feature name of value xs[k] added to
// the k-th hypothesis in list order.
func addScores(lists []NBest, name string, xs []float64) ([]NBest, error) {
	out := make([]NBest, len(lists))
	k := 0
	for i, n := range lists {
		if slices.Contains(n.Names, name) {
			return nil, fmt.Errorf("the decoder's n-best list of sentence %d has a feature %s already: give the added feature another name", n.Sent, name)
		}
		id := feature.ID(len(n.Names)) // after every id of the list's
		m := NBest{Sent: n.Sent, Names: append(slices.Clip(n.Names), name), Hyps: slices.Clone(n.Hyps)}
		for j := range m.Hyps {
			if x := xs[k]; x != 0 {
				v := m.Hyps[j].Features
				m.Hyps[j].Features = feature.Vector{IDs: append(slices.Clip(v.IDs), id), Vals: append(slices.Clip(v.Vals), x)}
			}
			k++
		}
		out[i] = m
	}
	return out, nil
}

// featureCommandStderr is how much of the end of a failed command's
// standard error its error shows.
const featureCommandStderr = 2048

// run runs the command on the n-best text whose lines are the sentences
// and hypotheses of lines, and returns its scores.
func (c FeatureCommand) run(ctx context.Context, text []byte, lines [][2]int, where string, env []string) ([]float64, error) {
	words, err := external.Split(c.Command)
	if err != nil {
		return nil, fmt.Errorf("tune: --feature-command %s: %w", c.Name, err)
	}
	cmd := exec.CommandContext(ctx, words[0], words[1:]...)
	cmd.Stdin = bytes.NewReader(text)
	cmd.Env = append(os.Environ(), env...)
	var stdout bytes.Buffer
	stderr := &external.Tail{Max: featureCommandStderr}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	name := fmt.Sprintf("--feature-command %s (%s)", c.Name, c.Command)
	if err := external.RunGroup(cmd); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("tune: %s: %s: %w", name, where, context.Cause(ctx))
		}
		return nil, fmt.Errorf("tune: %s: %s, %d n-best lines: %w%s", name, where, len(lines), err, stderr.Ends())
	}
	xs := make([]float64, 0, len(lines))
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		k := len(xs)
		if k == len(lines) {
			return nil, fmt.Errorf("tune: %s: %s: more output lines than the %d n-best lines", name, where, len(lines))
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(sc.Text()), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("tune: %s: %s: output line %d (sentence %d, hypothesis %d): %q is not a finite number",
				name, where, k+1, lines[k][0], lines[k][1], sc.Text())
		}
		xs = append(xs, x)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("tune: %s: %s: output line %d: %w", name, where, len(xs)+1, err)
	}
	if len(xs) != len(lines) {
		return nil, fmt.Errorf("tune: %s: %s: %d output lines for %d n-best lines (one score a line, the k-th the k-th n-best line's)",
			name, where, len(xs), len(lines))
	}
	return xs, nil
}
