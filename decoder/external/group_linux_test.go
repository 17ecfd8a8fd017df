//go:build linux

package external

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mtune/mtune/internal/proctemp"
	"github.com/mtune/mtune/testsupport/proctest"
)

// helperEnv makes the test binary, re-executed by TestKilledParent, run
// the fake decoder (in the mode and folder it gives) and stop there.
const helperEnv = "MTUNE_EXTERNAL_HELPER"

// TestKilledParent runs the fake decoder in a helper process (this test
// binary) with a script whose own children are the workers (two sleep
// 555), kills the helper with SIGKILL, and checks that every process of
// the decoder's group dies; the helper's temporary folder, left behind,
// is removed by the next process that runs a decoder, and a live
// process's folder is kept.
func TestKilledParent(t *testing.T) {
	if h := os.Getenv(helperEnv); h != "" {
		mode, dir, _ := strings.Cut(h, ":")
		d, _ := fakeIn(t, dir, mode)
		_, err := d.NBestBatch(context.Background(), []int{0, 1, 2}, testSents, testWeights(d, false), 5, 1)
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	tmp, rec := t.TempDir(), t.TempDir()
	helper := func(mode string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledParent$")
		cmd.Env = append(os.Environ(), helperEnv+"="+mode+":"+rec, "TMPDIR="+tmp)
		return cmd
	}
	h := helper("spawn")
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	child := waitFile(t, filepath.Join(rec, "child"), 60*time.Second)
	pgid := processGroup(t, child)
	defer syscall.Kill(-pgid, syscall.SIGKILL)
	h.Process.Kill()
	h.Wait()

	if !proctest.GroupGone(pgid, 10*time.Second) {
		t.Errorf("the decoder's process group %d outlived mtune's SIGKILL", pgid)
	}

	stale, _ := filepath.Glob(filepath.Join(tmp, TempPrefix+"-*"))
	if len(stale) != 1 {
		t.Fatalf("the killed helper left %q, want its one temporary folder", stale)
	}
	// A live process's folder: this test's.
	t.Setenv("TMPDIR", tmp)
	live, err := os.MkdirTemp("", TempPrefix+"-"+proctemp.Owner(os.Getpid())+"-")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := helper("good").CombinedOutput(); err != nil {
		t.Fatalf("the next run: %v\n%s", err, out)
	}
	if _, err := os.Stat(stale[0]); !os.IsNotExist(err) {
		t.Errorf("the killed process's %s is not swept: %v", stale[0], err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the live process's folder is swept: %v", err)
	}
}

// waitFile waits for path to hold a number, and returns it.
func waitFile(t *testing.T, path string, wait time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			n, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not written after %v", path, wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processGroup returns the process group of pid, from /proc.
func processGroup(t *testing.T, pid int) int {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	pgid, err := strconv.Atoi(f[2])
	if err != nil {
		t.Fatal(err)
	}
	return pgid
}
