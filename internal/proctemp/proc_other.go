//go:build !unix

package proctemp

// startTime cannot tell whether pid runs: it says it does, so that no
// folder of a process is swept (legacy ones still are, by age).
func startTime(pid int) (uint64, bool) { return 0, true }
