package pipelines

import (
	"flag"
	"strconv"
	"strings"
)

// IsWorker reports whether args (without the program name) are those a
// Beam SDK worker is started with rather than an mtune command line. The
// Go SDK's boot program (in the Dataflow worker container, or behind a
// runner's PROCESS/EXTERNAL environment) runs the staged binary as
// "BIN --worker=true --id=… --logging_endpoint=… --control_endpoint=…
// --semi_persist_dir=…", without a sub-command; the harness's init hook,
// run by beam.Init, starts the harness exactly when the boolean flag
// "worker" parses as true, and so does IsWorker. A LOOPBACK worker runs
// inside the launching process and never comes here. The flags the Beam
// packages registered on flag.CommandLine tell which flags take a value.
func IsWorker(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			return false // flags end here: a sub-command or an argument
		}
		name, val, hasVal := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if name == "worker" {
			if !hasVal {
				return true
			}
			b, err := strconv.ParseBool(val)
			return err == nil && b
		}
		if f := flag.CommandLine.Lookup(name); f != nil && !hasVal && !isBoolFlag(f) {
			i++ // "--id X": X is the flag's value
		}
	}
	return false
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// RunnerWorkers returns the number of workers the runner's options give a
// job, Options.DecodeBatches' default: Beam's --num_workers, else
// --max_num_workers (the Dataflow runner's flags, which the Beam packages
// register on flag.CommandLine), else 1: a local runner's one process
// (prism and its loopback workers; prism's PROCESS environment starts one
// worker process a job). Beam's flags are the runner's configuration, read
// where the runner is chosen, as beamx.Run reads --runner.
func RunnerWorkers() int {
	for _, name := range []string{"num_workers", "max_num_workers"} {
		if f := flag.CommandLine.Lookup(name); f != nil {
			if n, err := strconv.Atoi(f.Value.String()); err == nil && n > 0 {
				return n
			}
		}
	}
	return 1
}
