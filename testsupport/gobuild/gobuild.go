// Package gobuild builds a command of this module for the tests that run
// it as a separate process (the worker binary of a PROCESS environment,
// an external decoder), as a user builds it.
package gobuild

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
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
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, gobin, "build", "-o", out, pkg)
	build.Dir = dir
	if msg, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	bin, err := filepath.EvalSymlinks(out)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
