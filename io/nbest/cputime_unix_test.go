//go:build unix

package nbest

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user + system) the process has used, over
// all threads. Benchmarks report throughput per CPU second too, which
// stays meaningful on a busy machine where wall time does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
