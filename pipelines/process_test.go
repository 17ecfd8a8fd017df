//go:build unix

package pipelines_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/mtune/mtune/rundir"
	"github.com/mtune/mtune/testsupport/gobuild"
)

// TestProcessEnvironment runs two epochs of the small demo (ipm, 2 shards,
// every sparse template on) with the SDK worker in a process of its own,
// as on a cluster: prism with --environment_type=PROCESS, whose command is
// scripts/prism-process-worker.sh, which turns prism's
// "CMD --id='ID' --provision_endpoint=EP" into
// "mtune --worker=true --id=ID --control_endpoint=EP --logging_endpoint=EP"
// (see the script for why), mtune being built by the test from ./cmd/mtune.
// Every epoch's weights.json must be identical, byte for byte, to the same
// run in process (prism's LOOPBACK environment, as every other test runs),
// although each epoch's worker process loads its decoder anew while the
// run in process decodes its second epoch with its first epoch's decoder;
// every epoch must have started a worker process, and no worker process
// may outlive its epoch.
func TestProcessEnvironment(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds mtune and runs two epochs twice, once with worker processes")
	}
	const epochs = 2
	d := smallDemo(t)
	tmp := t.TempDir()

	// The worker binary: this module's mtune, as a user builds it.
	bin := gobuild.Shared(t, "..", "./cmd/mtune")
	script, err := filepath.Abs(filepath.Join("..", "scripts", "prism-process-worker.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(script); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("%s must exist and be executable: %v", script, err)
	}
	// The environment's command records each start (its pid: the exec
	// chain keeps it, so it is the worker's) before handing over to the
	// script.
	launches := filepath.Join(tmp, "launches")
	command := filepath.Join(tmp, "worker.sh")
	if err := os.WriteFile(command, []byte(fmt.Sprintf("#!/bin/sh\necho $$ >> %s\nexec %s \"$@\"\n",
		shellQuote(launches), shellQuote(script))), 0o755); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`{"command": %s, "env": {"MTUNE_WORKER_BINARY": %s}}`, strconv.Quote(command), strconv.Quote(bin))

	// In process: prism's LOOPBACK environment (execute, ptest's runner).
	ctx := context.Background()
	inproc := options(d, filepath.Join(tmp, "inproc"))
	inproc.Config, inproc.Epochs, inproc.Sparse = freshConfig(t, d.ini), epochs, []string{"all"}
	start := time.Now()
	mustRun(t, ctx, inproc)
	t.Logf("in process: %.1f s", time.Since(start).Seconds())

	// Worker processes: prism's PROCESS environment, set by Beam's flags as
	// on mtune's command line, restored when the test ends.
	setBeamFlags(t, map[string]string{
		"environment_type":   "PROCESS",
		"environment_config": config,
		"worker_binary":      bin, // staged by the launcher; the script runs bin itself
	})
	t.Cleanup(func() { killWorkers(t, launches, bin) })
	proc := options(d, filepath.Join(tmp, "process"))
	proc.Epochs, proc.Sparse = epochs, []string{"all"}
	proc.Execute = func(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error) {
		// prism, in this process; a worker that dies before it connects
		// leaves prism waiting, hence the deadline.
		ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		return beam.Run(ctx, "prism", p)
	}
	// The workers write their counts to the launch's progress folder:
	// the driver shows sentences decoded while an epoch runs and, as the
	// epoch's launch ends, the closing line with their final count (the
	// lines while it runs may all come before the workers decode: CI saw
	// a 0.9 s epoch whose decodings all fell between two ticks).
	var progress bytes.Buffer
	proc.Progress, proc.ProgressEvery = &progress, 10*time.Millisecond
	start = time.Now()
	mustRun(t, ctx, proc)
	t.Logf("worker processes: %.1f s", time.Since(start).Seconds())
	if !regexp.MustCompile(`(?m)^epoch [12]/2: [1-9]\d*/\d+ sentences decoded[, ]`).MatchString(progress.String()) {
		t.Errorf("no progress line counting the worker processes' decodings:\n%s", progress.String())
	}

	pids := readPids(t, launches)
	t.Logf("worker processes started: %v", pids)
	if len(pids) < epochs {
		t.Errorf("%d worker processes started for %d epochs, want one an epoch at least", len(pids), epochs)
	}
	for _, pid := range pids {
		if pid == os.Getpid() {
			t.Errorf("the worker ran in the test's process %d", pid)
		}
	}
	// prism kills an epoch's worker when its job ends: none is left.
	deadline := time.Now().Add(30 * time.Second)
	for _, pid := range pids {
		for workerAlive(pid, bin) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if workerAlive(pid, bin) {
			t.Errorf("worker process %d still runs after its epoch", pid)
		}
	}

	for e := 1; e <= epochs; e++ {
		a, err := os.ReadFile(filepath.Join(rundir.Layout{Root: inproc.Out}.Epoch(e).Dir, "weights.json"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(rundir.Layout{Root: proc.Out}.Epoch(e).Dir, "weights.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("epoch %d weights.json differs: in process\n%s\nworker processes\n%s", e, a, b)
		}
	}
}

// setBeamFlags sets flags of flag.CommandLine (Beam's) and, when t ends,
// restores every flag that changed meanwhile: prism's runner also sets
// --endpoint (and --environment_type when empty) on its first run, and
// the package's other tests need them as they were (an empty
// environment type with an endpoint would mean Docker).
func setBeamFlags(t *testing.T, set map[string]string) {
	t.Helper()
	saved := map[string]string{}
	flag.CommandLine.VisitAll(func(f *flag.Flag) { saved[f.Name] = f.Value.String() })
	t.Cleanup(func() {
		flag.CommandLine.VisitAll(func(f *flag.Flag) {
			if f.Value.String() != saved[f.Name] {
				if err := f.Value.Set(saved[f.Name]); err != nil {
					t.Errorf("restoring --%s=%q: %v", f.Name, saved[f.Name], err)
				}
			}
		})
	})
	for name, v := range set {
		if err := flag.CommandLine.Set(name, v); err != nil {
			t.Fatalf("--%s=%s: %v", name, v, err)
		}
	}
}

// readPids reads the pids the environment's command recorded.
func readPids(t *testing.T, file string) []int {
	t.Helper()
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// workerAlive reports whether pid is a live process running bin. Without
// Linux's /proc, any live process with that pid counts.
func workerAlive(pid int, bin string) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false // gone since
	}
	// "pid (comm) S …": a zombie (Z) has exited (prism reaps it).
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return false
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return err != nil || exe == bin // unreadable: count it
}

// killWorkers kills, and reports, any worker process still running.
func killWorkers(t *testing.T, launches, bin string) {
	for _, pid := range readPids(t, launches) {
		if workerAlive(pid, bin) {
			t.Errorf("killing leftover worker process %d", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
