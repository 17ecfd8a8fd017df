//go:build unix

package shared

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time (user + system) the process has used so far,
// over all its threads; zero where the system cannot tell. Benchmarks
// report CPU seconds alongside wall time, which stays meaningful on a busy
// machine where wall time does not.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
