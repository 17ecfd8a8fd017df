// Package proctemp makes temporary folders that the next process sweeps
// when their maker died without removing them (kill -9, a lost machine):
// each folder's name says which process made it, PREFIX-PID-START-HOST-
// RANDOM (START when the process started, HOST a hash of the host's
// name), and the first MkdirTemp of a prefix in a process removes the
// folders of that prefix whose process no longer runs on this host.
// Folders of another host (a shared TMPDIR) are left to their host's
// processes. A folder named PREFIX-RANDOM, as mtune made them before
// their names said their owner, is swept once untouched for LegacyAge.
package proctemp

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LegacyAge is how long a folder of the name an earlier mtune gave it
// (no owner in it) stays untouched before a sweep removes it: longer than
// any run writes nothing into its temporary folder.
const LegacyAge = 7 * 24 * time.Hour

var swept sync.Map // prefix → *sync.Once

// MkdirTemp makes a temporary folder in os.TempDir() named after prefix
// ("mtune-decoder") and this process (Owner), sweeping prefix's folders of
// dead processes first, once a process.
func MkdirTemp(prefix string) (string, error) {
	once, _ := swept.LoadOrStore(prefix, new(sync.Once))
	once.(*sync.Once).Do(func() { RemoveStale(os.TempDir(), prefix, time.Now()) })
	return os.MkdirTemp("", prefix+"-"+Owner(os.Getpid())+"-")
}

// Owner returns the part of a folder's name that says which process made
// it: "PID-START-HOST" (START 0 where the system cannot tell).
func Owner(pid int) string {
	start, _ := startTime(pid)
	return fmt.Sprintf("%d-%d-%s", pid, start, hostHash())
}

func hostHash() string {
	host, _ := os.Hostname()
	h := fnv.New32a()
	h.Write([]byte(host))
	return fmt.Sprintf("%08x", h.Sum32())
}

// RemoveStale removes the folders of dir named after prefix whose process of
// this host no longer runs (no process of its id, or one that started at
// another time), and those of the legacy name untouched since LegacyAge
// before now; it keeps the others. It removes what it can: a folder it
// cannot remove stays for the next sweep. It returns the paths removed.
func RemoveStale(dir, prefix string, now time.Time) []string {
	names, _ := filepath.Glob(filepath.Join(dir, prefix+"-*"))
	host := hostHash()
	var removed []string
	for _, path := range names {
		if !dead(strings.TrimPrefix(filepath.Base(path), prefix+"-"), host, path, now) {
			continue
		}
		if os.RemoveAll(path) == nil {
			removed = append(removed, path)
		}
	}
	return removed
}

// dead reports whether the folder path, whose name after the prefix is
// rest, belongs to no running process.
func dead(rest, host, path string, now time.Time) bool {
	f := strings.Split(rest, "-")
	pid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[min(1, len(f)-1)], 10, 64)
	if len(f) != 4 || err1 != nil || err2 != nil || pid <= 0 {
		// The legacy name, PREFIX-RANDOM (os.MkdirTemp's decimal
		// random part): by its age alone.
		fi, err := os.Lstat(path)
		return len(f) == 1 && err1 == nil && err == nil && fi.IsDir() && now.Sub(fi.ModTime()) > LegacyAge
	}
	if f[2] != host {
		return false
	}
	now0, alive := startTime(pid)
	return !alive || (start != 0 && now0 != 0 && now0 != start)
}
