//go:build unix

package proctemp

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// startTime returns when process pid started (Linux: /proc's start time,
// in clock ticks since boot), 0 where it cannot tell, and whether pid runs.
func startTime(pid int) (uint64, bool) {
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// Fields after the command's ")": state is field 3, start time 22.
		i := strings.LastIndexByte(string(stat), ')')
		f := strings.Fields(string(stat[i+1:]))
		if len(f) > 19 && f[0] != "Z" {
			if t, err := strconv.ParseUint(f[19], 10, 64); err == nil {
				return t, true
			}
		}
		return 0, len(f) > 0 && f[0] != "Z"
	}
	err := syscall.Kill(pid, 0)
	return 0, err == nil || errors.Is(err, syscall.EPERM)
}
