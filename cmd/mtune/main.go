// Command mtune tunes the weights of phrase-based translation models.
//
// One binary with sub-commands; `mtune help` lists them and
// `mtune help COMMAND` shows a command's flags. The commands parse flags and
// wire packages together; the work lives in the library packages.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/internal/cliflag"
	"github.com/mtune/mtune/internal/option"
	"github.com/mtune/mtune/io/nbest"
	"github.com/mtune/mtune/io/storage"
	"github.com/mtune/mtune/learner/algo"
	"github.com/mtune/mtune/pipelines"
	"github.com/mtune/mtune/tune"
)

// command is one sub-command of mtune.
type command struct {
	name    string
	summary string
	// usage is the argument synopsis shown after "mtune NAME".
	usage string
	// flags registers the command's flags on fs and returns the function
	// that runs it with the remaining arguments.
	flags func(fs *flag.FlagSet) runFunc
	// noArgs marks a command that takes flags only: positional arguments
	// are a usage error, reported before the command runs.
	noArgs bool
	// multi names the flags that take several values after one flag
	// ("--nbest a b c"); only for commands without positional arguments.
	multi []string
	// groups, if any, order the help's flags under headings; the flags of
	// no group are Beam's, shown by "mtune help beam".
	groups []flagGroup
	// examples are command lines the help shows after the flags.
	examples []string
	// rewrite, if not nil, rewrites the arguments before they are parsed:
	// the options of another program's command line that Go's flag
	// package cannot take (decode's Moses -n-best-list FILE N distinct).
	rewrite func(args []string) ([]string, error)
	// keepOutput shows what was written before a failure (registry status: the status, then the error)
	keepOutput bool
}

// runFunc runs a command with its positional arguments, once its flags are
// parsed.
type runFunc func(ctx context.Context, a *app, args []string) error

// flagGroup is a heading of a command's help and the flags under it.
type flagGroup struct {
	heading string
	names   []string
}

// app is what every command writes to.
type app struct {
	stdout io.Writer
	stderr io.Writer
	stdin  io.Reader
}

// commandLine is the command line of command cmd as a run's manifest
// records it.
func commandLine(cmd string) []string {
	return append([]string{"mtune", cmd}, os.Args[min(len(os.Args), 2):]...)
}

// usageError marks an error in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// exitError is an error with an exit status of its own (retrain's 75,
// "busy").
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// commands are mtune's sub-commands, in the order help lists them. Each
// one's flags function, in a file named after it, registers its flags and
// returns the code that runs it.
var commands = []command{
	{
		name:    "score",
		summary: "corpus BLEU of a translation against one or more references, printed as multi-bleu.perl does",
		usage:   "-r REF [-r REF2 …] [--metric NAME[:KEY=VALUE…][:W],…] [--signature] [--tokenize none|13a] [--lowercase] [--json] [HYP]",
		flags:   scoreFlags,
	},
	{
		name:    "rerank",
		summary: "the best hypothesis of each sentence of n-best lists under given weights (BLEU on stderr with -r)",
		usage:   "--weights W [--sparse-weights S] --nbest F… [--nbest-format " + strings.Join(nbest.FormatNames(), "|") + "] [--feature NAME=FILE…] [-r REF… | --metric external --scores S…] [--out-nbest F] [--detok]",
		noArgs:  true,
		multi:   nbestMulti,
		flags:   rerankFlags,
	},
	{
		name:    "extract",
		summary: "pool n-best lists and write their features and BLEU statistics as Moses' extractor does",
		usage:   "--nbest F… [--nbest-format FORMAT] [--feature NAME=FILE…] (-r REF… | --metric external --scores S…) --out DIR [--threads N]",
		noArgs:  true,
		multi:   nbestMulti,
		flags:   extractFlags,
	},
	{
		name:    "tune-nbest",
		summary: "tune weights on n-best lists you already have (no decoder): any batch or online learner",
		usage:   "--algo " + strings.Join(algo.Names(), "|") + " [--loss L] [--l1 λ] [--l2 λ] [--noise δ] [--init W] --nbest F… [--nbest-format FORMAT] [--feature NAME=FILE…] (-r REF… | --metric external --scores S…) --out DIR [--epochs N] [--seed N] [--threads N]",
		noArgs:  true,
		multi:   nbestMulti,
		flags:   tuneNbestFlags,
	},
	{
		name:    "build",
		summary: "build a phrase-based model (phrase table, reordering table, KN language model, moses.ini) from a word-aligned bitext",
		usage:   "--src F --tgt E --align A [--lines 1-8000] [--lm-order 5] [--max-phrase 7] --out DIR | --demo --out DIR",
		noArgs:  true,
		flags:   buildFlags,
	},
	{
		name:    "decode",
		summary: "translate with a phrase-based model from a moses.ini: 1-best to stdout, n-best lists in Moses' format",
		usage:   "--config moses.ini [--weights W] [--sparse-weights S] [--nbest N --nbest-out F] [--threads N] [--search-algorithm normal|cube [--cube-pruning-pop-limit N] [--cube-pruning-diversity N]] [INPUT]\n   or: mtune decode -f moses.ini [-weight-overwrite 'Name= v …'] [-weight-file S] [-n-best-list F N [distinct]] [-threads N|all] [-input-file F] [-show-weights] (Moses' command line)",
		flags:   decodeFlags,
		rewrite: mosesDecodeArgs,
	},
	{
		name:    "tune",
		summary: "tune a model's weights on Apache Beam (no flags: tune the embedded demo system on the local runner)",
		usage:   "[--config moses.ini --src F --ref R… [--dev-src F --dev-ref R…]] [--mode ipm|batch|stale " + option.Usage(tune.StaleOptions{}) + "] [--feature-command NAME=CMD (batch)] [--mix linesearch|average] [--algo " + strings.Join(append(algo.OnlineNames(), algo.BatchNames()...), "|") + "] [--minibatch N] [--epochs N] [--nbest N] [--sparse pt,lo,…] " + option.Usage(pipelines.ShardOptions{}) + " [--search-algorithm normal|cube] [--decoder \"CMD …\"] [--seed N] [--out DIR] [--resume|--overwrite] [--init W] [--runner prism|direct|dataflow|universal …]",
		noArgs:  true,
		multi:   []string{"ref", "r", "dev-ref"},
		groups:  tuneFlagGroups,
		examples: []string{
			"mtune tune --epochs 1 --out demo-run      # the embedded demo system, one epoch on prism",
			"mtune tune --config $MODEL_PATH/moses.ini --src tune.fr --ref tune.en --dev-src dev.fr --dev-ref dev.en --sparse all --epochs 4 --out run1",
			"mtune tune --config moses.ini --src tune.fr --ref tune.en --mode batch --algo mert --epochs 8 --out mert-run",
		},
		flags: tuneFlags,
	},
	{
		name:    "retrain",
		summary: "one night of nightly retraining: tune from the promoted weights into a registry, promote the result if it is significantly better on the dev set (no data flags: the embedded demo)",
		usage:   "--registry R [--run-id ID] [--min-gain G] [--max-p P] [--bootstrap N] [every data, learner and pipeline flag of tune but --init: --config moses.ini --src F --ref R… --dev-src F --dev-ref R… --eval-tune --search-algorithm normal|cube …]",
		noArgs:  true,
		multi:   []string{"ref", "r", "dev-ref"},
		groups:  retrainFlagGroups,
		examples: []string{
			"mtune retrain --registry nightly --run-id night-1 --epochs 1      # the embedded demo system",
			"mtune retrain --registry gs://bucket/nightly --config moses.ini --src new.fr --ref new.en --dev-src dev.fr --dev-ref dev.en --sparse all --epochs 4",
		},
		flags: retrainFlags,
	},
	{
		name:    "adopt",
		summary: "give folders an mtune before the record wrote (runs, builds, registries) the record that makes them mtune's again: the files of mtune's names become its own, the others stay yours",
		usage:   "DIR…", flags: adoptFlags,
	},
	{
		name:    "registry",
		summary: "a retraining registry: status (what is promoted, since when), history (every night as a table), rollback [--to ID] (put an earlier night's weights back), repair (drop history lines and rebuild a promoted.json that do not parse)",
		usage:   "status|history|rollback|repair --registry R [--to ID]",
		flags:   registryFlags, keepOutput: true,
	},
}

func main() {
	if pipelines.IsWorker(os.Args[1:]) {
		// Started as a Beam SDK worker: hand over to Beam's harness
		// (see pipelines.IsWorker). Every DoFn is registered by the
		// packages this binary imports (pipelines, transforms), as on the
		// launcher.
		flag.Parse()
		beam.Init() // runs the harness; exits the process when it ends
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, os.Args[1:], &app{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin})
	stop()
	os.Exit(code)
}

// runMain executes the command line args and returns the exit status.
func runMain(ctx context.Context, args []string, a *app) int {
	slog.SetDefault(slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	if len(args) == 0 {
		printHelp(a.stderr)
		return 2
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "--help" || name == "-help" {
		if len(args) > 1 && args[1] == "beam" {
			printBeamHelp(a.stdout)
			return 0
		}
		if len(args) > 1 {
			if c, ok := lookup(args[1]); ok {
				fs, _ := newFlagSet(c, a.stdout)
				fs.SetOutput(a.stdout)
				fs.Usage()
				return 0
			}
			fmt.Fprintf(a.stderr, "mtune: unknown command %q\n", args[1])
			return 2
		}
		printHelp(a.stdout)
		return 0
	}
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(a.stderr, "mtune: unknown command %q (see 'mtune help')\n", name)
		return 2
	}
	fs, runFn := newFlagSet(c, a.stderr)
	cmdArgs := args[1:]
	if c.rewrite != nil {
		var err error
		if cmdArgs, err = c.rewrite(cmdArgs); err != nil {
			fmt.Fprintf(a.stderr, "mtune %s: %v\nusage: mtune %s %s\n", c.name, err, c.name, c.usage)
			return 2
		}
	}
	positional, err := cliflag.ParseInterspersed(fs, cliflag.ExpandMulti(cmdArgs, c.multi))
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	// Standard output is held back until the command succeeds: a failure
	// leaves none of it, no partial file where it is redirected.
	spool := &storage.Spool{}
	defer spool.Discard()
	if err = runFn(ctx, &app{stdout: spool, stderr: a.stderr, stdin: a.stdin}, positional); err == nil || c.keepOutput {
		if cerr := spool.Commit(a.stdout); err == nil {
			err = cerr
		}
	}
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(a.stderr, "mtune %s: %v\n", c.name, err)
			fmt.Fprintf(a.stderr, "usage: mtune %s %s\n", c.name, c.usage)
			return 2
		}
		fmt.Fprintf(a.stderr, "mtune %s: %s\n", c.name, userMessage(err))
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		return 1
	}
	return 0
}

// packageTags are the names mtune's packages put before their errors
// ("pipelines: corpus: src:2: …"), which a user need not read: the
// command's name comes first, and the file and line say where.
var packageTags = []string{"pipelines", "tune", "rundir", "corpus", "storage", "weights", "nbest", "registry", "model", "decoder", "poolfile", "transforms", "algo"}

// userMessage is err's message without the package tags it starts with,
// so that "mtune tune: pipelines: corpus: src:2: empty source line" reads
// "mtune tune: src:2: empty source line". A tag is a package's name and
// ": " (a file so named, at the start, reads "NAME:LINE:" or "NAME: …"
// after a word such as "open", and so stays).
func userMessage(err error) string {
	msg := err.Error()
	for {
		name, rest, ok := strings.Cut(msg, ": ")
		if !ok || !slices.Contains(packageTags, name) || rest == "" {
			return msg
		}
		msg = rest
	}
}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func newFlagSet(c command, out io.Writer) (*flag.FlagSet, runFunc) {
	fs := flag.NewFlagSet("mtune "+c.name, flag.ContinueOnError)
	fs.SetOutput(out)
	runCmd := c.flags(fs)
	gcsTimeout := fs.Duration("gcs-timeout", storage.DefaultTimeout, "give up a gs:// request after retrying transient errors this long (each retry is logged)")
	runFn := func(ctx context.Context, a *app, args []string) error {
		if *gcsTimeout <= 0 {
			return usagef("--gcs-timeout %s: must be positive", *gcsTimeout)
		}
		if c.noArgs && len(args) > 0 {
			return usagef("unexpected arguments %q", args)
		}
		storage.SetGCSTimeout(*gcsTimeout)
		return runCmd(ctx, a, args)
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: mtune %s %s\n\n%s\n\n", c.name, c.usage, c.summary)
		if len(c.groups) == 0 {
			fmt.Fprintln(fs.Output(), "flags:")
			fs.PrintDefaults()
			return
		}
		printGroups(fs, c.groups)
		if len(c.examples) > 0 {
			fmt.Fprintln(fs.Output(), "examples:")
			for _, e := range c.examples {
				fmt.Fprintf(fs.Output(), "  %s\n", e)
			}
			fmt.Fprintln(fs.Output())
		}
		fmt.Fprintf(fs.Output(), "Beam's flags (--project, --region, --temp_location, --environment_type, …) are accepted too: mtune help beam\n")
	}
	return fs, runFn
}

// printGroups prints fs's flags under the headings of groups (mtune's
// own; Beam's are printBeamHelp's).
func printGroups(fs *flag.FlagSet, groups []flagGroup) {
	for _, g := range groups {
		fmt.Fprintf(fs.Output(), "%s flags:\n", g.heading)
		sub := flag.NewFlagSet("", flag.ContinueOnError)
		sub.SetOutput(fs.Output())
		for _, n := range g.names {
			if f := fs.Lookup(n); f != nil {
				sub.Var(f.Value, f.Name, f.Usage)
			}
		}
		sub.PrintDefaults()
		fmt.Fprintln(fs.Output())
	}
}

// printBeamHelp prints Beam's flags ("mtune help beam"): those the Beam
// packages register, which tune and retrain accept besides their own
// (registerTuneFlags: --runner is among tune's pipeline flags too); a "(required)" in them is the runner's (Dataflow's
// --project, --region, --temp_location …), not mtune's.
func printBeamHelp(w io.Writer) {
	fmt.Fprintln(w, "Beam's flags, accepted by mtune tune and mtune retrain (the runner and its options; see Beam's")
	fmt.Fprintln(w, "documentation; \"(required)\" means required by the runner that uses the flag, e.g. Dataflow):")
	fmt.Fprintln(w)
	sub := flag.NewFlagSet("", flag.ContinueOnError)
	sub.SetOutput(w)
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if isBeamFlag(f) {
			sub.Var(f.Value, f.Name, f.Usage)
		}
	})
	sub.PrintDefaults()
}

// isBeamFlag reports whether f, a flag of flag.CommandLine, is one the
// Beam packages registered (not the testing package's).
func isBeamFlag(f *flag.Flag) bool { return !strings.HasPrefix(f.Name, "test.") }

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "mtune tunes the weights of phrase-based translation models.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: mtune COMMAND [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-12s %s\n", "help", "show this list, or a command's flags: mtune help COMMAND (Beam's flags: mtune help beam)")
}
