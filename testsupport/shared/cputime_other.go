//go:build !unix

package shared

import "time"

// CPUTime returns zero: this system does not report the process' CPU time.
func CPUTime() time.Duration { return 0 }
