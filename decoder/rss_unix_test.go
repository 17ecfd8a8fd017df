//go:build unix

package decoder

import "syscall"

// maxRSS returns the peak resident set size of the process in bytes (0
// where the system does not say).
func maxRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024 // Linux reports KiB
}
