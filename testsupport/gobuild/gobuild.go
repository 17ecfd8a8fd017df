// Package gobuild builds a command of this module for the tests that run
// it as a separate process (the worker binary of a PROCESS environment,
// an external decoder), as a user builds it.
package gobuild

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mtune/mtune/internal/proctemp"
)

// Binary builds the package pkg (a path relative to dir, such as
// "./cmd/mtune") with the go command run in dir, into out, and returns
// out with its symbolic links resolved (as /proc/PID/exe shows it). The
// test is skipped when there is no go command, and fails when the build
// does.
func Binary(t testing.TB, dir, pkg, out string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build %s with: %v", pkg, err)
	}
	bin, err := build(gobin, dir, pkg, out)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func build(gobin, dir, pkg, out string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gobin, "build", "-o", out, pkg)
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
	}
	return filepath.EvalSymlinks(out)
}

// shared are Shared's builds, by dir and package.
var shared struct {
	sync.Mutex
	dir  string // the folder of the builds (proctemp: swept if the test process is killed)
	bins map[[2]string]sharedBin
}

type sharedBin struct {
	path string
	err  error
}

// Shared is Binary for the tests of a package that run one command: the
// first call builds it, the others of the process get the same binary
// (or the same error), so that the package's test binary links it once.
// The binary is never written again: a test must not change it.
// RemoveShared, called from TestMain, removes the builds.
func Shared(t testing.TB, dir, pkg string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build %s with: %v", pkg, err)
	}
	shared.Lock()
	defer shared.Unlock()
	key := [2]string{dir, pkg}
	b, ok := shared.bins[key]
	if !ok {
		if shared.dir == "" {
			if shared.dir, err = proctemp.MkdirTemp("mtune-gobuild"); err != nil {
				t.Fatal(err)
			}
			shared.bins = map[[2]string]sharedBin{}
		}
		out := filepath.Join(shared.dir, fmt.Sprint(len(shared.bins)), filepath.Base(pkg))
		if b.err = os.MkdirAll(filepath.Dir(out), 0o777); b.err == nil {
			b.path, b.err = build(gobin, dir, pkg, out)
		}
		shared.bins[key] = b
	}
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// RemoveShared removes the binaries Shared built.
func RemoveShared() {
	shared.Lock()
	defer shared.Unlock()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
		shared.dir, shared.bins = "", nil
	}
}
