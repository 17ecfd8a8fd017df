package external

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// tempPrefix starts the names of the decoder's temporary folders.
const tempPrefix = "mtune-decoder-"

// sweepOnce sweeps the temporary folder once a process, before its first
// run of a decoder.
var sweepOnce sync.Once

// owner returns the part of a temporary folder's name that says which
// process made it: "PID-START-HOST", START being when the process started
// (0 where the system cannot tell) and HOST a hash of the host's name, so
// that a folder shared by hosts keeps the others' folders.
func owner(pid int) string {
	start, _ := startTime(pid)
	return fmt.Sprintf("%d-%d-%s", pid, start, hostHash())
}

func hostHash() string {
	host, _ := os.Hostname()
	h := fnv.New32a()
	h.Write([]byte(host))
	return fmt.Sprintf("%08x", h.Sum32())
}

// mkdirTemp makes a temporary folder for a run of the decoder, in
// os.TempDir(), named mtune-decoder-PID-START-HOST-RANDOM (owner): a
// process killed before it removed its folder (kill -9) leaves it, and
// the next process to run a decoder on the host removes it (sweepTemp).
func mkdirTemp() (string, error) {
	sweepOnce.Do(func() { sweepTemp(os.TempDir()) })
	return os.MkdirTemp("", tempPrefix+owner(os.Getpid())+"-")
}

// sweepTemp removes the folders of dir that mkdirTemp made for a process
// of this host that no longer runs (no process of its id, or one that
// started at another time), and keeps the others. It removes what it can:
// a folder it cannot remove stays for the next sweep.
func sweepTemp(dir string) {
	names, _ := filepath.Glob(filepath.Join(dir, tempPrefix+"*"))
	host := hostHash()
	for _, path := range names {
		f := strings.Split(strings.TrimPrefix(filepath.Base(path), tempPrefix), "-")
		if len(f) != 4 || f[2] != host {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		start, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil || pid <= 0 {
			continue
		}
		if now, alive := startTime(pid); alive && (start == 0 || now == 0 || now == start) {
			continue
		}
		os.RemoveAll(path)
	}
}
