//go:build linux

package tune_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mtune/mtune/decoder/external"
	"github.com/mtune/mtune/testsupport/proctest"
	"github.com/mtune/mtune/tune"
)

// TestFeatureCommandCancel cancels a feature command that is a wrapper
// script running a scorer of its own (as a marian-scorer wrapper does):
// the scorer dies with the script, and Add returns the context's error.
func TestFeatureCommandCancel(t *testing.T) {
	needShell(t)
	pidFile := filepath.Join(t.TempDir(), "child")
	script := "sleep 60 & echo $! > " + external.Quote([]string{pidFile}) + "; wait"
	f := tune.FeatureCommands{Commands: []tune.FeatureCommand{{Name: "rev", Command: "sh -c " + external.Quote([]string{script})}},
		Dense: []string{"LM0_0", "TM0_0", "TM0_1", "rev_0"}}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := f.Add(ctx, featureLists(), "epoch 1, pool part 0")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the deadline", err)
	}
	if s := time.Since(start); s > 4*time.Second {
		t.Errorf("Add returned after %v: the scorer held its output open", s)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the scorer %d outlived the cancellation", pid)
	}
}

// featureHelperEnv makes the test binary, re-executed by
// TestFeatureCommandParentKilled, run a feature command whose script
// writes its pid to the file the variable names and starts two sleep 555
// of its own, and stop there.
const featureHelperEnv = "MTUNE_FEATURE_HELPER"

// TestFeatureCommandParentKilled runs a feature command in a helper
// process (this test binary) and kills the helper with SIGKILL: every
// process of the command's group, the script's children too, must die.
func TestFeatureCommandParentKilled(t *testing.T) {
	needShell(t)
	if pidFile := os.Getenv(featureHelperEnv); pidFile != "" {
		script := "sleep 555 & sleep 555 & echo $$ > " + external.Quote([]string{pidFile + ".tmp"}) + "; mv " +
			external.Quote([]string{pidFile + ".tmp", pidFile}) + "; wait"
		f := tune.FeatureCommands{Commands: []tune.FeatureCommand{{Name: "rev", Command: "sh -c " + external.Quote([]string{script})}},
			Dense: []string{"LM0_0", "TM0_0", "TM0_1", "rev_0"}}
		f.Add(context.Background(), featureLists(), "epoch 1, pool part 0")
		return
	}
	pidFile := filepath.Join(t.TempDir(), "script")
	h := exec.Command(os.Args[0], "-test.run=^TestFeatureCommandParentKilled$")
	h.Env = append(os.Environ(), featureHelperEnv+"="+pidFile)
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(pidFile)
		if err == nil {
			if pid, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			h.Process.Kill()
			t.Fatalf("the feature command did not start: %v", err)
		}
	}
	pgid, err := syscall.Getpgid(pid)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-pgid, syscall.SIGKILL)
	h.Process.Kill()
	h.Wait()
	if !proctest.GroupGone(pgid, 10*time.Second) {
		t.Errorf("the feature command's process group %d outlived mtune's SIGKILL", pgid)
	}
}

// alive reports whether pid runs (a zombie, exited but not reaped, does
// not).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return !(i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z')
}
