package proctemp

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestRemoveStale: a sweep removes the folders of dead processes of this host
// and the legacy folders untouched for LegacyAge, and keeps a live
// process's, another host's, a fresh legacy one, a file of the legacy
// name and another prefix's.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	// A process that ran and ended: its pid names no process of its
	// start time now.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("no true(1): %v", err)
	}
	dead := Owner(cmd.Process.Pid)
	now := time.Now()
	old := now.Add(-LegacyAge - time.Hour)
	mk := func(name string, file bool, mtime time.Time) string {
		p := filepath.Join(dir, name)
		var err error
		if file {
			err = os.WriteFile(p, nil, 0o666)
		} else {
			err = os.Mkdir(p, 0o777)
		}
		if err == nil {
			err = os.Chtimes(p, mtime, mtime)
		}
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := []string{
		mk("mtune-x-"+dead+"-123", false, now),
		mk("mtune-x-1234567", false, old), // legacy, a week untouched
	}
	kept := []string{
		mk("mtune-x-"+Owner(os.Getpid())+"-9", false, old),                       // alive
		mk("mtune-x-"+strconv.Itoa(cmd.Process.Pid)+"-0-0000beef-1", false, old), // another host's
		mk("mtune-x-7654321", false, now),                                        // legacy, fresh
		mk("mtune-x-2222222", true, old),                                         // a file
		mk("mtune-y-"+dead+"-5", false, old),                                     // another prefix
		mk("mtune-x-notes", false, old),                                          // not a random number
	}
	removed := RemoveStale(dir, "mtune-x", now)
	slices.Sort(removed)
	slices.Sort(gone)
	if !slices.Equal(removed, gone) {
		t.Errorf("swept %v, want %v", removed, gone)
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s swept: %v", p, err)
		}
	}
}

// TestMkdirTemp: the folder is named after the prefix and its process,
// and a dead process's folder of the prefix is gone after the first call.
func TestMkdirTemp(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("no true(1): %v", err)
	}
	stale := filepath.Join(tmp, "mtune-test-"+Owner(cmd.Process.Pid)+"-1")
	if err := os.Mkdir(stale, 0o777); err != nil {
		t.Fatal(err)
	}
	d, err := MkdirTemp("mtune-test")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(tmp, "mtune-test-"+Owner(os.Getpid())+"-"); len(d) <= len(want) || d[:len(want)] != want {
		t.Errorf("MkdirTemp made %s, want %s…", d, want)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead process's %s is not swept: %v", stale, err)
	}
}
